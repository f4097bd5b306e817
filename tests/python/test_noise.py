"""The one noise rule every answer follows (noise.py), on hand-written
campaigns whose figures the test chooses (synthetic.py): which ranges are
compared, a lead that only load-flagged runs make, the credits x parallel
answer, the edge of a scanned range, names, and the heat map's marks."""
import json
import math
import os

import pytest

import synthetic
from conftest import run_cli, write
from evbench_scan.report import noise, stats
from evbench_scan.results import hostload


def report(out, *extra):
    rep = out + "-report"
    proc = run_cli(["report", out, "-o", rep] + list(extra), env={"EVBENCH": "/nonexistent/evbench"})
    assert proc.returncode == 0, proc.stderr
    return rep, open(os.path.join(rep, "report.md")).read(), json.load(open(os.path.join(rep, "summary.json")))


def answer(md):
    return md.split("## Answer")[1].split("\n## ")[0]


def with_load(out, others):
    """Status files whose runner reading says other processes kept `others[pid]` CPUs busy (of 2)."""
    for pid, cpus in others.items():
        write(os.path.join(out, "status", pid + ".json"), json.dumps({
            "point": pid, "status": "ok", "exit_code": 0, "seconds": 1.0, "message": "",
            "load": {"source": "runner", "cpus": 2, "other_cpu_fraction": cpus / 2.0,
                     "loadavg_start": 1.0, "loadavg_end": 1.0 + cpus}}))


def coverage(n, k):
    """P(the k-th lowest <= median <= the k-th highest of n runs), from the binomial."""
    return 1 - 2 * sum(math.comb(n, i) for i in range(k)) / 2.0 ** n


def test_the_range_compared_is_min_max_then_the_medians_interval():
    for n in range(2, 16):
        k = stats.interval_rank(n)
        if n < stats.MIN_INTERVAL_RUNS:
            assert k == 1
        else:
            assert coverage(n, k) >= stats.CONFIDENCE and coverage(n, k + 1) < stats.CONFIDENCE, n
    # 8 runs each whose min-max ranges touch (one stray run each) but whose
    # middles are apart: beyond noise; with 7 runs, min-max decides: noise.
    a = [10.0, 12.0, 12.1, 12.2, 12.3, 12.4, 12.5, 12.6]
    b = [12.05, 9.0, 9.1, 9.2, 9.3, 9.4, 9.5, 8.0]
    assert stats.Verdict(stats.Spread(a[:7]), stats.Spread(b[:7])).kind == "noise"
    assert stats.Verdict(stats.Spread(a), stats.Spread(b)).kind == "ahead"
    assert stats.Spread(a).range == (12.0, 12.5) and stats.Spread(b).range == (9.0, 9.5)


class Rec:
    def __init__(self, pid, value):
        self.id, self.figures, self.load = pid, {"per_node_avg_gbps": value}, None


class Row:
    def __init__(self, name, runs):
        self.members = [Rec("%s%d" % (name, i), v) for i, v in enumerate(runs)]
        self.per_node = stats.Spread(runs)
        self.ids = [m.id for m in self.members]


def test_a_lead_made_by_load_flagged_runs_is_not_a_winner():
    a = Row("a", [10.0, 10.2, 10.4])
    b = Row("b", [9.5, 7.0, 7.2])              # b1, b2 ran while something else took the CPUs
    assert noise.Call("q", a, b, "A", "B").kind == noise.BEYOND
    call = noise.Call("q", a, b, "A", "B", flags={"b1", "b2"})
    assert call.kind == noise.LOAD and not call.decided
    assert call.loaded == ["b1", "b2"]
    assert "load may have decided it" in call.sentence() and "within noise" in call.sentence()
    assert call.as_dict()["verdict_without_load_flagged"] == noise.ONE_RUN
    # Flagged runs that do not carry the lead: it stands, and says so.
    c = Row("c", [9.0, 9.1, 9.2, 7.0])
    held = noise.Call("q", a, c, "A", "C", flags={"c3"})
    assert held.kind == noise.BEYOND and "holds without the 1 load-flagged run (c3)" in held.sentence()
    # Overlapping ranges and single runs never name a winner.
    assert noise.Call("q", a, Row("d", [10.1, 9.0, 9.5]), "A", "D").kind == noise.WITHIN
    assert noise.Call("q", Row("e", [11.0]), Row("f", [9.0]), "E", "F").kind == noise.ONE_RUN


