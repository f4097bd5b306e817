"""The campaign report's figures (matplotlib, Agg), one function per figure.

Each function gets data already reduced by report.py, writes one PNG and
returns its path.  What each figure is for:

- grouped_bars: a categorical axis (variant such as "ucx/sm write", "tcp",
  "mpi/vader"; protocol, scheduling, layout, data path): one bar per category,
  grouped when several series are compared.
- lines: a numeric axis (fragment size, credits, parallel, nodes): one line
  per series, optionally on a log2 x axis with readable tick labels.
- heatmap: two numeric axes at once (credits x parallel), one panel per
  variant, one shared colour scale, the best cell boxed.
- pair_matrix: the mpiGraph-style N x N sender -> receiver rate of a
  one-to-one shift scan, which finds a slow node, cable or switch.  The
  diagonal (a node copying to itself) is greyed and kept out of the colours.
- shift_profile: min/avg/max over nodes per shift of a shift scan; shift 0
  (local copy) is drawn apart so it never looks like the best network shift.
- measured_vs_predicted: measured per-shift rate beside the routing
  prediction (1 / max flows per link) and, when there is one, a simulation
  of the same scan (the credit model's per-shift rate), with the links that
  explain the worst shifts named below the axes (the DAQPIPE paper's
  figure 6 beside its simulator).

A "point" is a tuple (x, median, lo, hi, n): the median over n repeats and
the min..max of those repeats (lo == hi == median when n == 1).  Error bars
always show lo..hi; when any n > 1 the y label says "median of N repeats,
bars: min-max".  Baseline data (same shape as the current data), when given,
is drawn hatched (bars) or dashed (lines) in the same colour beside it.

Layout rules every figure keeps: units on every axis, legends outside the
axes (never over data), tick labels >= 9 pt, cell numbers >= 8 pt (9 pt
unless the cells are many), titles say what is compared.

Test hook: after each call, `last_figure` is the matplotlib Figure that was
written (already drawn, so its artists can be measured); tests/python/
test_plots.py uses it to check legend placement, text sizes and colour
scales.
"""
import math
import textwrap

import matplotlib
import numpy as np

matplotlib.use("Agg")
from matplotlib import colormaps, rc_context  # noqa: E402
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.colors import Normalize  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.patches import Patch, Rectangle  # noqa: E402

BW_UNIT = "Gb/s"
DPI = 110
MAX_WIDTH_IN = 12.0    # 1320 px at DPI: shown at (nearly) natural size in a report page
MIN_TEXT_PT = 8        # nothing in a figure is smaller than this
CELL_TEXT_PT = 9       # heat-map numbers unless the cells are many
HEAT_MAX_NUMBERED = 16  # more cells than this along an axis: colours only, no numbers
PAIR_MIN_SPAN = 0.2     # pair-matrix colours span at least 20 % below the fastest pair
STYLE = {"font.size": 10, "xtick.labelsize": 10, "ytick.labelsize": 10, "axes.labelsize": 11,
         "axes.titlesize": 12, "legend.fontsize": 9.5, "figure.titlesize": 13,
         "axes.grid": False, "hatch.linewidth": 1.0}

last_figure = None     # test hook: the Figure most recently written


# ---------------------------------------------------------------- helpers

def _new_figure(width, height):
    fig = Figure(figsize=(width, height), dpi=DPI, constrained_layout=True)
    FigureCanvasAgg(fig)
    return fig


def _save(fig, path):
    global last_figure
    fig.savefig(path, dpi=DPI, bbox_inches="tight", pad_inches=0.15)
    last_figure = fig
    return path


def _wrap(text, width_in, pt=12):
    """Wrap a title to the figure width (about 0.55 * pt / 72 inch per character)."""
    chars = max(30, int(width_in * 72 / (0.55 * pt)))
    return "\n".join(textwrap.wrap(text, chars)) if text else text


