#!/usr/bin/python3
"""One failure, one message (docs/USER_GUIDE.md, "When a run fails"): runs
`evbench run` (local bootstrap, 5 ranks), makes it fail one way, and counts
the lines on stderr.

  one_failure.py EVBENCH kill --rank R --units "RU 2, BU 2"
      rank R is killed (SIGKILL) during the run: exit 1; the launcher names
      it once ("rank R (pid P) died: signal 9"); at most one more line, the
      first survivor's, naming rank R by its units and the connection.
  one_failure.py EVBENCH interrupt
      SIGINT to the process group, as Ctrl-C sends it: exit 130 and exactly
      one line, "evbench: interrupted ...".
  one_failure.py EVBENCH setup --port P
      every rank listens on the same tcp port: all but one fail at once
      (address in use); exit 1 and exactly one line naming the port.

No rank may outlive the run (the process group is killed at the end)."""
import argparse
import os
import re
import signal
import subprocess
import sys
import time

NPROCS = 5


def fail(msg, err=""):
    if err:
        sys.stderr.write("--- stderr of the run:\n" + err)
    print("FAILED: " + msg)
    sys.exit(1)


def children(pid):
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True)
    return sorted(int(x) for x in out.stdout.split())


def start(evbench, extra):
    cmd = [evbench, "run", "--quiet", "--set", "peer_timeout=10s"] + extra
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)


def ranks_of(proc):
    """The forked ranks, in rank order (forked in order: pid order)."""
    kids = []
    deadline = time.time() + 20
    while len(kids) < NPROCS and time.time() < deadline and proc.poll() is None:
        time.sleep(0.2)
        kids = children(proc.pid)
    if len(kids) != NPROCS:
        fail(f"expected {NPROCS} ranks, found {kids}")
    time.sleep(1.0)  # into the run
    return kids


def finish(proc, timeout=40):
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        fail(f"no exit within {timeout} s", err)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # nothing of the run may survive it
        except ProcessLookupError:
            pass
    return proc.returncode, err


p = argparse.ArgumentParser()
p.add_argument("evbench")
p.add_argument("case", choices=["kill", "interrupt", "setup"])
p.add_argument("--rank", type=int, default=2)
p.add_argument("--units", default="RU 2, BU 2")
p.add_argument("--port", type=int, default=0)
a = p.parse_args()

if a.case == "kill":
    proc = start(a.evbench, ["--set", "duration=30s"])
    victim = ranks_of(proc)[a.rank]
    os.kill(victim, signal.SIGKILL)
    code, err = finish(proc)
    lines = err.splitlines()
    if code != 1:
        fail(f"exit status {code}, expected 1", err)
    verdict = f"evbench: rank {a.rank} (pid {victim}) died: signal 9"
    if not lines or not lines[-1].startswith(verdict):
        fail(f"the last line is not the launcher's verdict {verdict!r}", err)
    if len(lines) > 2:
        fail(f"{len(lines)} lines on stderr for one killed rank (at most 2)", err)
    if len(lines) == 2 and f"rank {a.rank} ({a.units})" not in lines[0]:
        fail(f"the survivor's line does not name rank {a.rank} ({a.units})", err)
elif a.case == "interrupt":
    proc = start(a.evbench, ["--set", "duration=30s"])
    ranks_of(proc)
    os.killpg(proc.pid, signal.SIGINT)
    code, err = finish(proc)
    lines = err.splitlines()
    if code != 130:
        fail(f"exit status {code}, expected 130", err)
    if len(lines) != 1 or not lines[0].startswith("evbench: interrupted"):
        fail(f"{len(lines)} lines on stderr, expected exactly 'evbench: interrupted ...'", err)
else:
    proc = start(a.evbench, ["--set", "duration=2s", "--set", f"driver_options.port={a.port}"])
    code, err = finish(proc)
    lines = err.splitlines()
    if code != 1:
        fail(f"exit status {code}, expected 1", err)
    if len(lines) != 1:
        fail(f"{len(lines)} lines on stderr for one cause (expected 1)", err)
    if not re.match(rf"evbench: rank \d+: tcp: cannot listen on 127\.0\.0\.1:{a.port}: ", lines[0]):
        fail("the line does not name the rank, the port and the cause", err)

print(f"PASSED ({a.case}: exit {code}, {len(lines)} line(s) on stderr)")
