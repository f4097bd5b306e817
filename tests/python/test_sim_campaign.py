"""Campaigns of simulated points with the real evbench: `evbench-scan run`
starts `evbench sim --model credit` for them (4 nodes of the emulated 2x4
platform, 30 ms simulated: well under a second each), collects their results
as simulated, and keeps them apart from measured points of the same campaign."""
import csv
import json
import os

import pytest

import synthetic
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


def test_measured_and_simulated_are_never_ranked_together(tmp_path):
    """Hand-written results, two runs each: tcp measured at 10 and 11 Gb/s, ucx
    at 20 and 21; the credit model simulated at 1 and 2. Each kind is answered
    on its own, and what the simulation set itself (poll_mode) is not a key
    that tells configurations apart."""
    def simulated(rate):
        doc = synthetic.result("sim/credit send", rate, poll_mode="block")
        doc["results"].update(simulated=True, simulation_model="credit", simulated_platform="/x/emulated-2x4.yaml")
        return doc
    points = [({"sim.model": None, "driver": "tcp"}, synthetic.result("tcp", rate, poll_mode="auto"))
              for rate in (10.0, 11.0)]
    points += [({"sim.model": None, "driver": "ucx"}, synthetic.result("ucx/sm write", rate, poll_mode="auto"))
               for rate in (20.0, 21.0)]
    points += [({"sim.model": "credit", "driver": None}, simulated(rate)) for rate in (1.0, 2.0)]
    out = synthetic.campaign(tmp_path / "c", points, ["sim.model", "driver"])
    rep = str(tmp_path / "report")
    assert run_cli(["report", out, "-o", rep], env={"EVBENCH": "/nonexistent/evbench"}).returncode == 0
    md = open(os.path.join(rep, "report.md")).read()
    answer = md.split("## Answer")[1].split("\n## ")[0]
    assert "- Measured and simulated (credit model on emulated-2x4) results are answered apart" in answer
    assert "Fastest variant: ucx/sm write, 20.50 Gb/s per node" in answer and "beats tcp by 95.2 %" in answer
    simulated_lines = [line for line in answer.splitlines() if "sim/credit" in line]
    assert simulated_lines == ["- Simulated: sim/credit send (simulated: credit model, emulated-2x4): best 1.50 "
                               "Gb/s per node (median of 2 runs, 1.00–2.00)."]
    variants = dict((r["variant"], r) for r in report_table(md, "Variants"))
    assert variants["ucx/sm write"]["vs the fastest"] == "fastest measured"
    assert variants["sim/credit send (simulated: credit model, emulated-2x4)"]["vs the fastest"] == "fastest simulated"
    assert variants["tcp"]["vs the fastest"].startswith("-")
    assert "poll_mode" not in md.split("## Configurations")[1].split("\n## ")[0]
    assert 'carry "(simulated: MODEL model, PLATFORM)" in their variant' in md


def report_table(md, title):
    block = md.split("## " + title)[1].split("\n## ")[0]
    lines = [line for line in block.splitlines() if line.startswith("|")]
    head = [c.strip() for c in lines[0].strip("|").split("|")]
    return [dict(zip(head, [c.strip() for c in line.strip("|").split("|")])) for line in lines[2:]]
