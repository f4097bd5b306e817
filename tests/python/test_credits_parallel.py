"""The credits x parallel example of docs/SCANS.md (scan/examples/
credits-parallel.yaml), run here with its 3 repeats and short runs: its
answer follows the noise rule — "within noise" exactly where the best
cell's repeat range overlaps the runner-up's — in report.md, report.html
and summary.json, the heat map marks the cells within noise of the best,
and the page renders in headless Chromium."""
import json
import os
import re

import pytest

from conftest import REPO, real_evbench, run_cli, write
from evbench_scan.report import noise

EXAMPLE = os.path.join(REPO, "scan", "examples", "credits-parallel.yaml")


def overlap(a, b):
    return not (a["min"] > b["max"] or b["min"] > a["max"])


@pytest.mark.timeout(600)
def test_credits_parallel_example_answers_within_noise_where_ranges_overlap(tmp_path):
    text = open(EXAMPLE).read()
    assert re.search(r"^repeats: 3$", text, re.M)
    short = re.sub(r"^  duration: .*$", "  duration: 300ms", text, flags=re.M)
    short = re.sub(r"^  warmup: .*$", "  warmup: 100ms", short, flags=re.M)
    scan = write(tmp_path / "credits-parallel.yaml", short)
    out = str(tmp_path / "cp")
    proc = run_cli(["run", scan, "-o", out], env={"EVBENCH": real_evbench()}, timeout=540)
    assert proc.returncode == 0, proc.stderr[-2000:]
    proc = run_cli(["report", out], env={"EVBENCH": "/nonexistent/evbench"})
    assert proc.returncode == 0, proc.stderr
    rep = os.path.join(out, "report")
    summary = json.load(open(os.path.join(rep, "summary.json")))
    (tuning,) = [a for a in summary["answers"] if a.get("question") == "best credits x parallel (tcp)"]
    configs = summary["configurations"]
    assert len(configs) == 12 and all(c["per_node_gbps"]["repeats"] == 3 for c in configs)
    leader, runner = configs[0], configs[1]
    assert tuning["points"] == leader["points"]
    if overlap(leader["per_node_gbps"], runner["per_node_gbps"]):
        assert tuning["verdict"] == noise.WITHIN
        assert "no credits × parallel cell leads beyond noise" in tuning["text"]
    else:
        assert tuning["verdict"] in (noise.BEYOND, noise.LOAD)
    if tuning["verdict"] != noise.BEYOND:
        assert " beats " not in tuning["text"] and "within noise" in tuning["text"]
    # the cells within noise of the best: exactly those whose ranges overlap its
    close = sorted(c["points"] for c in configs[1:] if overlap(leader["per_node_gbps"], c["per_node_gbps"]))
    loaded = set(summary["load"]["flagged"])
    if not loaded & set(p for c in configs for p in c["points"]):
        assert sorted(tuning["within_noise_of_best"]) == close
    # the same sentence, once, in both pages
    md = open(os.path.join(rep, "report.md")).read()
    html = open(os.path.join(rep, "report.html")).read()
    answer = md.split("## Answer")[1].split("\n## ")[0]
    assert answer.count(tuning["text"]) == 1
    head = tuning["text"].split(" (")[0]
    assert head in html
    assert "Order: interleaved rounds" in md
    browser = pytest.importorskip("browser")
    shot = str(tmp_path / "credits-parallel-report.png")
    browser.assert_renders(os.path.join(rep, "report.html"), screenshot=shot)
    assert os.path.getsize(shot) > 10000
