#!/usr/bin/env python3
"""Where the credit model's bridge setting and the fluid model part, link by
link and BU by BU (docs/SCALE.md, "The credit model against the paper",
the bridge to the fluid model).

  docs/scale/bridge_links.py [--platform P] [--set KEY=VALUE]... [--evbench build/bin/evbench]

Runs configs/sim/pull-1mib.yaml on the platform (default
configs/platforms/sim-miscabled-16.yaml) under the fluid model
(--smpi-factors one; needs build-sim/ or EVBENCH_SMPI_BUILD) and under the
credit model with `network: {infinite_buffers: true, flow_window: 2}` added
(the test sim_credit-infinite-near-fluid's two sides), and prints:

- per inter-switch link, its load in the measured window in Gbit/s for each
  model, estimated from every BU's arrival rate (results.bandwidth_gbps.
  arrivals: each event takes one fragment from every other node, so each
  route carries 1/(N-1) of its BU's rate) and the routes the fluid run was
  given (SimGrid's routes file, the platform's forwarding tables); the
  credit model's own busy share of the whole run beside it;
- per BU, its rate under each model and how many of its N-1 incoming routes
  cross a saturated link (an inter-switch link loaded to 90 % of line rate
  or more in the fluid run).

The routes file is kept by putting a wrapper named smpirun first on PATH
for the fluid run (it copies $EVBENCH_SIM_ROUTES and runs the real one).
The figures are simulated: the same at any load.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CONFIG = "configs/sim/pull-1mib.yaml"
WRAPPER = """#!/bin/sh
cp "$EVBENCH_SIM_ROUTES" "{keep}"
exec {smpirun} "$@"
"""


def run(cmd, env=None):
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"failed ({proc.returncode}): {' '.join(cmd)}\n{proc.stderr[-2000:]}")


def read_routes(path):
    links, routes = [], {}
    for line in open(path):
        f = line.split()
        if f[0] == "link":
            links.append(f[1])
        elif f[0] == "route" and f[1] != f[2]:
            routes[(int(f[1]), int(f[2]))] = [links[int(i)] for i in f[3:]]
    return links, routes


def window_load(results, links, routes):
    """Gbit/s per link in the window, from each BU's arrival rate."""
    rates = results["bandwidth_gbps"]["arrivals"]["per_node_values"]
    n = len(rates)
    load = dict.fromkeys(links, 0.0)
    for (s, d), path in routes.items():
        if s < n and d < n:
            for link in path:
                load[link] += rates[d] / (n - 1)
    return load


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--platform", default="configs/platforms/sim-miscabled-16.yaml")
    ap.add_argument("--set", action="append", default=[])
    ap.add_argument("--evbench", default="build/bin/evbench")
    a = ap.parse_args()
    sets = [x for s in a.set for x in ("--set", s)]
    smpirun = shutil.which("smpirun")
    if not smpirun:
        sys.exit("smpirun not found (the fluid model needs SimGrid)")
    with tempfile.TemporaryDirectory() as tmp:
        keep = os.path.join(tmp, "routes")
        wrap = os.path.join(tmp, "bin")
        os.mkdir(wrap)
        with open(os.path.join(wrap, "smpirun"), "w") as f:
            f.write(WRAPPER.format(keep=keep, smpirun=smpirun))
        os.chmod(os.path.join(wrap, "smpirun"), 0o755)
        env = dict(os.environ, PATH=wrap + os.pathsep + os.environ["PATH"])
        fluid_json = os.path.join(tmp, "fluid.json")
        run([a.evbench, "sim", CONFIG, "--platform", a.platform, "--smpi-factors", "one",
             "--quiet", "--json", fluid_json] + sets, env)
        bridge = os.path.join(tmp, "bridge.yaml")
        with open(os.path.join(ROOT, a.platform)) as f, open(bridge, "w") as out:
            out.write(f.read() + "network: {infinite_buffers: true, flow_window: 2}\n")
        credit_json = os.path.join(tmp, "credit.json")
        run([a.evbench, "sim", CONFIG, "--platform", bridge, "--model", "credit", "--quiet",
             "--json", credit_json] + sets)
        links, routes = read_routes(keep)
        fluid = json.load(open(fluid_json))["results"]
        credit = json.load(open(credit_json))["results"]
    # results.network.links lists the links that carried bytes in the
    # platform's order, as the routes file numbers them (l<index>).
    by_index = sorted(links, key=lambda name: int(name[1:]))
    net = credit["network"]["links"]
    if len(net) != len(by_index):
        sys.exit(f"{len(net)} links in the credit results, {len(by_index)} in the routes")
    name = {k: x["link"] for k, x in zip(by_index, net)}
    inter = {k for k, x in zip(by_index, net) if x["inter_switch"]}
    busy = {k: x["busy_s"] / credit["simulated_time_s"] for k, x in zip(by_index, net)}
    fl, cr = window_load(fluid, links, routes), window_load(credit, links, routes)
    gbps = min(x["bytes"] * 8 / x["busy_s"] / 1e9 for x in net if x["busy_s"] > 0)
    print(f"# inter-switch links by fluid load (window, Gbit/s; line rate about {gbps:.0f})")
    print(f"{'link':28s} {'fluid':>7s} {'credit':>7s}  credit busy (whole run)")
    for k in sorted(inter, key=lambda k: -fl[k])[:10]:
        print(f"{name[k]:28s} {fl[k]:7.1f} {cr[k]:7.1f}  {100 * busy[k]:5.1f} %")
    hot = {k for k in inter if fl[k] >= 0.9 * gbps}
    fa = fluid["bandwidth_gbps"]["arrivals"]["per_node_values"]
    ca = credit["bandwidth_gbps"]["arrivals"]["per_node_values"]
    n = len(fa)
    print(f"# per BU (arrivals, Gbit/s): routes in crossing a link at >= 90 % "
          f"({', '.join(sorted(name[k] for k in hot))})")
    print(f"{'bu':>3s} {'fluid':>7s} {'credit':>7s} {'apart':>7s} {'hot routes':>10s}")
    for b in sorted(range(n), key=lambda b: sum(any(k in hot for k in routes[(s, b)])
                                                 for s in range(n) if s != b)):
        via = sum(any(k in hot for k in routes[(s, b)]) for s in range(n) if s != b)
        print(f"{b:3d} {fa[b]:7.1f} {ca[b]:7.1f} {ca[b] - fa[b]:+7.1f} {via:10d}")
    print(f"# average: fluid {sum(fa) / n:.2f}, credit {sum(ca) / n:.2f} Gbit/s per node")
    return 0


if __name__ == "__main__":
    sys.exit(main())
