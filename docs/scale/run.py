#!/usr/bin/env python3
"""Runs the simulated experiments of docs/SCALE.md and records them.

  docs/scale/run.py [--only ID_PREFIX] [--force] [--evbench build/bin/evbench]

Each experiment is one `evbench sim` command (printed and stored with its
figures in docs/scale/results.json, next to this script). Experiments already
in results.json are skipped unless --force. Runs one simulation at a time
under `nice -n 10`. Needs the ordinary build (build/) and the SMPI build
(build-sim/, see docs/SCALE.md). plot.py draws the figures from results.json.
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(HERE))
RESULTS = os.path.join(HERE, "results.json")

PULL = "configs/sim/pull-64kib.yaml"  # 64 KiB fragments, credits 2 x 4 requests, 8 ms measured
PULL512 = "configs/sim/pull-512-fluid.yaml"  # the same fragments, credits 1 x 2 requests, 16 ms measured


def experiments():
    """(id, group, config, platform, sets) in the order they run."""
    out = []
    for plat in ("sim-switch-16", "sim-tree-16", "sim-miscabled-16"):
        for s in ("barrel", "random"):
            out.append((f"t16-{plat}-{s}", "table16", "configs/sim/pull-1mib.yaml",
                        f"configs/platforms/{plat}.yaml", ["nodes=16", f"scheduling={s}"]))
    for n in (64, 128):
        for s in ("barrel", "random"):
            out.append((f"irregular-{n}-{s}", "irregular", PULL,
                        "configs/platforms/irregular-512.yaml", [f"nodes={n}", f"scheduling={s}"]))
        out.append((f"ideal-{n}-barrel", "ideal", PULL, "configs/platforms/fat-tree-512.yaml",
                    [f"nodes={n}", "scheduling=barrel"]))
        if n == 64:
            for m in (16, 32, 64, 128):
                for plat, name in (("irregular-512", "irregular"), ("fat-tree-512", "ideal")):
                    out.append((f"alltoall-{name}-{m}", "alltoall", PULL,
                                f"configs/platforms/{plat}.yaml", [f"nodes={m}", "protocol=alltoall"]))
    # 256-512 nodes with pull-512-fluid.yaml; 64 and 128 again with it, to separate
    # its settings from the scale.
    for n in (64, 128, 256, 512):
        out.append((f"lean-ideal-{n}-barrel", "lean-ideal", PULL512,
                    "configs/platforms/fat-tree-512.yaml", [f"nodes={n}", "scheduling=barrel"]))
    for n in (256, 512):
        for s in ("barrel", "random"):
            out.append((f"lean-irregular-{n}-{s}", "lean-irregular", PULL512,
                        "configs/platforms/irregular-512.yaml", [f"nodes={n}", f"scheduling={s}"]))
    return out


def run_one(evbench, exp):
    ident, group, config, platform, sets = exp
    shown = ["evbench", "sim", config, "--platform", platform]
    for kv in sets:
        shown += ["--set", kv]
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "r.json")
        cmd = ["nice", "-n", "10", evbench] + shown[1:] + ["--json", out, "--quiet"]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.monotonic()
        p = subprocess.run(cmd, cwd=SOURCE, capture_output=True, text=True)
        wall = time.monotonic() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if p.returncode != 0:
            print(f"{ident}: exit {p.returncode}\n{p.stderr[-2000:]}", file=sys.stderr)
            return None
        with open(out) as f:
            res = json.load(f)["results"]
    pn = res["bandwidth_gbps"]["per_node"]
    return {
        "id": ident,
        "group": group,
        "command": " ".join(shown),
        "anon_rss_mib": round(max(res.get("anon_rss_bytes") or [0]) / 2**20),
        "nodes": int(next(kv.split("=")[1] for kv in sets if kv.startswith("nodes="))),
        "what": next((kv.split("=")[1] for kv in sets if kv.startswith(("scheduling=", "protocol=alltoall"))), ""),
        "per_node_gbps": {"min": pn["min"], "avg": pn["avg"], "max": pn["max"]},
        "events_built": res.get("events_built"),
        "simulated_time_s": res["simulated_time_s"],
        "wall_time_s": round(wall, 1),
        "cpu_time_s": round((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), 1),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="", help="run only experiments whose id starts with this")
    ap.add_argument("--force", action="store_true", help="rerun experiments already recorded")
    ap.add_argument("--evbench", default=os.path.join(SOURCE, "build/bin/evbench"))
    ap.add_argument("--max-nodes", type=int, default=512, help="skip larger runs")
    a = ap.parse_args()
    done = {}
    if os.path.exists(RESULTS):
        with open(RESULTS) as f:
            done = {r["id"]: r for r in json.load(f)["runs"]}
    for exp in experiments():
        if not exp[0].startswith(a.only) or (exp[0] in done and not a.force):
            continue
        nodes = int(next(kv.split("=")[1] for kv in exp[4] if kv.startswith("nodes=")))
        if nodes > a.max_nodes:
            continue
        print(f"{exp[0]} ...", flush=True)
        r = run_one(a.evbench, exp)
        if r is None:
            continue
        print(f"  {r['per_node_gbps']['avg']:.1f} Gb/s avg per node, {r['simulated_time_s']:.4f} s "
              f"simulated, {r['wall_time_s']} s wall, {r['cpu_time_s']} s CPU", flush=True)
        done[r["id"]] = r
        order = [e[0] for e in experiments()]
        runs = sorted(done.values(), key=lambda x: order.index(x["id"]) if x["id"] in order else 999)
        with open(RESULTS, "w") as f:
            json.dump({"runs": runs}, f, indent=1)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