def _fmt(v):
    """A value label with 2-3 significant digits."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "n/a"
    a = abs(v)
    if a >= 100:
        return "%.0f" % v
    if a >= 10:
        return "%.1f" % v
    if a >= 1:
        return "%.2f" % v
    return "%.2g" % v


def _pct(delta):
    """A change in percent, '+3%' / '-12%' / '\u00b10%'."""
    return "\u00b10%" if round(delta) == 0 else "%+.0f%%" % delta


def _repeats(points):
    """'median of N repeats, bars: min-max' (N or N1-N2) when any n > 1, else ''."""
    ns = sorted({int(p[4]) for p in points if p is not None})
    if not ns or ns[-1] <= 1:
        return ""
    count = str(ns[0]) if ns[0] == ns[-1] else "%d-%d" % (ns[0], ns[-1])
    return "median of %s repeats, bars: min\u2013max" % count


def _ylabel(ax, ylabel, points):
    note = _repeats(points)
    ax.set_ylabel(ylabel + ("\n(%s)" % note if note else ""))


def _yerr(points):
    """Asymmetric error bars median-lo .. hi-median of points (never negative)."""
    return _spans([(p[1], p[2], p[3]) for p in points])


def _spans(triples):
    """[(mid, lo, hi)] -> matplotlib's yerr [[below], [above]], clipped at 0."""
    return [[max(0.0, m - lo) for m, lo, _ in triples], [max(0.0, hi - m) for m, _, hi in triples]]


def _legend_right(ax, handles=None, labels=None):
    """A legend outside the axes, to the right; constrained layout keeps it in the figure."""
    if handles is None:
        handles, labels = ax.get_legend_handles_labels()
    if not handles:
        return None
    return ax.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.02, 1.0),
                     borderaxespad=0.0, frameon=False)


def _text_colour(cmap, norm, value):
    r, g, b, _ = cmap(norm(value))
    return "black" if 0.299 * r + 0.587 * g + 0.114 * b > 0.5 else "white"


def _ticklabels_fit(ax, labels, slot_in, axis="x"):
    """Rotate tick labels that would not fit in their slot (inches per tick)."""
    longest = max((len(str(s)) for s in labels), default=0)
    if longest * 10 * 0.6 / 72 > slot_in and axis == "x":
        # 35 degrees while neighbours' baselines stay a line apart, else upright
        angle = 35 if slot_in * math.sin(math.radians(35)) > 0.2 else 90
        ax.tick_params(axis="x", labelrotation=angle)
        for t in ax.get_xticklabels():
            t.set_horizontalalignment("right" if angle != 90 else "center")
            t.set_rotation_mode("anchor" if angle != 90 else "default")


# ---------------------------------------------------------------- figures

