#!/usr/bin/env python3
"""Simulation tests: `evbench sim` on small platforms (8 nodes, 1 Gbit/s).

  sim_check.py EVBENCH CHECK WORKDIR

CHECK is one of
  switch-line-rate       PULL, barrel shift, on one 8-port switch: every event
                         built, per-node rate above half the link rate and
                         not above what the links allow (the simulation
                         carries the data at the modelled rate, not faster)
  oversubscribed-uplink  the same run on two leaves of 4 joined by one link
                         (4:1 oversubscribed): slower than on one switch, and
                         at most what the shared uplink allows
  random-beats-barrel    configs/sim/pull-1mib.yaml (16 nodes, 100 Gbit/s) on
                         configs/platforms/sim-miscabled-16.yaml: random
                         scheduling builds faster than barrel shift
  ideal-beats-miscabled  barrel shift on the ideal d-mod-k tree
                         (sim-tree-16) is faster than on the mis-cabled one
  waitany-matches-polling  the switch run with idle ranks blocked in
                         MPI_Waitany (what `evbench sim` sets) and with
                         polling (driver_options.wait=none): poll modes block
                         and yield, per-node rates within 5 %
  payload-shared         configs/sim/pull-1mib.yaml on sim-switch-16: payloads
                         live in SMPI shared memory (resident anonymous memory
                         below what the BU windows and RU rings would take),
                         payload checks are off and say so, and every
                         fragment still passed the header checks (a header
                         SimGrid did not copy fails them: bad magic)
  shift-scan             a one-to-one shift scan on the two leaves: shift 0
                         (every node to itself, which the platform has no
                         route for) is left out and said so; shifts 1..7
                         stay within the link rate, and shift 4, where all
                         8 flows share the uplink (4 each way), runs at most
                         half of shift 1, where 1 flow each way crosses it
  credit-infinite-near-fluid  configs/sim/pull-1mib.yaml (pull, the EVM beside
                         rank 0) on sim-switch-16, sim-tree-16 and
                         sim-miscabled-16, barrel and random: the credit
                         model with infinite buffers and a window of two
                         chunks per connection (network.flow_window: data
                         waits at its source, output queues serve each flow
                         in turn: the bridge to a fluid model) within 5 % of
                         the fluid model run with SMPI's bandwidth and
                         latency factors at 1 (--smpi-factors one), per-node
                         rate of bytes as they arrived
                         (results.bandwidth_gbps.arrivals); within 10 % for
                         barrel on sim-miscabled-16, where the models part
                         (docs/SCALE.md has the figures and why)
  microbench-verify-payload  verify.payload (an event-builder key) given to a
                         one-to-one run under sim is not read, as any other
                         key a protocol does not read: the run ends ok and
                         its results carry no payload_checks (it used to
                         fail at the report, after the whole simulation)
  order-file             the switch run with --order FILE, the order file and
                         the --json file in a directory whose name has a
                         space and glob characters (smpirun splits and globs
                         the program's arguments): it runs, and the results
                         name the platform with its order file
Exit 77 (CTest skip) with the reason when the ordinary evbench is missing.
The figures compared are simulated (deterministic for a given SimGrid), not
timings of this machine.
"""
import json
import os
import signal
import subprocess
import sys

NODES = 8
LINK_GBPS = 1.0
FRAGMENT_BYTES = 64 * 1024
WINDOW_S = 0.100  # duration - warmup

CONFIG = """\
nodes: {nodes}
layout: rubu
evm: with-rank0
protocol: pull
scheduling: {scheduling}
fragment:
  size: 64KiB
ru_buffer: 4MiB
duration: 110ms
warmup: 10ms
report_interval: 1s
"""

