#!/usr/bin/python3
"""Starts the ranks of one run by hand, as a script or srun would: N
`evbench run --set bootstrap=env` processes with EVBENCH_RANK/EVBENCH_SIZE and
a rendezvous on loopback. Every process must exit 0, rank 0 must write a
result with every assigned event built (exactly --events of them when given)
and zero integrity errors, and no process may be left behind.

  env_bootstrap.py EVBENCH [--nprocs N] [--events N] [--deadline S] [--set KEY=VALUE]...

Without --events the run lasts 1 s (200 ms warm-up). Every process must be
done within --deadline seconds (60). The results must say how long the
start-up and the teardown took (results.startup, results.teardown)."""
import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time


def fail(msg):
    print("FAILED: " + msg)
    sys.exit(1)


p = argparse.ArgumentParser()
p.add_argument("evbench")
p.add_argument("--nprocs", type=int, default=5)
p.add_argument("--events", type=int)
p.add_argument("--deadline", type=float, default=60)
p.add_argument("--set", action="append", default=[])
args = p.parse_args()

with socket.socket() as s:  # a free loopback port for the rendezvous
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
run = ["--set", "verify.sample=1", "--set", "peer_timeout=20s"]
if args.events is not None:
    run += ["--set", f"events={args.events}", "--set", "warmup=0s"]
else:
    run += ["--set", "duration=1s", "--set", "warmup=200ms"]
for kv in args.set:
    run += ["--set", kv]
procs = []
with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "r.json")
    try:
        for rank in range(args.nprocs):
            env = dict(os.environ, EVBENCH_RANK=str(rank), EVBENCH_SIZE=str(args.nprocs),
                       EVBENCH_RENDEZVOUS=f"127.0.0.1:{port}", EVBENCH_RUN_ID="env-test")
            cmd = [args.evbench, "run", "--quiet", "--set", "bootstrap=env"] + run + \
                ["--json", out]
            procs.append(subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE,
                                          stderr=subprocess.STDOUT, text=True,
                                          start_new_session=True))
        # communicate() drains each pipe, so a chatty rank cannot block on it;
        # one deadline for all, below the ctest TIMEOUT, so `finally` runs.
        deadline = time.time() + args.deadline
        outputs = [p.communicate(timeout=max(1.0, deadline - time.time()))[0] for p in procs]
        codes = [p.returncode for p in procs]
        for rank, text in enumerate(outputs):
            print(f"--- rank {rank} (exit {codes[rank]})\n{text}")
        if any(codes):
            fail(f"exit codes {codes}")
        doc = json.load(open(out))
        r = doc["results"]
        if r["events_built"] <= 0 or r["events_built"] != r["events_assigned"]:
            fail(f"{r['events_built']} built of {r['events_assigned']} assigned")
        if args.events is not None and r["events_built"] != args.events:
            fail(f"{r['events_built']} events built, expected exactly {args.events}")
        if any(r["integrity"][k] for k in ("incomplete", "duplicate", "corrupt",
                                          "corrupt_events")):
            fail(f"integrity {r['integrity']}")
        if doc["topology"]["processes"] != args.nprocs:
            fail(f"{doc['topology']['processes']} processes in the results, "
                 f"expected {args.nprocs}")
        if not r.get("startup", {}).get("ready_s", 0) > 0 or "seconds" not in r.get("teardown", {}):
            fail(f"no start-up or teardown figures: {r.get('startup')}, {r.get('teardown')}")
        print(f"PASSED: {r['events_built']} events, {args.nprocs} processes, start-up "
              f"{r['startup']['ready_s']:.2f} s, teardown {r['teardown']['seconds']:.2f} s")
    finally:
        for p in procs:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
