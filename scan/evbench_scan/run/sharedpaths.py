"""Paths a job script hands to compute nodes, checked for places that only
the submitting machine sees (docs/SCANS.md, "Campaigns on clusters").

A job runs on other hosts: its campaign directory, the evbench it starts and
the host or rank files it copies must be on a file system they share. /tmp,
/var/tmp, /dev/shm, /run (and $TMPDIR) are each host's own, so a script
naming them would run on a compute node that has no such files.
`cluster.same_host: true` says the jobs run on this very machine (a private
one-node Slurm), where they are fine.
"""
import os

NODE_LOCAL = ("/tmp", "/var/tmp", "/dev/shm", "/run")


def _under(path, top):
    return path == top or path.startswith(top.rstrip("/") + "/")


def node_local(path):
    """The node-local directory `path` lies under (as written or resolved), or None."""
    tops = list(NODE_LOCAL)
    tmpdir = os.environ.get("TMPDIR")
    if tmpdir and os.path.abspath(tmpdir) != "/":
        tops.append(os.path.abspath(tmpdir))
    for candidate in (os.path.abspath(path), os.path.realpath(path)):
        for top in tops:
            if _under(candidate, top) or _under(candidate, os.path.realpath(top)):
                return top
    return None


def problems(paths):
    """paths: [(what, path)] -> one sentence per path the compute nodes cannot see."""
    out = []
    for what, path in paths:
        if not path or os.sep not in str(path):
            continue            # unset, or a command found on the nodes' PATH
        top = node_local(str(path))
        if top:
            out.append("%s %s is under %s, which each host has for itself: the compute nodes will not see it "
                       "(use a shared file system; `cluster.same_host: true` if the jobs run on this machine)"
                       % (what, os.path.abspath(str(path)), top))
    return out