def grouped_bars(categories, series, path, title, xlabel, ylabel, baseline=None):
    """Bars per category with min..max error bars and the median written above each bar.

    categories: x tick labels in order.  series: {series label: {category: point}};
    one series colours bars by category, several are grouped and coloured by series.
    baseline: same shape, drawn hatched beside the current bar in the same colour.
    """
    baseline = baseline or {}
    names = list(series)
    per_cat = len(names) * (2 if baseline else 1)
    slot = 0.8 / per_cat
    # room for the widest tick label, and for the legend beside the axes when there is one
    label_in = max((len(str(c)) for c in categories), default=1) * 10 * 0.6 / 72 + 0.25
    legend_in = 0.0 if len(names) == 1 else 0.5 + max(len(str(n)) for n in names) * 9 * 0.6 / 72
    width = min(MAX_WIDTH_IN, max(6.0, 1.5 + legend_in + len(categories) * max(0.9, 0.55 * per_cat, label_in)))
    cat_in = (width - 1.5 - legend_in) / max(1, len(categories))
    with rc_context(STYLE):
        fig = _new_figure(width, 4.8)
        ax = fig.add_subplot()
        all_points, top = [], 0.0
        longest = max((len(_fmt(p[1])) for d in list(series.values()) + list(baseline.values())
                       for p in d.values() if p), default=3)
        vertical = slot * cat_in < longest * 9 * 0.6 / 72 + 0.04
        for si, name in enumerate(names):
            drawn = [(ci, series[name][c]) for ci, c in enumerate(categories) if series[name].get(c)]
            base = [(ci, baseline.get(name, {}).get(c)) for ci, c in enumerate(categories)]
            base = [(ci, p) for ci, p in base if p]
            colours = (["C%d" % (ci % 10) for ci, _ in drawn] if len(names) == 1
                       else ["C%d" % (si % 10)] * len(drawn))
            offset = -0.4 + slot * (si * (2 if baseline else 1) + 0.5)
            top = max([top] + [p[3] for _, p in drawn + base])
            all_points += [p for _, p in drawn + base]
            if drawn:
                xs = [ci + offset for ci, _ in drawn]
                pts = [p for _, p in drawn]
                ax.bar(xs, [p[1] for p in pts], slot * 0.95, color=colours, yerr=_yerr(pts),
                       capsize=3, ecolor="black", label=name if len(names) > 1 else None)
                _bar_values(ax, xs, pts, vertical)
            if base:
                bcol = {ci: c for (ci, _), c in zip(drawn, colours)}
                xs = [ci + offset + slot for ci, _ in base]
                pts = [p for _, p in base]
                col = [bcol.get(ci, "C%d" % ((ci if len(names) == 1 else si) % 10)) for ci, _ in base]
                ax.bar(xs, [p[1] for p in pts], slot * 0.95, color="white", edgecolor=col, hatch="//",
                       yerr=_yerr(pts), capsize=3, ecolor="dimgray", linewidth=1.2)
                _bar_values(ax, xs, pts, vertical)
        for ci, c in enumerate(categories):
            if not any(series[name].get(c) for name in names):
                ax.text(ci, 0, "not run", ha="center", va="bottom", fontsize=9, color="dimgray",
                        rotation=90 if cat_in < 0.7 else 0)
        ax.set_xticks(range(len(categories)))
        ax.set_xticklabels([str(c) for c in categories])
        _ticklabels_fit(ax, categories, cat_in)
        ax.set_xlim(-0.6, len(categories) - 0.4)
        ax.set_ylim(0, (top or 1.0) * (1.35 if vertical else 1.15))
        ax.set_xlabel(xlabel)
        _ylabel(ax, ylabel, all_points)
        ax.set_title(_wrap(title, width))
        ax.grid(True, axis="y", alpha=0.3)
        ax.set_axisbelow(True)
        handles, labels = ax.get_legend_handles_labels()
        if baseline:
            handles.append(Patch(facecolor="white", edgecolor="dimgray", hatch="//"))
            labels.append("baseline (hatched)")
        _legend_right(ax, handles, labels)
        return _save(fig, path)


def _bar_values(ax, xs, points, vertical):
    for x, p in zip(xs, points):
        ax.annotate(_fmt(p[1]), (x, p[3]), xytext=(0, 3), textcoords="offset points",
                    ha="center", va="bottom", fontsize=9, rotation=90 if vertical else 0)


def lines(series, path, title, xlabel, ylabel, log2_x=False, x_label=str, baseline=None):
    """One line with markers and min..max error bars per series over a numeric axis.

    series: {label: [point sorted by x]}.  log2_x: log2 axis with a tick at every
    measured x, labelled x_label(x) (e.g. "64 KiB").  baseline: same shape, dashed.
    """
    baseline = baseline or {}
    xs_all = sorted({p[0] for pts in list(series.values()) + list(baseline.values()) for p in pts})
    width = min(MAX_WIDTH_IN, max(7.0, 2.5 + 0.55 * len(xs_all)))
    with rc_context(STYLE):
        fig = _new_figure(width, 4.8)
        ax = fig.add_subplot()
        if log2_x:
            ax.set_xscale("log", base=2)
        k = len(series) + len([b for b in baseline if b in series])
        all_points, i = [], 0
        for si, (label, pts) in enumerate(series.items()):
            colour = "C%d" % (si % 10)
            drawn = [(label, pts, "o-", "")]
            if baseline.get(label):
                drawn.append((label + " baseline", baseline[label], "s--", "none"))
            for name, ps, style, face in drawn:
                xs = [_dodge(p[0], i, k, log2_x, xs_all) for p in ps]
                ax.errorbar(xs, [p[1] for p in ps], yerr=_yerr(ps), fmt=style, color=colour,
                            capsize=3, markersize=6, label=name, markerfacecolor=face or colour,
                            alpha=0.85 if face else 1.0)
                all_points += ps
                i += 1
        if xs_all and (log2_x or len(xs_all) <= 16):
            ax.set_xticks(xs_all)
            ax.set_xticklabels([x_label(x) for x in xs_all])
            ax.minorticks_off()
            _ticklabels_fit(ax, [x_label(x) for x in xs_all], (width - 2.5) / len(xs_all))
        if log2_x and xs_all:
            ax.set_xlim(xs_all[0] / 2 ** 0.4, xs_all[-1] * 2 ** 0.4)
        ax.set_ylim(bottom=0, top=max([p[3] for p in all_points] or [1.0]) * 1.1)
        ax.set_xlabel(xlabel + (" (log scale)" if log2_x else ""))
        _ylabel(ax, ylabel, all_points)
        ax.set_title(_wrap(title, width))
        ax.grid(True, alpha=0.3)
        _legend_right(ax)
        return _save(fig, path)


