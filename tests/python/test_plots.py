"""The report's figures (scan/evbench_scan/report/plots.py and shiftplots.py)
on small synthetic data.

Each test draws one figure into a PNG, checks the file, and then measures the
figure that was written (handed back in the `drawn` list, already drawn) for
what a reader would trip over: a legend over data, text too small to read,
repeats without their spread, a local copy that sets the colour scale.
"""
import os
import struct

import pytest

from evbench_scan.report import plots, shiftplots

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


# ---------------------------------------------------------------- helpers

@pytest.fixture
def drawn():
    """The figures a test drew, in order (each function's `drawn` list)."""
    return []


def point(x, median, spread=0.0, n=1):
    """(x, median, lo, hi, n) as report.py hands them over."""
    if n == 1:
        return (x, median, median, median, 1)
    return (x, median, median - spread, median + 1.5 * spread, n)


def png_size(path):
    """(width, height) of a valid PNG; fails the test on anything else."""
    with open(path, "rb") as f:
        head = f.read(33)
    assert head[:8] == PNG_MAGIC, "%s is not a PNG" % path
    assert head[12:16] == b"IHDR"
    width, height = struct.unpack(">II", head[16:24])
    return width, height


def check_png(path, min_px=(300, 200), max_px=(4000, 4000)):
    assert os.path.isfile(path)
    width, height = png_size(path)
    assert min_px[0] <= width <= max_px[0] and min_px[1] <= height <= max_px[1], (width, height)
    assert os.path.getsize(path) > 5000, "suspiciously small PNG (%d bytes)" % os.path.getsize(path)


def figure_check(fig):
    """What can go wrong in a written figure, measured in display pixels.

    Returns {"legend_overlaps": [(legend index, axes index)], "min_tick_pt", "min_text_pt",
    "texts": [Text in any axes]}; legends are compared with every axes, colour bars included.
    """
    renderer = fig.canvas.get_renderer()
    axes = fig.axes
    legends = [ax.get_legend() for ax in axes if ax.get_legend()] + list(fig.legends)
    overlaps = []
    for li, legend in enumerate(legends):
        box = legend.get_window_extent(renderer)
        for ai, ax in enumerate(axes):
            if box.overlaps(ax.get_window_extent(renderer)):
                overlaps.append((li, ai))
    ticks = [t for ax in axes for t in ax.get_xticklabels() + ax.get_yticklabels() if t.get_text()]
    texts = [t for ax in axes for t in ax.texts]
    return {"legend_overlaps": overlaps, "legends": legends,
            "min_tick_pt": min((t.get_fontsize() for t in ticks), default=99),
            "min_text_pt": min((t.get_fontsize() for t in texts), default=99),
            "texts": texts, "renderer": renderer}


def common_checks(fig):
    facts = figure_check(fig)
    assert facts["legend_overlaps"] == [], "legend over an axes: %s" % facts["legend_overlaps"]
    assert facts["min_tick_pt"] >= 9, facts["min_tick_pt"]
    assert facts["min_text_pt"] >= 8, facts["min_text_pt"]
    return facts


def data_axes(fig):
    """Axes that hold data (colour bars have a label but no title/x label of their own)."""
    return [ax for ax in fig.axes if ax.get_label() != "<colorbar>"]


def error_bar_lengths(ax):
    """Lengths (data units) of every vertical error bar in an axes."""
    from matplotlib.container import ErrorbarContainer
    lengths = []
    for container in ax.containers:            # bar(yerr=) adds its ErrorbarContainer here too
        if not isinstance(container, ErrorbarContainer) or not container.lines[2]:
            continue
        for collection in container.lines[2]:
            for seg in collection.get_segments():
                lengths.append(abs(seg[1][1] - seg[0][1]))
    return lengths


def assert_ticklabels_apart(ax, renderer):
    """Rotated x tick labels: neighbours' baselines at least one text height apart."""
    import math
    labels = [t for t in ax.get_xticklabels() if t.get_text()]
    for a, b in zip(labels, labels[1:]):
        rot = math.radians(a.get_rotation())
        dx = abs(b.get_window_extent(renderer).x1 - a.get_window_extent(renderer).x1)
        height = a.get_fontsize() * ax.figure.dpi / 72.0
        if rot:
            assert dx * math.sin(rot) >= height, "x tick labels overlap: %s" % a.get_text()
        else:
            assert not a.get_window_extent(renderer).overlaps(b.get_window_extent(renderer))


