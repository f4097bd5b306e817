"""Which figures a campaign gets: one for every key that varies.

Categorical keys (variant, protocol, scheduling, layout, ...) get grouped
bars, numeric keys (fragment size, credits, parallel, nodes, ...) lines, one
per variant (and per value of the other categorical keys); credits and
parallel together get the tuning-surface heat map; a one-to-one shift scan
gets its pair matrix, its per-shift profile and, when a platform predicts
it or a simulation of it is at hand, measured against predicted and
simulated. Where other keys vary too, each point is the best configuration
over them, and the caption says over which.
Every point is the median of its repeats with their min..max.
"""
import os

from . import analysis
from .noise import Call
from .stats import key as spread_key

MAX_SERIES = 8
BW = "Gb/s per node"


class Figure:
    def __init__(self, name, caption, path):
        self.name, self.caption, self.path = name, caption, path
        self.file = os.path.basename(path)


def _series_keys(rows, vary, k):
    """Categorical keys other than k that name the series (variant first)."""
    return [v for v in vary if v != k and not analysis.is_numeric(rows, v)]


def _label(row, keys, fmt):
    return ", ".join(fmt(k, row.value(k)) if k == "variant" else "%s=%s" % (k, fmt(k, row.value(k)))
                     for k in keys)


def _reduce(rows, label_of, x_of):
    """{label: {x: best row}}."""
    out = {}
    for r in rows:
        cell = out.setdefault(label_of(r), {})
        x = x_of(r)
        if x not in cell or spread_key(r.per_node) > spread_key(cell[x].per_node):
            cell[x] = r
    return out


def _over(vary, used):
    rest = [k for k in vary if k not in used]
    return " Best over %s." % ", ".join(rest) if rest else ""


def _nice(k):
    return {"fragment.size": "fragment size", "variant": "variant"}.get(k, k)


def line_figure(plots, rows, base_rows, vary, k, fmt, outdir):
    keys = _series_keys(rows, vary, k)
    label_of = lambda r: _label(r, keys, fmt) or r.variant
    data = _reduce(rows, label_of, lambda r: r.value(k))
    left_out = ""
    if len(data) > MAX_SERIES:   # a readable figure: the fastest series, the caption says so
        keep = sorted(data, key=lambda lab: -max(spread_key(r.per_node) for r in data[lab].values()))
        left_out = " The %d fastest of %d shown (all are in the tables): %s left out." % (
            MAX_SERIES, len(data), ", ".join(keep[MAX_SERIES:]))
        data = dict((lab, data[lab]) for lab in keep[:MAX_SERIES])
    series = dict((lab, [r.per_node.point(x) for x, r in sorted(cells.items())]) for lab, cells in data.items())
    base = None
    if base_rows:
        bdata = _reduce(base_rows, label_of, lambda r: r.value(k))
        base = dict((lab, [r.per_node.point(x) for x, r in sorted(cells.items())])
                    for lab, cells in bdata.items() if lab in series)
    xs = [r.value(k) for r in rows]
    log2 = min(xs) > 0 and max(xs) >= 8 * min(xs)   # a geometric range (sizes, credits, nodes)
    path = plots.lines(series, os.path.join(outdir, "by_%s.png" % k.replace(".", "_")),
                       "Gb/s per node vs %s" % _nice(k), _nice(k), BW,
                       log2_x=log2, x_label=lambda x: fmt(k, x), baseline=base)
    return Figure("Bandwidth vs %s" % _nice(k),
                  "One line per %s; bars: min–max of the repeats.%s%s" % (
                      " and ".join(keys) or "variant", _over(vary, [k] + keys), left_out), path)


def bar_figure(plots, rows, base_rows, vary, k, fmt, outdir):
    keys = _series_keys(rows, vary, k)
    numeric_others = [v for v in vary if v != k and v not in keys]
    split = None
    if not keys and len(numeric_others) == 1 and len({r.value(numeric_others[0]) for r in rows}) <= 4:
        split = numeric_others[0]   # e.g. variants at each of a few fragment sizes
    if split:
        label_of = lambda r: "%s=%s" % (split, fmt(split, r.value(split)))
        used = [k, split]
    else:
        label_of = lambda r: _label(r, keys, fmt) or "best configuration"
        used = [k] + keys
    cat_of = lambda r: fmt(k, r.value(k))
    data = _reduce(rows, label_of, cat_of)
    categories = [cat_of(r) for r in analysis.ranked(list(analysis.best_by(rows, cat_of).values()))]
    if split:   # series in the numeric order of the split key
        order = sorted(data, key=lambda lab: next(iter(data[lab].values())).value(split))
    else:
        order = sorted(data)
    series = dict((lab, dict((c, r.per_node.point(c)) for c, r in data[lab].items())) for lab in order)
    base = None
    if base_rows:
        bdata = _reduce(base_rows, label_of, cat_of)
        base = dict((lab, dict((c, r.per_node.point(c)) for c, r in bdata[lab].items()))
                    for lab in bdata if lab in series)
    path = plots.grouped_bars(categories, series, os.path.join(outdir, "by_%s.png" % k.replace(".", "_")),
                              "Gb/s per node by %s" % _nice(k), _nice(k), BW, baseline=base)
    return Figure("Bandwidth by %s" % _nice(k),
                  "Bars: median of the repeats, whiskers: their min–max.%s" % _over(vary, used), path)


