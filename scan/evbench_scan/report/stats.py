"""Repeats of one measurement and what may be said when two are compared.

Every figure a report shows is a `Spread`: the median of its repeats with
their minimum and maximum and how many there were. Two spreads are compared
by `Verdict`: "A beats B by X %" only when their ranges do not overlap;
overlapping ranges are "within noise"; a single run on either side is said
to be one run, because it measures no spread at all.

The range a verdict compares (`Spread.range`) is the repeats' min–max up to
7 runs: with 3 runs each, A's slowest run above B's fastest means every run
of A beat every run of B, which two equal configurations do 1 time in 20.
From 8 runs on it is the interval of order statistics that holds the median
with at least 90 % confidence (the 2nd lowest to the 2nd highest of 8-10
runs, the 3rd of 11-12, ...): min–max only widens as runs are added, this
interval narrows, so more repeats can settle a close call.
"""
import math
import statistics

CONFIDENCE = 0.90        # of the median's interval used from MIN_INTERVAL_RUNS on
MIN_INTERVAL_RUNS = 8    # below this, the range is min–max


def interval_rank(n):
    """k such that [k-th lowest, k-th highest] of n runs holds the median with
    >= CONFIDENCE (1: min–max, always below MIN_INTERVAL_RUNS runs)."""
    if n < MIN_INTERVAL_RUNS:
        return 1
    k = 1
    while k + 1 <= n // 2 and 1 - 2 * sum(math.comb(n, i) for i in range(k + 1)) / 2.0 ** n >= CONFIDENCE:
        k += 1
    return k


class Spread:
    """Median, min and max of the repeats of one figure (None values left out)."""

    def __init__(self, values):
        vals = [float(v) for v in values if v is not None]
        self.values = vals
        self.n = len(vals)
        self.median = statistics.median(vals) if vals else None
        self.lo = min(vals) if vals else None
        self.hi = max(vals) if vals else None
        ordered = sorted(vals)
        k = interval_rank(len(vals))
        # what verdicts compare: min–max, or the median's interval from 8 runs on
        self.range = (ordered[k - 1], ordered[-k]) if vals else (None, None)

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

    def range_words(self):
        """What `range` is, for sentences: 'min–max' or 'the median's 90 % interval'."""
        return "min–max" if interval_rank(self.n) == 1 else "the median's %d %% interval" % round(100 * CONFIDENCE)

    def as_dict(self):
        out = {"median": self.median, "min": self.lo, "max": self.hi, "repeats": self.n}
        if interval_rank(self.n) > 1:
            out["interval"] = list(self.range)
        return out


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
        elif a.range[0] > b.range[1]:
            self.kind = "ahead"
        elif a.range[1] < b.range[0]:
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


def ranges(a, b):
    """How a sentence names the ranges compared: 'repeat ranges' (min–max), or
    'the medians' 90 % intervals' once either side has 8 runs or more."""
    if interval_rank(a.n) == 1 and interval_rank(b.n) == 1:
        return "repeat ranges"
    return "the medians' %d %% intervals" % round(100 * CONFIDENCE)


def lead_sentence(name_a, a, name_b, b, unit="Gb/s per node"):
    """One sentence setting the leader `a` against the runner-up `b`."""
    v = Verdict(a, b)
    if v.kind == "ahead":
        return "%s beats %s by %.1f %% (%s vs %s %s; their %s do not overlap, %s)." % (
            name_a, name_b, v.pct, a.short(), b.short(), unit, ranges(a, b), runs(a, b))
    if v.kind == "noise":
        return "%s and %s are within noise of each other (%s vs %s %s, %s overlap, %s)." % (
            name_a, name_b, a.short(), b.short(), unit, ranges(a, b), runs(a, b))
    if v.kind == "one run":
        return "%s is %.1f %% ahead of %s (%s vs %s %s), from a single run each: no spread measured, " \
               "repeat the campaign (`repeats:`) before deciding." % (
                   name_a, v.pct, name_b, a.short(), b.short(), unit)
    return "%s: %s; %s: %s." % (name_a, a.text(), name_b, b.text())
