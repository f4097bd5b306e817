#!/usr/bin/python3
"""Runs `evbench topo` and checks its JSON report.

usage: check_topo.py [--ideal | --conflicts] [--expect-exit N --expect-stderr TEXT]
                     -- EVBENCH topo ARGS...
The JSON file is the argument after --json. --ideal: the barrel shift has
exactly one flow on its most loaded link (flows cross, none share). --conflicts:
the barrel has more than one and the proposal has a lower maximum.
--roundtrip: the command has --write-order FILE; running it again with
--order FILE --keep-hosts scans the proposed order, whose barrel must match
the first run's proposal (same order, same maximum and step units). Always: one
step per shift 1..nodes-1, each step's max equal to the JSON's recount from the
fields given, the proposal a permutation of distinct hosts, and `shifts` (the
predicted one-to-one scan) consistent with the barrel's steps.
"""
import json
import subprocess
import sys


def fail(why):
    print("FAILED:", why)
    sys.exit(1)


def main():
    argv = sys.argv[1:]
    split = argv.index("--")
    opts, cmd = argv[:split], argv[split + 1:]
    expect_exit = int(opts[opts.index("--expect-exit") + 1]) if "--expect-exit" in opts else 0
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=240)
    if run.returncode != expect_exit:
        fail(f"exit {run.returncode}, expected {expect_exit}\n{run.stdout}\n{run.stderr}")
    if "--expect-stderr" in opts:
        want = opts[opts.index("--expect-stderr") + 1]
        if want not in run.stderr:
            fail(f"stderr lacks {want!r}: {run.stderr!r}")
        print("PASSED")
        return
    if not run.stdout.rstrip().endswith("OK"):
        fail("output does not end with OK")
    with open(cmd[cmd.index("--json") + 1]) as f:
        report = json.load(f)
    n = report["nodes"]
    for name in ("barrel", "proposal"):
        scan = report[name]
        if len(scan["order"]) != n or len(set(scan["order"])) != n:
            fail(f"{name}: order is not {n} distinct hosts")
        shifts = [s["shift"] for s in scan["steps"]]
        if shifts != list(range(1, n)):
            fail(f"{name}: steps are not shifts 1..{n - 1}")
        if scan["max_flows"] != max(s["max_flows"] for s in scan["steps"]):
            fail(f"{name}: max_flows is not the maximum over the steps")
        units = sum(max(1, s["max_flows"]) for s in scan["steps"])
        if units != scan["step_units"]:
            fail(f"{name}: step_units {scan['step_units']} != {units}")
        for s in scan["steps"]:
            if s["conflicted_links"] > s["loaded_links"] or (s["max_flows"] > 1) != (
                    s["conflicted_links"] > 0):
                fail(f"{name}: shift {s['shift']} counts disagree: {s}")
    barrel, prop = report["barrel"], report["proposal"]
    # The predicted one-to-one scan over the given order (evbench run's
    # results.shifts[].predicted): one entry per shift, a rate per node, the
    # most loaded link (host links carry one flow each) and its names.
    pred = report.get("shifts")
    if pred is None:
        fail("no 'shifts' (predicted shift-scan rates)")
    if [s["shift"] for s in pred] != list(range(1, n)):
        fail("shifts are not 1..n-1")
    for p, step in zip(pred, barrel["steps"]):
        if len(p["per_node_values"]) != n or min(p["per_node_values"]) <= 0:
            fail(f"shift {p['shift']}: per_node_values {p['per_node_values']}")
        if p["max_flows"] != max(1, step["max_flows"]):
            fail(f"shift {p['shift']}: max_flows {p['max_flows']}, barrel {step['max_flows']}")
        if (p["max_flows"] > 1) != bool(p["worst_links"]) or (
                step["worst_link"] and p["max_flows"] > 1
                and step["worst_link"] not in p["worst_links"]):
            fail(f"shift {p['shift']}: worst_links {p['worst_links']}, barrel {step['worst_link']}")
        if abs(p["per_node"]["min"] - min(p["per_node_values"])) > 1e-9:
            fail(f"shift {p['shift']}: per_node.min disagrees")
    if prop["step_units"] > barrel["step_units"]:
        fail("the proposal is worse than the given order")
    if "--ideal" in opts:
        if barrel["max_flows"] != 1:
            fail(f"ideal tree: barrel max_flows {barrel['max_flows']}, expected 1")
        if not any(s["crossing_flows"] > 0 for s in barrel["steps"]):
            fail("ideal tree: no flow crosses a switch")
    if "--conflicts" in opts:
        if barrel["max_flows"] <= 1:
            fail(f"expected conflicts, barrel max_flows {barrel['max_flows']}")
        if prop["max_flows"] >= barrel["max_flows"]:
            fail(f"proposal max {prop['max_flows']} does not lower {barrel['max_flows']}")
    if "--roundtrip" in opts:
        written = cmd[cmd.index("--write-order") + 1]
        again = [a for a in cmd if a != "--write-order" and a != written]
        json_path = again[again.index("--json") + 1] + ".again"
        again[again.index("--json") + 1] = json_path
        rerun = subprocess.run(again + ["--order", written, "--keep-hosts"], capture_output=True,
                               text=True, timeout=240)
        if rerun.returncode != 0:
            fail(f"rerun with --order {written}: exit {rerun.returncode}\n{rerun.stderr}")
        with open(json_path) as f:
            second = json.load(f)["barrel"]
        for key in ("order", "max_flows", "step_units"):
            if second[key] != prop[key]:
                fail(f"rerun on the written order: {key} {second[key]} != {prop[key]}")
    print(f"PASSED: {n} nodes, barrel max {barrel['max_flows']} ({barrel['step_units']} units), "
          f"proposal max {prop['max_flows']} ({prop['step_units']} units)")


main()
