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


def per_shift(doc):
    """{"shift": {min, avg, max} per node} over a result's network shifts (as summary.json has them)."""
    return dict((str(s["shift"]), s["per_node"]) for s in doc["results"]["shifts"] if not s["local_copy"])


MIXED = """name: mixed
description: one-to-one by shift, measured here and simulated by the credit model
sim: {platform: %s}
config:
  protocol: one-to-one
  shift: scan
  nodes: 8
  fragment.size: 64KiB
  topology.platform: %s
  duration: 100ms
  warmup: 20ms
axes:
  sim.model: [~, credit]
""" % (PLATFORM, PLATFORM)


@pytest.mark.timeout(240)
def test_mixed_campaign_keeps_measured_and_simulated_apart(tmp_path, evbench):
    """sim.model: [~, credit]: one measured point (tcp here) and one credit-model
    point of the same shift scan. They are never ranked against each other, and
    the simulation is drawn beside the measurement, against topo's prediction."""
    out = str(tmp_path / "mixed")
    proc = run_cli(["run", write(tmp_path / "mixed.yaml", MIXED), "-o", out], env={"EVBENCH": evbench},
                   timeout=200)
    assert proc.returncode == 0, proc.stderr
    measured, simulated = result(out, "p0001"), result(out, "p0002")
    assert "simulated" not in measured["results"] and simulated["results"]["simulated"] is True
    rows = index_rows(out)
    assert [r["variant"] for r in rows] == [measured["results"]["variant"], "%s (simulated: credit model, "
                                            "emulated-2x4)" % simulated["results"]["variant"]]
    rep = str(tmp_path / "report")
    proc = run_cli(["report", out, "-o", rep], env={"EVBENCH": "/nonexistent/evbench"})
    assert proc.returncode == 0, proc.stderr      # the campaign's own simulation: no binary needed
    md = open(os.path.join(rep, "report.md")).read()
    answer = md.split("## Answer")[1].split("\n## ")[0]
    assert "results are answered apart, never ranked against each other" in answer
    for line in answer.splitlines():   # no sentence sets one kind against the other
        assert not ("simulated:" in line and measured["results"]["variant"] + " " in line), line
    assert "Simulated: Over 8 nodes and 7 network shifts the simulated per-node rate averages" in answer
    variants = md.split("## Variants")[1].split("\n## ")[0]
    assert "| fastest measured |" in variants and "| fastest simulated |" in variants
    # What the simulation sets itself (poll_mode, page_size) is said by the variant, not a column.
    configurations = md.split("## Configurations")[1].split("\n## ")[0]
    assert "poll_mode" not in configurations and "page_size" not in configurations
    summary = json.load(open(os.path.join(rep, "summary.json")))
    beside = summary["shift_scans"][0]["simulated_beside"]
    assert summary["shift_scans"][0]["points"] == ["p0001"] and beside["source"] == "points p0002"
    assert beside["per_node_gbps"] == per_shift(simulated)
    assert "## Measured vs predicted and simulated:" in md
    assert os.path.isfile(os.path.join(rep, "predicted_0.png"))
    assert not os.path.exists(os.path.join(rep, "predicted_1.png"))   # drawn beside p0001, not alone
    browser = pytest.importorskip("browser")
    browser.assert_renders(os.path.join(rep, "report.html"), screenshot=os.path.join(rep, "screenshot.png"))


NETNS_RESULT = os.path.join(REPO, "tests", "integration", "data", "netns-shift-scan-platform.json")


@pytest.mark.timeout(180)
def test_report_platform_runs_the_credit_model_beside_a_measured_scan(tmp_path, evbench):
    """report --platform FILE on a measured shift scan the campaign has not
    simulated (the emulated cluster's, measured over its 1 Gbit/s links): the
    report runs `evbench sim --model credit` with that run's configuration on
    FILE, keeps the result beside the report and draws it beside the scan."""
    out = str(tmp_path / "netns")
    assert run_cli(["import", out, NETNS_RESULT]).returncode == 0
    rep = str(tmp_path / "report")
    proc = run_cli(["report", out, "-o", rep, "--platform", PLATFORM], env={"EVBENCH": evbench})
    assert proc.returncode == 0, proc.stderr
    measured = json.load(open(NETNS_RESULT))
    credit = json.load(open(os.path.join(rep, "credit_0.json")))
    res = credit["results"]
    assert res["simulated"] is True and res["simulation_model"] == "credit" and res["simulated_platform"] == PLATFORM
    assert credit["config"]["driver"] == "credit" and credit["config"]["nodes"] == measured["config"]["nodes"]
    for key in ("protocol", "shift", "duration", "warmup"):
        assert credit["config"][key] == measured["config"][key], key
    # The recorded scan predates fragment.events (MEPs), whose default is 1.
    simulated_fragment = dict(credit["config"]["fragment"])
    recorded_fragment = dict(measured["config"]["fragment"])
    assert simulated_fragment.pop("events", 1) == recorded_fragment.pop("events", 1)
    assert simulated_fragment == recorded_fragment
    summary = json.load(open(os.path.join(rep, "summary.json")))
    beside = summary["shift_scans"][0]["simulated_beside"]
    assert beside["model_platform"] == "credit model on emulated-2x4" and "credit_0.json" in beside["source"]
    assert beside["per_node_gbps"] == per_shift(credit)
    md = open(os.path.join(rep, "report.md")).read()
    ratios = [m / c for m, c in zip(*[[v["avg"] for _, v in sorted(per_shift(d).items())]
                                      for d in (measured, credit)])]
    assert "measured / simulated per shift: %.2f–%.2f." % (min(ratios), max(ratios)) in md
    assert "## Measured vs predicted and simulated:" in md and os.path.isfile(os.path.join(rep, "predicted_0.png"))
    # Without --platform the report runs nothing: no simulated series.
    rep2 = str(tmp_path / "plain")
    assert run_cli(["report", out, "-o", rep2], env={"EVBENCH": "/nonexistent/evbench"}).returncode == 0
    assert not os.path.exists(os.path.join(rep2, "credit_0.json"))
    assert "simulated_beside" not in json.load(open(os.path.join(rep2, "summary.json")))["shift_scans"][0]