def heatmap_figure(plots, rows, base_rows, vary, fmt, outdir, flags=None):
    panel_keys = ["variant"] + (["fragment.size"] if "fragment.size" in vary else [])
    groups = {}
    for r in rows:
        groups.setdefault(tuple(r.value(p) for p in panel_keys), []).append(r)
    matched = analysis.match(rows, base_rows) if base_rows else {}
    panels = []
    for pk in sorted(groups, key=str)[:9]:
        members = groups[pk]
        credits = sorted({r.value("credits") for r in members})
        parallel = sorted({r.value("parallel") for r in members})
        cells = _reduce(members, lambda r: r.value("credits"), lambda r: r.value("parallel"))
        grid = []
        for c in credits:
            line = []
            for p in parallel:
                r = cells.get(c, {}).get(p)
                if r is None:
                    line.append(None)
                    continue
                b = matched.get(id(r))
                delta = 100.0 * (r.per_node.median - b.per_node.median) / b.per_node.median \
                    if b and b.per_node and b.per_node.median else None
                line.append({"median": r.per_node.median, "lo": r.per_node.lo, "hi": r.per_node.hi,
                             "n": r.per_node.n, "delta_pct": delta})
            grid.append(line)
        top = analysis.best(members)
        for c, line in zip(credits, grid):   # the noise rule, as the answer applies it
            for p, data in zip(parallel, line):
                r = cells.get(c, {}).get(p)
                if data is not None and r is not top:
                    data["within_noise"] = not Call("", top, r, "", "", flags).decided
        panels.append({"title": ", ".join(fmt(p, v) for p, v in zip(panel_keys, pk)),
                       "x_label": "parallel (requests in flight per credit)",
                       "y_label": "credits (events in flight per BU)",
                       "xs": parallel, "ys": credits, "cells": grid,
                       "best": (credits.index(top.value("credits")), parallel.index(top.value("parallel")))})
    path = plots.heatmap(panels, os.path.join(outdir, "tuning_surface.png"),
                         "Tuning surface: credits × parallel", BW)
    return Figure("Tuning surface (credits × parallel)",
                  "Cell: median Gb/s per node (with the repeats' range), best boxed; cells within noise of "
                  "the best (their ranges overlap its, or a single run) are boxed dashed and marked ≈: the "
                  "repeats cannot tell them from the best. The colours span at least the noise floor.%s" % _over(
                      vary, panel_keys + ["credits", "parallel"]), path)


SHIFT_FIGURES = (   # (file prefix, name, caption, shiftplots function, data of the scan, drawn when)
    ("pairs", "Pair matrix", "Receive rate of each sender → receiver pair (one-to-one shift scan, median "
     "of repeats); the diagonal is each node copying to itself (local copy).",
     "pair_matrix", "matrix", "has_pairs"),
    ("shifts", "Per-shift rate", "Per-node min/avg/max for each shift; shift 0 is a local copy, not network.",
     "shift_profile", "profile", None),
)


def versus_figure(shiftplots, scan, path, title):
    """Measured (or simulated) per shift against the platform model's
    prediction and, beside a measured scan, the simulation of the same scan."""
    name = "%s vs %s" % (scan.kind.capitalize(), " and ".join(
        ["predicted"] * scan.has_prediction() + ["simulated"] * (scan.beside is not None)))
    against = []
    if scan.has_prediction():
        against.append("the platform model's prediction (each flow at its most loaded link's share)")
    if scan.beside:
        against.append("the %s's simulation of the same scan (green: its avg per node, min–max over nodes; "
                       "%s)" % (scan.beside["label"], scan.beside["source"]))
    caption = "%s per-node rate per shift (min–max over nodes) beside %s." % (
        scan.kind.capitalize(), " and ".join(against))
    path = shiftplots.measured_vs_predicted(scan.versus(), path, "%s: %s" % (name, title), bars=scan.kind,
                                       simulated=scan.beside["label"] if scan.beside else None)
    return Figure("%s: %s" % (name, title), caption, path)


def shift_figures(shiftplots, scans, fmt, outdir, vary):
    out = []
    for i, scan in enumerate(scans[:4]):
        row = scan.row
        label = ", ".join("%s=%s" % (k, fmt(k, row.value(k))) for k in vary) or row.variant
        title = "%s, %d nodes" % (label, scan.nodes)
        for prefix, name, caption, draw, data, when in SHIFT_FIGURES:
            if when and not getattr(scan, when)():
                continue
            path = getattr(shiftplots, draw)(getattr(scan, data)(), os.path.join(outdir, "%s_%d.png" % (prefix, i)),
                                        "%s: %s" % (name, title))
            out.append(Figure("%s: %s" % (name, title), caption, path))
        if scan.has_versus():
            out.append(versus_figure(shiftplots, scan, os.path.join(outdir, "predicted_%d.png" % i), title))
    return out


def all_figures(rows, base_rows, vary, fmt, outdir, scans, flags=None):
    from . import plots, shiftplots   # matplotlib import is slow: only when drawing
    out = []
    surface = "credits" in vary and "parallel" in vary
    if surface:
        out.append(heatmap_figure(plots, rows, base_rows, vary, fmt, outdir, flags))
    for k in vary:
        if surface and k in ("credits", "parallel"):
            continue
        if analysis.is_numeric(rows, k):
            out.append(line_figure(plots, rows, base_rows, vary, k, fmt, outdir))
        else:
            out.append(bar_figure(plots, rows, base_rows, vary, k, fmt, outdir))
    if not vary and rows and not scans:
        out.append(bar_figure(plots, rows, base_rows, ["variant"], "variant", fmt, outdir))
    out += shift_figures(shiftplots, scans, fmt, outdir, vary)
    return out
