#!/usr/bin/env python3
"""Runs an evbench command that must be refused before anything starts.

usage: check_preflight.py [--expect-exit N] [--expect-stderr TEXT]... [--lines N]
                          [--absent PATH]... -- COMMAND...

Checks the exit code (default 2), that stderr holds every TEXT, that stderr
has exactly N lines when --lines is given (one failure, one line), that no
rank started (no "rank" / "# OK" on stdout or stderr) and that every --absent
PATH does not exist afterwards (nothing written, no probe file left behind).
"""
import argparse
import os
import subprocess
import sys


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--expect-exit", type=int, default=2)
    p.add_argument("--expect-stderr", action="append", default=[])
    p.add_argument("--lines", type=int)
    p.add_argument("--absent", action="append", default=[])
    p.add_argument("command", nargs=argparse.REMAINDER)
    a = p.parse_args()
    cmd = a.command[1:] if a.command[:1] == ["--"] else a.command
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    problems = []
    if proc.returncode != a.expect_exit:
        problems.append("exit %d, expected %d" % (proc.returncode, a.expect_exit))
    for text in a.expect_stderr:
        if text not in proc.stderr:
            problems.append("stderr lacks %r" % text)
    lines = proc.stderr.splitlines()
    if a.lines is not None and len(lines) != a.lines:
        problems.append("stderr has %d lines, expected %d" % (len(lines), a.lines))
    if a.expect_exit != 0 and ("# OK" in proc.stdout or "died" in proc.stderr):
        problems.append("a run started")
    for path in a.absent:
        if os.path.exists(path):
            problems.append("%s exists" % path)
    if problems:
        print("command: %s\nstdout:\n%s\nstderr:\n%s" % (" ".join(cmd), proc.stdout, proc.stderr))
        for msg in problems:
            print("FAIL: " + msg)
        return 1
    print("ok: %s" % proc.stderr.strip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
