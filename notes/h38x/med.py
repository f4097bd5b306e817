#!/usr/bin/env python3
"""Medians, spreads (max/min) and ratios to the tool per variant of an ab.sh output."""
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    p = line.split()
    if len(p) == 5 and p[0].isdigit():
        rows.setdefault(p[1], []).append([float(x) for x in p[2:]])
print("%-14s %8s %8s %5s %8s %5s %7s %7s" % ("variant", "tool", "A", "max/m", "B", "max/m", "A/tool", "B/tool"))
for v, r in rows.items():
    t, a, b = (statistics.median(c) for c in zip(*r))
    sa = max(x[1] for x in r) / min(x[1] for x in r)
    sb = max(x[2] for x in r) / min(x[2] for x in r)
    print("%-14s %8.2f %8.2f %5.2f %8.2f %5.2f %7.2f %7.2f" % (v, t, a, sa, b, sb, a / t, b / t))
