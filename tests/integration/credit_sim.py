#!/usr/bin/python3
"""`evbench sim --model credit` as users run it (docs/SCALE.md, "The credit
model"): the real CLI, platform files written by the test.

  credit_sim.py EVBENCH CHECK WORKDIR

CHECK is one of
  chunk-convergence  configs/sim/pull-512.yaml at 16 nodes (1024 events) on
                     sim-tree-16 with 32 KiB and 16 KiB chunks: the per-node
                     rate of bytes as they arrived is within 5 %, every event
                     built, the network reported (results.network), no host
                     load recorded (results.host_load: the simulator's host)
  bad-network-key    a platform whose network.queueing is not fifo or voq is
                     refused before start (exit 2), naming file:line and key
  driver-is-credit   --set driver=tcp is refused (the model runs its own
                     network), exit 2
  emulated-shift-scan  a one-to-one shift scan on the emulated cluster's 8 hosts
                     at 250 Mbit/s with a 4:1 uplink, under the credit model
                     with infinite buffers (output queueing, as Linux's tc
                     queues are), agrees with the scan measured on the
                     emulated cluster (docs/emulated-cluster/8hosts-250mbit/,
                     committed) within scripts/netns-compare.py's 0.15
Simulated figures are deterministic: no timing of this machine is compared.
"""
import json
import os
import subprocess
import sys

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def platform(workdir, name, network):
    with open(os.path.join(SOURCE, "configs/platforms/sim-tree-16.yaml")) as f:
        text = f.read()
    path = os.path.join(workdir, name)
    with open(path, "w") as f:
        f.write(text + network)
    return path


def run(evbench, args, timeout=120):
    p = subprocess.run([evbench, "sim"] + args, capture_output=True, text=True, timeout=timeout,
                       cwd=SOURCE)
    return p.returncode, p.stdout, p.stderr


def rate(evbench, workdir, chunk):
    out = os.path.join(workdir, f"chunk-{chunk}.json")
    code, stdout, stderr = run(evbench, [
        "configs/sim/pull-512.yaml", "--model", "credit", "--platform",
        platform(workdir, f"tree-{chunk}.yaml", f"network: {{chunk: {chunk}}}\n"),
        "--set", "nodes=16", "--set", "events=1024", "--quiet", "--json", out])
    if code != 0:
        sys.exit(f"FAIL: exit {code}\n{stdout}\n{stderr}")
    r = json.load(open(out))["results"]
    assert r["events_built"] == r["events_assigned"] == 1024, r["events_built"]
    assert r["simulation_model"] == "credit" and r["network"]["model"] == "credit"
    assert any(link["inter_switch"] and link["bytes"] > 0 for link in r["network"]["links"])
    # The ranks ran on the simulator's host: its load is not the simulated cluster's.
    assert "host_load" not in r and "# host load" not in stdout, r.get("host_load")
    avg = r["bandwidth_gbps"]["arrivals"]["per_node"]["avg"]
    print(f"chunk {chunk}: {avg:.2f} Gb/s per node ({r['simulated_time_s']:.3f} s simulated)")
    return avg


def main():
    evbench, check, workdir = sys.argv[1:4]
    os.makedirs(workdir, exist_ok=True)
    if check == "chunk-convergence":
        a, b = rate(evbench, workdir, "32KiB"), rate(evbench, workdir, "16KiB")
        if abs(a - b) > 0.05 * b:
            sys.exit(f"FAIL: {a:.2f} Gb/s with 32 KiB chunks, {b:.2f} with 16 KiB: "
                     "more than 5 % apart")
    elif check == "bad-network-key":
        bad = platform(workdir, "bad.yaml", "network: {queueing: lifo}\n")
        code, stdout, stderr = run(evbench, ["configs/sim/pull-1mib.yaml", "--model", "credit",
                                             "--platform", bad])
        if code != 2 or "network.queueing: expected fifo or voq, got 'lifo'" not in stderr:
            sys.exit(f"FAIL: exit {code}, stderr: {stderr}")
        if "bad.yaml:" not in stderr:
            sys.exit(f"FAIL: the file is not named: {stderr}")
    elif check == "emulated-shift-scan":
        base = os.path.join(SOURCE, "docs/emulated-cluster/8hosts-250mbit")
        with open(os.path.join(base, "emulated-2x4-250mbit.yaml")) as f:
            text = f.read() + "network: {infinite_buffers: true}\n"
        plat = os.path.join(workdir, "emulated-oq.yaml")
        with open(plat, "w") as f:
            f.write(text)
        out = os.path.join(workdir, "scan.json")
        code, stdout, stderr = run(evbench, [
            "--model", "credit", "--platform", plat, "--set", "nodes=8", "--set",
            "protocol=one-to-one", "--set", "shift=scan", "--set", "duration=1s", "--set",
            "warmup=200ms", "--set", "ru_buffer=4MiB", "--quiet", "--json", out])
        if code != 0:
            sys.exit(f"FAIL: exit {code}\n{stdout}\n{stderr}")
        cmp = subprocess.run([sys.executable, os.path.join(SOURCE, "scripts/netns-compare.py"),
                              os.path.join(base, "uplink-250mbit/shift-scan.json"), out,
                              "--tolerance", "0.15"], capture_output=True, text=True)
        print(cmp.stdout)
        if cmp.returncode != 0:
            sys.exit("FAIL: the credit model's scan does not agree with the emulated cluster's")
    elif check == "driver-is-credit":
        code, stdout, stderr = run(evbench, ["configs/sim/pull-1mib.yaml", "--model", "credit",
                                             "--platform", "configs/platforms/sim-tree-16.yaml",
                                             "--set", "driver=tcp"])
        if code != 2 or "runs its own network (driver credit)" not in stderr:
            sys.exit(f"FAIL: exit {code}, stderr: {stderr}")
    else:
        sys.exit(f"unknown check {check}")
    print("PASSED")
    return 0


if __name__ == "__main__":
    sys.exit(main())
