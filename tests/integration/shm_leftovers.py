"""Shared-memory regions that killed ranks leave behind, removed after a test.

libfabric's shm provider names its region "<pid>:<uid>:<index>" under
/dev/shm and removes it when the endpoint closes; a rank killed by a signal
(the fault tests kill ranks on purpose, a failed run kills the rest) cannot.
Each region is up to 16 MiB of memory until removed, and a later process
given the same PID (PIDs recycle) finds it in its way. A test calls
`snapshot()` before its run and `remove_dead(before)` after: regions that
appeared meanwhile and whose process is gone are removed. Regions of live
processes (another test running beside this one) are left alone."""
import os
import re

SHM_DIR = "/dev/shm"
_REGION = re.compile(r"^(\d+):(\d+):(\d+)$")


def snapshot():
    try:
        return set(os.listdir(SHM_DIR))
    except OSError:
        return set()


def _alive(pid):
    """True while `pid` runs; a zombie (killed, not yet reaped) is dead."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def remove_dead(before):
    """Removes the new regions of dead processes; returns their names."""
    removed = []
    for name in sorted(snapshot() - before):
        m = _REGION.match(name)
        if not m or int(m.group(2)) != os.getuid() or _alive(m.group(1)):
            continue
        try:
            os.unlink(os.path.join(SHM_DIR, name))
            removed.append(name)
        except OSError:
            pass
    return removed