TWO_LEAVES = """\
name: test-two-leaves-4to1
switches: [leaf0, leaf1]
hosts:
""" + "\n".join(f"  - {{name: node{i + 1:03d}, switch: leaf{i // 4}, port: {i % 4 + 1}}}"
                for i in range(8)) + """
cables:
  - {a: leaf0, a_port: 5, b: leaf1, b_port: 5}
routing: shortest
links:
  host: {bandwidth: 1Gbit/s, latency: 1us}
  switch: {bandwidth: 1Gbit/s, latency: 1us}
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
  host: {{bandwidth: 1Gbit/s, latency: 1us}}
  switch: {{bandwidth: 1Gbit/s, latency: 1us}}
"""


def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    return path


SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def sim(evbench, workdir, platform_text, scheduling, tag, config=None, platform=None, sets=(),
        poll_mode=None, inspect=None, model="fluid", figure="per_node", options=()):
    """platform_text/CONFIG written to workdir, or files of the source tree;
    `sets` are extra --set arguments, `options` other arguments of sim;
    `poll_mode` the one every rank must report."""
    if platform is None:
        platform = write(os.path.join(workdir, f"{tag}.platform.yaml"), platform_text)
    if config is None:
        config = write(os.path.join(workdir, f"{tag}.yaml"),
                       CONFIG.format(nodes=NODES, scheduling=scheduling))
    out = os.path.join(workdir, f"{tag}.json")
    cmd = [evbench, "sim", config, "--platform", platform, "--set", f"scheduling={scheduling}",
           "--json", out, "--quiet", "--model", model, *options]
    for kv in sets:
        cmd += ["--set", kv]
    # Own process group: on a timeout smpirun and the simulation go too.
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    try:
        stdout, stderr = p.communicate(timeout=240)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        sys.exit(f"FAIL: {' '.join(cmd)} did not end within 240 s")
    if p.returncode != 0:
        sys.exit(f"FAIL: {' '.join(cmd)} exited {p.returncode}\n{stdout}\n{stderr}")
    with open(out) as f:
        doc = json.load(f)
    res = doc["results"]
    assert res["simulated"] is True, "results.simulated missing"
    assert res["simulated_time_s"] > 0 and res["wall_time_s"] > 0
    assert res["status"] == "ok", res["status"]
    assert res["events_built"] > 0, "no event built"
    if poll_mode is not None:
        # One mode when all ranks agree, else the ranks' modes comma-joined.
        assert res["poll_mode"] == poll_mode, f"poll mode {res['poll_mode']}, expected {poll_mode}"
    if inspect is not None:
        inspect(doc)
    bw = res["bandwidth_gbps"]
    avg = (bw["arrivals"] if figure == "arrivals" else bw)["per_node"]["avg"]
    print(f"{tag}: {scheduling} avg {avg:.2f} Gb/s per node "
          f"({res['simulated_time_s']:.3f} s simulated, {res['wall_time_s']:.1f} s wall)")
    return avg