def test_report_platform_names_a_simulation_that_failed(tmp_path, evbench):
    """A configuration the credit model refuses stops the report (exit 1) with
    evbench's words and the points it came from; nothing is written."""
    doc = json.load(open(NETNS_RESULT))
    doc["config"]["warmup"] = doc["config"]["duration"] * 2   # evbench: warmup must be shorter than duration
    out = str(tmp_path / "bad")
    assert run_cli(["import", out, write(tmp_path / "bad.json", json.dumps(doc))]).returncode == 0
    rep = str(tmp_path / "report")
    proc = run_cli(["report", out, "-o", rep, "--platform", PLATFORM], env={"EVBENCH": evbench})
    assert proc.returncode == 1, proc.stderr
    assert "evbench sim --model credit --platform %s (the configuration of points p0001) exited 2: " % PLATFORM \
        in proc.stderr and "evbench: warmup: warmup (" in proc.stderr
    assert "evbench-scan-sim-" not in proc.stderr   # not the report's temporary copy of the configuration
    assert not os.path.exists(rep)


def simulated_result(per_node, shifts, platform, **config):
    doc = synthetic.result("sim/credit send", per_node, protocol="one-to-one", shift="scan", shifts=shifts,
                           **config)
    doc["results"].update(simulated=True, simulation_model="credit", simulated_platform=platform)
    return doc


def test_each_measured_scan_gets_the_simulation_of_the_same_question(tmp_path):
    """Hand-written results: at each fragment size the measured scan is set
    beside the credit model's scan of that size on its own platform, never
    beside another size's or another platform's."""
    here, elsewhere = "/x/emulated-2x4.yaml", "/x/sim-tree-16.yaml"
    flat = lambda rate: [[rate] * 4] * 3
    measured = lambda size, rate: synthetic.result(
        "tcp", rate, protocol="one-to-one", shift="scan", shifts=synthetic.shift_entries(flat(rate)),
        fragment__size=size, topology__platform=here)
    points = [({"sim.model": None, "fragment.size": "64KiB"}, measured(65536, 5.0)),
              ({"sim.model": None, "fragment.size": "1MiB"}, measured(1 << 20, 6.0)),
              ({"sim.model": "credit", "sim.platform": elsewhere, "fragment.size": "64KiB"},
               simulated_result(9.0, synthetic.shift_entries(flat(9.0)), elsewhere, fragment__size=65536)),
              ({"sim.model": "credit", "fragment.size": "64KiB"},
               simulated_result(1.0, synthetic.shift_entries(flat(1.0)), here, fragment__size=65536)),
              ({"sim.model": "credit", "fragment.size": "1MiB"},
               simulated_result(2.0, synthetic.shift_entries(flat(2.0)), here, fragment__size=1 << 20))]
    out = synthetic.campaign(tmp_path / "c", points, ["sim.model", "sim.platform", "fragment.size"])
    rep = str(tmp_path / "report")
    proc = run_cli(["report", out, "-o", rep], env={"EVBENCH": "/nonexistent/evbench"})
    assert proc.returncode == 0, proc.stderr
    summary = json.load(open(os.path.join(rep, "summary.json")))
    beside = dict((tuple(s["points"]), s.get("simulated_beside")) for s in summary["shift_scans"])
    one = lambda rate: {"min": rate, "avg": rate, "max": rate}
    assert beside[("p0001",)]["source"] == "points p0004"
    assert beside[("p0001",)]["per_node_gbps"] == dict((str(k), one(1.0)) for k in (1, 2, 3))
    assert beside[("p0002",)]["source"] == "points p0005"
    assert beside[("p0002",)]["per_node_gbps"] == dict((str(k), one(2.0)) for k in (1, 2, 3))
    # a simulation is not itself set beside anything
    assert [beside[(p,)] for p in ("p0003", "p0004", "p0005")] == [None, None, None]
    md = open(os.path.join(rep, "report.md")).read()
    assert md.count("## Measured vs simulated:") == 2 and "## Simulated vs" not in md
    assert "measured / simulated per shift: 5.00–5.00." in md and "measured / simulated per shift: 3.00–3.00." in md


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
