#!/usr/bin/python3
"""Per-function difference of the framework cost per fragment between two
evbench builds (bench/overhead_functions.sh runs them): each function's
exclusive instructions (code inlined into it counts as its own), summed over
every process of a run up to the end of its event loop (as
callgrind_cost.py counts), taken at N1 and N2 events and divided by the
extra fragments, for the build before and the build after.

  callgrind_functions.py BEFORE_N1 BEFORE_N2 AFTER_N1 AFTER_N2 FRAGMENTS [TOP]

prints the TOP (default 25) functions whose cost per fragment changed most,
then the sums of all functions (which add up to the program total).
"""
import glob
import re
import subprocess
import sys
from collections import defaultdict

LINE = re.compile(r"^\s*([\d,]+)\s+\([^)]*\)\s+(\S.*)$")


def loop_files(d):
    files = sorted(glob.glob(d + "/cg.*"))
    parts = {f for f in files if re.search(r"/cg\.\d+\.\d+$", f)}
    split = {f.rsplit(".", 1)[0] for f in parts}
    return [f for f in files if f in parts or f not in split]


def functions(d):
    cost = defaultdict(int)
    for f in loop_files(d):
        out = subprocess.run(["callgrind_annotate", "--inclusive=no", "--threshold=100",
                              "--auto=no", f], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            m = LINE.match(line)
            if m and not m.group(2).startswith("PROGRAM TOTALS"):
                name = re.sub(r"\s*\[[^\]]*\]$", "", m.group(2))  # the object file
                name = re.sub(r"^[^:]*:(?!:)", "", name)  # the source file
                cost[name] += int(m.group(1).replace(",", ""))
    return cost


def per_fragment(d1, d2, frags):
    c1, c2 = functions(d1), functions(d2)
    return {k: (c2.get(k, 0) - c1.get(k, 0)) / frags for k in set(c1) | set(c2)}


def main():
    if len(sys.argv) not in (6, 7):
        sys.exit(__doc__)
    frags = int(sys.argv[5])
    top = int(sys.argv[6]) if len(sys.argv) == 7 else 25
    before = per_fragment(sys.argv[1], sys.argv[2], frags)
    after = per_fragment(sys.argv[3], sys.argv[4], frags)
    names = set(before) | set(after)
    rows = sorted(names, key=lambda k: -abs(after.get(k, 0) - before.get(k, 0)))
    print("# %8s %8s %8s  %s" % ("before", "after", "change", "function (exclusive, per fragment)"))
    for k in rows[:top]:
        b, a = before.get(k, 0), after.get(k, 0)
        print("  %8.1f %8.1f %+8.1f  %s" % (b, a, a - b, k[:150]))
    b, a = sum(before.values()), sum(after.values())
    print("  %8.1f %8.1f %+8.1f  (all functions)" % (b, a, a - b))


main()
