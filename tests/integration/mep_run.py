#!/usr/bin/python3
"""Runs evbench with multi-event fragments (fragment.events = p > 1) and
checks the results (docs/METRICS.md, "Events"):

- exit 0, status ok, every integrity counter 0;
- results.packing_factor is p; events_built = meps_built x p, events_assigned
  = meps_assigned x p, events_per_second = meps_per_second x p (to the
  JSON's rounding), all > 0;
- with verify.sample=1 every fragment is checked: integrity.verified_fragments
  = meps_built x nodes (each MEP has one fragment per RU);
- the text table prints both sizes and the MEP rate.

With --desync K (a `faults: [{desync: ruN, by: K}]` run, K not a multiple
of p): exit 3, an RU named out of sync by an event inside a MEP ("its fragment
for MEP m carries event E+K where event E belongs"), the kept fragment's
header version 3 with p table entries, nothing counted corrupt, every event
accounted for.

  mep_run.py --events P [--desync K] [--timeout S] -- COMMAND...

`--json FILE` is appended to COMMAND.
"""
import argparse
import json
import os
import re
import sys
import tempfile

from kept_fragment import check_mep_fragment
from session_run import run_in_session


def fail(msg):
    print("FAILED: " + msg)
    sys.exit(1)


def close(a, b, rel=1e-5):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-9)


def check_sound(doc, out, p):
    r = doc["results"]
    if r["status"] != "ok":
        fail(f"status {r['status']}")
    if r.get("packing_factor") != p:
        fail(f"packing_factor {r.get('packing_factor')}, expected {p}")
    built, meps = r["events_built"], r["meps_built"]
    if meps <= 0 or built != meps * p:
        fail(f"events_built {built} is not meps_built {meps} x {p}")
    if r["events_assigned"] != r["meps_assigned"] * p:
        fail(f"events_assigned {r['events_assigned']} is not meps_assigned "
             f"{r['meps_assigned']} x {p}")
    if r["meps_per_second"] <= 0 or not close(r["events_per_second"], r["meps_per_second"] * p):
        fail(f"events_per_second {r['events_per_second']} is not meps_per_second "
             f"{r['meps_per_second']} x {p}")
    i = r["integrity"]
    for k in ("corrupt", "duplicate", "incomplete", "lost", "duplicate_events", "out_of_sync",
              "out_of_sync_events", "corrupt_events"):
        if i[k] != 0:
            fail(f"integrity.{k} = {i[k]}")
    nodes = doc["config"]["nodes"]
    if doc["config"]["verify"]["sample"] >= 1 and i["verified_fragments"] != meps * nodes:
        fail(f"{i['verified_fragments']} fragments checked, {meps} MEPs x {nodes} RUs built")
    if f"{p} events per fragment (fragment.events)" not in out or "# MEPs/s " not in out:
        fail("the text table names neither the MEP size nor the MEP rate")
    print(f"PASSED: {built} events in {meps} MEPs of {p}, {r['events_per_second']} events/s = "
          f"{r['meps_per_second']} MEPs/s x {p}")


def check_desync(doc, err, results, p, by):
    named = re.findall(r"RU (\d+) \(rank \d+\) is out of sync: its fragment for MEP (\d+) carries "
                       r"event (\d+) where event (\d+) belongs; fragment kept in (\S+)", err)
    if not named:
        fail("stderr names no event out of sync inside a MEP")
    for ru, mep, labelled, asked, kept in named:
        if int(labelled) - int(asked) != by or int(asked) // p != int(mep):
            fail(f"MEP {mep}: event {labelled} where {asked} belongs: not {by} off")
        if os.path.dirname(kept) != os.path.realpath(results):
            fail(f"fragment kept in {kept}, not next to the results")
        error = check_mep_fragment(kept, int(ru), int(mep), p, int(mep) * p + by)
        if error:
            fail(error)
    r = doc["results"]
    i = r["integrity"]
    if r["status"] != "integrity_error" or i["out_of_sync"] < 1 or i["corrupt"] != 0:
        fail(f"status {r['status']}, out_of_sync {i['out_of_sync']}, corrupt {i['corrupt']}")
    if i["lost"] != 0 or i["duplicate_events"] != 0:
        fail(f"lost {i['lost']}, built twice {i['duplicate_events']}")
    if i["out_of_sync_events"] % p != 0 or "carries event" not in i["first_problem"]:
        fail(f"out_of_sync_events {i['out_of_sync_events']}, first {i['first_problem']!r}")
    print(f"PASSED: {len(named)} MEP(s) with an event out of sync named, "
          f"{i['out_of_sync_events']} events not built")


a = argparse.ArgumentParser()
a.add_argument("--events", type=int, required=True)
a.add_argument("--desync", type=int)
a.add_argument("--timeout", type=int, default=80)
argv = sys.argv[1:]
if "--" not in argv:
    fail("usage: mep_run.py --events P [--desync K] -- COMMAND...")
args = a.parse_args(argv[:argv.index("--")])
command = argv[argv.index("--") + 1:]
with tempfile.TemporaryDirectory() as results, tempfile.TemporaryDirectory() as cwd:
    path = os.path.join(results, "out.json")
    code, out, err = run_in_session(command + ["--json", path], args.timeout, cwd=cwd)
    want = 0 if args.desync is None else 3
    if code != want:
        fail(f"exit status {code}, expected {want}")
    with open(path) as f:
        doc = json.load(f)
    if args.desync is None:
        check_sound(doc, out, args.events)
    else:
        check_desync(doc, err, results, args.events, args.desync)
