#!/usr/bin/env python3
"""Simulation tests: `evbench sim` on generated platforms, small (32 nodes).

  sim_check.py EVBENCH CHECK WORKDIR

CHECK is one of
  random-beats-barrel  on a mis-cabled tree with irregular routing, random
                       scheduling builds faster than barrel shift (the paper's
                       finding on its cluster A/C)
  dmodk-like-switch    on an ideal two-level tree with d-mod-k routing, barrel
                       shift runs as fast as on one big switch (no conflicts)
Exit 77 (CTest skip) with the reason when the ordinary evbench is missing.
The figures compared are simulated (deterministic for a given SimGrid), not
timings of this machine.
"""
import json
import os
import subprocess
import sys

NODES = 32

CONFIG = """\
nodes: {nodes}
layout: rubu
evm: with-rank0
protocol: pull
scheduling: {scheduling}
fragment:
  size: 64KiB
ru_buffer: 4MiB
duration: 40ms
warmup: 10ms
report_interval: 1s
"""

MISCABLED = """\
name: test-miscabled-32
fat_tree:
  levels: 2
  leaves: 4
  ports: 8
  uplinks: 8
  spines: 8
  misplaced: 6
routing: irregular
seed: 5
links:
  host: {bandwidth: 100Gbit/s, latency: 100ns}
  switch: {bandwidth: 100Gbit/s, latency: 100ns}
"""

IDEAL = """\
name: test-ideal-32
fat_tree:
  levels: 2
  leaves: 4
  ports: 8
  uplinks: 8
  spines: 8
routing: d-mod-k
links:
  host: {bandwidth: 100Gbit/s, latency: 100ns}
  switch: {bandwidth: 100Gbit/s, latency: 100ns}
"""


def single_switch(n):
    hosts = "\n".join(f"  - {{name: node{i + 1:03d}, switch: sw, port: {i + 1}}}" for i in range(n))
    return f"""\
name: test-switch-{n}
switches: [sw]
hosts:
{hosts}
routing: shortest
links:
  host: {{bandwidth: 100Gbit/s, latency: 100ns}}
  switch: {{bandwidth: 100Gbit/s, latency: 100ns}}
"""


def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    return path


def sim(evbench, workdir, platform_text, scheduling, tag):
    platform = write(os.path.join(workdir, f"{tag}.platform.yaml"), platform_text)
    config = write(os.path.join(workdir, f"{tag}.yaml"),
                   CONFIG.format(nodes=NODES, scheduling=scheduling))
    out = os.path.join(workdir, f"{tag}.json")
    cmd = [evbench, "sim", config, "--platform", platform, "--json", out, "--quiet"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=240)
    if r.returncode != 0:
        sys.exit(f"FAIL: {' '.join(cmd)} exited {r.returncode}\n{r.stdout}\n{r.stderr}")
    with open(out) as f:
        doc = json.load(f)
    res = doc["results"]
    assert res["simulated"] is True, "results.simulated missing"
    assert res["simulated_time_s"] > 0 and res["wall_time_s"] > 0
    assert res["status"] == "ok", res["status"]
    assert res["events_built"] > 0, "no event built"
    avg = res["bandwidth_gbps"]["avg"]
    print(f"{tag}: {scheduling} avg {avg:.2f} Gb/s per node "
          f"({res['simulated_time_s']:.3f} s simulated, {res['wall_time_s']:.1f} s wall)")
    return avg


def main():
    evbench, check, workdir = sys.argv[1:4]
    if not os.access(evbench, os.X_OK):
        print(f"not run: no ordinary evbench at {evbench} (build it in build/ first)")
        return 77
    os.makedirs(workdir, exist_ok=True)
    if check == "random-beats-barrel":
        barrel = sim(evbench, workdir, MISCABLED, "barrel", "miscabled-barrel")
        rnd = sim(evbench, workdir, MISCABLED, "random", "miscabled-random")
        if not rnd > barrel:
            sys.exit(f"FAIL: random {rnd:.2f} Gb/s does not beat barrel {barrel:.2f} Gb/s")
    elif check == "dmodk-like-switch":
        tree = sim(evbench, workdir, IDEAL, "barrel", "ideal-barrel")
        switch = sim(evbench, workdir, single_switch(NODES), "barrel", "switch-barrel")
        # Same flows, no link shared by two of them: the same simulated rate
        # up to the protocol's own variation (1 %).
        if abs(tree - switch) > 0.01 * switch:
            sys.exit(f"FAIL: barrel on the d-mod-k tree {tree:.2f} Gb/s, "
                     f"on one switch {switch:.2f} Gb/s")
    else:
        sys.exit(f"unknown check {check}")
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
