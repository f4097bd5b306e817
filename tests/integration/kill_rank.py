#!/usr/bin/python3
"""Kills one worker rank during a run: evbench must exit non-zero, name the
dead rank, and leave no process behind."""
import os
import signal
import subprocess
import sys
import time

evbench = sys.argv[1]
proc = subprocess.Popen([evbench, "run", "--quiet", "--set", "duration=20s",
                         "--set", "peer_timeout=10s"],
                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                        start_new_session=True)


def children(pid):
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True)
    return [int(x) for x in out.stdout.split()]


try:
    kids = []
    deadline = time.time() + 15
    while len(kids) < 5 and time.time() < deadline:
        time.sleep(0.2)
        kids = children(proc.pid)
    if len(kids) < 5:
        print(f"FAILED: expected 5 ranks, found {kids}")
        sys.exit(1)
    time.sleep(1.0)
    victim = kids[2]
    os.kill(victim, signal.SIGKILL)
    out, err = proc.communicate(timeout=30)
    sys.stderr.write(err)
    if proc.returncode == 0:
        print("FAILED: exit status 0 after a rank was killed")
        sys.exit(1)
    if "died" not in err and "disappeared" not in err:
        print("FAILED: stderr does not say which rank died")
        sys.exit(1)
    left = [k for k in kids if os.path.exists(f"/proc/{k}") and
            open(f"/proc/{k}/stat").read().split()[2] != "Z"]
    if left:
        print(f"FAILED: processes left behind: {left}")
        sys.exit(1)
    print(f"PASSED (exit {proc.returncode})")
finally:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
