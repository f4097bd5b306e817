"""Campaigns of simulated points with the real evbench: `evbench-scan run`
starts `evbench sim --model credit` for them (4 nodes of the emulated 2x4
platform, 30 ms simulated: well under a second each), collects their results
as simulated, and keeps them apart from measured points of the same campaign."""
import csv
import json
import os

import pytest

from conftest import REPO, run_cli, write

PLATFORM = os.path.join(REPO, "configs", "platforms", "emulated-2x4.yaml")
OTHER_PLATFORM = os.path.join(REPO, "configs", "platforms", "sim-tree-16.yaml")

SIMULATED = """name: credit
sim: {model: credit, platform: %s}
config:
  nodes: 4
  fragment.size: 64KiB
  duration: 30ms
  warmup: 10ms
axes:
  scheduling: [barrel, random]
"""


def index_rows(out):
    with open(os.path.join(out, "index.csv")) as f:
        return list(csv.DictReader(f))


def result(out, pid):
    with open(os.path.join(out, "results", pid + ".json")) as f:
        return json.load(f)


def first_log_line(out, pid):
    with open(os.path.join(out, "logs", pid + ".log")) as f:
        return f.readline()


@pytest.mark.timeout(120)
def test_simulated_points_run_evbench_sim_and_are_collected_as_simulated(tmp_path, evbench):
    scan = write(tmp_path / "credit.yaml", SIMULATED % PLATFORM)
    out = str(tmp_path / "out")
    proc = run_cli(["run", scan, "-o", out], env={"EVBENCH": evbench})
    assert proc.returncode == 0, proc.stderr
    rows = index_rows(out)
    assert [r["point"] for r in rows] == ["p0001", "p0002"]
    meta = json.load(open(os.path.join(out, "campaign.json")))
    for row, entry in zip(rows, meta["points"]):
        pid = row["point"]
        doc = result(out, pid)
        res = doc["results"]
        assert res["status"] == "ok" and res["simulated"] is True
        assert res["simulation_model"] == "credit" and res["simulated_platform"] == PLATFORM
        assert doc["config"]["scheduling"] == row["scheduling"]
        # the variant says it was simulated, with what and on which platform
        assert row["variant"] == "%s (simulated: credit model, emulated-2x4)" % res["variant"]
        assert float(row["per_node_avg_gbps"]) == pytest.approx(res["bandwidth_gbps"]["per_node"]["avg"], rel=1e-5)
        point_file = os.path.join(out, "points", pid + ".yaml")
        assert first_log_line(out, pid).startswith("# %s sim %s --model credit --platform %s --json " % (
            evbench, point_file, PLATFORM))
        assert entry["sim"] == {"model": "credit", "platform": PLATFORM, "order": None}
        assert "driver" not in open(point_file).read()
    before = [os.stat(os.path.join(out, "results", p + ".json")).st_ino for p in ("p0001", "p0002")]
    assert run_cli(["run", scan, "-o", out], env={"EVBENCH": evbench}).returncode == 0
    assert [os.stat(os.path.join(out, "results", p + ".json")).st_ino for p in ("p0001", "p0002")] == before
    # Another platform is another point: its old result is discarded and it runs again.
    write(scan, SIMULATED % OTHER_PLATFORM)
    assert run_cli(["run", scan, "-o", out], env={"EVBENCH": evbench}).returncode == 0
    assert {result(out, p)["results"]["simulated_platform"] for p in ("p0001", "p0002")} == {OTHER_PLATFORM}
    assert {r["variant"].split(" (")[1] for r in index_rows(out)} == {"simulated: credit model, sim-tree-16)"}