def contrast(c1, c2):
    """WCAG contrast ratio of two matplotlib colours."""
    from matplotlib.colors import to_rgb

    def lum(c):
        ch = [v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4 for v in to_rgb(c)]
        return 0.2126 * ch[0] + 0.7152 * ch[1] + 0.0722 * ch[2]
    a, b = sorted((lum(c1), lum(c2)))
    return (b + 0.05) / (a + 0.05)


# ---------------------------------------------------------------- grouped_bars

VARIANTS = ["ucx/sm write", "ucx/sm send", "tcp", "mpi/vader", "libfabric/shm send"]


def test_grouped_bars_one_series_with_repeats_and_a_missing_variant(tmp_path, drawn):
    series = {"bandwidth": {v: point(v, 10.0 * (i + 1), 2.0, 3) for i, v in enumerate(VARIANTS)}}
    del series["bandwidth"]["tcp"]
    path = plots.grouped_bars(VARIANTS, series, str(tmp_path / "b.png"),
                              "Bandwidth per node by variant", "variant", "bandwidth per node (Gb/s)", drawn=drawn)
    assert path == str(tmp_path / "b.png")
    check_png(path)
    fig = drawn[-1]
    facts = common_checks(fig)
    ax = data_axes(fig)[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == VARIANTS
    assert "Gb/s" in ax.get_ylabel() and ax.get_xlabel() == "variant"
    assert "median of 3 repeats" in ax.get_ylabel() and "min" in ax.get_ylabel()
    lengths = error_bar_lengths(ax)
    assert len(lengths) == 4 and all(v > 0 for v in lengths)
    labels = [t.get_text() for t in facts["texts"]]
    assert "40.0" in labels and "not run" in labels          # value above each bar; tcp missing
    assert ax.get_title() and "p0" not in ax.get_title()


def test_grouped_bars_several_series_with_baseline_keep_legend_and_labels_apart(tmp_path, drawn):
    cats = ["barrel", "random", "least-loaded"]
    series = {"pull": {c: point(c, 40 + 5 * i, 3, 5) for i, c in enumerate(cats)},
              "push": {c: point(c, 35 + 7 * i) for i, c in enumerate(cats)}}
    base = {k: {c: point(c, p[1] * 0.95, 1, 3) for c, p in v.items()} for k, v in series.items()}
    path = plots.grouped_bars(cats, series, str(tmp_path / "g.png"), "Bandwidth by scheduling",
                              "scheduling", "Gb/s per node", baseline=base, drawn=drawn)
    check_png(path)
    fig = drawn[-1]
    facts = common_checks(fig)
    ax = data_axes(fig)[0]
    legend_texts = [t.get_text() for t in facts["legends"][0].get_texts()]
    assert legend_texts == ["pull", "push", "baseline (hatched)"]
    assert "median of 1-5 repeats" in ax.get_ylabel()
    hatched = [p for p in ax.patches if p.get_hatch()]
    assert len(hatched) == 6
    # value labels: inside the axes, none over another
    boxes = [t.get_window_extent(facts["renderer"]) for t in facts["texts"]]
    assert len(boxes) == 12
    frame = ax.get_window_extent(facts["renderer"])
    for i, a in enumerate(boxes):
        assert frame.x0 <= a.x0 and a.x1 <= frame.x1 and a.y1 <= frame.y1
        assert not any(a.overlaps(b) for b in boxes[i + 1:]), "value labels overlap"


def test_grouped_bars_many_long_categories_single_repeat(tmp_path, drawn):
    cats = ["a-rather-long-variant-name-%d" % i for i in range(14)]
    series = {s: {c: point(c, 10 + i + k) for i, c in enumerate(cats)} for k, s in enumerate(["a", "b"])}
    path = plots.grouped_bars(cats, series, str(tmp_path / "m.png"), "Many variants", "variant", "Gb/s", drawn=drawn)
    check_png(path, max_px=(2000, 1200))
    fig = drawn[-1]
    facts = common_checks(fig)
    ax = data_axes(fig)[0]
    assert "repeats" not in ax.get_ylabel()                  # n == 1 everywhere: no note
    assert all(t.get_rotation() != 0 for t in ax.get_xticklabels())
    assert_ticklabels_apart(ax, facts["renderer"])
    boxes = [t.get_window_extent(facts["renderer"]) for t in facts["texts"]]
    assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:])


