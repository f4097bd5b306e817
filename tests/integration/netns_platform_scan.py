#!/usr/bin/python3
"""Measured beside predicted on the emulated cluster: scripts/netns-cluster.sh
brings up the 8-host, 2-leaf cluster that configs/platforms/emulated-2x4.yaml
describes (host links and the one uplink at the platform's 1 Gbit/s), and
scripts/netns-run.sh runs the one-to-one shift scan with topology.platform set
to that file (env bootstrap, TCP driver, one rank per namespace). Checks, with
no timing threshold: every network shift 1..7 has measured per_node_values
(8 rates) and predicted ones; shift 0 is a local copy left out of the
headline; the shifts predicted slowest name their worst links, and those are
the links `evbench topo` names for the same shifts. The cluster is torn down
whatever happens and checked gone.

  netns_platform_scan.py EVBENCH SOURCE_DIR [--save FILE]

--save FILE keeps the results document (tests/integration/data/
netns-shift-scan-platform.json was made so). Exit 77 (skipped, with the
reason) where network namespaces cannot be made here.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from netns_cluster import fail, namespaces, probe, sh  # noqa: E402

RATE = "1gbit"  # the platform file's host and switch link rate
NODES = 8


def check(doc, topo):
    r = doc["results"]
    shifts = {s["shift"]: s for s in r["shifts"]}
    if sorted(shifts) != list(range(NODES)):
        fail(f"expected shifts 0..{NODES - 1}, got {sorted(shifts)}")
    if not shifts[0]["local_copy"] or "predicted" in shifts[0]:
        fail(f"shift 0 should be a local copy without a prediction: {shifts[0]}")
    if r["headline_local_copy"]:
        fail("the headline is flagged a local copy on 8 nodes")
    for k in range(1, NODES):
        s = shifts[k]
        if s["local_copy"]:
            fail(f"shift {k} is flagged a local copy")
        measured = s["per_node_values"]
        if len(measured) != NODES or min(measured) <= 0:
            fail(f"shift {k}: measured per_node_values {measured}")
        p = s.get("predicted")
        if p is None:
            fail(f"shift {k} has no prediction")
        if len(p["per_node_values"]) != NODES or min(p["per_node_values"]) <= 0:
            fail(f"shift {k}: predicted per_node_values {p['per_node_values']}")
        for key in ("per_node", "max_flows", "worst_links"):
            if key not in p:
                fail(f"shift {k}: predicted lacks {key}")
    # The shifts predicted slowest: their worst links are real links of the
    # platform, named as `evbench topo` names them.
    pred_avg = {k: shifts[k]["predicted"]["per_node"]["avg"] for k in range(1, NODES)}
    slowest = min(pred_avg.values())
    topo_worst = {s["shift"]: s["worst_link"] for s in topo["barrel"]["steps"]}
    topo_pred = {s["shift"]: s for s in topo["shifts"]}
    for k, v in pred_avg.items():
        if v != slowest:
            continue
        links = shifts[k]["predicted"]["worst_links"]
        if not links:
            fail(f"shift {k}, predicted slowest, names no link")
        if topo_worst[k] not in links:
            fail(f"shift {k}: worst links {links}, evbench topo names {topo_worst[k]}")
        if links != topo_pred[k]["worst_links"]:
            fail(f"shift {k}: worst links {links}, evbench topo --json {topo_pred[k]['worst_links']}")
        print(f"shift {k}: predicted {v:.3f} Gb/s per node, measured "
              f"{shifts[k]['per_node']['avg']:.3f}; worst links {links}")
    print("measured avg / predicted avg by shift: " + ", ".join(
        f"{k}: {shifts[k]['per_node']['avg']:.3f}/{pred_avg[k]:.3f}" for k in range(1, NODES)))


def main():
    args = sys.argv[1:]
    save = None
    if "--save" in args:
        save = args[args.index("--save") + 1]
        del args[args.index("--save"):args.index("--save") + 2]
    evbench, source = args[0], args[1]
    scripts = os.path.join(source, "scripts")
    platform = os.path.join(source, "configs/platforms/emulated-2x4.yaml")
    cluster = os.path.join(scripts, "netns-cluster.sh")
    launcher = os.path.join(scripts, "netns-run.sh")
    prefix = "p%d" % (os.getpid() % 1000000)  # unique: never touches a user's cluster
    probe(prefix + "-probe")
    with tempfile.TemporaryDirectory(prefix="netns-platform-") as tmp:
        topo_json = os.path.join(tmp, "topo.json")
        sh([evbench, "topo", platform, "--nodes", str(NODES), "--json", topo_json, "--quiet"],
           check=True)
        with open(topo_json) as f:
            topo = json.load(f)
        out = os.path.join(tmp, "scan.json")
        try:
            sh([cluster, "up", str(NODES), "--leaves", "2", "--host-rate", RATE,
                "--uplink-rate", RATE, "--prefix", prefix], check=True)
            r = sh([launcher, "--prefix", prefix, "--evbench", evbench, "--timeout", "40",
                    "--json", out, "--logs", os.path.join(tmp, "logs"), "--",
                    "--set", f"nodes={NODES}", "--set", "poll_mode=block",
                    "--set", "protocol=one-to-one", "--set", "shift=scan",
                    "--set", "duration=1s", "--set", "warmup=300ms",
                    "--set", "peer_timeout=20s", "--set", f"topology.platform={platform}"],
                   timeout=50)
            print("\n".join(line for line in r.stdout.splitlines() if not line.startswith("#  ")))
            if r.returncode != 0:
                fail(f"the shift scan exited {r.returncode}")
        finally:
            down = sh([cluster, "down", "--prefix", prefix])
            print(down.stdout.strip())
        if down.returncode != 0 or namespaces(prefix):
            fail(f"cluster not torn down: {namespaces(prefix)}")
        with open(out) as f:
            doc = json.load(f)
        check(doc, topo)
        if save:
            shutil.copyfile(out, save)
            print(f"results kept in {save}")
    print("OK")


if __name__ == "__main__":
    main()
