#!/usr/bin/python3
"""A stand-in for `evbench` in unit tests of evbench-scan.

Speaks the same command line and writes the same JSON document (schema 1)
with made-up but deterministic numbers, so tests of the scan tooling run
without the C++ build. Behaviour switches (environment):
  FAKE_EVBENCH_FAIL=credits=4   exit 1 without JSON for points with that value
  FAKE_EVBENCH_SLEEP=SECONDS    run time of one point (default 0.05)
  FAKE_EVBENCH_COUNT=FILE       append one line per run (to count runs)
  FAKE_EVBENCH_PIDS=FILE        append the pid of each run and its child
"""
import json
import os
import subprocess
import sys
import time

import yaml

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scan"))
from evbench_scan import units  # noqa: E402

KNOWN = {"nodes", "layout", "evm", "fu_per_bu", "protocol", "scheduling", "seed", "credits",
         "parallel", "shift", "fragment", "ru_buffer", "command_size", "duration", "events",
         "warmup", "report_interval", "verify", "driver", "driver_options", "bootstrap", "poll_mode"}
DRIVERS = {"tcp": 1.0, "mpi": 1.3}


def load(path, sets):
    with open(path) as f:
        text = f.read()
    cfg = yaml.safe_load(text) or {}
    for item in sets:
        key, _, value = item.partition("=")
        target = cfg
        parts = key.split(".")
        for p in parts[:-1]:
            target = target.setdefault(p, {})
        target[parts[-1]] = yaml.safe_load(value)
    return text, cfg


def problems(path, text, cfg):
    out = []
    lines = text.splitlines()

    def line_of(key):
        for i, line in enumerate(lines):
            if line.startswith(key + ":"):
                return i + 1
        return 1
    for key in cfg:
        if key not in KNOWN:
            out.append("%s:%d:1: %s: unknown key '%s'" % (path, line_of(key), key, key))
    credits, nodes, parallel = cfg.get("credits", 2), cfg.get("nodes", 4), cfg.get("parallel", 4)
    if not 1 <= credits <= 1024:
        out.append("%s:%d:1: credits: must be between 1 and 1024, got %s" % (path, line_of("credits"), credits))
    if parallel > nodes:
        out.append("%s:%d:1: parallel: must be <= nodes (%d), got %d" % (path, line_of("parallel"), nodes, parallel))
    if cfg.get("driver", "tcp") not in DRIVERS:
        out.append("%s:%d:1: driver: unknown driver '%s'" % (path, line_of("driver"), cfg.get("driver")))
    return out


def document(argv, cfg):
    nodes = cfg.get("nodes", 4)
    credits, parallel = cfg.get("credits", 2), cfg.get("parallel", 4)
    frag = cfg.get("fragment", {}) or {}
    size = units.parse_size(frag.get("size", "512KiB"))
    factor = DRIVERS[cfg.get("driver", "tcp")]
    # A smooth surface with its best at credits 2, parallel 4 and large sizes.
    per_node = factor * 10.0 * (size / (size + 256 * 1024)) / (1 + 0.3 * abs(credits - 2) + 0.2 * abs(parallel - 4))
    per_node *= 1.0 if cfg.get("scheduling", "barrel") == "barrel" else 0.9
    per_node *= 1.0 / (1 + 0.02 * nodes)
    values = [round(per_node * (1 + 0.01 * (i - nodes / 2)), 4) for i in range(nodes)]
    window = 1.0
    eps = sum(values) * 1e9 / 8 / (size * nodes)
    results = {
        "status": "ok", "window_s": window, "events_built": int(eps * window),
        "events_assigned": int(eps * window), "events_per_second": eps,
        "bandwidth_gbps": {"per_node": {"min": min(values), "avg": sum(values) / nodes, "max": max(values)},
                           "per_node_values": values, "aggregate": sum(values)},
        "latency_ms": {"p50": 1.0, "p99": 2.0 + credits, "max": 9.0},
        "integrity": {"incomplete": 0, "duplicate": 0, "corrupt": 0, "verified_fragments": 10},
        "samples": [{"t_s": 1.0, "events_per_second": eps, "aggregate_gbps": sum(values)}],
    }
    if cfg.get("protocol") == "one-to-one" and cfg.get("shift") == "scan":
        results["shifts"] = [{"shift": s, "per_node": {"min": 5.0 / s, "avg": 6.0 / s, "max": 7.0 / s}}
                             for s in range(1, nodes)]
    cfg_out = dict(cfg)
    cfg_out.setdefault("nodes", nodes)
    cfg_out["fragment"] = dict(frag, size=size)
    return {"schema_version": 1, "tool": "evbench", "argv": argv, "config": cfg_out,
            "versions": {"evbench": "0.0-fake", "git_sha": "fake"},
            "topology": {"nodes": nodes, "processes": nodes + 1, "evm_rank": nodes},
            "results": results}


def main(argv):
    if len(argv) < 2 or argv[1] not in ("run", "validate"):
        sys.stderr.write("usage: evbench run|validate CONFIG\n")
        return 2
    args = argv[2:]
    sets, json_path, config = [], None, None
    while args:
        a = args.pop(0)
        if a == "--set":
            sets.append(args.pop(0))
        elif a == "--json":
            json_path = args.pop(0)
        else:
            config = a
    text, cfg = load(config, sets)
    bad = problems(config, text, cfg)
    if bad:
        sys.stdout.write("\n".join(bad) + "\n")
        return 2
    if argv[1] == "validate":
        return 0
    if os.environ.get("FAKE_EVBENCH_COUNT"):
        with open(os.environ["FAKE_EVBENCH_COUNT"], "a") as f:
            f.write(config + "\n")
    fail = os.environ.get("FAKE_EVBENCH_FAIL")
    if fail:
        key, _, value = fail.partition("=")
        if str(cfg.get(key)) == value:
            sys.stderr.write("fake failure for %s\n" % fail)
            return 1
    # A child process, like the ranks evbench forks, to check process-group cleanup.
    child = subprocess.Popen(["sleep", "60"])
    if os.environ.get("FAKE_EVBENCH_PIDS"):
        with open(os.environ["FAKE_EVBENCH_PIDS"], "a") as f:
            f.write("%d %d\n" % (os.getpid(), child.pid))
    sys.stderr.write("evbench(fake): running %s as rank %s/%s\n" % (
        config, os.environ.get("EVBENCH_RANK", os.environ.get("SLURM_PROCID", "0")),
        os.environ.get("EVBENCH_SIZE", os.environ.get("SLURM_NTASKS", "1"))))
    time.sleep(float(os.environ.get("FAKE_EVBENCH_SLEEP", "0.05")))
    child.kill()
    child.wait()
    doc = document(argv, cfg)
    rank = os.environ.get("EVBENCH_RANK") or os.environ.get("SLURM_PROCID") or "0"
    if json_path and rank == "0":   # like evbench: only rank 0 writes the document
        with open(json_path, "w") as f:
            json.dump(doc, f, indent=1)
    print("# fake evbench: %.2f Gb/s aggregate\n# OK" % doc["results"]["bandwidth_gbps"]["aggregate"])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
