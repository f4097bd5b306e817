#!/usr/bin/env python3
"""Congestors (`background:`) under `evbench sim`, both models.

  sim_background.py EVBENCH CHECK WORKDIR

CHECK is one of
  fluid         configs/sim/pull-1mib.yaml at 4 nodes on sim-tree-16 with a
                3-rank incast beside it under the fluid model (SMPI, driver
                mpi): the run ends ok, every event built once with zero
                integrity errors, and results.background[] holds the incast:
                every congestor rank reported, every byte sent received,
                sent inside its start..stop window
  credit        the same under the credit model (driver credit)
  credit-write  a write-incast (one-sided writes) under the credit model,
                whose driver has a write path (the fluid model's mpi driver
                has none: refused, tests/integration/background.cmake)

The congestors take the platform hosts after the event builder's
(SimPlacement.* in the unit tests check where). Exit 77 (CTest skip)
with the reason when the ordinary evbench is missing. No timing figure is
asserted: the run's figures are simulated.
"""
import json
import os
import signal
import subprocess
import sys

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
START_S = 0.005
STOP_S = 0.025


def run(evbench, workdir, model, pattern):
    out = os.path.join(workdir, f"{model}-{pattern}.json")
    entry = (f"[{{pattern: {pattern}, ranks: 3, size: 256KiB, in_flight: 4, "
             f"start: {START_S * 1000:g}ms, stop: {STOP_S * 1000:g}ms}}]")
    cmd = [evbench, "sim", os.path.join(SOURCE, "configs/sim/pull-1mib.yaml"),
           "--platform", os.path.join(SOURCE, "configs/platforms/sim-tree-16.yaml"),
           "--model", model, "--quiet", "--json", out,
           "--set", "nodes=4", "--set", "duration=30ms", "--set", "warmup=5ms",
           "--set", f"background={entry}"]
    # Own process group: on a timeout smpirun and the simulation go too.
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    try:
        stdout, stderr = p.communicate(timeout=240)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        sys.exit(f"FAIL: {' '.join(cmd)} did not end within 240 s")
    if p.returncode != 0:
        sys.exit(f"FAIL: {' '.join(cmd)} exited {p.returncode}\n{stdout}\n{stderr}")
    with open(out) as f:
        return json.load(f)["results"]


def check(res, model, pattern):
    assert res["simulated"] is True, "results.simulated missing"
    assert res.get("simulation_model", "fluid") == model, res.get("simulation_model")
    assert res["status"] == "ok", res["status"]
    assert res["events_built"] > 0, "no event built"
    assert res["events_built"] == res["events_assigned"], "an assigned event was not built"
    for k in ("incomplete", "duplicate", "corrupt", "out_of_sync"):
        assert res["integrity"].get(k, 0) == 0, f"integrity.{k} = {res['integrity'][k]}"
    bg = res.get("background")
    assert isinstance(bg, list) and len(bg) == 1, f"results.background: {bg!r}"
    b = bg[0]
    assert b["pattern"] == pattern, b
    assert b["ranks"] == 3 and b["ranks_reported"] == 3, b
    assert b["messages"] > 0 and b["bytes"] == b["messages"] * b["size"], b
    assert b["gbps"] > 0, b
    if pattern != "write-incast":
        assert b["received_bytes"] == b["bytes"], b
    # Sent within its window (the last completion may follow stop by the
    # messages still in flight, never precede start).
    assert START_S <= b["start"] < b["stop"], b
    assert b["stop"] <= res["simulated_time_s"], b
    print(f"{model} {pattern}: {b['gbps']:.3f} Gb/s, {b['messages']} messages; "
          f"builder {res['events_built']} events ({res['wall_time_s']:.1f} s wall)")


def main():
    evbench, which, workdir = sys.argv[1:4]
    if not os.access(evbench, os.X_OK):
        print(f"not run: no ordinary evbench at {evbench} (build it in build/ first)")
        return 77
    os.makedirs(workdir, exist_ok=True)
    model, pattern = {"fluid": ("fluid", "incast"), "credit": ("credit", "incast"),
                      "credit-write": ("credit", "write-incast")}[which]
    check(run(evbench, workdir, model, pattern), model, pattern)
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
