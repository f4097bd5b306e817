"""Runs one evbench command in a session of its own, for the integration
scripts (fault_run.py, desync_run.py): its output is echoed, a command still
running after `timeout` seconds is killed with its whole session and fails
the test, and so does any process of the session left behind after it
exited (every rank must be reaped)."""
import os
import signal
import subprocess
import sys
import time

import shm_leftovers


def fail(msg):
    print("FAILED: " + msg)
    sys.exit(1)


def session_processes(sid):
    """The live (not zombie) processes of session `sid`."""
    out = subprocess.run(["ps", "-e", "-o", "pid=,sid=,stat="], capture_output=True, text=True)
    left = []
    for line in out.stdout.splitlines():
        pid, s, stat = line.split(None, 2)
        if int(s) == sid and not stat.startswith("Z"):
            left.append(int(pid))
    return left


def run_in_session(cmd, timeout, cwd=None):
    """Returns (exit status, stdout, stderr) of `cmd`, or fails the test."""
    print("running:", " ".join(cmd))
    shm_before = shm_leftovers.snapshot()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, cwd=cwd)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        fail(f"no exit within {timeout} s")
    finally:
        time.sleep(0.3)
        left = session_processes(proc.pid)
        if left:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        shm_leftovers.remove_dead(shm_before)
    sys.stdout.write(out)
    sys.stderr.write(err)
    if left:
        fail(f"processes left behind: {left}")
    return proc.returncode, out, err