def test_load_flags_are_the_points_away_from_the_median():
    recs = []
    for i, cpus in enumerate([0.1, 0.2, 0.15, 1.4, 0.1]):
        r = Rec("p%d" % i, 1.0)
        r.load = {"source": "runner", "other_cpus": cpus}
        recs.append(r)
    flags = hostload.LoadFlags(recs)
    assert flags.median == 0.15 and "p3" in flags and list(flags.flagged) == ["p3"]
    assert flags.bound == hostload.BOUND_CPUS
    assert hostload.LoadFlags(recs, bound=2.0).flagged == {}
    # Where many others compete, the bound grows with them: a quarter of the median.
    for r, queue in zip(recs, [8.0, 8.4, 7.6, 12.0, 9.0]):
        r.load["runnable_others"] = queue
    busy = hostload.LoadFlags(recs)
    assert busy.kind == "runnable_others" and busy.bound == hostload.BOUND_SHARE * 8.4
    assert list(busy.flagged) == ["p3"]
    # evbench's own results.host_load wins over the runner's reading; the busiest host counts.
    doc = {"results": {"host_load": [{"hostname": "a", "other_cpu_fraction": 0.1, "cpus": 4},
                                     {"hostname": "b", "other_cpu_fraction": 0.5, "cpus": 4}]}}
    load = hostload.of_point(doc, {"load": {"source": "runner", "other_cpu_fraction": 0.0, "cpus": 2}})
    assert load["source"] == "evbench" and load["host"] == "b" and load["other_cpus"] == 2.0


def surface_points(values):
    """A credits x parallel campaign: values[(credits, parallel)] = the runs' Gb/s."""
    points = []
    for (credits, parallel), runs in sorted(values.items()):
        for x in runs:
            points.append(({"credits": credits, "parallel": parallel},
                           synthetic.result("tcp", x, credits=credits, parallel=parallel)))
    return points


def test_credits_x_parallel_within_noise_is_said_so_once(tmp_path, schema):
    """Every cell's range overlaps the best's: no best cell is called, the
    answer says "within noise", summary.json carries the verdict, the best
    cell is named once, and a best on the edge asks to widen the range."""
    cells = {(c, p): [4.1 + 0.1 * i + 0.02 * c + 0.001 * (p == 2), 4.5 + 0.01 * c, 3.8 + 0.05 * p]
             for i, c in enumerate([1, 2, 4, 8]) for p in (1, 2, 6)}
    out = synthetic.campaign(tmp_path / "cp", surface_points(cells), ["credits", "parallel"], schema=schema)
    rep, md, summary = report(out)
    (tuning,) = [a for a in summary["answers"] if a.get("question") == "best credits x parallel (tcp)"]
    assert tuning["verdict"] == noise.WITHIN
    assert "no credits × parallel cell leads beyond noise" in tuning["text"] and "within noise" in tuning["text"]
    c, p = max(cells, key=lambda cp: sorted(cells[cp])[1])      # the highest median
    best = "credits=%d, parallel=%d" % (c, p)
    assert tuning["leader"] == best
    lines = [line for line in answer(md).splitlines() if line.startswith("- ")]
    assert sum(best in line for line in lines) == 1              # one sentence names it, once
    assert tuning["text"].count(best) == 1
    assert "Best at the edge of the scanned range: widen credits beyond 8." in tuning["text"]
    assert tuning["edge"] == ["widen credits beyond 8"]
    assert len(tuning["within_noise_of_best"]) == len(cells) - 1
    html = open(os.path.join(rep, "report.html")).read()
    assert "no credits × parallel cell leads beyond noise" in html and "widen credits beyond 8" in html


