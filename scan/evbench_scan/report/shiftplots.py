"""The one-to-one shift scans' figures (matplotlib, Agg), one function per
figure, in plots.py's manner (plotkit.py: style and helpers). Each gets data
already reduced by shifts.py, writes one PNG and returns its path; `drawn`,
when given, is a list the Figure is appended to (tests measure it).

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
"""
import math
import textwrap

import numpy as np
from matplotlib import colormaps, rc_context
from matplotlib.colors import Normalize
from matplotlib.patches import Rectangle

from . import plotkit as kit

PAIR_MIN_SPAN = 0.2     # pair-matrix colours span at least 20 % below the fastest pair


def pair_matrix(matrix, path, title, unit="Gb/s", labels=None, drawn=None):
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
    pt = kit.CELL_TEXT_PT if n <= 10 else kit.MIN_TEXT_PT
    cell = (0.62 if n <= 10 else 0.5) if numbers else max(0.12, 8.0 / n)
    side = max(4.0, n * cell)
    with rc_context(kit.STYLE):
        fig = kit.new_figure(side + 2.2, side + 1.6)
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
        ax.set_title(kit.wrap(title, side + 2.2))
        fig.colorbar(image, ax=ax, shrink=0.85, label="receive rate (%s)" % unit)
        ax.annotate(textwrap.fill("grey hatched diagonal: local copy (node to itself, not network), "
                                  "not in the colour scale", int(side * 14)), (0.5, 0.0), xycoords=("axes fraction", ax.xaxis.label),
                    xytext=(0, -6), textcoords="offset points", ha="center", va="top", fontsize=9)
        return kit.save(fig, path, drawn)


def _pair_numbers(ax, matrix, cmap, norm, pt):
    for i, row in enumerate(matrix):
        for j, v in enumerate(row):
            if i == j:
                ax.text(j, i, "local\ncopy", ha="center", va="center", fontsize=pt,
                        color="black", linespacing=1.0)
            elif v is None:
                ax.text(j, i, "n/a", ha="center", va="center", fontsize=pt, color="dimgray")
            else:
                ax.text(j, i, kit.fmt(v), ha="center", va="center", fontsize=pt,
                        color=kit.text_colour(cmap, norm, v))


def shift_profile(shifts, path, title, drawn=None):
    """Receive rate per node for each shift of a one-to-one scan: avg bars, min..max over nodes.

    shifts: [{"shift", "min", "avg", "max", "local_copy": bool}].  Local-copy shifts
    (shift 0) get their own small grey hatched panel on the left, with their own
    scale, so they can never be read as the best network shift.
    """
    local = [s for s in shifts if s.get("local_copy")]
    net = [s for s in shifts if not s.get("local_copy")]
    width = min(kit.MAX_WIDTH_IN, max(6.5, 2.5 + 0.4 * len(net) + (1.6 if local else 0)))
    with rc_context(kit.STYLE):
        fig = kit.new_figure(width, 4.6)
        if local:
            ax_l, ax = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.0 + 0.6 * len(local),
                                                                       max(3.0, 0.4 * len(net))]})
            _local_panel(ax_l, local)
        else:
            ax = fig.add_subplot()
        if net:
            xs = [s["shift"] for s in net]
            ax.bar(xs, [s["avg"] for s in net], 0.7, color="C0", capsize=3, ecolor="black",
                   yerr=kit.spans([(s["avg"], s["min"], s["max"]) for s in net]))
            kit.xticks_int(ax, xs)
            ax.set_ylim(0, max(s["max"] for s in net) * 1.12)
            best = max(net, key=lambda s: s["avg"])
            ax.annotate("best %s" % kit.fmt(best["avg"]), (best["shift"], best["max"]), xytext=(0, 3),
                        textcoords="offset points", ha="center", va="bottom", fontsize=9)
        else:
            ax.text(0.5, 0.5, "no network shift measured", transform=ax.transAxes, ha="center")
        ax.set_xlabel("shift (receiver = sender + shift mod N)")
        ax.set_ylabel("receive rate per node (%s)\n(avg over nodes, bars: min\u2013max)" % kit.BW_UNIT)
        ax.set_title("network shifts", fontsize=11)
        ax.grid(True, axis="y", alpha=0.3)
        ax.set_axisbelow(True)
        fig.suptitle(kit.wrap(title, width, 13))
        return kit.save(fig, path, drawn)


def _local_panel(ax, local):
    xs = [s["shift"] for s in local]
    ax.bar(xs, [s["avg"] for s in local], 0.6, color="#d0d0d0", edgecolor="gray", hatch="//",
           yerr=kit.spans([(s["avg"], s["min"], s["max"]) for s in local]),
           capsize=3, ecolor="dimgray")
    for s in local:
        ax.annotate(kit.fmt(s["avg"]), (s["shift"], s["max"]), xytext=(0, 3), textcoords="offset points",
                    ha="center", va="bottom", fontsize=9, color="dimgray")
    kit.xticks_int(ax, xs)
    ax.set_xlim(min(xs) - 0.8, max(xs) + 0.8)
    ax.set_ylim(0, max(s["max"] for s in local) * 1.15)
    ax.set_xlabel("shift")
    ax.set_ylabel("%s per node (own scale)" % kit.BW_UNIT)
    ax.set_title("local copy\n(not network)", fontsize=10, color="dimgray")


def measured_vs_predicted(shifts, path, title, bars="measured", simulated=None, drawn=None):
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
    width = min(kit.MAX_WIDTH_IN - 3.2, max(6.0, 3.0 + 0.45 * len(shifts))) + 3.2   # + room for the legend
    worst = sorted(shifts, key=lambda s: s["measured"]["avg"])[:3 if len(shifts) > 4 else 2]
    with rc_context(kit.STYLE):
        fig = kit.new_figure(width, 5.2)
        ax = fig.add_subplot()
        m = [s["measured"] for s in shifts]
        ax.bar(xs, [v["avg"] for v in m], 0.7, color="C0", capsize=3, ecolor="black",
               yerr=kit.spans([(v["avg"], v["min"], v["max"]) for v in m]),
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
                        yerr=kit.spans([(v["avg"], v["min"], v["max"]) for _, v in sims]), fmt="D",
                        color="C2", ecolor=SIM_WHISKER, markersize=7, markeredgecolor="black",
                        markeredgewidth=0.6, elinewidth=1.6, capsize=3, label="%s:\navg per node, min\u2013max" % simulated)
        kit.xticks_int(ax, xs)
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
        ax.set_ylabel("receive rate per node (%s)" % kit.BW_UNIT)
        ax.set_title(kit.wrap(title, width))
        ax.grid(True, axis="y", alpha=0.3)
        ax.set_axisbelow(True)
        kit.legend_right(ax)
        _mvp_notes(ax, worst, [s["shift"] for s in shifts if not s["predicted"]] if any(pred) else None,
                   [s["shift"] for s in left_out], width, bars)
        return kit.save(fig, path, drawn)


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
        notes += ["  shift %s: %s %s%s" % (s["shift"], kit.fmt(s["measured"]["avg"]), kit.BW_UNIT,
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
