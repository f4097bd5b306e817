#!/usr/bin/python3
"""Runs one evbench command and checks its exit status and JSON results.

Used by the CTest integration tests (tests/integration/*.cmake):

  check_result.py [--expect-exit N] [--min-events N] [--shifts N]
                  [--expect-json PATH=VALUE]... [--expect-json-gt PATH=NUMBER]...
                  [--expect-stderr TEXT]... [--expect-stdout TEXT]... [--no-json]
                  [--reject-stdout TEXT]... [--check-network] [--check-shift-scan]
                  -- EVBENCH ARGS...

Unless --no-json, a temporary --json FILE is added to the command and the
document is checked: every assigned event built exactly once (events_built ==
events_assigned > 0 when the exit is 0), all integrity counters zero, and the
fields of docs/METRICS.md present. --expect-json compares the value at a
dotted path with VALUE as text (`results.events_built=500`); --expect-json-gt
requires a number strictly greater than NUMBER (`results.integrity.corrupt=0`).
--check-network: the network-only figure (results.bandwidth_gbps.network) is
below the per-node one on every node and, for an event builder with fixed
fragment sizes, exactly (N-1)/N of it (byte counts, not timing).
--check-shift-scan: every shift entry has per_node_values by node and
local_copy true for shift 0 only; the headline is the mean over shifts
1..N-1 (one node: shift 0, flagged results.headline_local_copy).
The command runs in its own process group, which is killed on timeout (or
when the command ends) so no rank outlives the test.
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile

import shm_leftovers


def fail(msg):
    print("FAILED: " + msg)
    sys.exit(1)


def run(cmd, timeout):
    shm_before = shm_leftovers.snapshot()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        print(out)
        print(err, file=sys.stderr)
        fail(f"timed out after {timeout} s: {' '.join(cmd)}")
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # nothing of the run may survive it
        except ProcessLookupError:
            pass
        shm_leftovers.remove_dead(shm_before)
    return proc.returncode, out, err


def lookup(doc, path):
    node = doc
    for part in path.split("."):
        if isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
            continue
        if not isinstance(node, dict) or part not in node:
            fail(f"JSON lacks '{path}'")
        node = node[part]
    return node


def close(a, b, rel=1e-4):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-9)


def check_network(doc):
    r = doc["results"]
    cfg = doc["config"]
    bw = r["bandwidth_gbps"]
    net = bw.get("network")
    if net is None:
        fail("bandwidth_gbps lacks 'network'")
    n = cfg["nodes"]
    per_node = bw["per_node_values"]
    values = net["per_node_values"]
    if len(values) != n or len(per_node) != n:
        fail(f"per_node_values: {len(per_node)} and network {len(values)} entries, {n} nodes")
    for k in ("min", "avg", "max"):
        if k not in net["per_node"]:
            fail(f"network.per_node lacks '{k}'")
    if not close(net["aggregate"], sum(values)):
        fail(f"network aggregate {net['aggregate']} is not the sum of {values}")
    for node, (a, b) in enumerate(zip(per_node, values)):
        if n > 1 and not (0 < b < a) and not r.get("headline_local_copy"):
            if cfg["protocol"] in ("pull", "push", "pull-noevm", "gather", "gather-cmd",
                                   "gather-cmd-meta", "alltoall"):
                fail(f"node {node}: network {b} Gb/s not below per-node {a} Gb/s")
        if b > a * (1 + 1e-5):
            fail(f"node {node}: network {b} Gb/s above per-node {a} Gb/s")
        if n == 1 and b != 0:
            fail(f"one node, yet network {b} Gb/s")
        fixed = cfg["fragment"]["distribution"] == "fixed"
        if fixed and cfg["protocol"] in ("pull", "push", "pull-noevm") and a > 0:
            if not close(b, a * (n - 1) / n, 1e-5):
                fail(f"node {node}: network {b} != per-node {a} x {n - 1}/{n}")
    print(f"network only: {values} of per-node {per_node}")


def check_shift_scan(doc):
    r = doc["results"]
    n = doc["config"]["nodes"]
    shifts = r.get("shifts", [])
    if not shifts:
        fail("no results.shifts")
    for st in shifts:
        if len(st.get("per_node_values", [])) != n:
            fail(f"shift {st['shift']}: per_node_values {st.get('per_node_values')}")
        if st.get("local_copy") is not (st["shift"] == 0):
            fail(f"shift {st['shift']}: local_copy {st.get('local_copy')}")
    network = [st for st in shifts if st["shift"] != 0]
    bw = r["bandwidth_gbps"]
    if r.get("headline_local_copy") is not (n == 1):
        fail(f"headline_local_copy {r.get('headline_local_copy')} with {n} nodes")
    if n == 1:
        want = shifts[0]["per_node_values"]
        agg = shifts[0]["aggregate"]
    else:
        want = [sum(st["per_node_values"][k] for st in network) / len(network) for k in range(n)]
        agg = sum(st["aggregate"] for st in network) / len(network)
        net = bw["network"]["per_node_values"]
        for k in range(n):
            if not close(net[k], want[k]):
                fail(f"network figure of node {k} {net[k]} is not the network shifts' {want[k]}")
        zero = [st for st in shifts if st["shift"] == 0]
        if zero and close(bw["aggregate"], zero[0]["aggregate"], 1e-9):
            fail("the headline is shift 0's")
    for k in range(n):
        if not close(bw["per_node_values"][k], want[k]):
            fail(f"headline of node {k} {bw['per_node_values'][k]}, expected {want[k]}")
    if not close(bw["aggregate"], agg):
        fail(f"headline aggregate {bw['aggregate']}, expected {agg}")
    print(f"shift scan headline {want} (aggregate {agg:.3f})")


def largest_knob(doc, key):
    """The largest value of a knob during the run: at start, after each
    run-time change (results.control), and as the run ended (config)."""
    r = doc["results"]
    values = [doc["config"][key], r.get("control_initial", {}).get(key, 0)]
    values += [int(c["value"]) for c in r.get("control", []) if c["key"] == key]
    return max(values)


def check_phases(doc):
    """A steered run's phases tile the window, each with the knobs it had,
    and add up to the headline: events to events_per_second x window_s (to
    the JSON's 6 significant digits), bytes to the per-node average."""
    r = doc["results"]
    phases = r["phases"]
    start, window = r["warmup_s"], r["window_s"]
    if not close(phases[0]["from_s"], start, 1e-5) or \
            not close(phases[-1]["to_s"], start + window, 1e-5):
        fail(f"phases run {phases[0]['from_s']}-{phases[-1]['to_s']} s, the window "
             f"{start}-{start + window} s")
    for a, b in zip(phases, phases[1:]):
        if not close(a["to_s"], b["from_s"], 1e-5) or a["settings"] == b["settings"]:
            fail(f"phases {a} and {b} do not meet at a change")
    for p in phases:
        if not p["to_s"] > p["from_s"] or not p["settings"]:
            fail(f"phase {p}: empty, or no settings")
    if r.get("lost_ranks") or r.get("faults"):
        return  # an excluded BU's events count in neither the same way
    events = sum(p["events"] for p in phases)
    headline = r["events_per_second"] * window
    if abs(events - headline) > max(1.0, 1e-5 * events):
        fail(f"the phases' {events} events are not the headline's {headline:.1f}")
    bits = sum(p["rate_gbps"] * (p["to_s"] - p["from_s"]) for p in phases)
    if not close(bits, r["bandwidth_gbps"]["per_node"]["avg"] * window, 1e-4):
        fail(f"the phases' per-node Gbit {bits} are not the headline's "
             f"{r['bandwidth_gbps']['per_node']['avg'] * window}")
    print(f"phases: {[(p['from_s'], p['to_s'], p['settings'], p['events']) for p in phases]}")


def check_document(doc, args):
    for key in ("schema_version", "argv", "config", "versions", "results"):
        if key not in doc:
            fail(f"JSON lacks '{key}'")
    r = doc["results"]
    for key in ("events_built", "events_per_second", "bandwidth_gbps", "latency_ms",
                "integrity", "samples"):
        if key not in r:
            fail(f"JSON results lack '{key}'")
    # The protocol's trait: the event builders say they build events.
    builds = doc["config"].get("protocol") in ("pull", "push", "pull-noevm", "evm-rate")
    if r.get("builds_events") is not builds:
        fail(f"results.builds_events is {r.get('builds_events')!r} for protocol "
             f"{doc['config'].get('protocol')}, expected {builds}")
    for key in ("min", "avg", "max"):
        if key not in r["bandwidth_gbps"]["per_node"]:
            fail(f"bandwidth_gbps.per_node lacks '{key}'")
    if "aggregate" not in r["bandwidth_gbps"]:
        fail("bandwidth_gbps lacks 'aggregate'")
    integ = r["integrity"]
    if args.expect_exit == 0:
        # Injected corruption (results.faults) is expected: every corrupt
        # fragment must be an injected one, and every injected one detected.
        faults = r.get("faults", [])
        injected = sum(f.get("injected", 0) for f in faults)
        detected = sum(f.get("detected", 0) for f in faults)
        if injected != detected:
            fail(f"{injected} corruptions injected, {detected} detected")
        if integ["corrupt"] != detected:
            fail(f"integrity.corrupt = {integ['corrupt']}, injected and detected {detected}")
        for key in ("incomplete", "duplicate", "lost", "duplicate_events"):
            if integ.get(key, 0) != 0:
                fail(f"integrity.{key} = {integ[key]}")
        if r["events_built"] < args.min_events:
            fail(f"events_built {r['events_built']} < {args.min_events}")
        bad = integ.get("corrupt_events", 0)
        if r["events_built"] + bad != r["events_assigned"]:
            fail(f"built {r['events_built']} + corrupt {bad} != assigned {r['events_assigned']}")
        # evm-rate moves no fragments: its events carry no bytes.
        if r["bandwidth_gbps"]["aggregate"] <= 0 and doc["config"].get("protocol") != "evm-rate":
            fail("aggregate bandwidth is not positive")
    bounds = r.get("bounds")
    cfg = doc["config"]
    if bounds is not None and cfg["protocol"] in ("pull", "push", "pull-noevm"):
        # Credits and parallel are limits the protocols must never exceed:
        # the largest a steered run had (config shows them as it ended).
        parallel, credits = largest_knob(doc, "parallel"), largest_knob(doc, "credits")
        if bounds["max_requests_in_flight_per_credit"] > parallel:
            fail(f"a slot had {bounds['max_requests_in_flight_per_credit']} requests in flight,"
                 f" parallel is at most {parallel}")
        for key in ("max_events_in_flight_per_bu", "max_events_assigned_per_bu"):
            if bounds[key] > credits:
                fail(f"bounds.{key} = {bounds[key]} exceeds credits {credits}")
        # With one node and local_fragment in_place nothing is ever requested.
        all_in_place = cfg["nodes"] == 1 and r.get("fragments_in_place", 0) > 0
        if (cfg["protocol"] != "push" and not all_in_place
                and bounds["max_requests_in_flight_per_credit"] < 1):
            fail("no fragment request was ever in flight")
    for spec in args.expect_json:
        path, _, want = spec.partition("=")
        node = lookup(doc, path)
        if str(node) != want:
            fail(f"JSON {path} = {node!r}, expected {want!r}")
    for spec in args.expect_json_gt:
        path, _, bound = spec.partition("=")
        node = lookup(doc, path)
        if isinstance(node, bool) or not isinstance(node, (int, float)):
            fail(f"JSON {path} = {node!r} is not a number")
        if not node > float(bound):
            fail(f"JSON {path} = {node!r}, expected more than {bound}")
    if r.get("phases"):
        check_phases(doc)
    if args.check_network:
        check_network(doc)
    if args.check_shift_scan:
        check_shift_scan(doc)
    if args.shifts is not None:
        shifts = r.get("shifts", [])
        if len(shifts) != args.shifts:
            fail(f"{len(shifts)} shift entries, expected {args.shifts}")
        if sorted(s["shift"] for s in shifts) != list(range(args.shifts)):
            fail("shift entries are not 0..n-1")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--expect-exit", type=int, default=0)
    p.add_argument("--min-events", type=int, default=1)
    p.add_argument("--shifts", type=int)
    p.add_argument("--expect-stderr", action="append", default=[])
    p.add_argument("--reject-stderr", action="append", default=[],
                   help="fail when stderr contains this text")
    p.add_argument("--expect-stdout", action="append", default=[])
    p.add_argument("--reject-stdout", action="append", default=[],
                   help="fail when stdout contains this text")
    p.add_argument("--check-network", action="store_true")
    p.add_argument("--check-shift-scan", action="store_true")
    p.add_argument("--no-json", action="store_true")
    p.add_argument("--expect-json", action="append", default=[],
                   help="DOTTED.PATH=VALUE that the results document must hold")
    p.add_argument("--expect-json-gt", action="append", default=[],
                   help="DOTTED.PATH=NUMBER: the value there must be greater than NUMBER")
    # Below every ctest TIMEOUT (60 s and up), so the process group is killed
    # here rather than left behind when ctest kills this script.
    p.add_argument("--timeout", type=int, default=50)
    p.add_argument("command", nargs=argparse.REMAINDER)
    args = p.parse_args()
    cmd = [c for c in args.command if c != "--"]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "result.json")
        if not args.no_json:
            cmd += ["--json", path]
        code, out, err = run(cmd, args.timeout)
        sys.stdout.write(out)
        sys.stderr.write(err)
        if code != args.expect_exit:
            fail(f"exit status {code}, expected {args.expect_exit}")
        for text in args.expect_stderr:
            if text not in err:
                fail(f"stderr lacks {text!r}")
        for text in args.reject_stderr:
            if text in err:
                fail(f"stderr contains {text!r}")
        for text in args.expect_stdout:
            if text not in out:
                fail(f"stdout lacks {text!r}")
        # The resolved configuration echoed first names every key: not the table.
        table = "\n".join(line for line in out.splitlines()
                          if not line.startswith(("#   ", "# resolved configuration")))
        for text in args.reject_stdout:
            if text in table:
                fail(f"stdout contains {text!r}")
        if not args.no_json and (args.expect_exit in (0, 3)):
            if not os.path.exists(path):
                fail("no JSON document written")
            with open(path) as f:
                check_document(json.load(f), args)
    print("PASSED")


if __name__ == "__main__":
    main()
