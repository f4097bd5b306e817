#!/usr/bin/python3
"""The real evbench, with one misbehaviour injected into chosen points.

For tests of evbench-scan that need what the real binary does not do on
demand. Every call is handed to the real binary (EVBENCH_INJECT_REAL) with
os.execv, so pids, children, output and exit status are evbench's own;
only `evbench run CONFIG ...` of a point whose CONFIG sets
EVBENCH_INJECT_WHERE=KEY=VALUE (a dotted key; no WHERE: every point) changes:

  EVBENCH_INJECT_DO=fail   print a message and exit 1 without starting,
                           as a point that crashes at start-up
  EVBENCH_INJECT_DO=hang   the real run with --set duration=1h: it works but
                           does not finish until it is killed. It runs as a
                           child of this wrapper, as under a launcher (mpirun,
                           srun): killing the wrapper alone leaves evbench
                           running; only a kill of the process group stops it.
"""
import os
import subprocess
import sys

import yaml


def chosen(config_path):
    where = os.environ.get("EVBENCH_INJECT_WHERE")
    if not where:
        return True
    key, _, want = where.partition("=")
    with open(config_path) as f:
        value = yaml.safe_load(f) or {}
    for part in key.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return str(value) == want


def main(argv):
    real = os.environ["EVBENCH_INJECT_REAL"]
    args = argv[1:]
    if len(args) >= 2 and args[0] == "run" and chosen(args[1]):
        what = os.environ.get("EVBENCH_INJECT_DO")
        if what == "fail":
            sys.stderr.write("evbench-inject: failing %s before it starts\n" % args[1])
            return 1
        if what == "hang":
            return subprocess.call([real] + args + ["--set", "duration=1h"])
    os.execv(real, [real] + args)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