def _dodge(x, i, k, log2_x, xs_all):
    """Shift series i of k a little sideways so their error bars do not hide each other."""
    if k <= 1:
        return x
    step = (i - (k - 1) / 2.0) * 0.04
    if log2_x:
        return x * 2 ** step
    span = (xs_all[-1] - xs_all[0]) or 1.0
    gap = min((b - a for a, b in zip(xs_all, xs_all[1:])), default=span)
    return x + step * min(gap, span)


def heatmap(panels, path, title, colorbar_label):
    """Two-axis heat maps (e.g. credits x parallel), one panel per variant, one colour scale.

    panel: {"title", "x_label", "y_label", "xs", "ys", "cells": [iy][ix] None or
    {"median", "lo", "hi", "n", "delta_pct", "within_noise"}, "best": (iy, ix)}.  A cell shows
    the median, "lo-hi" when n > 1 and the change vs baseline when delta_pct is given (no
    numbers beyond HEAT_MAX_NUMBERED cells along an axis); best is boxed in red.  A cell
    within noise of its panel's best (within_noise true) gets a dashed red box and a
    leading "\u2248" on its median: the repeats cannot tell it from the best.  The colour
    scale spans at least the noise floor (the median width of the cells' repeat ranges),
    so that differences smaller than the noise do not fill the whole colour map, and the
    colour bar's label gives that floor.
    """
    values = [c["median"] for p in panels for row in p["cells"] for c in row if c]
    vmin, vmax = (min(values), max(values)) if values else (0.0, 1.0)
    floor = _noise_floor(panels)
    if floor:
        vmin = min(vmin, vmax - floor)
    if vmax <= vmin:
        vmin, vmax = vmin - 0.5, vmax + 0.5
    norm, cmap = Normalize(vmin, vmax), colormaps["viridis"].with_extremes(bad="#e6e6e6")
    nx = max(len(p["xs"]) for p in panels)
    ny = max(len(p["ys"]) for p in panels)
    many = nx * ny > 64 or nx > 9
    pt = MIN_TEXT_PT if many else CELL_TEXT_PT
    numbers = max(nx, ny) <= HEAT_MAX_NUMBERED
    lines_per_cell = 1 + any(c and c.get("n", 1) > 1 for p in panels for r in p["cells"] for c in r) \
        + any(c and c.get("delta_pct") is not None for p in panels for r in p["cells"] for c in r)
    cell_w = (0.8 if lines_per_cell > 1 else 0.6) * pt / 9 if numbers else 0.3
    cell_h = (0.2 + 0.19 * lines_per_cell) * pt / 9 if numbers else 0.3
    cols = max(1, min(len(panels), int((MAX_WIDTH_IN - 1.4) // (nx * cell_w + 1.6))))
    rows = (len(panels) + cols - 1) // cols
    width = cols * (nx * cell_w + 1.6) + 1.4
    height = rows * (ny * cell_h + 1.6) + 0.8
    with rc_context(STYLE):
        fig = _new_figure(max(width, 5.0), max(height, 3.5))
        axes = fig.subplots(rows, cols, squeeze=False)
        image = None
        for k, panel in enumerate(panels):
            image = _heat_panel(axes[k // cols][k % cols], panel, cmap, norm, pt if numbers else None)
        for k in range(len(panels), rows * cols):
            axes[k // cols][k % cols].axis("off")
        fig.suptitle(_wrap(title, max(width, 5.0), 13) + "\n" + _cell_legend(panels))
        if image is not None:
            fig.colorbar(image, ax=axes.ravel().tolist(), shrink=min(1.0, 0.9 if rows == 1 else 0.6),
                         label=colorbar_label + _noise_label(panels))
        return _save(fig, path)


def _noise_floor(panels):
    """The median width of the cells' repeat ranges (None without repeats)."""
    widths = [c["hi"] - c["lo"] for p in panels for row in p["cells"] for c in row
              if c and c.get("n", 1) > 1 and c.get("hi") is not None]
    return float(np.median(widths)) if widths else None


def _noise_label(panels):
    """The colour bar's note on noise: the noise floor and the marked cells."""
    floor = _noise_floor(panels)
    parts = ["noise floor %s (median repeat range)" % _fmt(floor)] if floor else []
    if any(c and c.get("within_noise") for p in panels for row in p["cells"] for c in row):
        parts.append("dashed, \u2248: within noise of the best")
    return ("\n" + "\n".join(parts)) if parts else ""


def _cell_legend(panels):
    """What the lines of a cell mean, e.g. 'cell: median / min-max of 3 repeats / vs baseline; best boxed'."""
    if max(max(len(p["xs"]), len(p["ys"])) for p in panels) > HEAT_MAX_NUMBERED:
        return "colour: median; best cell boxed in red"
    cells = [c for p in panels for row in p["cells"] for c in row if c]
    ns = sorted({c.get("n", 1) for c in cells}) or [1]
    parts = ["median"] if ns[-1] <= 1 else ["median of %s repeats" % (
        ns[0] if ns[0] == ns[-1] else "%d-%d" % (ns[0], ns[-1])), "min\u2013max"]
    if any(c.get("delta_pct") is not None for c in cells):
        parts.append("change vs baseline")
    marked = "; dashed, \u2248: within noise of the best" if any(c.get("within_noise") for c in cells) else ""
    return "cell: %s; best cell boxed in red%s" % (" / ".join(parts), marked)


def _heat_panel(ax, panel, cmap, norm, pt):
    cells = panel["cells"]
    grid = np.ma.masked_invalid(np.array(
        [[float("nan") if c is None else c["median"] for c in row] for row in cells], dtype=float))
    image = ax.imshow(grid, origin="lower", cmap=cmap, norm=norm, aspect="auto")
    ax.set_xticks(range(len(panel["xs"])))
    ax.set_xticklabels([str(v) for v in panel["xs"]])
    ax.set_yticks(range(len(panel["ys"])))
    ax.set_yticklabels([str(v) for v in panel["ys"]])
    ax.set_xlabel(panel["x_label"])
    ax.set_ylabel(panel["y_label"])
    ax.set_title(panel["title"], fontsize=11)
    for iy, row in enumerate(cells if pt else []):
        for ix, c in enumerate(row):
            if c is None:
                ax.text(ix, iy, "not run", ha="center", va="center", fontsize=pt, color="dimgray")
                continue
            text = ("\u2248" if c.get("within_noise") else "") + _fmt(c["median"])
            if c.get("n", 1) > 1:
                text += "\n%s\u2013%s" % (_fmt(c["lo"]), _fmt(c["hi"]))
            if c.get("delta_pct") is not None:
                text += "\n" + _pct(c["delta_pct"])
            ax.text(ix, iy, text, ha="center", va="center", fontsize=pt, linespacing=1.1,
                    color=_text_colour(cmap, norm, c["median"]))
    for iy, row in enumerate(cells):
        for ix, c in enumerate(row):
            if c and c.get("within_noise"):
                ax.add_patch(Rectangle((ix - 0.44, iy - 0.44), 0.88, 0.88, fill=False, edgecolor="red",
                                       linewidth=1.5, linestyle="--"))
    if panel.get("best") is not None:
        by, bx = panel["best"]
        ax.add_patch(Rectangle((bx - 0.5, by - 0.5), 1, 1, fill=False, edgecolor="red", linewidth=3))
    return image


def pair_matrix(matrix, path, title, unit="Gb/s", labels=None):
    """mpiGraph-style N x N heat map: row = sending node, column = receiving node.

    matrix[i][j]: rate from node i to node j (float or None).  The diagonal is a node
    copying to itself: drawn grey and hatched, labelled "local copy", and left out of
    the colour scale, which spans at least PAIR_MIN_SPAN below the fastest pair.
    Numbers are written in the cells when N <= 16.
    """
    n = len(matrix)
    labels = labels or [str(i) for i in range(n)]
    grid = np.array([[float("nan") if (v is None or i == j) else float(v) for j, v in enumerate(row)]
                     for i, row in enumerate(matrix)], dtype=float)
    off = grid[~np.isnan(grid)]
    vmin, vmax = (float(off.min()), float(off.max())) if off.size else (0.0, 1.0)
    # The scale spans at least PAIR_MIN_SPAN below the fastest pair, so that noise
    # on an even network does not paint a "slow" link.
    vmin = min(vmin, vmax * (1.0 - PAIR_MIN_SPAN))
    if vmax <= vmin:
        vmin, vmax = vmin - 0.5, vmax + 0.5
    norm, cmap = Normalize(vmin, vmax), colormaps["viridis"].with_extremes(bad="white")
    numbers = n <= 16
    pt = CELL_TEXT_PT if n <= 10 else MIN_TEXT_PT
    cell = (0.62 if n <= 10 else 0.5) if numbers else max(0.12, 8.0 / n)
    side = max(4.0, n * cell)
    with rc_context(STYLE):
        fig = _new_figure(side + 2.2, side + 1.6)
        ax = fig.add_subplot()
        image = ax.imshow(np.ma.masked_invalid(grid), cmap=cmap, norm=norm, aspect="equal")
        for i in range(n):
            ax.add_patch(Rectangle((i - 0.5, i - 0.5), 1, 1, facecolor="#d0d0d0", edgecolor="gray",
                                   hatch="//", linewidth=0.5))
        if numbers:
            _pair_numbers(ax, matrix, cmap, norm, pt)
        step = max(1, int(math.ceil(n / 32.0)))
        ax.set_xticks(range(0, n, step))
        ax.set_xticklabels(labels[::step], rotation=90 if n > 16 else 0)
        ax.set_yticks(range(0, n, step))
        ax.set_yticklabels(labels[::step])
        ax.set_xlabel("receiving node")
        ax.set_ylabel("sending node")
        ax.set_title(_wrap(title, side + 2.2))
        fig.colorbar(image, ax=ax, shrink=0.85, label="receive rate (%s)" % unit)
        ax.annotate(textwrap.fill("grey hatched diagonal: local copy (node to itself, not network), "
                                  "not in the colour scale", int(side * 14)), (0.5, 0.0), xycoords=("axes fraction", ax.xaxis.label),
                    xytext=(0, -6), textcoords="offset points", ha="center", va="top", fontsize=9)
        return _save(fig, path)


def _pair_numbers(ax, matrix, cmap, norm, pt):
    for i, row in enumerate(matrix):
        for j, v in enumerate(row):
            if i == j:
                ax.text(j, i, "local\ncopy", ha="center", va="center", fontsize=pt,
                        color="black", linespacing=1.0)
            elif v is None:
                ax.text(j, i, "n/a", ha="center", va="center", fontsize=pt, color="dimgray")
            else:
                ax.text(j, i, _fmt(v), ha="center", va="center", fontsize=pt,
                        color=_text_colour(cmap, norm, v))


def shift_profile(shifts, path, title):
    """Receive rate per node for each shift of a one-to-one scan: avg bars, min..max over nodes.

    shifts: [{"shift", "min", "avg", "max", "local_copy": bool}].  Local-copy shifts
    (shift 0) get their own small grey hatched panel on the left, with their own
    scale, so they can never be read as the best network shift.
    """
    local = [s for s in shifts if s.get("local_copy")]
    net = [s for s in shifts if not s.get("local_copy")]
    width = min(MAX_WIDTH_IN, max(6.5, 2.5 + 0.4 * len(net) + (1.6 if local else 0)))
    with rc_context(STYLE):
        fig = _new_figure(width, 4.6)
        if local:
            ax_l, ax = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.0 + 0.6 * len(local),
                                                                       max(3.0, 0.4 * len(net))]})
            _local_panel(ax_l, local)
        else:
            ax = fig.add_subplot()
        if net:
            xs = [s["shift"] for s in net]
            ax.bar(xs, [s["avg"] for s in net], 0.7, color="C0", capsize=3, ecolor="black",
                   yerr=_spans([(s["avg"], s["min"], s["max"]) for s in net]))
            _xticks_int(ax, xs)
            ax.set_ylim(0, max(s["max"] for s in net) * 1.12)
            best = max(net, key=lambda s: s["avg"])
            ax.annotate("best %s" % _fmt(best["avg"]), (best["shift"], best["max"]), xytext=(0, 3),
                        textcoords="offset points", ha="center", va="bottom", fontsize=9)
        else:
            ax.text(0.5, 0.5, "no network shift measured", transform=ax.transAxes, ha="center")
        ax.set_xlabel("shift (receiver = sender + shift mod N)")
        ax.set_ylabel("receive rate per node (%s)\n(avg over nodes, bars: min\u2013max)" % BW_UNIT)
        ax.set_title("network shifts", fontsize=11)
        ax.grid(True, axis="y", alpha=0.3)
        ax.set_axisbelow(True)
        fig.suptitle(_wrap(title, width, 13))
        return _save(fig, path)


def _local_panel(ax, local):
    xs = [s["shift"] for s in local]
    ax.bar(xs, [s["avg"] for s in local], 0.6, color="#d0d0d0", edgecolor="gray", hatch="//",
           yerr=_spans([(s["avg"], s["min"], s["max"]) for s in local]),
           capsize=3, ecolor="dimgray")
    for s in local:
        ax.annotate(_fmt(s["avg"]), (s["shift"], s["max"]), xytext=(0, 3), textcoords="offset points",
                    ha="center", va="bottom", fontsize=9, color="dimgray")
    _xticks_int(ax, xs)
    ax.set_xlim(min(xs) - 0.8, max(xs) + 0.8)
    ax.set_ylim(0, max(s["max"] for s in local) * 1.15)
    ax.set_xlabel("shift")
    ax.set_ylabel("%s per node (own scale)" % BW_UNIT)
    ax.set_title("local copy\n(not network)", fontsize=10, color="dimgray")


def _xticks_int(ax, xs):
    step = max(1, int(math.ceil(len(xs) / 24.0)))
    ax.set_xticks(xs[::step])
    ax.set_xticklabels([str(x) for x in xs[::step]])


def measured_vs_predicted(shifts, path, title, bars="measured", simulated=None):
    """Measured per-shift rate (bars, min..max over nodes) beside the routing prediction
    and a simulation of the same scan.

    shifts: [{"shift", "measured": {"min","avg","max"}, "predicted": {"min","avg","max"}
    or None, "worst_links": [str], "simulated": {"min","avg","max"} or None (optional)}].
    The prediction is a step line (avg, one step per shift) with a thin dotted line for
    its min; the simulation (legend: `simulated`, e.g. "credit model on emulated-2x4")
    green diamonds at its avg with its min..max over nodes, beside each bar.  The 2-3
    worst measured shifts get red tick labels and their worst links are listed below the
    axes, not over the data.  `bars` names what the bars are ("measured", or "simulated"
    for a simulation set against the prediction alone).  Entries with "local_copy" true
    (shift 0) are left out, and the note says so.
    """
    left_out = [s for s in shifts if s.get("local_copy")]
    shifts = [s for s in shifts if not s.get("local_copy")]
    xs = [s["shift"] for s in shifts]
    width = min(MAX_WIDTH_IN - 3.2, max(6.0, 3.0 + 0.45 * len(shifts))) + 3.2   # + room for the legend
    worst = sorted(shifts, key=lambda s: s["measured"]["avg"])[:3 if len(shifts) > 4 else 2]
    with rc_context(STYLE):
        fig = _new_figure(width, 5.2)
        ax = fig.add_subplot()
        m = [s["measured"] for s in shifts]
        ax.bar(xs, [v["avg"] for v in m], 0.7, color="C0", capsize=3, ecolor="black",
               yerr=_spans([(v["avg"], v["min"], v["max"]) for v in m]),
               label="%s: avg per node,\nbars min\u2013max over nodes" % bars)
        pred = [s["predicted"] for s in shifts]
        if any(pred):
            ax.plot(*_steps(xs, [p["avg"] if p else None for p in pred]), color="C3", linewidth=2.2,
                    label="predicted avg\n(1 / max flows per link)")
            ax.plot(*_steps(xs, [p["min"] if p else None for p in pred]), color="C3", linewidth=1.2,
                    linestyle=":", label="predicted min")
        sims = [(s["shift"], s["simulated"]) for s in shifts if s.get("simulated")]
        if simulated and sims:
            ax.errorbar([x + SIM_OFFSET for x, _ in sims], [v["avg"] for _, v in sims],
                        yerr=_spans([(v["avg"], v["min"], v["max"]) for _, v in sims]), fmt="D",
                        color="C2", ecolor=SIM_WHISKER, markersize=7, markeredgecolor="black",
                        markeredgewidth=0.6, elinewidth=1.6, capsize=3, label="%s:\navg per node, min\u2013max" % simulated)
        _xticks_int(ax, xs)
        top = max([v["max"] for v in m] + [p["max"] for p in pred if p] +
                  [v["max"] for _, v in sims] + [1e-9])
        ax.set_ylim(0, top * 1.1)
        if xs:
            ax.set_xlim(min(xs) - 0.7, max(xs) + 0.7)
        worst_x = {s["shift"] for s in worst}
        for t, x in zip(ax.get_xticklabels(), ax.get_xticks()):
            if int(round(x)) in worst_x:
                t.set_color("C3")
                t.set_fontweight("bold")
        ax.set_xlabel("shift (receiver = sender + shift mod N)")
        ax.set_ylabel("receive rate per node (%s)" % BW_UNIT)
        ax.set_title(_wrap(title, width))
        ax.grid(True, axis="y", alpha=0.3)
        ax.set_axisbelow(True)
        _legend_right(ax)
        _mvp_notes(ax, worst, [s["shift"] for s in shifts if not s["predicted"]] if any(pred) else None,
                   [s["shift"] for s in left_out], width, bars)
        return _save(fig, path)


SIM_OFFSET = 0.2   # the simulated series sits beside the bar's own whisker, inside its shift
SIM_WHISKER = "#1b5e20"   # a dark green: its whiskers stay visible over the blue bars


def _steps(xs, ys):
    """A step line one shift wide per value; None breaks the line."""
    px, py = [], []
    for x, y in zip(xs, ys):
        y = float("nan") if y is None else y
        if px and px[-1] != x - 0.5:
            px.append(px[-1])
            py.append(float("nan"))
        px += [x - 0.5, x + 0.5]
        py += [y, y]
    return px, py


def _mvp_notes(ax, worst, unpredicted, left_out, width, bars="measured"):
    notes = []
    if worst:
        notes.append("worst %s shifts (red):" % bars)
        notes += ["  shift %s: %s %s%s" % (s["shift"], _fmt(s["measured"]["avg"]), BW_UNIT,
                                          ("; worst links " + ", ".join(s["worst_links"][:3]))
                                          if s.get("worst_links") else "") for s in worst]
    if unpredicted:
        notes.append("no prediction for shift %s" % ", ".join(str(x) for x in unpredicted))
    elif unpredicted is None:
        notes.append("no prediction (no platform file)")
    if left_out:
        notes.append("shift %s (local copy, not network) left out" % ", ".join(str(x) for x in left_out))
    if notes:
        limit = int(width * 12)
        ax.annotate("\n".join(n if len(n) <= limit else n[:limit - 4] + " ..." for n in notes), (0.0, 0.0),
                    xycoords=("axes fraction", ax.xaxis.label), xytext=(0, -8),
                    textcoords="offset points", ha="left", va="top", fontsize=9)
