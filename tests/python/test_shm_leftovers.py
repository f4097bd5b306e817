"""tests/integration/shm_leftovers.py: after a test, the shared-memory regions
of its killed ranks are removed; those of live processes and files of any
other name stay."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "integration"))
import shm_leftovers  # noqa: E402


def dead_pid():
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def test_regions_of_dead_processes_go_and_the_rest_stay():
    before = shm_leftovers.snapshot()
    uid = os.getuid()
    dead = f"{dead_pid()}:{uid}:0"
    live = f"{os.getpid()}:{uid}:97"
    other = f"evbench-test-{os.getpid()}"
    names = [dead, live, other]
    for n in names:
        assert n not in before
        with open(os.path.join(shm_leftovers.SHM_DIR, n), "w") as f:
            f.write("x")
    try:
        removed = shm_leftovers.remove_dead(before)
        left = shm_leftovers.snapshot()
        assert dead in removed and live not in removed and other not in removed
        assert dead not in left
        assert live in left and other in left
    finally:
        for n in names:
            try:
                os.unlink(os.path.join(shm_leftovers.SHM_DIR, n))
            except FileNotFoundError:
                pass
