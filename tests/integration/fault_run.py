#!/usr/bin/python3
"""Runs evbench with injected faults (config `faults:`) and checks what the
results say about them. Always: the exit status, and afterwards that no
process of the run is left. For a run that finished (exit 0, or exit 3 for a
lost data source): every assigned event was built exactly once or reported
incomplete for lack of a lost RU (lost 0, built twice 0, built +
incomplete_lost_peer == assigned, no other integrity error); under
on_failure exclude also that no RU ring overran and none held more events
than it has slots.

A lost RU is a lost data source (docs/METRICS.md, "Exit status"): with
--expect-incomplete or --expect-data-source-lost the run must exit 3 with
results.status data_source_lost, results.lost_data_sources naming the RU(s),
assign_stopped_at_s set, and a last table line `# FAILED: data source lost:
RU N (rank R) at T s, K events incomplete, ...` agreeing with the JSON.
Without them results.status must be ok (exit 0): no RU lost, no event
incomplete.

A masked RU (on_ru_loss mask) is a degraded success: with --expect-masked
"RU 2" the run must exit 0 with status ok, results.integrity.masked_events
counting events built without it (and naming it, with its rank and the
events built without it), its failure record's action "masked" and a
recovery against (N-1)/N of the pre-fault level, events built in a report
interval that began after it was masked (the run went on), and a last line
`# OK, degraded: RU 2 (rank 2) masked at T s, K events built without it`.

  fault_run.py EVBENCH [--expect-exit N] [--expect-failure "BU 1"]
      [--expect-no-failure] [--expect-reassigned] [--expect-incomplete]
      [--expect-data-source-lost "RU 3"] [--expect-late-discarded]
      [--expect-held-back] [--expect-masked "RU 2"] [--expect-stderr TEXT]
      [--expect-stdout TEXT]
      -- --set K=V ...
"""
import argparse
import json
import os
import sys
import tempfile

from session_run import run_in_session


def fail(msg):
    print("FAILED: " + msg)
    sys.exit(1)


p = argparse.ArgumentParser()
p.add_argument("evbench")
p.add_argument("--expect-exit", type=int, default=None,
               help="default: 3 with --expect-incomplete/--expect-data-source-lost, else 0")
p.add_argument("--expect-failure", action="append", default=[],
               help="a unit the EVM must report lost or excluded, e.g. 'BU 1'")
p.add_argument("--expect-kind", default=None, help="peer_lost or excluded_silent")
p.add_argument("--expect-no-failure", action="store_true")
p.add_argument("--expect-reassigned", action="store_true")
p.add_argument("--expect-incomplete", action="store_true",
               help="events incomplete for a lost RU (>= 1): a lost data source, exit 3")
p.add_argument("--expect-data-source-lost", action="append", default=[],
               help="an RU the run must report as a lost data source, e.g. 'RU 3' (exit 3)")
p.add_argument("--expect-late-discarded", action="store_true")
p.add_argument("--expect-held-back", action="store_true",
               help="the EVM held back an assignment until a release (back-pressure engaged)")
p.add_argument("--expect-masked", action="append", default=[],
               help="an RU the run must have masked (on_ru_loss mask), e.g. 'RU 2' (exit 0)")
p.add_argument("--expect-stderr", action="append", default=[])
p.add_argument("--expect-stdout", action="append", default=[])
p.add_argument("--timeout", type=int, default=80)
argv = sys.argv[1:]
split = argv.index("--") if "--" in argv else len(argv)
a = p.parse_args(argv[:split])
extra = argv[split + 1:]
source_lost = a.expect_incomplete or bool(a.expect_data_source_lost)
if a.expect_exit is None:
    a.expect_exit = 3 if source_lost else 0

