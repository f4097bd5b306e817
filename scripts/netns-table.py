#!/usr/bin/python3
"""Prints the tables of an emulated-cluster experiment (scripts/netns-experiment.sh)
as Markdown: the one-to-one shift scan (average per-node Gb/s for every shift,
one column per uplink rate, and min/max) and the PULL event builder with
barrel and random scheduling.

  netns-table.py OUTDIR

OUTDIR holds one uplink-<rate>/ folder per cluster shape, each with
cluster.txt (the netns-cluster.sh line) and shift-scan.json, pull-barrel.json,
pull-random.json (evbench results documents)."""
import json
import os
import sys


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"netns-table.py: {path}: {e}")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    shapes = sorted(d for d in os.listdir(out)
                    if d.startswith("uplink-") and os.path.isdir(os.path.join(out, d)))
    if not shapes:
        sys.exit(f"netns-table.py: no uplink-* folders in {out}")
    for d in shapes:
        with open(os.path.join(out, d, "cluster.txt")) as f:
            print(f"- `{d}`: {f.read().strip()}")
    print()

    scans = {d: load(os.path.join(out, d, "shift-scan.json"))["results"]["shifts"]
             for d in shapes}
    print("One-to-one shift scan, per-node Gb/s (avg, and min-max over the nodes):")
    print()
    print("| shift | " + " | ".join(f"{d} avg | {d} min-max" for d in shapes) + " |")
    print("|---:|" + "---:|---:|" * len(shapes))
    for i, step in enumerate(scans[shapes[0]]):
        cells = []
        for d in shapes:
            p = scans[d][i]["per_node"]
            cells += [f"{p['avg']:.2f}", f"{p['min']:.2f}-{p['max']:.2f}"]
        note = " (local)" if step["shift"] == 0 else ""
        print(f"| {step['shift']}{note} | " + " | ".join(cells) + " |")
    print()

    print("PULL event builder, per-node Gb/s (avg, min-max) and events/s:")
    print()
    print("| scheduling | " + " | ".join(f"{d} avg | {d} min-max | {d} events/s"
                                          for d in shapes) + " |")
    print("|---|" + "---:|---:|---:|" * len(shapes))
    for sched in ("barrel", "random"):
        cells = []
        for d in shapes:
            r = load(os.path.join(out, d, f"pull-{sched}.json"))["results"]
            p = r["bandwidth_gbps"]["per_node"]
            cells += [f"{p['avg']:.2f}", f"{p['min']:.2f}-{p['max']:.2f}",
                      f"{r['events_per_second']:.0f}"]
        print(f"| {sched} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
