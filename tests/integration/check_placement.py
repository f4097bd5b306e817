#!/usr/bin/python3
"""Runs one evbench command and checks where its ranks ran (results.placement).

  check_placement.py {bound|unbound} [--summary TEXT] -- COMMAND...

A temporary --json FILE is added to the command (evbench run, or mpirun ...
evbench run), which must exit 0. Then results.placement.ranks must list
every rank with its CPUs (sched_getaffinity as the rank found it) and:
  bound:   each rank has exactly one CPU, one this test may use, and the
           first min(ranks, CPUs) ranks have distinct CPUs (one rank per
           core before any wraps);
  unbound: each rank has every CPU this test may use.
--summary TEXT must appear in the `# placement:` line on stdout and in
results.placement.summary. The command runs in its own process group,
killed on timeout (60 s) so no rank outlives the test.
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile


def fail(msg):
    print("FAILED: " + msg)
    sys.exit(1)


def run(cmd):
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        fail("timed out after 60 s:\n" + out + err)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return proc.returncode, out, err


def main():
    if "--" not in sys.argv:
        fail("usage: check_placement.py {bound|unbound} [--summary TEXT] -- COMMAND...")
    split = sys.argv.index("--")
    ap = argparse.ArgumentParser()
    ap.add_argument("expect", choices=["bound", "unbound"])
    ap.add_argument("--summary", default=None)
    args = ap.parse_args(sys.argv[1:split])
    cmd = sys.argv[split + 1:]
    allowed = sorted(os.sched_getaffinity(0))
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "r.json")
        code, out, err = run(cmd + ["--json", path])
        print(out)
        print(err, file=sys.stderr)
        if code != 0:
            fail("exit status %d" % code)
        doc = json.load(open(path))
    placement = doc["results"]["placement"]
    ranks = placement["ranks"]
    nprocs = doc["topology"]["processes"]
    if [r["rank"] for r in ranks] != list(range(nprocs)):
        fail("placement.ranks lists ranks %s, not 0..%d" % ([r["rank"] for r in ranks], nprocs - 1))
    cpus = [r["cpus"] for r in ranks]
    if args.expect == "bound":
        if any(len(c) != 1 or c[0] not in allowed for c in cpus):
            fail("not one allowed CPU (of %s) per rank: %s" % (allowed, cpus))
        first = [c[0] for c in cpus[:min(nprocs, len(allowed))]]
        if len(set(first)) != len(first):
            fail("ranks share a CPU before every CPU has one: %s" % cpus)
    elif any(c != allowed for c in cpus):
        fail("not every allowed CPU (%s) for every rank: %s" % (allowed, cpus))
    line = next((l for l in out.splitlines() if l.startswith("# placement: ")), None)
    if line is None or line[len("# placement: "):] != placement["summary"]:
        fail("stdout's placement line %r is not results.placement.summary %r" % (line, placement["summary"]))
    if args.summary is not None and args.summary not in placement["summary"]:
        fail("placement summary %r lacks %r" % (placement["summary"], args.summary))
    print("placement ok: %s (%s)" % (placement["summary"], cpus))


if __name__ == "__main__":
    main()
