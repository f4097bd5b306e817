#!/usr/bin/python3
"""Faults under the env bootstrap, with every rank started by hand on loopback
as srun or a shell loop would (EVBENCH_RANK/EVBENCH_SIZE, a rendezvous served
by rank 0), not forked by the local launcher.

  env_faults.py EVBENCH survive   # 9 ranks (4 nodes split, dedicated EVM),
                                  # on_failure exclude, kill bu2 at 1 s
  env_faults.py EVBENCH rank0     # the same run, rank 0 killed from outside

survive: the killed rank dies by SIGKILL, every other rank exits 0, rank 0's
results name BU 2's failure with its events reassigned and recovered, and no
event is lost or built twice.
rank0: rank 0 serves the rendezvous (a single point of failure): every other
rank must end well before the run's 120 s, exit 1, and say why (the
rendezvous lost, or a peer it cannot go on without).
No process is left behind on any path."""
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time

NPROCS = 9  # nodes 4, layout split, evm dedicated: RU i = rank 2i, BU i = rank 2i+1, EVM = 8
BASE = ["--set", "nodes=4", "--set", "layout=split", "--set", "evm=dedicated",
        "--set", "on_failure=exclude", "--set", "peer_timeout=20s", "--set", "warmup=200ms"]


def fail(msg):
    print("FAILED: " + msg)
    sys.exit(1)


def start(evbench, extra, out):
    with socket.socket() as s:  # a free loopback port for the rendezvous
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    procs = []
    for rank in range(NPROCS):
        env = dict(os.environ, EVBENCH_RANK=str(rank), EVBENCH_SIZE=str(NPROCS),
                   EVBENCH_RENDEZVOUS=f"127.0.0.1:{port}", EVBENCH_RUN_ID="env-faults-test")
        cmd = [evbench, "run", "--set", "bootstrap=env"] + BASE + extra + ["--json", out]
        procs.append(subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT, text=True,
                                      start_new_session=True))
    return procs


def collect(procs, seconds):
    deadline = time.time() + seconds
    outputs = [p.communicate(timeout=max(1.0, deadline - time.time()))[0] for p in procs]
    codes = [p.returncode for p in procs]
    for rank, text in enumerate(outputs):
        tail = "\n".join(text.splitlines()[-6:])
        print(f"--- rank {rank} (exit {codes[rank]})\n{tail}")
    return outputs, codes


def survive(evbench, tmp):
    out = os.path.join(tmp, "r.json")
    procs = start(evbench, ["--set", "duration=3s", "--set", "faults=[{at: 1s, kill: bu2}]"], out)
    try:
        _, codes = collect(procs, 60)
    finally:
        cleanup(procs)
    if codes[5] != -signal.SIGKILL:
        fail(f"rank 5 (BU 2) exited {codes[5]}, expected to be killed")
    if any(c != 0 for r, c in enumerate(codes) if r != 5):
        fail(f"exit codes {codes}: every rank but the killed one must exit 0")
    r = json.load(open(out))["results"]
    if r["integrity"]["duplicate"] or r["integrity"]["corrupt"]:
        fail(f"integrity {r['integrity']}")
    if r["events_built"] <= 0 or r["events_built"] != r["events_assigned"]:
        fail(f"{r['events_built']} built of {r['events_assigned']} assigned")
    bu2 = [f for f in r["faults"] if f.get("kind") == "peer_lost" and f["unit"] == "BU 2"]
    if not bu2 or bu2[0]["time_to_rebuild_s"] is None:
        fail(f"no recovered failure record for BU 2: {r['faults']}")
    print(f"PASSED: {r['events_built']} events, BU 2 lost and its events rebuilt")


def rank0(evbench, tmp):
    out = os.path.join(tmp, "r.json")
    # on_ru_loss mask: RU 0's loss alone would not end the run (the others
    # build without it), so only the lost rendezvous can end it early.
    procs = start(evbench, ["--set", "duration=120s", "--set", "on_ru_loss=mask"], out)
    try:
        time.sleep(3)  # into the data phase (the set-up takes well under 1 s here)
        os.killpg(procs[0].pid, signal.SIGKILL)
        outputs, codes = collect(procs, 40)
    finally:
        cleanup(procs)
    for rank in range(1, NPROCS):
        if codes[rank] != 1:
            fail(f"rank {rank} exited {codes[rank]}, expected 1")
        text = outputs[rank]
        # Its own watch on the rendezvous, or the loss of a peer that stopped
        # for that reason (whichever this rank noticed first: when every peer
        # is gone at once, its any-peer receives fail naming them).
        if not any(why in text for why in ("lost the rendezvous", "was lost", "disappeared")):
            fail(f"rank {rank} does not say why it stopped")
    if not any("rank 0, which serves it, died or left" in t for t in outputs[1:]):
        fail("no rank names the lost rendezvous host")
    print("PASSED: every rank ended when rank 0 died, saying why")


def cleanup(procs):
    for p in procs:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        p.wait()


def main():
    evbench, case = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        {"survive": survive, "rank0": rank0}[case](evbench, tmp)


if __name__ == "__main__":
    main()
