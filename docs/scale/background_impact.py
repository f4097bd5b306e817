#!/usr/bin/env python3
"""The congestion impact factor of an incast under both `evbench sim`
models (docs/SCALE.md, "Background traffic: fluid against credit").

  docs/scale/background_impact.py [--evbench build/bin/evbench] [--rounds N]

An event builder (configs/sim/pull-1mib.yaml, 8 nodes) on
configs/platforms/fat-tree-64.yaml, isolated and beside a 5-rank incast
into node001 (leaf 0, port 1), in three placements, none of which puts the
builder on the hot link (leaf0 -> node001):
  spine0  the incast's senders are the fifth host of each leaf; the builder
          on ports 1-4 of leaves 1 and 2, whose destinations d-mod-k routes
          over spines 0-3, so its flows to port 1 cross spine 0 beside the
          incast's;
  apart   the same incast; the builder on ports 9-12 of leaves 1 and 2
          (spines 8-11): no link or buffer shared with the incast;
  inside  the incast's senders on leaf 0 (ports 2-5); the builder on ports
          9-12 of leaves 0 and 1: it shares the incast's leaf switch only.
Each (placement, model) pair runs isolated then congested, the pairs in
turn, for N rounds (the simulations are deterministic: rounds repeat the
figures, their wall times vary with the machine's load). Prints the load
average at the start and a table: throughput (results.bandwidth_gbps
.network.aggregate) and event latency p50/p99 congested over isolated, the
incast's rate, the credit waits of the links the isolated builder used
(results.network.links[], summed: isolated, congested; credit model only)
and each run's wall time. Not a test: about a minute of CPU
per round, most of it the fluid model's. The credit model runs the
platform as it is (FIFO switch inputs) and a copy with `network: {queueing:
voq}` ("credit voq").
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PLATFORM = "configs/platforms/fat-tree-64.yaml"
CONFIG = "configs/sim/pull-1mib.yaml"
INCAST = "[{pattern: incast, ranks: 5, size: 256KiB, in_flight: 8}]"


def host(leaf, port):
    """fat-tree-64's host on `leaf` at `port` (1-based): 16 per leaf, in order."""
    return f"node{leaf * 16 + port:03d}"


# Each placement: the builder's 8 hosts, then the incast's 5 (member 0, its
# target, first).
ACROSS = [host(0, 1)] + [host(leaf, 5) for leaf in range(4)]
INSIDE = [host(0, p) for p in range(1, 6)]
PLACEMENTS = {
    "spine0": [host(1, p) for p in range(1, 5)] + [host(2, p) for p in range(1, 5)] + ACROSS,
    "apart": [host(1, p) for p in range(9, 13)] + [host(2, p) for p in range(9, 13)] + ACROSS,
    "inside": [host(0, p) for p in range(9, 13)] + [host(1, p) for p in range(9, 13)] + INSIDE,
}


def platform(workdir, variant):
    """The platform file as it is, or a copy with virtual output queues."""
    if variant != "credit voq":
        return PLATFORM
    path = os.path.join(workdir, "fat-tree-64-voq.yaml")
    with open(os.path.join(ROOT, PLATFORM)) as src, open(path, "w") as dst:
        dst.write(src.read() + "network: {queueing: voq}\n")
    return path


def run(evbench, workdir, placement, variant, congested):
    order = os.path.join(workdir, f"{placement}.order")
    with open(order, "w") as f:
        f.write("\n".join(PLACEMENTS[placement]) + "\n")
    out = os.path.join(workdir, "r.json")
    model = variant.split()[0]
    cmd = [evbench, "sim", CONFIG, "--platform", platform(workdir, variant), "--order", order,
           "--model", model,
           "--quiet", "--json", out, "--set", "nodes=8", "--set", "evm=with-rank0",
           "--set", "background=" + (INCAST if congested else "[]")]
    t0 = time.monotonic()
    subprocess.run(cmd, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    wall = time.monotonic() - t0
    with open(out) as f:
        res = json.load(f)["results"]
    return {"gbps": res["bandwidth_gbps"]["network"]["aggregate"],
            "p50": res["latency_ms"]["p50"], "p99": res["latency_ms"]["p99"],
            "incast": res["background"][0]["gbps"] if res.get("background") else None,
            "events": res["events_built"], "wall": wall,
            "waits": {l["link"]: l["credit_wait_s"] for l in res.get("network", {}).get("links", [])}}


def waits_ms(iso, con):
    """The credit waits of the links the isolated builder used, summed, in
    the isolated and the congested run ("-" under the fluid model)."""
    if not iso["waits"]:
        return "-"
    return (f"{sum(iso['waits'].values()) * 1e3:.1f}, "
            f"{sum(con['waits'].get(l, 0) for l in iso['waits']) * 1e3:.1f}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--evbench", default=os.path.join(ROOT, "build/bin/evbench"))
    ap.add_argument("--rounds", type=int, default=1)
    args = ap.parse_args()
    print(f"# load average at start: {' '.join(open('/proc/loadavg').read().split()[:3])}")
    print("| round | placement | model | isolated Gb/s | congested Gb/s | throughput "
          "| latency p50 | latency p99 | incast Gb/s | builder links' credit wait ms "
          "| wall s (isolated, congested) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as workdir:
        for rnd in range(1, args.rounds + 1):
            for placement in PLACEMENTS:
                for model in ("fluid", "credit", "credit voq"):
                    iso = run(args.evbench, workdir, placement, model, False)
                    con = run(args.evbench, workdir, placement, model, True)
                    print(f"| {rnd} | {placement} | {model} | {iso['gbps']:.1f} "
                          f"| {con['gbps']:.1f} | {con['gbps'] / iso['gbps']:.3f} "
                          f"| {con['p50'] / iso['p50']:.3f} | {con['p99'] / iso['p99']:.3f} "
                          f"| {con['incast']:.1f} | {waits_ms(iso, con)} "
                          f"| {iso['wall']:.1f}, {con['wall']:.1f} |",
                          flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
