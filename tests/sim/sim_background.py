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
import os
import sys

from sim_check import SOURCE, sim

START_S = 0.005
STOP_S = 0.025


def run(evbench, workdir, model, pattern):
    """The run (sim_check.sim: it ends ok and builds events); `check` on its results."""
    entry = (f"[{{pattern: {pattern}, ranks: 3, size: 256KiB, in_flight: 4, "
             f"start: {START_S * 1000:g}ms, stop: {STOP_S * 1000:g}ms}}]")
    sim(evbench, workdir, None, "barrel", f"{model}-{pattern}",
        config=os.path.join(SOURCE, "configs/sim/pull-1mib.yaml"),
        platform=os.path.join(SOURCE, "configs/platforms/sim-tree-16.yaml"),
        sets=["nodes=4", "duration=30ms", "warmup=5ms", f"background={entry}"], model=model,
        inspect=lambda doc: check(doc["results"], model, pattern))


def check(res, model, pattern):
    assert res.get("simulation_model", "fluid") == model, res.get("simulation_model")
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
    run(evbench, workdir, model, pattern)
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