def main():
    evbench, check, workdir = sys.argv[1:4]
    if not os.access(evbench, os.X_OK):
        print(f"not run: no ordinary evbench at {evbench} (build it in build/ first)")
        return 77
    os.makedirs(workdir, exist_ok=True)
    if check == "switch-line-rate":
        avg = sim(evbench, workdir, single_switch(NODES), "barrel", "switch")
        # A BU's own RU's fragment never crosses a link (1 of NODES), and one
        # event per BU may straddle the window's edge.
        edge = NODES * FRAGMENT_BYTES * 8 / WINDOW_S / 1e9
        if not 0.5 * LINK_GBPS < avg <= LINK_GBPS * NODES / (NODES - 1) + edge:
            sys.exit(f"FAIL: {avg:.3f} Gb/s per node on {LINK_GBPS} Gbit/s links")
    elif check == "oversubscribed-uplink":
        switch = sim(evbench, workdir, single_switch(NODES), "barrel", "switch")
        leaves = sim(evbench, workdir, TWO_LEAVES, "barrel", "two-leaves")
        # Each BU gets half of every event (4 of 8 fragments) over the one
        # uplink into its leaf, shared by that leaf's 4 BUs: at most 1/4 of
        # the link, so at most 2/4 of it in all; plus one event per BU that
        # may straddle the window's edge.
        edge = NODES * FRAGMENT_BYTES * 8 / WINDOW_S / 1e9
        bound = 2 * LINK_GBPS / 4 + edge
        if not leaves < switch:
            sys.exit(f"FAIL: two leaves {leaves:.3f} Gb/s not slower than one switch {switch:.3f}")
        if not leaves <= bound:
            sys.exit(f"FAIL: two leaves {leaves:.3f} Gb/s above the uplink bound")
    elif check == "waitany-matches-polling":
        blocked = sim(evbench, workdir, single_switch(NODES), "barrel", "blocked",
                      poll_mode="block")
        polled = sim(evbench, workdir, single_switch(NODES), "barrel", "polled",
                     sets=["driver_options.wait=none"], poll_mode="yield")
        if not abs(blocked - polled) <= 0.05 * polled:
            sys.exit(f"FAIL: blocked {blocked:.3f} Gb/s, polled {polled:.3f} Gb/s: "
                     "more than 5 % apart")
    elif check in ("random-beats-barrel", "ideal-beats-miscabled"):
        config = os.path.join(SOURCE, "configs/sim/pull-1mib.yaml")
        platforms = os.path.join(SOURCE, "configs/platforms")
        miscabled = os.path.join(platforms, "sim-miscabled-16.yaml")
        barrel = sim(evbench, workdir, None, "barrel", "miscabled-barrel", config, miscabled)
        if check == "random-beats-barrel":
            rnd = sim(evbench, workdir, None, "random", "miscabled-random", config, miscabled)
            if not rnd > barrel:
                sys.exit(f"FAIL: random {rnd:.2f} Gb/s does not beat barrel {barrel:.2f} Gb/s")
        else:
            ideal = sim(evbench, workdir, None, "barrel", "ideal-barrel", config,
                        os.path.join(platforms, "sim-tree-16.yaml"))
            if not ideal > barrel:
                sys.exit(f"FAIL: barrel on the ideal tree {ideal:.2f} Gb/s, "
                         f"on the mis-cabled one {barrel:.2f} Gb/s")
    elif check == "payload-shared":
        def shared(doc):
            c, res = doc["config"], doc["results"]
            integrity = res["integrity"]
            assert c["verify"]["payload"] == "off", c["verify"]
            assert integrity["payload_checks"] == "off", integrity
            assert integrity["verified_fragments"] == 0, integrity
            # Header checks ran on every fragment and found nothing wrong.
            assert integrity["corrupt"] == 0 and integrity["first_problem"] == "", integrity
            assert res["events_built"] == res["events_assigned"] > 0, res["events_built"]
            # What private payloads would take: every BU's windows (credits x
            # nodes fragments) and every RU's ring; all ranks are one process.
            n = c["nodes"]
            private = n * c["credits"] * n * c["fragment"]["size"] + n * c["ru_buffer"]
            anon = max(res["anon_rss_bytes"])
            print(f"resident anonymous memory {anon / 2**20:.0f} MiB, "
                  f"private payloads would take {private / 2**20:.0f} MiB")
            assert 0 < anon < private / 2, (anon, private)
        sim(evbench, workdir, None, "barrel", "payload-shared",
            os.path.join(SOURCE, "configs/sim/pull-1mib.yaml"),
            os.path.join(SOURCE, "configs/platforms/sim-switch-16.yaml"), inspect=shared)
    elif check == "shift-scan":
        def scan(doc):
            res = doc["results"]
            assert res.get("shifts_left_out") == [0], res.get("shifts_left_out")
            steps = dict((st["shift"], st["per_node"]) for st in res["shifts"])
            assert sorted(steps) == list(range(1, NODES)), sorted(steps)
            edge = FRAGMENT_BYTES * 8 / 0.025 / 1e9  # one message straddling the window
            for shift, per_node in steps.items():
                assert per_node["max"] <= LINK_GBPS + edge, (shift, per_node)
            assert steps[4]["max"] <= steps[1]["min"] / 2, (steps[4], steps[1])
            # The headline is the mean over the network shifts 1..N-1, never shift 0.
            mean = sum(per_node["avg"] for per_node in steps.values()) / len(steps)
            head = res["bandwidth_gbps"]["per_node"]["avg"]
            assert abs(head - mean) <= 1e-4 * mean, (head, mean)
        sim(evbench, workdir, TWO_LEAVES, "barrel", "shift-scan", inspect=scan,
            sets=["protocol=one-to-one", "shift=scan", "duration=30ms", "warmup=5ms"])
    elif check == "order-file":
        where = os.path.join(workdir, "with space [and] glob*")
        os.makedirs(where, exist_ok=True)
        platform = write(os.path.join(where, "switch platform.yaml"), single_switch(NODES))
        order = os.path.join(where, "order file?.txt")
        subprocess.run([evbench, "topo", platform, "--write-order", order, "--quiet"],
                       check=True, stdout=subprocess.DEVNULL, timeout=60)

        def named(doc):
            name = doc["results"]["simulated_platform"]
            assert name == f"{platform} (order {order})", name
        sim(evbench, where, None, "barrel", "ordered", platform=platform, inspect=named,
            options=["--order", order])
    elif check == "credit-infinite-near-fluid":
        config = os.path.join(SOURCE, "configs/sim/pull-1mib.yaml")
        cases = [(name, scheduling) for name in ("sim-switch-16", "sim-tree-16", "sim-miscabled-16")
                 for scheduling in ("barrel", "random")]
        # Half the configuration's window (20 ms, 5 ms of warm-up: about 20
        # events per BU): the figures move by under 1 Gb/s per node against
        # 40 ms (docs/SCALE.md), the runs cost a third less.
        window = ["duration=20ms", "warmup=5ms"]
        far = []
        for name, scheduling in cases:
            with open(os.path.join(SOURCE, "configs/platforms", f"{name}.yaml")) as f:
                text = f.read() + "network: {infinite_buffers: true, flow_window: 2}\n"
            bridge = write(os.path.join(workdir, f"{name}-bridge.yaml"), text)
            tag = f"{name}-{scheduling}"
            # The fluid side without SMPI's calibration (a message above
            # 64 KiB gets 0.9355 of the link): the credit model has none.
            fluid = sim(evbench, workdir, None, scheduling, f"{tag}-fluid", config,
                        os.path.join(SOURCE, "configs/platforms", f"{name}.yaml"),
                        figure="arrivals", options=["--smpi-factors", "one"], sets=window)
            credit = sim(evbench, workdir, None, scheduling, f"{tag}-credit", config, bridge,
                         model="credit", figure="arrivals", sets=window)
            apart = abs(credit - fluid) / fluid
            print(f"{name} {scheduling}: fluid (SMPI factors 1) {fluid:.2f}, credit (infinite "
                  f"buffers, window 2) {credit:.2f} Gb/s per node: {100 * apart:.1f} % apart")
            # docs/SCALE.md: barrel on the mis-cabled tree is the case where
            # the two models part (8 %); every other case is within 5 %.
            limit = 0.10 if (name, scheduling) == ("sim-miscabled-16", "barrel") else 0.05
            if apart > limit:
                far.append(f"{tag} {100 * apart:.1f} % (limit {100 * limit:.0f} %)")
        if far:
            sys.exit("FAIL: the credit model's bridge setting is too far from the fluid model: "
                     + ", ".join(far))
    elif check == "microbench-verify-payload":
        def no_payload_checks(doc):
            assert "payload_checks" not in doc["results"]["integrity"], doc["results"]["integrity"]
        sim(evbench, workdir, TWO_LEAVES, "barrel", "microbench-verify-payload",
            inspect=no_payload_checks,
            sets=["protocol=one-to-one", "shift=1", "verify.payload=on", "duration=10ms",
                  "warmup=2ms"])
    else:
        sys.exit(f"unknown check {check}")
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
