#!/usr/bin/python3
"""The congestion impact factor on the emulated cluster (docs/USER_GUIDE.md,
"Background traffic"): 8 namespace hosts on 2 leaves (hosts 0-3 and 4-7),
every host link and the one uplink shaped to the same rate (4:1). An event
builder of 2 nodes, its rank 0 on host 0 and rank 1 on host 4, moves its
fragments across the uplink. Three placements of the same configuration,
interleaved, `rounds` times over:

- isolated: `background: []`;
- congested: an incast of 3 ranks, its target on host 1 (leaf 0) and its
  senders on hosts 6 and 7 (leaf 1): two flows across the uplink beside the
  builder's, in the same direction as one of its two;
- control: the same incast with its target on host 5, all three inside leaf
  1, sharing no link with the builder (hosts 5-7 and their own links).

The impact factor is the builder's network throughput
(results.bandwidth_gbps.network.aggregate), median over the rounds,
congested (or control) over isolated. It must be below 0.8 across the uplink
and within 0.95-1.05 for the control. Both figures, every round's and the
host's load are printed either way.

  netns_background.py EVBENCH SCRIPTS_DIR [--rounds N]

Exit 77 (skipped, with the reason) where namespaces cannot be made (not
root). The cluster is torn down on every path.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile

from netns_cluster import HOST_RATE, fail, namespaces, probe, sh

ISOLATED = "[]"
INCAST = "[{pattern: incast, ranks: 3, size: 256KiB, in_flight: 4}]"
PLACEMENTS = {  # rank -> host: the builder's two ranks, then the incast's target and senders
    "isolated": ([0, 4], ISOLATED),
    "congested": ([0, 4, 1, 6, 7], INCAST),
    "control": ([0, 4, 5, 6, 7], INCAST),
}


def run(launcher, evbench, prefix, tmp, name, hosts, background, i):
    out = os.path.join(tmp, f"{name}-{i}.json")
    r = sh([launcher, "--prefix", prefix, "--evbench", evbench, "--timeout", "40",
            "--hosts", ",".join(map(str, hosts)), "--json", out,
            "--logs", os.path.join(tmp, f"logs-{name}-{i}"), "--",
            "--set", "nodes=2", "--set", "evm=with-rank0", "--set", "poll_mode=block", "--set", "credits=8",
            "--set", "duration=2s", "--set", "warmup=500ms", "--set", "fragment.size=256KiB",
            "--set", "page_size=normal", "--set", "peer_timeout=20s",
            "--set", "background=" + background], timeout=60)
    if r.returncode != 0:
        fail(f"{name} round {i} exited {r.returncode}:\n{r.stdout}")
    with open(out) as f:
        res = json.load(f)["results"]
    gbps = res["bandwidth_gbps"]["network"]["aggregate"]
    bg = res.get("background", [])
    extra = f", incast {bg[0]['gbps']:.3f} Gb/s" if bg else ""
    print(f"{name:9} round {i}: builder {gbps:.3f} Gb/s, p99 {res['latency_ms']['p99']:.3f} ms"
          f"{extra}")
    if background != ISOLATED and (not bg or bg[0]["gbps"] <= 0):
        fail(f"{name} round {i}: the incast reported no traffic: {bg}")
    return gbps


def main():
    evbench, scripts = sys.argv[1], sys.argv[2]
    rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 3
    cluster = os.path.join(scripts, "netns-cluster.sh")
    launcher = os.path.join(scripts, "netns-run.sh")
    prefix = "b%d" % (os.getpid() % 1000000)
    probe(prefix + "-probe")
    with open("/proc/loadavg") as f:
        print("host load before:", f.read().strip())
    figures = {name: [] for name in PLACEMENTS}
    with tempfile.TemporaryDirectory(prefix="netns-bg-") as tmp:
        try:
            sh([cluster, "up", "8", "--leaves", "2", "--host-rate", HOST_RATE, "--uplink-rate",
                HOST_RATE, "--prefix", prefix], check=True)
            for i in range(rounds):
                for name, (hosts, background) in PLACEMENTS.items():
                    figures[name].append(run(launcher, evbench, prefix, tmp, name, hosts,
                                             background, i))
        finally:
            down = sh([cluster, "down", "--prefix", prefix])
            print(down.stdout.strip())
        if down.returncode != 0 or namespaces(prefix):
            fail(f"the cluster is not gone: {down.stdout}")
    with open("/proc/loadavg") as f:
        print("host load after:", f.read().strip())
    iso = statistics.median(figures["isolated"])
    if iso <= 0:
        fail("the isolated builder moved nothing")
    impact = statistics.median(figures["congested"]) / iso
    control = statistics.median(figures["control"]) / iso
    print(f"impact factor (throughput, congested / isolated): across the uplink {impact:.3f}, "
          f"control (inside the other leaf) {control:.3f}")
    if impact >= 0.8:
        fail(f"an incast across the shared uplink should cost the builder: impact {impact:.3f}")
    if not 0.95 <= control <= 1.05:
        fail(f"the control placement shares no link: impact {control:.3f} outside 0.95-1.05")
    print("OK")


if __name__ == "__main__":
    main()
