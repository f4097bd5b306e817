#!/usr/bin/python3
"""Fault injection on the emulated cluster under the env bootstrap: one
`evbench run --set bootstrap=env` process per rank, each in a network
namespace of its own (scripts/netns-cluster.sh, scripts/netns-run.sh), so a
killed BU is a process gone from another "host" and its peers learn it
through their sockets, as on a real cluster. The cluster is brought up once
(5 hosts) and every case of CASES runs over every driver of DRIVERS.

Each run must end with every surviving rank exiting 0 and a killed one
killed (exit 137); from rank 0's results: status ok, every assigned event
built exactly once (lost 0, built twice 0), the BU's failure record of the
kind the case expects with its events rebuilt elsewhere and a recovery
record, and `# OK` as the table's last line. After `down` (run whatever
happens) no namespace, state file, root-namespace link or process of the
test is left.

  netns_faults.py EVBENCH SCRIPTS_DIR [CASE[/DRIVER]]...

Exit 77 (skipped, with the reason) when network namespaces cannot be made
here (not root, no iproute2), as netns_cluster.py."""
import json
import os
import signal
import sys
import tempfile
import time

from netns_cluster import fail, namespaces, probe, processes_mentioning, root_links, sh

HOSTS = 5
# Generous: the ranks, not the links, are the limit on 2 shared cores.
RATE = "10gbit"
PORT = 43100  # the rendezvous on host 0 (namespaces are private; the helpers' range)
RUN_TIMEOUT = 30  # s, each run (netns-run.sh stops its ranks); a run takes ~8 s
BUDGET = 200      # s for all runs: no run starts after it, well before ctest's TIMEOUT (240)

# Every run: short, blocking polls (9 processes share 2 cores), a ring left
# to grow to what exclude needs, and a peer_timeout no stall here reaches.
BASE = ["poll_mode=block", "duration=3s", "warmup=200ms", "fragment.size=64KiB",
        "peer_timeout=20s", "on_failure=exclude"]
SPLIT4 = ["nodes=4", "layout=split", "evm=dedicated"]  # RU/BU r on ranks 2r/2r+1, EVM rank 8

# Name -> (settings, what results.driver must say ran).
DRIVERS = {
    "tcp": (["driver=tcp"], "tcp"),
    "libfabric-tcp": (["driver=libfabric", "driver_options.provider=tcp"], "libfabric/tcp;ofi_rxm"),
    "ucx-tcp": (["driver=ucx", "driver_options.tls=tcp"], "ucx/tcp"),
}

# The cases: settings, ranks, and what rank 0's results must say.
#   killed:   the unit of the `kill` entry (its rank must exit 137), or None
#   failures: exactly the units the EVM must report lost or excluded
#   kinds:    the failure kinds accepted (libfabric reports nothing when a
#             peer dies: its killed BU is excluded by the heartbeat check)
#   reassigned: the lost BU held events that were built elsewhere (>= 1)
#   status, footer: results.status and the table's last line (default ok, # OK)
# Values: a stall of a BU shorter than failure_detection comes before the kill,
# so the BU certainly holds events when it dies (tests/integration/faults.cmake);
# failure_detection 1 s (the default) for a BU silent 2 s: faults.cmake uses
# 700 ms with 5 ranks, where a healthy BU was once silent 340 ms; 9 ranks
# share the 2 cores here, so more margin. The EVM's stall (300 ms) is below
# failure_detection, the drivers' keepalive (4 s) and peer_timeout.
CASES = [
    {"name": "kill-bu2", "ranks": 9, "killed": "bu2", "failures": ("BU 2",),
     "kinds": ("peer_lost", "excluded_silent"), "reassigned": True,
     "set": SPLIT4 + ["faults=[{at: 1s, stall: bu2, for: 200ms}, {at: 1s, kill: bu2}]"]},
    {"name": "stall-bu1-excluded", "ranks": 9, "killed": None, "failures": ("BU 1",),
     "kinds": ("excluded_silent",), "reassigned": False,
     "set": SPLIT4 + ["failure_detection=1s", "faults=[{at: 700ms, stall: bu1, for: 2s}]"]},
    {"name": "stall-evm-short", "ranks": 9, "killed": None, "failures": (),
     "kinds": (), "reassigned": False,
     "set": SPLIT4 + ["failure_detection=2s", "faults=[{at: 1s, stall: evm, for: 300ms}]"]},
    # layout rubu (RU i and BU i share rank i), a whole node killed: its BU is
    # excluded (events rebuilt elsewhere) and its RU masked (on_ru_loss mask):
    # the run goes on, degraded, and ends ok. libfabric notices a dead RU
    # only by its keepalive (4 s by default): shorter here, within the run.
    {"name": "rubu-kill-node-mask", "ranks": 5, "killed": "ru3", "failures": ("RU 3", "BU 3"),
     "kinds": ("peer_lost", "excluded_silent"), "reassigned": False, "masked": ("RU 3",),
     "footer": "# OK, degraded: RU 3 (rank 3) masked",
     "set": ["nodes=4", "layout=rubu", "evm=dedicated", "on_ru_loss=mask", "duration=4s",
             "faults=[{at: 1s, kill: ru3}]"],
     "driver_set": {"libfabric-tcp": ["driver_options.keepalive_timeout=1500ms"]}},
]


