"""Reports: files, PNGs, table numbers against the JSON; a real local scan end to end."""
import json
import os
import re

import pytest

from conftest import FAKE, run_cli, real_evbench, write

SURFACE = """name: surface
config: {nodes: 4, duration: 100ms, warmup: 0s}
axes:
  driver: [tcp, mpi]
  credits: [1, 2, 4]
  parallel: [2, 4]
  fragment.size: [128KiB, 1MiB]
"""

SCALING = """name: scaling
config: {credits: 2, parallel: 2, duration: 100ms, warmup: 0s}
axes:
  scheduling: [barrel, random]
  nodes: [2, 4, 8]
"""

SHIFTS = """name: shifts
config: {nodes: 4, protocol: one-to-one, shift: scan, parallel: 1, duration: 100ms}
"""


def campaign(tmp_path, name, text, evbench=FAKE):
    scan = write(tmp_path / (name + ".yaml"), text)
    out = str(tmp_path / name)
    proc = run_cli(["run", scan, "-o", out], env={"EVBENCH": evbench}, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return out


def results(out):
    docs = {}
    for name in os.listdir(os.path.join(out, "results")):
        docs[name[:-5]] = json.load(open(os.path.join(out, "results", name)))
    return docs


def md_table(md, title):
    block = md.split("## " + title)[1].split("\n## ")[0]
    lines = [line for line in block.splitlines() if line.startswith("|")]
    head = [c.strip() for c in lines[0].strip("|").split("|")]
    return [dict(zip(head, [c.strip() for c in line.strip("|").split("|")])) for line in lines[2:]]


def test_report_surface_and_driver_table(tmp_path):
    out = campaign(tmp_path, "surface", SURFACE)
    rep = str(tmp_path / "rep")
    proc = run_cli(["report", out, "-o", rep])
    assert proc.returncode == 0, proc.stderr
    for name in ("report.html", "report.md", "summary.json", "bandwidth_vs_size.png", "tuning_surface.png"):
        assert os.path.getsize(os.path.join(rep, name)) > 1000 or name.endswith(("md", "json"))
    assert not os.path.exists(os.path.join(rep, "bandwidth_vs_nodes.png"))   # no nodes axis
    for png in ("bandwidth_vs_size.png", "tuning_surface.png"):
        assert open(os.path.join(rep, png), "rb").read(8) == b"\x89PNG\r\n\x1a\n"
    html = open(os.path.join(rep, "report.html")).read()
    assert html.count("data:image/png;base64,") == 2
    docs = results(out)
    md = open(os.path.join(rep, "report.md")).read()
    table = md_table(md, "Driver comparison")
    assert [row["driver"] for row in table] == ["mpi", "tcp"]
    for row in table:
        best = max(d["results"]["bandwidth_gbps"]["per_node"]["avg"] for d in docs.values()
                   if d["config"]["driver"] == row["driver"])
        assert row["Gb/s per node"] == "%.2f" % best
        point = docs[row["points"]]
        assert point["results"]["bandwidth_gbps"]["per_node"]["avg"] == best
        assert row["aggregate Gb/s"] == "%.2f" % point["results"]["bandwidth_gbps"]["aggregate"]
    assert table[0]["ratio to best"] == "1.00"
    ratio = float(table[1]["Gb/s per node"]) / float(table[0]["Gb/s per node"])
    assert float(table[1]["ratio to best"]) == pytest.approx(ratio, abs=0.01)
    summary = json.load(open(os.path.join(rep, "summary.json")))
    assert len(summary["surfaces"]) == 4            # 2 drivers x 2 sizes
    for s in summary["surfaces"]:
        assert 0 < s["share_within_90pct"] <= 100
    assert "of the space within 90%" in md


def test_report_scaling_shifts_and_baseline(tmp_path):
    out = campaign(tmp_path, "scaling", SCALING)
    base = campaign(tmp_path, "scaling-before", SCALING)
    rep = str(tmp_path / "rep")
    proc = run_cli(["report", out, "--baseline", base, "-o", rep])
    assert proc.returncode == 0, proc.stderr
    assert os.path.getsize(os.path.join(rep, "bandwidth_vs_nodes.png")) > 1000
    md = open(os.path.join(rep, "report.md")).read()
    assert "Baseline:" in md
    assert md_table(md, "Driver comparison")[0]["change"] == "+0.0%"
    assert all(row["change vs baseline"] == "+0.0%" for row in md_table(md, "Best points"))
    out = campaign(tmp_path, "shifts", SHIFTS)
    rep = str(tmp_path / "rep2")
    assert run_cli(["report", out, "-o", rep]).returncode == 0
    assert os.path.getsize(os.path.join(rep, "shifts.png")) > 1000


@pytest.mark.timeout(300)
def test_real_local_scan_and_report(tmp_path):
    evbench = real_evbench()
    text = """name: real
config: {nodes: 2, driver: tcp, duration: 300ms, warmup: 100ms, parallel: 2}
axes:
  credits: [1, 2]
  fragment.size: [64KiB, 256KiB]
"""
    out = campaign(tmp_path, "real", text, evbench=evbench)
    docs = results(out)
    assert len(docs) == 4
    for doc in docs.values():
        assert doc["schema_version"] == 1 and doc["results"]["status"] == "ok"
        assert doc["results"]["events_built"] > 0
        assert doc["results"]["bandwidth_gbps"]["aggregate"] > 0
    rep = str(tmp_path / "rep")
    proc = run_cli(["report", out, "-o", rep])
    assert proc.returncode == 0, proc.stderr
    assert os.path.getsize(os.path.join(rep, "bandwidth_vs_size.png")) > 1000
    md = open(os.path.join(rep, "report.md")).read()
    row = md_table(md, "Driver comparison")[0]
    best = max(d["results"]["bandwidth_gbps"]["per_node"]["avg"] for d in docs.values())
    assert row["driver"] == "tcp" and row["Gb/s per node"] == "%.2f" % best
    assert re.search(r"p000[1-4]", row["points"])
