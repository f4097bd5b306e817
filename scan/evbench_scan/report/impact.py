"""The congestion impact factor (GPCNeT's): where a campaign varies
`background` (docs/USER_GUIDE.md, "Background traffic"), every congested
configuration is paired with the isolated one (`background: []`, every
other key equal) and the event builder's figures are given congested over
isolated: throughput (aggregate Gb/s) and event latency p50 and p99, each
the ratio of the repeats' medians with the spread the repeats allow (the
smallest and largest ratio of a congested and an isolated repeat). The
answer line says it plainly: how much throughput the builder loses under
which background, and what the background moved; a figure draws the
factors against the background's load.
"""
import os
import statistics

import yaml

from .answers import Answer
from .tables import Table

KEY = "background"


def _entries(value):
    """The background list of a row's config (a list, or its text), [] when none."""
    if value is None or value == "":
        return []
    if isinstance(value, str):
        try:
            value = yaml.safe_load(value)
        except yaml.YAMLError:
            return [value]
    return value if isinstance(value, list) else [value]


def _describe(entries):
    """'incast of 3 ranks, 64KiB x 4 in flight' for each entry, joined."""
    out = []
    for e in entries:
        if not isinstance(e, dict):
            out.append(str(e))
            continue
        size = e.get("size")
        size = "%g KiB" % (size / 1024) if isinstance(size, (int, float)) else size
        out.append("%s of %s ranks, %s x %s in flight" % (
            e.get("pattern"), e.get("ranks", "?"), size or "?", e.get("in_flight", "?")))
    return " + ".join(out)


def _latencies(row, name):
    return [(m.doc.get("results", {}).get("latency_ms") or {}).get(name) for m in row.members]


def _throughputs(row):
    return [m.figures["aggregate_gbps"] for m in row.members]


def _background_gbps(row):
    rates = []
    for m in row.members:
        bg = m.doc.get("results", {}).get("background") or []
        rates.append(sum(b.get("gbps") or 0 for b in bg))
    return statistics.median(rates) if rates else None


def _ratio(congested, isolated):
    """(ratio of medians, lowest, highest ratio of two repeats), or None."""
    c = [v for v in congested if v is not None]
    i = [v for v in isolated if v is not None and v > 0]
    if not c or not i:
        return None
    mid = statistics.median(c) / statistics.median(i)
    return mid, min(c) / max(i), max(c) / min(i)


def _cell(r):
    return "-" if r is None else "%.3f (%.3f–%.3f)" % r


def pairs(rows):
    """[(congested row, isolated row)] over the rows of a campaign that varies `background`."""
    def others(row):
        return tuple(sorted((k, str(v)) for k, v in row.config.items() if k != KEY))
    isolated = dict((others(r), r) for r in rows if r.builder and not _entries(r.value(KEY)))
    return [(r, isolated[others(r)]) for r in rows
            if r.builder and _entries(r.value(KEY)) and others(r) in isolated]


def impact(rows):
    """(Table or None, [Answer]) for the rows' congested/isolated pairs."""
    found = pairs(rows)
    if not found:
        return None, []
    body, said = [], []
    for congested, isolated in found:
        tput = _ratio(_throughputs(congested), _throughputs(isolated))
        p50 = _ratio(_latencies(congested, "p50"), _latencies(isolated, "p50"))
        p99 = _ratio(_latencies(congested, "p99"), _latencies(isolated, "p99"))
        what = _describe(_entries(congested.value(KEY)))
        load = _background_gbps(congested)
        body.append([what, "%d / %d" % (len(congested.members), len(isolated.members)),
                     _cell(tput), _cell(p50), _cell(p99), "-" if load is None else "%.3f" % load])
        if tput is None:
            continue
        lost = 100 * (1 - tput[0])
        spread = 100 * (tput[2] - tput[1]) / 2
        verb = "loses" if lost >= 0 else "gains"
        said.append(Answer(
            "The builder %s %.0f %% ± %.0f %% of its throughput under %s (background %s Gb/s; "
            "impact factor %.3f, %d congested and %d isolated runs)." % (
                verb, abs(lost), spread, what, "?" if load is None else "%.3f" % load, tput[0],
                len(congested.members), len(isolated.members)),
            impact_factor=tput[0], impact_range=[tput[1], tput[2]], background=what))
    head = ["background", "runs (congested / isolated)", "throughput impact", "latency p50 impact",
            "latency p99 impact", "background Gb/s"]
    note = ("Impact factor: congested over isolated (`background: []`, every other key equal), the "
            "ratio of the repeats' medians and in brackets the lowest and highest ratio of one "
            "congested and one isolated repeat. Throughput below 1 and latency above 1: the "
            "builder lost to the background.")
    return Table("Congestion impact factor", head, body, note), said


def figure(rows, outdir, drawn=None):
    """The impact factors (throughput, latency p99) against what the background
    moved, one point per congested configuration; None without pairs."""
    series = {"throughput": [], "event latency p99": []}
    for congested, isolated in pairs(rows):
        load = _background_gbps(congested)
        if load is None:
            continue
        for name, ratio in (("throughput", _ratio(_throughputs(congested), _throughputs(isolated))),
                            ("event latency p99", _ratio(_latencies(congested, "p99"),
                                                         _latencies(isolated, "p99")))):
            if ratio is not None:
                series[name].append((load, ratio[0], ratio[1], ratio[2], len(congested.members)))
    series = dict((k, sorted(v)) for k, v in series.items() if v)
    if not series:
        return None
    from . import plots   # matplotlib import is slow: only when drawing
    from .figures import Figure
    path = os.path.join(outdir, "impact.png")
    plots.lines(series, path, "Congestion impact factor against background load",
                "background Gb/s (median of the repeats)", "congested / isolated",
                x_label=lambda x: "%.3g" % x, drawn=drawn)
    return Figure("Congestion impact factor",
                  "Each congested configuration's impact factor (congested over isolated; 1: no "
                  "impact) against the Gb/s its background moved. Points: ratio of the medians; "
                  "whiskers: the lowest and highest ratio of two repeats.", path)