def check_run(case, driver, rc, codes, doc, out):
    """What the run must show; returns a one-line summary or fails naming the case."""
    what = f"{case['name']} over {driver}"
    r = doc["results"]
    # The rank of the killed unit, from the fault entry as configured ("bu2").
    units = {f["unit"]: f["rank"] for f in r["faults"] if f["kind"] == "kill"}
    killed = units[case["killed"]] if case["killed"] else None
    want = {rank: (137 if rank == killed else 0) for rank in range(case["ranks"])}
    if codes != want:
        fail(f"{what}: rank exit statuses {codes}, expected {want} (netns-run.sh exit {rc})")
    if r["driver"] != DRIVERS[driver][1]:
        fail(f"{what}: results.driver {r['driver']}, expected {DRIVERS[driver][1]}")
    if r["status"] != case.get("status", "ok"):
        fail(f"{what}: results.status {r['status']}, expected {case.get('status', 'ok')}")
    i = r["integrity"]
    if i["lost"] or i["duplicate_events"] or i["duplicate"] or i["incomplete"] or i["corrupt"]:
        fail(f"{what}: integrity {i}")
    if r["events_assigned"] < 1 or r["events_built"] + i["incomplete_lost_peer"] != r["events_assigned"]:
        fail(f"{what}: built {r['events_built']} + incomplete (lost RU) {i['incomplete_lost_peer']} "
             f"of {r['events_assigned']} assigned")
    seen = [f for f in r["faults"] if f["kind"] in ("peer_lost", "excluded_silent")]
    if sorted(f["unit"] for f in seen) != sorted(case["failures"]):
        fail(f"{what}: expected failures of {list(case['failures'])}; got {seen}")
    for f in seen:
        if f["kind"] not in case["kinds"]:
            fail(f"{what}: {f['unit']} {f['kind']}, expected one of {case['kinds']}")
        if f["time_to_detect_s"] < 0:
            fail(f"{what}: negative detection time: {f}")
        if f["unit"].startswith("BU") and f["time_to_rebuild_s"] is None:
            fail(f"{what}: the events of {f['unit']} were not rebuilt elsewhere: {f}")
        if "time_to_recover_s" not in f or "pre_fault_gbps" not in f:
            fail(f"{what}: no recovery record: {f}")
        if case["reassigned"] and f["unit"].startswith("BU") and f["events_reassigned"] < 1:
            fail(f"{what}: no event reassigned: {f}")
        line = f"{f['unit']} (rank {f['rank']}) "
        if line not in out:
            fail(f"{what}: rank 0's table does not report {line!r}")
    masked = sorted(f"RU {m['ru']}" for m in i.get("masked_events", {}).get("sources", []))
    if masked != sorted(case.get("masked", ())):
        fail(f"{what}: masked RUs {masked}, expected {list(case.get('masked', ()))}")
    if case.get("masked") and i["masked_events"]["count"] < 1:
        fail(f"{what}: RU masked but no event built without it: {i['masked_events']}")
    table = [l for l in out.splitlines() if l.startswith("# ")]
    footer = case.get("footer", "# OK")
    if not table or not table[-1].startswith(footer):
        fail(f"{what}: the table does not end with {footer!r}: {table[-1:] or 'no table'}")
    return (f"{what} ({r['variant']}): ok, built {r['events_built']} of {r['events_assigned']}, "
            f"failures {[(f['unit'], f['kind'], f['time_to_rebuild_s']) for f in seen]}")


