#!/usr/bin/python3
"""Sets two one-to-one shift scans side by side -- typically a real run on the
emulated cluster (scripts/netns-run.sh) and `evbench sim` of the same platform
-- and states whether their per-shift patterns agree.

  netns-compare.py REFERENCE.json OTHER.json [--tolerance T] [--labels A,B]

Both are evbench results documents with results.shifts[]. The pattern of a
scan is each shift's average per-node Gb/s divided by the largest average
over the network shifts (shift 0, a local copy, is left out: `evbench sim`
does not report it at all), so a run whose
links reach 85 % of the nominal rate and a simulation at 100 % compare like
with like. The scans agree when every shift's pattern values differ by at
most T (default 0.15). Exit 0 when they agree, 1 when not, 2 on bad input."""
import argparse
import json
import sys


def shifts(path):
    try:
        with open(path) as f:
            doc = json.load(f)
        steps = doc["results"]["shifts"]
        return {int(s["shift"]): float(s["per_node"]["avg"]) for s in steps}
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"netns-compare.py: {path}: not a shift-scan result ({e})", file=sys.stderr)
        sys.exit(2)


def pattern(avg):
    network = {k: v for k, v in avg.items() if k != 0}
    top = max(network.values(), default=0.0)
    if top <= 0:
        return None
    return {k: v / top for k, v in network.items()}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("reference")
    p.add_argument("other")
    p.add_argument("--tolerance", type=float, default=0.15)
    p.add_argument("--labels", default="emulated,simulated")
    a = p.parse_args()
    la, lb = (a.labels.split(",") + ["b"])[:2]
    ra, rb = shifts(a.reference), shifts(a.other)
    ra.pop(0, None)
    rb.pop(0, None)
    if sorted(ra) != sorted(rb):
        print(f"netns-compare.py: the scans have different shifts: {sorted(ra)} vs {sorted(rb)}",
              file=sys.stderr)
        sys.exit(2)
    pa, pb = pattern(ra), pattern(rb)
    if pa is None or pb is None:
        print("netns-compare.py: a scan moved no data over the network", file=sys.stderr)
        sys.exit(2)
    print(f"| shift | {la} Gb/s | {lb} Gb/s | {la} pattern | {lb} pattern | difference |")
    print("|---:|---:|---:|---:|---:|---:|")
    worst = 0.0
    for k in sorted(pa):
        d = pb[k] - pa[k]
        worst = max(worst, abs(d))
        print(f"| {k} | {ra[k]:.3f} | {rb[k]:.3f} | {pa[k]:.2f} | {pb[k]:.2f} | {d:+.2f} |")
    verdict = "agree" if worst <= a.tolerance else "DISAGREE"
    print(f"\nlargest difference {worst:.2f} (tolerance {a.tolerance:.2f}): the patterns {verdict}")
    sys.exit(0 if worst <= a.tolerance else 1)


if __name__ == "__main__":
    main()
