#!/usr/bin/env python3
"""EVM saturation (issue 40 item 4): how many events one EVM assigns.

Runs `evbench run --set protocol=evm-rate` (PULL's EVM, BUs that credit back
at once, RUs that send nothing) for every BU count x batch.events and prints
the curve side by side: events/s assigned, the EVM's CPU per event in its
handlers and in its whole loop (handlers, tcp driver, polling), and the
EVM's messages per event. tcp over loopback, poll mode block: idle BUs sleep
in the driver's wait, so on a small host the EVM's process is the one that
is loaded (with 64 BUs on 2 cores the BUs are oversubscribed). The CPU
figures are thread CPU time (results.cost, docs/METRICS.md) and depend far
less on other load than events/s does. Not a test: figures depend on the
machine and its load, printed with each table.

  bench/evm_rate.py [--bus 4,8,16,32,64] [--batch 1,4,16,64] [--seconds 2]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def load_average():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def run(evbench, bus, batch, seconds, out):
    cmd = [evbench, "run", "--quiet", "--set", "protocol=evm-rate", "--set", f"nodes={bus}",
           "--set", f"batch.events={batch}", "--set", f"duration={seconds}s",
           "--set", "warmup=500ms", "--set", "fragment.size=256", "--set", "ru_buffer=1MiB",
           "--set", "peer_timeout=30s", "--json", out]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    with open(out) as f:
        r = json.load(f)["results"]
    evm = r["cost"]["evm"]
    return (r["events_per_second"], evm["cpu_ns_per_event"], evm["loop_cpu_ns_per_event"],
            evm["messages_per_event"], r["events_built"] == r["events_assigned"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bus", default="4,8,16,32,64")
    ap.add_argument("--batch", default="1,4,16,64")
    ap.add_argument("--seconds", type=float, default=2)
    a = ap.parse_args()
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    evbench = os.environ.get("EVBENCH", os.path.join(root, "build", "bin", "evbench"))
    if not os.access(evbench, os.X_OK):
        sys.exit("build evbench first (scripts/build.sh)")
    bus = [int(x) for x in a.bus.split(",")]
    batches = [int(x) for x in a.batch.split(",")]
    print(f"# evm_rate.py: protocol evm-rate over tcp (loopback), {a.seconds:g} s per point, "
          f"{os.cpu_count()} CPUs, load average {load_average()} at start")
    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        for n in bus:
            for k in batches:
                rows[n, k] = run(evbench, n, k, a.seconds, os.path.join(tmp, "r.json"))
    print(f"# load average {load_average()} at end")
    col = "".join(f" | K={k:<25}" for k in batches)
    print(f"# {'BUs':>4}{col}")
    sub = "".join(f" | {'events/s':>10} {'ns':>5} {'loop':>6} {'msg':>4}" for _ in batches)
    print(f"# {'':>4}{sub}")
    for n in bus:
        line = f"  {n:>4}"
        for k in batches:
            rate, ns, loop, msgs, ok = rows[n, k]
            mark = "" if ok else "!"
            line += f" | {rate:>10.0f} {ns:>5.0f} {loop:>6.0f} {msgs:>4.2f}{mark}"
        print(line)
    print("# events/s: assigned and credited back in the window; ns: EVM CPU per event in its "
          "handlers; loop: in its whole loop (driver, polling); msg: EVM messages per event "
          "(! : not every assigned event was credited back)")


if __name__ == "__main__":
    main()
