#!/usr/bin/env python3
"""What the EVM's CPU meter costs: event rates of two or more evbench builds, interleaved.

The EVM's CPU time per event (results.cost.evm.cpu_ns_per_event,
docs/METRICS.md "Cost") is measured in every run; a meter that reads a
system-call clock around every message slows an EVM-bound run. This runs
each build in turn (A, B, A, B, ...) for --rounds rounds per batch.events,
same settings (default: PULL, 4 nodes over tcp, 1 KiB fragments, the EVM
on its own rank), and prints every run's events/s and EVM CPU per event,
the medians, and each build's median rate and EVM loop CPU per event over
the first build's. The loop's thread CPU time per event (handlers, driver,
polling, and the meter's own clock reads) depends less on other load than
events/s does. With
the first build a base and the second a change, the ratio is the change's
effect on the event rate. Not a test: rates depend on the machine and its
load, printed at the start and the end.

  bench/evm_meter_cost.py LABEL=EVBENCH LABEL=EVBENCH [...] [--rounds 3]
                          [--batch 1,16] [--set KEY=VALUE ...]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

DEFAULT_SETTINGS = ["protocol=pull", "nodes=4", "fragment.size=1KiB"]


def load_average():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def run(evbench, settings, batch, out):
    cmd = [evbench, "run", "--quiet", "--json", out, "--set", f"batch.events={batch}"]
    for s in settings:
        cmd += ["--set", s]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    with open(out) as f:
        r = json.load(f)["results"]
    if r["status"] != "ok":
        sys.exit(f"{evbench}: run status {r['status']}")
    evm = r["cost"]["evm"]
    return r["events_per_second"], evm["cpu_ns_per_event"], evm["loop_cpu_ns_per_event"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("builds", nargs="+", help="LABEL=PATH of an evbench binary")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--batch", default="1,16")
    ap.add_argument("--set", action="append", default=[], dest="settings",
                    help="KEY=VALUE added to every run (after the defaults)")
    a = ap.parse_args()
    builds = []
    for b in a.builds:
        label, _, path = b.partition("=")
        if not path or not os.access(path, os.X_OK):
            sys.exit(f"{b}: expected LABEL=PATH of an executable evbench")
        builds.append((label, path))
    settings = DEFAULT_SETTINGS + a.settings
    batches = [int(x) for x in a.batch.split(",")]
    print(f"# evm_meter_cost.py: {' '.join(settings)}, {a.rounds} interleaved rounds, "
          f"{os.cpu_count()} CPUs, load average {load_average()} at start")
    rates = {(label, k): [] for label, _ in builds for k in batches}
    cpu = {(label, k): [] for label, _ in builds for k in batches}
    loop = {(label, k): [] for label, _ in builds for k in batches}
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "r.json")
        for rnd in range(a.rounds):
            for k in batches:
                for label, path in builds:
                    eps, ns, loop_ns = run(path, settings, k, out)
                    rates[(label, k)].append(eps)
                    cpu[(label, k)].append(ns)
                    loop[(label, k)].append(loop_ns)
                    print(f"# round {rnd + 1} batch.events {k:3d} {label:>8}: {eps:10,.0f} events/s, "
                          f"EVM {ns:6.0f} ns CPU per event in handlers, {loop_ns:6.0f} in its loop",
                          flush=True)
    print(f"# load average {load_average()} at the end")
    print("# medians; ratio: over the first build's; handlers, loop: EVM CPU ns per event in its")
    print("# handlers and in its whole loop (thread CPU time, the meter's clock reads included)")
    print(f"# {'batch':>5} {'build':>8} {'events/s':>10} {'ratio':>6} {'handlers':>8} {'loop':>6} "
          f"{'ratio':>6}  events/s of every run")
    for k in batches:
        base = statistics.median(rates[(builds[0][0], k)])
        base_loop = statistics.median(loop[(builds[0][0], k)])
        for label, _ in builds:
            med = statistics.median(rates[(label, k)])
            med_loop = statistics.median(loop[(label, k)])
            runs = " ".join(f"{x:,.0f}" for x in rates[(label, k)])
            print(f"  {k:5d} {label:>8} {med:10,.0f} {med / base:6.3f} "
                  f"{statistics.median(cpu[(label, k)]):8.0f} {med_loop:6.0f} "
                  f"{med_loop / base_loop:6.3f}  {runs}")


if __name__ == "__main__":
    main()