# ---------------------------------------------------------------- lines

def kib(n):
    return "%d KiB" % (n // 1024) if n < 1 << 20 else "%d MiB" % (n >> 20)


def test_lines_log2_sizes_with_baseline(tmp_path, drawn):
    sizes = [1 << k for k in range(12, 21)]
    series = {v: [point(s, 5.0 * (k + 1) + j, 1.0, 3) for k, s in enumerate(sizes)]
              for j, v in enumerate(["tcp", "ucx/sm write", "mpi/vader"])}
    base = {"tcp": [point(s, 4.0 * (k + 1)) for k, s in enumerate(sizes)]}
    path = plots.lines(series, str(tmp_path / "l.png"), "Bandwidth per node vs fragment size",
                       "fragment size", "Gb/s per node", log2_x=True, x_label=kib, baseline=base, drawn=drawn)
    check_png(path)
    fig = drawn[-1]
    facts = common_checks(fig)
    ax = data_axes(fig)[0]
    assert ax.get_xscale() == "log"
    assert [t.get_text() for t in ax.get_xticklabels()] == [kib(s) for s in sizes]
    assert "median of 1-3 repeats" in ax.get_ylabel()
    lengths = error_bar_lengths(ax)
    assert sum(1 for v in lengths if v > 0) == 3 * len(sizes)   # every n > 1 point has its bar
    legend = [t.get_text() for t in facts["legends"][0].get_texts()]
    assert "tcp baseline" in legend
    dashed = [ln for ln in ax.get_lines() if ln.get_linestyle() == "--"]
    assert dashed, "baseline not dashed"


def test_lines_one_series_linear_axis(tmp_path, drawn):
    path = plots.lines({"pull over tcp": [point(n, 50.0 - n) for n in (2, 3, 4, 6)]},
                       str(tmp_path / "n.png"), "Bandwidth per node vs nodes", "nodes", "Gb/s per node", drawn=drawn)
    check_png(path)
    fig = drawn[-1]
    common_checks(fig)
    ax = data_axes(fig)[0]
    assert ax.get_xscale() == "linear" and ax.get_ylim()[0] == 0
    assert "repeats" not in ax.get_ylabel()


# ---------------------------------------------------------------- heatmap

def cell(m, n=3, delta=None):
    return {"median": m, "lo": m * 0.9, "hi": m * 1.1, "n": n, "delta_pct": delta}


def surface(title, xs, ys, n=3, delta=True):
    cells = [[cell(10.0 + 4 * iy + 3 * ix, n, (ix - iy) * 3.0 if delta else None) for ix in range(len(xs))]
             for iy in range(len(ys))]
    cells[0][-1] = None
    return {"title": title, "x_label": "parallel (requests in flight)", "y_label": "credits (events in flight)",
            "xs": xs, "ys": ys, "cells": cells, "best": (len(ys) - 1, len(xs) - 1)}


def test_heatmap_panels_share_a_scale_and_stay_legible(tmp_path, drawn):
    panels = [surface(t, [1, 2, 4, 8], [1, 2, 4, 8, 16]) for t in ("ucx/sm write", "tcp")]
    panels[1]["cells"][2][2] = cell(500.0, 3, 5.0)           # one hot cell sets the shared scale
    path = plots.heatmap(panels, str(tmp_path / "h.png"), "Bandwidth over credits x parallel",
                         "bandwidth per node (Gb/s)", drawn=drawn)
    check_png(path)
    fig = drawn[-1]
    facts = common_checks(fig)
    assert facts["min_text_pt"] >= 9                         # 20 cells: full size
    axes = data_axes(fig)
    assert len(axes) == 2
    norms = [ax.images[0].norm for ax in axes]
    assert norms[0].vmax == norms[1].vmax == 500.0 and norms[0].vmin == norms[1].vmin
    texts = [t.get_text() for t in axes[0].texts]
    assert "not run" in texts
    assert any("\u2013" in t and "%" in t for t in texts)   # spread line and delta line
    best = [p for p in axes[0].patches if p.get_edgecolor()[:3] == (1.0, 0.0, 0.0)]
    assert len(best) == 1 and best[0].get_xy() == (3 - 0.5, 4 - 0.5)
    for ax in axes:                                          # text readable on its cell
        image = ax.images[0]
        for t in ax.texts:
            if t.get_text() == "not run":
                continue
            ix, iy = (int(round(v)) for v in t.get_position())
            background = image.cmap(image.norm(image.get_array()[iy][ix]))
            assert contrast(t.get_color(), background) >= 3.0, t.get_text()
    assert any(ax.get_label() == "<colorbar>" and "Gb/s" in ax.get_ylabel() for ax in fig.axes)


def test_heatmap_many_cells_shrinks_text_but_not_below_8pt(tmp_path, drawn):
    panel = surface("tcp", list(range(1, 13)), list(range(1, 11)), n=1, delta=False)
    path = plots.heatmap([panel], str(tmp_path / "hb.png"), "Big surface", "Gb/s per node", drawn=drawn)
    check_png(path)
    fig = drawn[-1]
    facts = common_checks(fig)
    assert facts["min_text_pt"] >= 8
    ax = data_axes(fig)[0]
    # cell texts fit in their cells (no number spills into its neighbour)
    renderer = facts["renderer"]
    to_px = ax.transData.transform
    cell_w = abs(to_px((1, 0))[0] - to_px((0, 0))[0])
    cell_h = abs(to_px((0, 1))[1] - to_px((0, 0))[1])
    for t in ax.texts:
        box = t.get_window_extent(renderer)
        assert box.width < cell_w and box.height < cell_h, t.get_text()


# ---------------------------------------------------------------- pair matrix

def pair(n, diagonal=137.0, missing=None):
    m = [[diagonal if i == j else 50.0 + ((i * 7 + j * 3) % 11) - (20.0 if j == 5 else 0.0) for j in range(n)]
         for i in range(n)]
    if missing:
        m[missing[0]][missing[1]] = None
    return m


def test_pair_matrix_16_nodes_excludes_the_local_copy_from_the_scale(tmp_path, drawn):
    matrix = pair(16, missing=(3, 4))
    path = shiftplots.pair_matrix(matrix, str(tmp_path / "p.png"), "Receive rate per pair, 16 nodes", drawn=drawn)
    check_png(path)
    fig = drawn[-1]
    facts = common_checks(fig)
    ax = data_axes(fig)[0]
    norm = ax.images[0].norm
    off = [v for i, row in enumerate(matrix) for j, v in enumerate(row) if i != j and v is not None]
    assert norm.vmax == max(off) < 137.0 and norm.vmin == min(off)
    assert ax.get_xlabel() == "receiving node" and ax.get_ylabel() == "sending node"
    texts = [t.get_text() for t in ax.texts]
    assert texts.count("local\ncopy") == 16 and "n/a" in texts
    assert len([t for t in texts if t[:1].isdigit()]) == 16 * 15 - 1
    assert facts["min_text_pt"] >= 8
    assert sum(1 for p in ax.patches if p.get_hatch()) == 16   # the diagonal, hatched
    assert any("Gb/s" in a.get_ylabel() for a in fig.axes if a.get_label() == "<colorbar>")


def test_pair_matrix_large_has_no_cell_numbers(tmp_path, drawn):
    path = shiftplots.pair_matrix(pair(40), str(tmp_path / "p40.png"), "Receive rate per pair, 40 nodes", drawn=drawn)
    check_png(path)
    fig = drawn[-1]
    common_checks(fig)
    ax = data_axes(fig)[0]
    assert not [t for t in ax.texts if t.get_text()[:1].isdigit()]
    assert ax.images[0].norm.vmax < 137.0


# ---------------------------------------------------------------- shift profile

def test_shift_profile_draws_the_local_copy_apart(tmp_path, drawn):
    shifts = [{"shift": 0, "min": 130.0, "avg": 137.0, "max": 140.0, "local_copy": True}] + [
        {"shift": s, "min": 40.0 + s, "avg": 50.0 + s, "max": 55.0 + s, "local_copy": False} for s in range(1, 8)]
    path = shiftplots.shift_profile(shifts, str(tmp_path / "s.png"), "Receive rate per node by shift, 8 nodes",
                                    drawn=drawn)
    check_png(path)
    fig = drawn[-1]
    common_checks(fig)
    local, net = data_axes(fig)
    assert "local copy" in local.get_title() and "not network" in local.get_title()
    assert all(p.get_hatch() for p in local.patches)
    assert [round(p.get_x() + p.get_width() / 2) for p in net.patches] == list(range(1, 8))
    assert net.get_ylim()[1] < 137.0                          # the network scale is not the copy's
    assert all(v > 0 for v in error_bar_lengths(net))
    assert "Gb/s" in net.get_ylabel() and "shift" in net.get_xlabel()


def test_shift_profile_without_local_copy(tmp_path, drawn):
    shifts = [{"shift": s, "min": 40.0, "avg": 45.0, "max": 47.0, "local_copy": False} for s in (1, 2, 3)]
    check_png(shiftplots.shift_profile(shifts, str(tmp_path / "s2.png"), "Receive rate per node by shift", drawn=drawn))
    assert len(data_axes(drawn[-1])) == 1


# ---------------------------------------------------------------- measured vs predicted

def test_measured_vs_predicted_names_the_worst_links_outside_the_data(tmp_path, drawn):
    shifts = [{"shift": 0, "local_copy": True, "measured": {"min": 130, "avg": 137, "max": 140},
               "predicted": None, "worst_links": []}]
    for s in range(1, 8):
        p = 100.0 / (1 + abs(4 - s) % 3)
        shifts.append({"shift": s, "measured": {"min": p * 0.4, "avg": p * 0.5, "max": p * 0.55},
                       "predicted": None if s == 3 else {"min": p * 0.8, "avg": p, "max": p},
                       "worst_links": ["leaf%d->spine0" % s]})
    path = shiftplots.measured_vs_predicted(shifts, str(tmp_path / "mvp.png"), "Measured vs predicted per shift",
                                            drawn=drawn)
    check_png(path)
    fig = drawn[-1]
    facts = common_checks(fig)
    ax = data_axes(fig)[0]
    red = [t.get_text() for t in ax.get_xticklabels() if t.get_color() == "C3"]
    assert sorted(red) == ["2", "3", "6"]
    note = [t for t in ax.texts if "worst measured" in t.get_text()]
    assert len(note) == 1
    for link in ("leaf2->spine0", "leaf6->spine0", "leaf3->spine0"):
        assert link in note[0].get_text()
    assert "shift 0 (local copy" in note[0].get_text() and "no prediction for shift 3" in note[0].get_text()
    box = note[0].get_window_extent(facts["renderer"])
    assert not box.overlaps(ax.get_window_extent(facts["renderer"])), "note over the data"
    assert 0 not in [round(p.get_x() + p.get_width() / 2) for p in ax.patches]
    legend = [t.get_text() for t in facts["legends"][0].get_texts()]
    assert any("predicted avg" in t for t in legend) and any("measured" in t for t in legend)
    assert ax.get_ylim()[1] < 137.0


def test_measured_vs_predicted_without_prediction(tmp_path, drawn):
    shifts = [{"shift": s, "measured": {"min": 40.0, "avg": 45.0, "max": 47.0}, "predicted": None,
               "worst_links": []} for s in (1, 2, 3)]
    check_png(shiftplots.measured_vs_predicted(shifts, str(tmp_path / "m2.png"), "Measured per shift", drawn=drawn))
    facts = common_checks(drawn[-1])
    assert any("no prediction" in t.get_text() for t in facts["texts"])


def test_measured_vs_predicted_draws_a_simulation_beside_the_bars(tmp_path, drawn):
    """The credit model's per-shift rate: a green marker at its avg, whiskers over
    its min..max, beside (not over) each bar's own whisker, named in the legend;
    the y axis leaves room for its highest node."""
    shifts = []
    for s in range(1, 6):
        shifts.append({"shift": s, "measured": {"min": 0.3, "avg": 0.5, "max": 0.6},
                       "predicted": {"min": 0.4, "avg": 0.5, "max": 0.5}, "worst_links": [],
                       "simulated": None if s == 3 else {"min": 0.2 * s, "avg": 0.25 * s, "max": 0.3 * s}})
    check_png(shiftplots.measured_vs_predicted(shifts, str(tmp_path / "sim.png"), "Measured vs predicted and simulated",
                                          simulated="credit model on emulated-2x4", drawn=drawn))
    facts = common_checks(drawn[-1])
    ax = data_axes(drawn[-1])[0]
    (marks,) = [line for line in ax.lines if line.get_marker() == "D"]
    assert list(marks.get_xdata()) == [s + shiftplots.SIM_OFFSET for s in (1, 2, 4, 5)]
    assert list(marks.get_ydata()) == [0.25 * s for s in (1, 2, 4, 5)]
    assert 0 < shiftplots.SIM_OFFSET < 0.35          # inside its shift's bar (0.7 wide), off the bar's whisker
    assert sorted(round(x, 6) for x in error_bar_lengths(ax)) == sorted(
        [0.3] * 5 + [round(0.1 * s, 6) for s in (1, 2, 4, 5)])
    assert ax.get_ylim()[1] >= 1.5                # the simulation's highest node (0.3 x 5)
    legend = [t.get_text() for t in facts["legends"][0].get_texts()]
    assert any(t.startswith("credit model on emulated-2x4:") for t in legend)
    # A simulation set against the prediction alone says so in its bars and notes.
    alone = [dict(s, simulated=None) for s in shifts]
    shiftplots.measured_vs_predicted(alone, str(tmp_path / "alone.png"), "Simulated vs predicted", bars="simulated",
                                     drawn=drawn)
    facts = common_checks(drawn[-1])
    legend = [t.get_text() for t in facts["legends"][0].get_texts()]
    assert any(t.startswith("simulated: avg per node") for t in legend) and not any("credit" in t for t in legend)
    assert any("worst simulated shifts" in t.get_text() for t in facts["texts"])


FIGURES = {"grouped_bars": plots, "lines": plots, "heatmap": plots,
           "pair_matrix": shiftplots, "shift_profile": shiftplots, "measured_vs_predicted": shiftplots}


@pytest.mark.parametrize("name", ["grouped_bars", "lines", "heatmap", "pair_matrix", "shift_profile",
                                  "measured_vs_predicted"])
def test_every_figure_is_documented(name):
    module = FIGURES[name]
    assert name in module.__doc__ and getattr(module, name).__doc__


def test_the_checks_catch_a_legend_over_data_and_small_text():
    """figure_check itself: a legend inside the axes and 6 pt text are reported."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    fig = Figure(figsize=(4, 3))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    ax.plot([0, 1], [0, 1], label="a line")
    ax.legend(loc="upper left")
    ax.text(0.5, 0.5, "tiny", fontsize=6)
    fig.canvas.draw()
    facts = figure_check(fig)
    assert facts["legend_overlaps"] == [(0, 0)]
    assert facts["min_text_pt"] == 6


def test_pair_matrix_of_an_even_network_does_not_paint_noise_as_a_slow_link(tmp_path, drawn):
    matrix = [[137.0 if i == j else 50.0 + 0.1 * ((i + j) % 3) for j in range(4)] for i in range(4)]
    shiftplots.pair_matrix(matrix, str(tmp_path / "even.png"), "Receive rate per pair, even network", drawn=drawn)
    norm = data_axes(drawn[-1])[0].images[0].norm
    assert norm.vmax == 50.2 and norm.vmin <= 0.8 * 50.2      # 0.4 % of noise is not the whole scale


def test_heatmap_too_many_cells_for_numbers_shows_colours_only(tmp_path, drawn):
    panel = surface("tcp", list(range(20)), list(range(18)), n=3)
    check_png(plots.heatmap([panel], str(tmp_path / "huge.png"), "Huge surface", "Gb/s per node", drawn=drawn))
    fig = drawn[-1]
    common_checks(fig)
    ax = data_axes(fig)[0]
    assert len(ax.texts) == 0 and len(ax.patches) == 1            # no numbers, best still boxed
    assert "colour: median" in fig._suptitle.get_text()