with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "out.json")
    cmd = [a.evbench, "run", "--quiet", "--json", path] + extra
    returncode, out, err = run_in_session(cmd, a.timeout)
    if returncode != a.expect_exit:
        fail(f"exit status {returncode}, expected {a.expect_exit}")
    for text in a.expect_stderr:
        if text not in err:
            fail(f"stderr lacks {text!r}")
    for text in a.expect_stdout:
        if text not in out:
            fail(f"stdout lacks {text!r}")
    if a.expect_exit != 0 and not (a.expect_exit == 3 and source_lost):
        print(f"PASSED (exit {returncode})")
        sys.exit(0)
    with open(path) as f:
        doc = json.load(f)

r = doc["results"]
i = r["integrity"]
built, assigned = r["events_built"], r["events_assigned"]
incomplete = i["incomplete_lost_peer"]
want_status = "data_source_lost" if source_lost else "ok"
if r["status"] != want_status:
    fail(f"status {r['status']}, expected {want_status}")
if assigned < 1:
    fail("no event assigned")
if i["lost"] != 0 or i["duplicate_events"] != 0:
    fail(f"lost {i['lost']}, built twice {i['duplicate_events']}")
if built + incomplete != assigned:
    fail(f"built {built} + incomplete (lost RU) {incomplete} != assigned {assigned}")
for k in ("corrupt", "duplicate", "incomplete"):
    if i[k] != 0:
        fail(f"integrity.{k} = {i[k]}")


def check_recovery(what, f):
    """The aggregate's recovery (docs/METRICS.md): null only without a level,
    else consistent with the fraction it came back to."""
    level, t = f.get("pre_fault_gbps", "missing"), f.get("time_to_recover_s", "missing")
    if level == "missing" or t == "missing":
        fail(f"{what}: no recovery fields: {f}")
    if level is None:
        if t is not None:
            fail(f"{what}: a recovery time without a pre-fault level: {f}")
        return
    if level <= 0 or f["recovery_resolution_s"] <= 0:
        fail(f"{what}: pre-fault level {level}, resolution {f['recovery_resolution_s']}")
    if t is not None and (t < 0 or f["recovered_fraction"] < 0.9):
        fail(f"{what}: recovered after {t} s at {f['recovered_fraction']} of the level")
    if t is None and f["recovered_fraction"] >= 0.9:
        fail(f"{what}: back to {f['recovered_fraction']} of the level but not recovered")


for f in r["faults"]:
    if f["kind"] in ("stall", "delay"):
        check_recovery(f"{f['kind']} {f['unit']}", f)
b = r["bounds"]
if doc["config"]["on_failure"] == "exclude":
    if i["ring_overrun"] != 0:
        fail(f"ring_overrun {i['ring_overrun']}: {i['first_problem']}")
    held, slots = b["max_events_held_per_ru"], b["ru_ring_slots"]
    if not 1 <= held <= slots:
        fail(f"an RU held at most {held} events at once; its ring has {slots} slots")
if a.expect_held_back and b["assignments_held_back"] < 1:
    fail("the EVM never held an assignment back for a release")
seen = [f for f in r["faults"] if f["kind"] in ("peer_lost", "excluded_silent")]
if a.expect_no_failure and seen:
    fail(f"no peer should have been lost or excluded: {seen}")
for unit in a.expect_failure:
    match = [f for f in seen if f["unit"] == unit]
    if not match:
        fail(f"no failure reported for {unit}: {seen}")
    f = match[0]
    if a.expect_kind and f["kind"] != a.expect_kind:
        fail(f"{unit}: kind {f['kind']}, expected {a.expect_kind}")
    if f["time_to_detect_s"] < 0:
        fail(f"{unit}: negative detection time {f}")
    if unit.startswith("BU") and f["time_to_rebuild_s"] is None:
        fail(f"{unit}: its reassigned events were not all built: {f}")
    check_recovery(unit, f)
    if a.expect_reassigned and unit.startswith("BU") and f["events_reassigned"] < 1:
        fail(f"{unit}: no event reassigned: {f}")
    want_action = "reassigned" if unit.startswith("BU") else None
    if unit in a.expect_masked:
        want_action = "masked"
    if want_action and f.get("action") != want_action:
        fail(f"{unit}: action {f.get('action')}, expected {want_action}: {f}")