def test_credits_x_parallel_beyond_noise_names_the_cell(tmp_path, schema):
    cells = {(c, p): [2.0 + c + p, 2.1 + c + p, 2.2 + c + p] for c in (1, 2, 4) for p in (1, 2)}
    cells[(2, 2)] = [20.0, 20.5, 21.0]
    out = synthetic.campaign(tmp_path / "cp", surface_points(cells), ["credits", "parallel"], schema=schema)
    _, md, summary = report(out)
    (tuning,) = [a for a in summary["answers"] if a.get("question", "").startswith("best credits")]
    assert tuning["verdict"] == noise.BEYOND and tuning["leader"] == "credits=2, parallel=2"
    assert "tcp: best at credits=2, parallel=2" in answer(md) and "beats credits=4, parallel=2" in answer(md)
    assert tuning["edge"] == [] and tuning["within_noise_of_best"] == []


def test_the_lead_of_a_variant_on_loaded_runs_is_within_noise_in_every_output(tmp_path):
    points = [({"label": "a"}, synthetic.result("tcp", x)) for x in (10.0, 10.2, 10.4)]
    points += [({"label": "b"}, synthetic.result("tcp", x)) for x in (9.5, 7.0, 7.2)]
    out = synthetic.campaign(tmp_path / "l", points, ["label"])
    with_load(out, {"p0001": 0.1, "p0002": 0.1, "p0003": 0.2, "p0004": 0.1, "p0005": 1.5, "p0006": 1.6})
    rep, md, summary = report(out)
    head = summary["answers"][0]
    assert head["verdict"] == noise.LOAD and head["load_flagged"] == ["p0005", "p0006"]
    assert "beats" not in answer(md) and "load may have decided it" in answer(md)
    assert sorted(summary["load"]["flagged"]) == ["p0005", "p0006"]
    assert summary["load"]["bound_cpus"] == hostload.BOUND_CPUS
    table = md.split("## Host load")[1].split("\n## ")[0]
    listed = [line.split(" | ")[0].strip("| ") for line in table.splitlines() if line.startswith("| p0")]
    assert listed == ["p0005", "p0006"]
    assert "load may have decided it" in open(os.path.join(rep, "report.html")).read()
    # A wider bound flags nothing, and the lead stands.
    _, md2, summary2 = report(out, "--load-bound", "2")
    assert summary2["answers"][0]["verdict"] == noise.BEYOND and "a beats b" in answer(md2)


def test_a_variants_name_is_what_reports_call_it(tmp_path):
    """The scan's `name:` (label) names the row; evbench's variant is beside
    it; without a name, a wrapper the point ran under is part of the name."""
    points = [({"label": "psm2/shm", "wrapper": "../../scripts/with-psm2-shm.sh"},
               synthetic.result("psm2", x)) for x in (5.0, 5.1)]
    points += [({"label": "mpi/ucx-pml"}, synthetic.result("mpi/ucx", x)) for x in (3.0, 3.1)]
    out = synthetic.campaign(tmp_path / "n", points, ["label", "wrapper"])
    rep, md, summary = report(out)
    assert "Fastest variant: psm2/shm" in answer(md) and "beats mpi/ucx-pml" in answer(md)
    assert [r["variant"] for r in summary["variants"]] == ["psm2/shm", "mpi/ucx-pml"]
    assert [r["ran as"] for r in summary["variants"]] == ["psm2", "mpi/ucx"]
    assert [c["variant"] for c in summary["configurations"]] == ["psm2/shm", "mpi/ucx-pml"]
    html = open(os.path.join(rep, "report.html")).read()
    assert "psm2/shm" in html and "mpi/ucx-pml" in html
    unnamed = [({"wrapper": "../../scripts/with-psm2-shm.sh"}, synthetic.result("psm2", 5.0)),
               ({"wrapper": None}, synthetic.result("tcp", 4.0))]
    _, md, summary = report(synthetic.campaign(tmp_path / "u", unnamed, ["wrapper"]))
    assert sorted(c["variant"] for c in summary["configurations"]) == ["psm2 under with-psm2-shm.sh", "tcp"]


