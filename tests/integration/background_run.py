#!/usr/bin/python3
"""Runs an event builder with congestors beside it (`background:`,
docs/USER_GUIDE.md "Background traffic") and checks what the run reports:

- exit 0, results.status ok, the event builder built events;
- results.topology.processes counts the event builder's ranks and every
  congestor rank;
- results.background has one entry per configured entry, in order, with its
  pattern, ranks, size and in_flight as configured; every rank reported;
  messages > 0, bytes = messages x size, gbps > 0; the window it sent in
  starts no earlier than the configured start and ends no earlier than the
  configured stop (traffic is kept up until then), after its start;
- two-sided patterns: every byte sent was received (received_bytes =
  bytes); write-incast: nothing received two-sided (received_bytes = 0);
- the table has one "# background N: PATTERN" line per entry;
- with --expect-ranks N (an entry given as a share of hosts, `ranks: 50%`):
  the first entry resolved to N ranks and echoes the share (hosts_percent).

  background_run.py [--env N] [--timeout S] [--expect-ranks N] -- COMMAND...

`--json FILE` is appended to COMMAND. With --env N, COMMAND is started N
times as ranks of the env bootstrap (EVBENCH_RANK/EVBENCH_SIZE, a loopback
rendezvous), as srun would; rank 0's output is checked.
"""
import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile

from session_run import run_in_session


def fail(msg):
    print("FAILED: " + msg)
    sys.exit(1)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_env(cmd, n, timeout):
    env = dict(os.environ)
    env.update({"EVBENCH_SIZE": str(n), "EVBENCH_RUN_ID": os.urandom(16).hex(),
                "EVBENCH_RENDEZVOUS": "127.0.0.1:%d" % free_port()})
    procs = []
    for r in range(n):
        e = dict(env, EVBENCH_RANK=str(r))
        procs.append(subprocess.Popen(cmd + ["--set", "bootstrap=env"], env=e, text=True,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE))
    outs = []
    try:
        for p in procs:
            outs.append(p.communicate(timeout=timeout))
    except subprocess.TimeoutExpired:
        for p in procs:
            p.kill()
        fail(f"a rank was still running after {timeout} s")
    for r, (p, (_, err)) in enumerate(zip(procs, outs)):
        if p.returncode != 0:
            fail(f"rank {r} exited {p.returncode}: {err}")
    return 0, outs[0][0], outs[0][1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--env", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=90)
    ap.add_argument("--expect-ranks", type=int, default=0)
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "results.json")
        cmd = cmd + ["--json", path]
        if a.env:
            code, out, err = run_env(cmd, a.env, a.timeout)
        else:
            code, out, err = run_in_session(cmd, a.timeout)
        print(out)
        print(err, file=sys.stderr)
        if code != 0:
            fail(f"exit {code}")
        with open(path) as f:
            doc = json.load(f)
    res = doc["results"]
    cfg = doc["config"]["background"]
    if res["status"] != "ok":
        fail("status " + res["status"])
    if not cfg:
        fail("the run had no background entries")
    if res.get("events_built", 0) <= 0:
        fail("the event builder built nothing")
    bg = res.get("background")
    if not isinstance(bg, list) or len(bg) != len(cfg):
        fail(f"results.background {bg!r}: expected {len(cfg)} entries")
    if a.expect_ranks and (cfg[0]["ranks"] != a.expect_ranks or not cfg[0].get("hosts_percent")):
        fail(f"config.background[0] {cfg[0]}: expected {a.expect_ranks} ranks from a share of hosts")
    congestors = sum(e["ranks"] for e in cfg)
    eb = doc["config"]["nodes"] * (2 if doc["config"]["layout"] == "split" else 1)
    eb += 1 if doc["topology"]["evm_rank"] >= eb else 0
    if doc["topology"]["processes"] != eb + congestors:
        fail(f"topology.processes {doc['topology']['processes']}, expected {eb} + {congestors}")
    for i, (want, got) in enumerate(zip(cfg, bg)):
        at = f"background[{i}] ({got.get('pattern')})"
        for key in ("pattern", "ranks", "size", "in_flight"):
            if got[key] != want[key]:
                fail(f"{at}: {key} {got[key]!r}, configured {want[key]!r}")
        if got["ranks_reported"] != want["ranks"]:
            fail(f"{at}: {got['ranks_reported']} of {want['ranks']} ranks reported")
        if got["messages"] <= 0 or got["gbps"] <= 0:
            fail(f"{at}: nothing sent: {got}")
        if got["bytes"] != got["messages"] * want["size"]:
            fail(f"{at}: bytes {got['bytes']} != messages x size")
        stop = want["stop"] if want["stop"] != "end" else cfg_end(doc["config"])
        if got["start"] < want["start"] or got["stop"] < stop - 1e-6 or got["stop"] <= got["start"]:
            fail(f"{at}: sent from {got['start']} to {got['stop']} s, configured "
                 f"{want['start']} to {stop} s")
        received = 0 if want["pattern"] == "write-incast" else got["bytes"]
        if got["received_bytes"] != received:
            fail(f"{at}: received_bytes {got['received_bytes']}, expected {received}")
        if f"# background {i + 1}: {want['pattern']}," not in out:
            fail(f"no table line for {at}")
    print("ok: " + ", ".join(f"{b['pattern']} {b['gbps']:.3f} Gb/s" for b in bg))


def cfg_end(c):
    return c["warmup"] + c["duration"]


if __name__ == "__main__":
    main()