def run_case(launcher, prefix, evbench, tmp, case, driver):
    tag = f"{case['name']}.{driver}"
    out_json, codes_file = os.path.join(tmp, tag + ".json"), os.path.join(tmp, tag + ".codes")
    extra = case.get("driver_set", {}).get(driver, [])
    sets = [a for kv in BASE + DRIVERS[driver][0] + case["set"] + extra for a in ("--set", kv)]
    r = sh([launcher, "--prefix", prefix, "--evbench", evbench, "--timeout", str(RUN_TIMEOUT),
            "--procs", str(case["ranks"]), "--port", str(PORT), "--json", out_json,
            "--codes", codes_file, "--logs", os.path.join(tmp, tag), "--"] + sets,
           timeout=RUN_TIMEOUT + 20)
    out = "\n".join(l for l in r.stdout.splitlines() if not l.startswith("#  "))
    if not os.path.exists(codes_file):
        fail(f"{tag}: netns-run.sh wrote no exit statuses (exit {r.returncode}):\n{out}")
    with open(codes_file) as f:
        codes = {int(a): int(b) for a, b in (line.split() for line in f if line.strip())}
    if not os.path.exists(out_json):
        fail(f"{tag}: no results (exit {r.returncode}, ranks {codes}):\n{out}")
    with open(out_json) as f:
        doc = json.load(f)
    try:
        return check_run(case, driver, r.returncode, codes, doc, r.stdout)
    except SystemExit:
        print(out)
        raise


def main():
    evbench, scripts = sys.argv[1], sys.argv[2]
    only = sys.argv[3:]
    cluster = os.path.join(scripts, "netns-cluster.sh")
    launcher = os.path.join(scripts, "netns-run.sh")
    prefix = "f%d" % (os.getpid() % 1000000)  # unique: never touches a cluster of a user
    probe(prefix + "-probe")
    links_before = root_links()
    runs = [(c, d) for c in CASES for d in DRIVERS
            if not only or c["name"] in only or f"{c['name']}/{d}" in only]
    if not runs:
        fail(f"no case matches {only}")
    # ctest's timeout sends SIGTERM: tear the cluster down then too.
    signal.signal(signal.SIGTERM, lambda *_: fail("terminated (SIGTERM)"))
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="netns-faults-") as tmp:
        try:
            print(sh([cluster, "up", str(HOSTS), "--leaves", "1", "--host-rate", RATE,
                      "--prefix", prefix], check=True).stdout.strip())
            for case, driver in runs:
                if time.monotonic() - start + RUN_TIMEOUT > BUDGET:
                    fail(f"out of time ({BUDGET} s) before {case['name']} over {driver}: "
                         f"is the machine overloaded?")
                print(run_case(launcher, prefix, evbench, tmp, case, driver), flush=True)
        finally:
            down = sh([cluster, "down", "--prefix", prefix])
            if down.stdout.strip():
                print(down.stdout.strip())
        if down.returncode != 0:
            fail(f"down exited {down.returncode}")
        if namespaces(prefix):
            fail(f"namespaces left: {namespaces(prefix)}")
        if os.path.exists(f"/run/evbench-netns/{prefix}.env"):
            fail("the state file is left")
        new_links = root_links() - links_before
        if new_links:
            fail(f"links appeared in the root namespace: {sorted(new_links)}")
        procs = processes_mentioning(tmp)  # every rank's --json is in tmp
        if procs:
            fail(f"processes of the runs are left: {procs}")
    print("OK")


if __name__ == "__main__":
    main()
