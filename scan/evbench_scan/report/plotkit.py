"""What every figure of the report shares (plots.py, shiftplots.py): the
style (matplotlib, Agg), the size limits, and the helpers that write a
figure, format its numbers, draw error bars and place legends outside the
axes.

Layout rules every figure keeps: units on every axis, legends outside the
axes (never over data), tick labels >= 9 pt, cell numbers >= 8 pt (9 pt
unless the cells are many), titles say what is compared.

A "point" is a tuple (x, median, lo, hi, n): the median over n repeats and
the min..max of those repeats (lo == hi == median when n == 1).
"""
import math
import textwrap

import matplotlib

matplotlib.use("Agg")
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

BW_UNIT = "Gb/s"
DPI = 110
MAX_WIDTH_IN = 12.0    # 1320 px at DPI: shown at (nearly) natural size in a report page
MIN_TEXT_PT = 8        # nothing in a figure is smaller than this
CELL_TEXT_PT = 9       # heat-map numbers unless the cells are many
STYLE = {"font.size": 10, "xtick.labelsize": 10, "ytick.labelsize": 10, "axes.labelsize": 11,
         "axes.titlesize": 12, "legend.fontsize": 9.5, "figure.titlesize": 13,
         "axes.grid": False, "hatch.linewidth": 1.0}


def new_figure(width, height):
    """An Agg Figure with constrained layout (legends outside the axes stay in it)."""
    fig = Figure(figsize=(width, height), dpi=DPI, constrained_layout=True)
    FigureCanvasAgg(fig)
    return fig


def save(fig, path, drawn=None):
    """Write the figure as a PNG; returns its path. `drawn`, when given, is a
    list the Figure is appended to (already drawn, so its artists can be
    measured: tests/python/test_plots.py does)."""
    fig.savefig(path, dpi=DPI, bbox_inches="tight", pad_inches=0.15)
    if drawn is not None:
        drawn.append(fig)
    return path


def wrap(text, width_in, pt=12):
    """Wrap a title to the figure width (about 0.55 * pt / 72 inch per character)."""
    chars = max(30, int(width_in * 72 / (0.55 * pt)))
    return "\n".join(textwrap.wrap(text, chars)) if text else text


def fmt(v):
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


def pct(delta):
    """A change in percent, '+3%' / '-12%' / '\u00b10%'."""
    return "\u00b10%" if round(delta) == 0 else "%+.0f%%" % delta


def repeats(points):
    """'median of N repeats, bars: min-max' (N or N1-N2) when any n > 1, else ''."""
    ns = sorted({int(p[4]) for p in points if p is not None})
    if not ns or ns[-1] <= 1:
        return ""
    count = str(ns[0]) if ns[0] == ns[-1] else "%d-%d" % (ns[0], ns[-1])
    return "median of %s repeats, bars: min\u2013max" % count


def ylabel(ax, ylabel, points):
    """The y label, with the repeats note below it when there are repeats."""
    note = repeats(points)
    ax.set_ylabel(ylabel + ("\n(%s)" % note if note else ""))


def yerr(points):
    """Asymmetric error bars median-lo .. hi-median of points (never negative)."""
    return spans([(p[1], p[2], p[3]) for p in points])


def spans(triples):
    """[(mid, lo, hi)] -> matplotlib's yerr [[below], [above]], clipped at 0."""
    return [[max(0.0, m - lo) for m, lo, _ in triples], [max(0.0, hi - m) for m, _, hi in triples]]


def legend_right(ax, handles=None, labels=None):
    """A legend outside the axes, to the right; constrained layout keeps it in the figure."""
    if handles is None:
        handles, labels = ax.get_legend_handles_labels()
    if not handles:
        return None
    return ax.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.02, 1.0),
                     borderaxespad=0.0, frameon=False)


def text_colour(cmap, norm, value):
    """Black or white, whichever reads on the cell's colour."""
    r, g, b, _ = cmap(norm(value))
    return "black" if 0.299 * r + 0.587 * g + 0.114 * b > 0.5 else "white"


def ticklabels_fit(ax, labels, slot_in, axis="x"):
    """Rotate tick labels that would not fit in their slot (inches per tick)."""
    longest = max((len(str(s)) for s in labels), default=0)
    if longest * 10 * 0.6 / 72 > slot_in and axis == "x":
        # 35 degrees while neighbours' baselines stay a line apart, else upright
        angle = 35 if slot_in * math.sin(math.radians(35)) > 0.2 else 90
        ax.tick_params(axis="x", labelrotation=angle)
        for t in ax.get_xticklabels():
            t.set_horizontalalignment("right" if angle != 90 else "center")
            t.set_rotation_mode("anchor" if angle != 90 else "default")


def xticks_int(ax, xs):
    """Integer ticks (shifts), at most about 24 labelled."""
    step = max(1, int(math.ceil(len(xs) / 24.0)))
    ax.set_xticks(xs[::step])
    ax.set_xticklabels([str(x) for x in xs[::step]])