def test_heatmap_marks_cells_within_noise_and_spans_the_noise_floor(tmp_path):
    from evbench_scan.report import plots
    cell = lambda m, lo, hi, within: {"median": m, "lo": lo, "hi": hi, "n": 3, "delta_pct": None,
                                      "within_noise": within}
    cells = [[cell(4.1, 3.6, 4.6, True), cell(4.3, 3.8, 4.8, True)],
             [cell(4.5, 4.0, 5.0, False), cell(4.2, 3.7, 4.7, True)]]
    panel = {"title": "tcp", "x_label": "parallel", "y_label": "credits", "xs": [1, 2], "ys": [1, 2],
             "cells": cells, "best": (1, 0)}
    drawn = []
    plots.heatmap([panel], str(tmp_path / "h.png"), "surface", "Gb/s per node", drawn=drawn)
    fig = drawn[-1]
    ax = [a for a in fig.axes if a.get_label() != "<colorbar>"][0]
    dashed = [p for p in ax.patches if p.get_linestyle() in ("--", "dashed")]
    assert len(dashed) == 3
    marked = [t.get_text() for t in ax.texts if t.get_text().startswith("\u2248")]
    assert len(marked) == 3
    norm = ax.images[0].norm
    assert norm.vmax - norm.vmin >= 1.0          # the repeats' ranges are 1.0 wide: no 4.1-4.5 scale
    bar = [a for a in fig.axes if a.get_label() == "<colorbar>"][0]
    assert "noise floor 1.00" in bar.get_ylabel() and "within noise of the best" in bar.get_ylabel()


@pytest.mark.parametrize("values,best,expected", [
    ([1, 2, 4, 8], 8, "widen credits beyond 8"),
    ([2, 4, 8], 2, "widen credits below 2"),
    ([1, 2, 4, 8], 2, ""),
    ([4, 8], 8, ""),                       # two values: every best is on an edge
])
def test_edge_of_the_scanned_range(values, best, expected):
    assert noise.edge(values, best, "credits", lambda k, v: str(v)) == expected


def test_a_one_axis_campaign_names_its_best_value_once(tmp_path, schema):
    points = [({"fragment.size": size}, synthetic.result("tcp", x, fragment__size=size))
              for size, runs in ((65536, (5.0, 5.1, 5.2)), (262144, (9.0, 9.1, 9.2)), (1048576, (7.0, 7.1, 7.2)))
              for x in runs]
    _, md, summary = report(synthetic.campaign(tmp_path / "one", points, ["fragment.size"], schema=schema))
    lines = [line for line in answer(md).splitlines() if line.startswith("- ")]
    assert len([line for line in lines if "256KiB" in line]) == 1, lines
    (axis,) = [a for a in summary["answers"] if a.get("question") == "best fragment.size (tcp)"]
    assert axis["verdict"] == noise.BEYOND and axis["leader"] == "fragment.size=256KiB"


def test_a_result_says_whether_it_built_events():
    """results.builds_events decides, whatever the protocol is called; an
    older result without it is judged by its protocol's name."""
    from evbench_scan.results.collect import builds_events
    assert builds_events({"config": {"protocol": "custom-builder"}, "results": {"builds_events": True}})
    assert not builds_events({"config": {"protocol": "pull"}, "results": {"builds_events": False}})
    assert builds_events({"config": {"protocol": "push"}, "results": {}})
    assert not builds_events({"config": {"protocol": "one-to-one"}, "results": {}})
    assert not builds_events(None)
