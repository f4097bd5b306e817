"""Repeats of one measurement and what may be said when two are compared.

Every figure a report shows is a `Spread`: the median of its repeats with
their minimum and maximum and how many there were. Two spreads are compared
by `verdict`: "A beats B by X %" only when A's worst repeat is above B's best
(their ranges do not overlap); overlapping ranges are "within noise"; a
single run on either side is said to be one run, because it measures no
spread at all.
"""
import statistics


class Spread:
    """Median, min and max of the repeats of one figure (None values left out)."""

    def __init__(self, values):
        vals = [float(v) for v in values if v is not None]
        self.values = vals
        self.n = len(vals)
        self.median = statistics.median(vals) if vals else None
        self.lo = min(vals) if vals else None
        self.hi = max(vals) if vals else None

    def __bool__(self):
        return self.n > 0

    def point(self, x):
        """(x, median, lo, hi, n): the tuple the figures take."""
        return (x, self.median, self.lo, self.hi, self.n)

    def text(self, unit="Gb/s per node", digits=2):
        """'12.34 Gb/s per node (median of 3 runs, 11.90–12.60)', '12.34 Gb/s per node (1 run)' or '-'."""
        if not self:
            return "-"
        fmt = "%%.%df" % digits
        head = (fmt % self.median) + (" " + unit if unit else "")
        if self.n == 1:
            return head + " (1 run)"
        return head + (" (median of %d runs, " + fmt + "–" + fmt + ")") % (self.n, self.lo, self.hi)

    def short(self, digits=2):
        return "-" if not self else ("%%.%df" % digits) % self.median

    def as_dict(self):
        return {"median": self.median, "min": self.lo, "max": self.hi, "repeats": self.n}


def key(spread):
    """Sort key: larger medians first when negated; empty spreads last."""
    return spread.median if spread else float("-inf")


class Verdict:
    """How the first of two spreads stands against the second."""

    def __init__(self, a, b):
        self.a, self.b = a, b
        self.pct = 100.0 * (a.median - b.median) / b.median if a and b and b.median else None
        self.single = bool(a and b) and (a.n < 2 or b.n < 2)
        if not (a and b):
            self.kind = "unknown"
        elif self.single:
            self.kind = "one run"
        elif a.lo > b.hi:
            self.kind = "ahead"
        elif a.hi < b.lo:
            self.kind = "behind"
        else:
            self.kind = "noise"

    @property
    def beyond_noise(self):
        return self.kind in ("ahead", "behind")

    def text(self):
        """'+18.2 %', '+3.1 % (within noise, 3 runs each)', '+4.0 % (1 run: no spread measured)'."""
        if self.pct is None:
            return "-"
        if self.kind in ("ahead", "behind"):
            return "%+.1f %%" % self.pct
        if self.kind == "noise":
            return "%+.1f %% (within noise, %s)" % (self.pct, runs(self.a, self.b))
        return "%+.1f %% (1 run: no spread measured)" % self.pct


def runs(a, b):
    return "%d runs each" % a.n if a.n == b.n else "%d and %d runs" % (a.n, b.n)


def lead_sentence(name_a, a, name_b, b, unit="Gb/s per node"):
    """One sentence setting the leader `a` against the runner-up `b`."""
    v = Verdict(a, b)
    if v.kind == "ahead":
        return "%s beats %s by %.1f %% (%s vs %s %s; their repeat ranges do not overlap, %s)." % (
            name_a, name_b, v.pct, a.short(), b.short(), unit, runs(a, b))
    if v.kind == "noise":
        return "%s and %s are within noise of each other (%s vs %s %s, repeat ranges overlap, %s)." % (
            name_a, name_b, a.short(), b.short(), unit, runs(a, b))
    if v.kind == "one run":
        return "%s is %.1f %% ahead of %s (%s vs %s %s), from a single run each: no spread measured, " \
               "repeat the campaign (`repeats:`) before deciding." % (
                   name_a, v.pct, name_b, a.short(), b.short(), unit)
    return "%s: %s; %s: %s." % (name_a, a.text(), name_b, b.text())
