"""The congestion impact factor in the scan report (report/impact.py,
docs/USER_GUIDE.md "Background traffic"): congested configurations paired
with the isolated one (`background: []`, every other key equal), figures
as ratios of the repeats' medians with the repeats' spread, the plain
answer line; and a real scan with `background` as its axis, isolated and
congested points interleaved, reported and rendered in a browser."""
import json
import os

import pytest

from conftest import REAL, run_cli, write
from evbench_scan.report import impact


class Member:
    def __init__(self, gbps, p50, p99, background, bg_gbps=0.0):
        self.figures = {"aggregate_gbps": gbps}
        self.doc = {"results": {"latency_ms": {"p50": p50, "p99": p99},
                                "background": [{"gbps": bg_gbps}] if background else []}}


class FakeRow:
    def __init__(self, background, members, credits=2):
        self.members, self.builder = members, True
        self.config = {"background": background, "credits": credits, "variant": "tcp"}

    def value(self, k):
        return self.config.get(k)


INCAST = [{"pattern": "incast", "ranks": 3, "size": 65536, "in_flight": 4}]


def test_ratios_of_medians_with_the_repeats_spread_and_the_answer():
    isolated = FakeRow([], [Member(10.0, 1.0, 2.0, False), Member(12.0, 1.0, 2.0, False)])
    congested = FakeRow(INCAST, [Member(6.0, 2.0, 8.0, True, 3.0), Member(5.0, 2.0, 8.0, True, 3.0)])
    other = FakeRow(INCAST, [Member(1.0, 1.0, 1.0, True)], credits=4)   # no isolated twin: left out
    table, said = impact.impact([congested, isolated, other])
    assert len(table.body) == 1
    row = table.body[0]
    assert row[0] == "incast of 3 ranks, 64 KiB x 4 in flight"
    assert row[2] == "%.3f (%.3f–%.3f)" % (5.5 / 11, 5 / 12, 6 / 10)
    assert row[3].startswith("2.000") and row[4].startswith("4.000")
    assert len(said) == 1
    assert said[0].text.startswith("The builder loses 50 % ± ")
    assert "under incast of 3 ranks" in said[0].text and "background 3.000 Gb/s" in said[0].text
    assert said[0].facts["impact_factor"] == pytest.approx(0.5)


def test_no_isolated_point_no_impact():
    table, said = impact.impact([FakeRow(INCAST, [Member(1.0, 1.0, 1.0, True)])])
    assert table is None and said == []


@pytest.mark.timeout(240)
def test_a_background_axis_is_reported_with_its_impact(tmp_path):
    browser = pytest.importorskip("browser")
    scan = write(tmp_path / "bg.yaml", """name: bg
config:
  nodes: 2
  evm: with-rank0
  duration: 500ms
  warmup: 100ms
  fragment.size: 64KiB
repeats: 2
axes:
  background: ['[]', '[{pattern: incast, ranks: 3, size: 64KiB, in_flight: 4}]']
""")
    out = str(tmp_path / "camp")
    env = {"EVBENCH": REAL}
    proc = run_cli(["run", scan, "-o", out], env=env, timeout=200)
    assert proc.returncode == 0, proc.stderr
    with open(os.path.join(out, "campaign.json")) as f:
        order = [p for p in json.load(f)["order"]["run_order"]]
    assert len(order) == 4
    rep = str(tmp_path / "rep")
    proc = run_cli(["report", out, "-o", rep], env=env)
    assert proc.returncode == 0, proc.stderr
    with open(os.path.join(rep, "report.md")) as f:
        md = f.read()
    assert "## Congestion impact factor" in md
    assert "- The builder " in md and "of its throughput under incast of 3 ranks" in md
    with open(os.path.join(rep, "summary.json")) as f:
        summary = json.load(f)
    assert len(summary["impact"]) == 1 and summary["answers"][0]["impact_factor"] > 0
    assert "impact.png" in summary["figures"]
    assert os.path.getsize(os.path.join(rep, "impact.png")) > 1000
    browser.assert_renders(os.path.join(rep, "report.html"), screenshot=str(tmp_path / "shot.png"))
