"""The campaign report's figures (matplotlib, Agg), one function per figure;
the shift scans' figures are in shiftplots.py, what both share in plotkit.py.

Each function gets data already reduced by report.py, writes one PNG and
returns its path.  What each figure is for:

- grouped_bars: a categorical axis (variant such as "ucx/sm write", "tcp",
  "mpi/vader"; protocol, scheduling, layout, data path): one bar per category,
  grouped when several series are compared.
- lines: a numeric axis (fragment size, credits, parallel, nodes): one line
  per series, optionally on a log2 x axis with readable tick labels.
- heatmap: two numeric axes at once (credits x parallel), one panel per
  variant, one shared colour scale, the best cell boxed.

A "point" is a tuple (x, median, lo, hi, n): the median over n repeats and
the min..max of those repeats (lo == hi == median when n == 1).  Error bars
always show lo..hi; when any n > 1 the y label says "median of N repeats,
bars: min-max".  Baseline data (same shape as the current data), when given,
is drawn hatched (bars) or dashed (lines) in the same colour beside it.

Every function takes `drawn`, a list the matplotlib Figure it wrote is
appended to (already drawn, so its artists can be measured): tests/python/
test_plots.py checks legend placement, text sizes and colour scales on it.
The layout rules every figure keeps are plotkit.py's.
"""
import numpy as np
from matplotlib import colormaps, rc_context
from matplotlib.colors import Normalize
from matplotlib.patches import Patch, Rectangle

from . import plotkit as kit

HEAT_MAX_NUMBERED = 16  # more cells than this along an axis: colours only, no numbers


def grouped_bars(categories, series, path, title, xlabel, ylabel, baseline=None, drawn=None):
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
    width = min(kit.MAX_WIDTH_IN, max(6.0, 1.5 + legend_in + len(categories) * max(0.9, 0.55 * per_cat, label_in)))
    cat_in = (width - 1.5 - legend_in) / max(1, len(categories))
    with rc_context(kit.STYLE):
        fig = kit.new_figure(width, 4.8)
        ax = fig.add_subplot()
        all_points, top = [], 0.0
        longest = max((len(kit.fmt(p[1])) for d in list(series.values()) + list(baseline.values())
                       for p in d.values() if p), default=3)
        vertical = slot * cat_in < longest * 9 * 0.6 / 72 + 0.04
        for si, name in enumerate(names):
            present = [(ci, series[name][c]) for ci, c in enumerate(categories) if series[name].get(c)]
            base = [(ci, baseline.get(name, {}).get(c)) for ci, c in enumerate(categories)]
            base = [(ci, p) for ci, p in base if p]
            colours = (["C%d" % (ci % 10) for ci, _ in present] if len(names) == 1
                       else ["C%d" % (si % 10)] * len(present))
            offset = -0.4 + slot * (si * (2 if baseline else 1) + 0.5)
            top = max([top] + [p[3] for _, p in present + base])
            all_points += [p for _, p in present + base]
            if present:
                xs = [ci + offset for ci, _ in present]
                pts = [p for _, p in present]
                ax.bar(xs, [p[1] for p in pts], slot * 0.95, color=colours, yerr=kit.yerr(pts),
                       capsize=3, ecolor="black", label=name if len(names) > 1 else None)
                _bar_values(ax, xs, pts, vertical)
            if base:
                bcol = {ci: c for (ci, _), c in zip(present, colours)}
                xs = [ci + offset + slot for ci, _ in base]
                pts = [p for _, p in base]
                col = [bcol.get(ci, "C%d" % ((ci if len(names) == 1 else si) % 10)) for ci, _ in base]
                ax.bar(xs, [p[1] for p in pts], slot * 0.95, color="white", edgecolor=col, hatch="//",
                       yerr=kit.yerr(pts), capsize=3, ecolor="dimgray", linewidth=1.2)
                _bar_values(ax, xs, pts, vertical)
        for ci, c in enumerate(categories):
            if not any(series[name].get(c) for name in names):
                ax.text(ci, 0, "not run", ha="center", va="bottom", fontsize=9, color="dimgray",
                        rotation=90 if cat_in < 0.7 else 0)
        ax.set_xticks(range(len(categories)))
        ax.set_xticklabels([str(c) for c in categories])
        kit.ticklabels_fit(ax, categories, cat_in)
        ax.set_xlim(-0.6, len(categories) - 0.4)
        ax.set_ylim(0, (top or 1.0) * (1.35 if vertical else 1.15))
        ax.set_xlabel(xlabel)
        kit.ylabel(ax, ylabel, all_points)
        ax.set_title(kit.wrap(title, width))
        ax.grid(True, axis="y", alpha=0.3)
        ax.set_axisbelow(True)
        handles, labels = ax.get_legend_handles_labels()
        if baseline:
            handles.append(Patch(facecolor="white", edgecolor="dimgray", hatch="//"))
            labels.append("baseline (hatched)")
        kit.legend_right(ax, handles, labels)
        return kit.save(fig, path, drawn)


def _bar_values(ax, xs, points, vertical):
    for x, p in zip(xs, points):
        ax.annotate(kit.fmt(p[1]), (x, p[3]), xytext=(0, 3), textcoords="offset points",
                    ha="center", va="bottom", fontsize=9, rotation=90 if vertical else 0)


