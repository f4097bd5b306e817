#!/usr/bin/python3
"""Draws docs/scale/*.png from docs/scale/results.json (written by run.py).

  docs/scale/plot.py    (Debian python3-matplotlib: scripts/install-deps.sh --test)

scaling.png: per-node rate (avg, min-max bars) against simulated nodes for
PULL barrel and random on the irregular-routing tree, barrel on the ideal
d-mod-k tree (configs/sim/pull-64kib.yaml to 128 nodes, pull-512-fluid.yaml from
64 to 512), and MPI_Alltoall, with the paper's figures as marks.
"""
import json
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))

# The DAQPIPE paper (reference 004): figure 3 (cluster A, 512 nodes, irregular
# routing), figure 9 (cluster D, well cabled, 64 nodes), per node Gb/s.
PAPER = [
    ("paper: barrel, cluster A", [(256, 10)], "v"),
    ("paper: random, cluster A", [(512, 30)], "^"),
    ("paper: well-cabled cluster D", [(64, 83)], "*"),
]


def series(runs, group, what):
    pts = sorted((r["nodes"], r["per_node_gbps"]) for r in runs
                 if r["group"] == group and r["what"] == what)
    return pts


def main():
    with open(os.path.join(HERE, "results.json")) as f:
        runs = json.load(f)["runs"]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    lines = [
        ("irregular", "barrel", "PULL barrel, irregular tables"),
        ("irregular", "random", "PULL random, irregular tables"),
        ("ideal", "barrel", "PULL barrel, ideal d-mod-k tree"),
        ("lean-ideal", "barrel", "PULL barrel, ideal tree, pull-512-fluid.yaml (1 credit x 2)"),
        ("lean-irregular", "barrel", "PULL barrel, irregular, pull-512-fluid.yaml"),
        ("lean-irregular", "random", "PULL random, irregular, pull-512-fluid.yaml"),
    ]
    for group, what, label in lines:
        pts = series(runs, group, what)
        if not pts:
            continue
        x = [p[0] for p in pts]
        avg = [p[1]["avg"] for p in pts]
        lo = [p[1]["avg"] - p[1]["min"] for p in pts]
        hi = [p[1]["max"] - p[1]["avg"] for p in pts]
        ax.errorbar(x, avg, yerr=[lo, hi], marker="o", capsize=3, label=label)
    for r_id, label in (("alltoall-irregular-", "MPI_Alltoall, irregular tables"),
                        ("alltoall-ideal-", "MPI_Alltoall, ideal tree")):
        pts = sorted((r["nodes"], r["per_node_gbps"]["avg"]) for r in runs
                     if r["id"].startswith(r_id))
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], linestyle="--", marker="s",
                    label=label)
    for label, pts, m in PAPER:
        ax.plot([p[0] for p in pts], [p[1] for p in pts], linestyle="none", marker=m,
                markersize=11, color="black", label=label)
    ax.set_xscale("log", base=2)
    ticks = [16, 32, 64, 128, 256, 512]
    ax.set_xticks(ticks)
    ax.set_xticklabels([str(t) for t in ticks])
    ax.set_xlabel("simulated nodes (100 Gbit/s links, 16 hosts per leaf)")
    ax.set_ylabel("per-node rate, Gb/s (avg; bars min-max)")
    ax.set_ylim(0, 100)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=6, loc="lower left")
    ax.set_title("evbench sim: event building and MPI_Alltoall at scale")
    fig.tight_layout()
    fig.savefig(os.path.join(HERE, "scaling.png"), dpi=90)


if __name__ == "__main__":
    main()