if a.expect_incomplete and incomplete < 1:
    fail("no event reported incomplete for the lost RU")
sources = r["lost_data_sources"]
if source_lost:
    # The summary's last line says which RU, when, and how many events.
    verdict = [l for l in out.splitlines() if l.startswith("# FAILED: data source lost: ")]
    if not verdict or verdict[-1] != out.rstrip("\n").splitlines()[-1]:
        fail("the table does not end with '# FAILED: data source lost: ...'")
    verdict = verdict[-1]
    if f", {incomplete} events incomplete" not in verdict:
        fail(f"{verdict!r} does not give the {incomplete} events incomplete_lost_peer counts")
    if not sources:
        fail("results.lost_data_sources is empty")
    for src in sources:
        named = f"{src['unit']} (rank {src['rank']}) at {src['lost_at_s']:.2f} s"
        if named not in verdict:
            fail(f"{verdict!r} does not name {named!r}")
    for unit in a.expect_data_source_lost:
        if unit not in [src["unit"] for src in sources]:
            fail(f"{unit} not in results.lost_data_sources: {sources}")
    stopped = r["assign_stopped_at_s"]
    if stopped is None or stopped < min(src["lost_at_s"] for src in sources):
        fail(f"assign_stopped_at_s {stopped} is not after the loss: {sources}")
    print(f"data source lost: {verdict}")
elif sources or incomplete:
    fail(f"status ok but data sources lost {sources}, {incomplete} events incomplete")
masked = i["masked_events"]
if a.expect_masked:
    count, nodes = masked["count"], doc["config"]["nodes"]
    if count < 1 or count > built:
        fail(f"masked_events.count {count} (built {built}): expected 1 .. built")
    by_unit = {f"RU {m['ru']}": m for m in masked["sources"]}
    last = out.rstrip("\n").splitlines()[-1]
    if not last.startswith("# OK, degraded: "):
        fail(f"the table does not end with '# OK, degraded: ...': {last!r}")
    interval = doc["config"]["report_interval"]
    for unit in a.expect_masked:
        if unit not in by_unit:
            fail(f"{unit} not in results.integrity.masked_events.sources: {masked}")
        m = by_unit[unit]
        without = m["events_built_without"]
        if not 1 <= without <= count:
            fail(f"{unit}: {without} events built without it, {count} masked in all")
        named = f"{unit} (rank {m['rank']}) masked at {m['masked_at_s']:.2f} s, {without} events"
        if named not in last:
            fail(f"{last!r} does not say {named!r}")
        rec = [f for f in seen if f["unit"] == unit]
        if not rec:
            fail(f"no failure record for {unit}: {seen}")
        level = rec[0].get("recovery_level")
        if rec[0]["pre_fault_gbps"] is not None and abs(level - (nodes - 1) / nodes) > 1e-9:
            fail(f"{unit}: recovery level {level}, expected {nodes - 1}/{nodes}")
        # The run went on: events were built in an interval that began after it.
        after = [x for x in r["samples"] if x["t_s"] - interval >= m["masked_at_s"]]
        if not any(x["events_per_second"] > 0 for x in after):
            fail(f"no event built after {unit} was masked at {m['masked_at_s']} s: {r['samples']}")
    print(f"masked: {last}")
elif masked["count"] or masked["sources"]:
    fail(f"events built masked without --expect-masked: {masked}")
if a.expect_late_discarded and i["late_discarded"] < 1:
    fail("no late delivery discarded")
if not a.expect_late_discarded and not seen and i["late_discarded"] != 0:
    fail(f"late_discarded {i['late_discarded']} without any exclusion")
print(f"PASSED (built {built} of {assigned}, incomplete (lost RU) {incomplete}, "
      f"late discarded {i['late_discarded']}, ring: {b['max_events_held_per_ru']} of "
      f"{b['ru_ring_slots']} slots held, {b['assignments_held_back']} assignments held back; "
      f"faults {seen})")
