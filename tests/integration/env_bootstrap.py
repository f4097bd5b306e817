#!/usr/bin/python3
"""Starts the ranks of one run by hand, as a script or srun would: five
`evbench run --set bootstrap=env` processes with EVBENCH_RANK/EVBENCH_SIZE and
a rendezvous on loopback. Rank 0 must write a clean result; every process
must exit 0; none may be left behind."""
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile

evbench = sys.argv[1]
with socket.socket() as s:  # a free loopback port for the rendezvous
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
procs = []
with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "r.json")
    try:
        for rank in range(5):
            env = dict(os.environ, EVBENCH_RANK=str(rank), EVBENCH_SIZE="5",
                       EVBENCH_RENDEZVOUS=f"127.0.0.1:{port}", EVBENCH_RUN_ID="env-test")
            cmd = [evbench, "run", "--quiet", "--set", "bootstrap=env", "--set", "duration=1s",
                   "--set", "warmup=200ms", "--set", "verify.sample=1", "--json", out]
            procs.append(subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE,
                                          stderr=subprocess.STDOUT, text=True,
                                          start_new_session=True))
        codes = [p.wait(timeout=60) for p in procs]
        for rank, p in enumerate(procs):
            print(f"--- rank {rank} (exit {codes[rank]})\n{p.stdout.read()}")
        if any(codes):
            print(f"FAILED: exit codes {codes}")
            sys.exit(1)
        r = json.load(open(out))["results"]
        if r["events_built"] <= 0 or r["events_built"] != r["events_assigned"] or \
                any(r["integrity"][k] for k in ("incomplete", "duplicate", "corrupt")):
            print(f"FAILED: results {r['events_built']} built, integrity {r['integrity']}")
            sys.exit(1)
        print(f"PASSED: {r['events_built']} events")
    finally:
        for p in procs:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
