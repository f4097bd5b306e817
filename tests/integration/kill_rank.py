#!/usr/bin/python3
"""Kills one worker rank during a run: evbench must exit 1, the launcher must
name the rank it lost (rank, pid, signal), the surviving ranks must blame that
rank by its units, and no process may be left behind.

  kill_rank.py EVBENCH --rank R --nprocs N --units "RU 2, BU 2" [--set K=V]...

The local bootstrap forks ranks 0..N-1 in order, so rank R is the R-th child
by pid (ps lists children in pid order)."""
import argparse
import os
import re
import signal
import subprocess
import sys
import time


def fail(msg):
    print("FAILED: " + msg)
    sys.exit(1)


def children(pid):
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True)
    return sorted(int(x) for x in out.stdout.split())


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split()[2] != "Z"
    except FileNotFoundError:
        return False


p = argparse.ArgumentParser()
p.add_argument("evbench")
p.add_argument("--rank", type=int, required=True)
p.add_argument("--nprocs", type=int, required=True)
p.add_argument("--units", required=True, help="how peers name the rank's units: 'RU 2, BU 2'")
p.add_argument("--set", action="append", default=[])
args = p.parse_args()

cmd = [args.evbench, "run", "--quiet", "--set", "duration=30s", "--set", "peer_timeout=10s"]
for kv in args.set:
    cmd += ["--set", kv]
proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                        start_new_session=True)
kids = []
try:
    deadline = time.time() + 20
    while len(kids) < args.nprocs and time.time() < deadline:
        time.sleep(0.2)
        kids = children(proc.pid)
    if len(kids) != args.nprocs:
        fail(f"expected {args.nprocs} ranks, found {kids}")
    time.sleep(1.0)  # into the run
    victim = kids[args.rank]
    os.kill(victim, signal.SIGKILL)
    out, err = proc.communicate(timeout=40)
    sys.stderr.write(err)
    if proc.returncode != 1:
        fail(f"exit status {proc.returncode}, expected 1 (runtime failure)")
    verdict = f"evbench: rank {args.rank} (pid {victim}) died: signal 9"
    if verdict not in err:
        fail(f"stderr lacks the launcher's verdict {verdict!r}")
    died = [line for line in err.splitlines() if " died: " in line]
    if len(died) != 1:
        fail(f"the launcher blamed {len(died)} ranks: {died}")
    # The first survivor to fail (if one noticed before the launcher stopped
    # it) names the dead rank by its units; later ones may name collateral.
    blame = f"rank {args.rank} ({args.units})"
    first = next((line for line in err.splitlines()
                  if re.match(r"evbench: rank \d+: ", line)), None)
    if first is not None and blame not in first:
        fail(f"the first survivor's error does not name {blame!r}: {first!r}")
    left = [k for k in kids if alive(k)]
    if left:
        fail(f"processes left behind: {left}")
    print(f"PASSED (exit {proc.returncode}, {verdict})")
finally:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