def lines(series, path, title, xlabel, ylabel, log2_x=False, x_label=str, baseline=None,
          drawn=None):
    """One line with markers and min..max error bars per series over a numeric axis.

    series: {label: [point sorted by x]}.  log2_x: log2 axis with a tick at every
    measured x, labelled x_label(x) (e.g. "64 KiB").  baseline: same shape, dashed.
    """
    baseline = baseline or {}
    xs_all = sorted({p[0] for pts in list(series.values()) + list(baseline.values()) for p in pts})
    width = min(kit.MAX_WIDTH_IN, max(7.0, 2.5 + 0.55 * len(xs_all)))
    with rc_context(kit.STYLE):
        fig = kit.new_figure(width, 4.8)
        ax = fig.add_subplot()
        if log2_x:
            ax.set_xscale("log", base=2)
        k = len(series) + len([b for b in baseline if b in series])
        all_points, i = [], 0
        for si, (label, pts) in enumerate(series.items()):
            colour = "C%d" % (si % 10)
            styled = [(label, pts, "o-", "")]
            if baseline.get(label):
                styled.append((label + " baseline", baseline[label], "s--", "none"))
            for name, ps, style, face in styled:
                xs = [_dodge(p[0], i, k, log2_x, xs_all) for p in ps]
                ax.errorbar(xs, [p[1] for p in ps], yerr=kit.yerr(ps), fmt=style, color=colour,
                            capsize=3, markersize=6, label=name, markerfacecolor=face or colour,
                            alpha=0.85 if face else 1.0)
                all_points += ps
                i += 1
        if xs_all and (log2_x or len(xs_all) <= 16):
            ax.set_xticks(xs_all)
            ax.set_xticklabels([x_label(x) for x in xs_all])
            ax.minorticks_off()
            kit.ticklabels_fit(ax, [x_label(x) for x in xs_all], (width - 2.5) / len(xs_all))
        if log2_x and xs_all:
            ax.set_xlim(xs_all[0] / 2 ** 0.4, xs_all[-1] * 2 ** 0.4)
        ax.set_ylim(bottom=0, top=max([p[3] for p in all_points] or [1.0]) * 1.1)
        ax.set_xlabel(xlabel + (" (log scale)" if log2_x else ""))
        kit.ylabel(ax, ylabel, all_points)
        ax.set_title(kit.wrap(title, width))
        ax.grid(True, alpha=0.3)
        kit.legend_right(ax)
        return kit.save(fig, path, drawn)


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


def heatmap(panels, path, title, colorbar_label, drawn=None):
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
    pt = kit.MIN_TEXT_PT if many else kit.CELL_TEXT_PT
    numbers = max(nx, ny) <= HEAT_MAX_NUMBERED
    lines_per_cell = 1 + any(c and c.get("n", 1) > 1 for p in panels for r in p["cells"] for c in r) \
        + any(c and c.get("delta_pct") is not None for p in panels for r in p["cells"] for c in r)
    cell_w = (0.8 if lines_per_cell > 1 else 0.6) * pt / 9 if numbers else 0.3
    cell_h = (0.2 + 0.19 * lines_per_cell) * pt / 9 if numbers else 0.3
    cols = max(1, min(len(panels), int((kit.MAX_WIDTH_IN - 1.4) // (nx * cell_w + 1.6))))
    rows = (len(panels) + cols - 1) // cols
    width = cols * (nx * cell_w + 1.6) + 1.4
    height = rows * (ny * cell_h + 1.6) + 0.8
    with rc_context(kit.STYLE):
        fig = kit.new_figure(max(width, 5.0), max(height, 3.5))
        axes = fig.subplots(rows, cols, squeeze=False)
        image = None
        for k, panel in enumerate(panels):
            image = _heat_panel(axes[k // cols][k % cols], panel, cmap, norm, pt if numbers else None)
        for k in range(len(panels), rows * cols):
            axes[k // cols][k % cols].axis("off")
        fig.suptitle(kit.wrap(title, max(width, 5.0), 13) + "\n" + _cell_legend(panels))
        if image is not None:
            fig.colorbar(image, ax=axes.ravel().tolist(), shrink=min(1.0, 0.9 if rows == 1 else 0.6),
                         label=colorbar_label + _noise_label(panels))
        return kit.save(fig, path, drawn)


def _noise_floor(panels):
    """The median width of the cells' repeat ranges (None without repeats)."""
    widths = [c["hi"] - c["lo"] for p in panels for row in p["cells"] for c in row
              if c and c.get("n", 1) > 1 and c.get("hi") is not None]
    return float(np.median(widths)) if widths else None


def _noise_label(panels):
    """The colour bar's note on noise: the noise floor and the marked cells."""
    floor = _noise_floor(panels)
    parts = ["noise floor %s (median repeat range)" % kit.fmt(floor)] if floor else []
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
            text = ("\u2248" if c.get("within_noise") else "") + kit.fmt(c["median"])
            if c.get("n", 1) > 1:
                text += "\n%s\u2013%s" % (kit.fmt(c["lo"]), kit.fmt(c["hi"]))
            if c.get("delta_pct") is not None:
                text += "\n" + kit.pct(c["delta_pct"])
            ax.text(ix, iy, text, ha="center", va="center", fontsize=pt, linespacing=1.1,
                    color=kit.text_colour(cmap, norm, c["median"]))
    for iy, row in enumerate(cells):
        for ix, c in enumerate(row):
            if c and c.get("within_noise"):
                ax.add_patch(Rectangle((ix - 0.44, iy - 0.44), 0.88, 0.88, fill=False, edgecolor="red",
                                       linewidth=1.5, linestyle="--"))
    if panel.get("best") is not None:
        by, bx = panel["best"]
        ax.add_patch(Rectangle((bx - 0.5, by - 0.5), 1, 1, fill=False, edgecolor="red", linewidth=3))
    return image
