#!/usr/bin/python3
"""Runs evbench with a sync-loss fault (`faults: [{at, desync: ruN, by: K}]`)
and checks that the builder caught it (docs/USER_GUIDE.md, "Failures and
fault injection"):

- exit status 3 (an integrity error), no process of the run left behind;
- stderr names the RU out of sync and both events, the labelled one K past
  the one asked for: "BU b: RU N (rank r) is out of sync: its fragment for
  event E is labelled event E+K", and where the fragment was kept;
- that file lies next to the --json results (not in the working directory),
  holds header + metadata + payload, and its header (magic, version, RU,
  event id E+K, sizes) is the labelled fragment's;
- results: status integrity_error, integrity.out_of_sync >= 1, no fragment
  counted corrupt, every assigned event accounted for (lost 0, built twice
  0), first_problem the message above; the table's last line names desync.

With multi-event fragments (the run's fragment.events p > 1, a MEP of p
events from each RU) the check is per event inside a MEP: stderr says "its
fragment for MEP m carries event E+K where event E belongs", E inside MEP m
(the MEP's first event when the shift moved its label: a MEP too early or
late), the kept MEP has header version 3, p events and a table starting at
E+K, and the events not built are whole MEPs (integrity.out_of_sync_events a
multiple of p).

With --masked (the run under on_ru_loss: mask): the EVM masks the RU
instead of stopping (a failure record of kind out_of_sync for it, action
masked), the run goes on (events built without the RU are counted in
integrity.masked_events) and the table's last line also names the mask.

  desync_run.py --ru N --by K [--masked] [--timeout S] -- COMMAND...

COMMAND is the evbench run (possibly behind mpirun); `--json FILE` is
appended to it.
"""
import argparse
import json
import os
import re
import sys
import tempfile

from kept_fragment import check_event_fragment, check_mep_fragment
from session_run import run_in_session


def fail(msg):
    print("FAILED: " + msg)
    sys.exit(1)


p = argparse.ArgumentParser()
p.add_argument("--ru", type=int, required=True)
p.add_argument("--by", type=int, required=True)
p.add_argument("--timeout", type=int, default=80)
p.add_argument("--masked", action="store_true")
argv = sys.argv[1:]
if "--" not in argv:
    fail("usage: desync_run.py --ru N --by K -- COMMAND...")
split = argv.index("--")
a = p.parse_args(argv[:split])
command = argv[split + 1:]

with tempfile.TemporaryDirectory() as results, tempfile.TemporaryDirectory() as cwd:
    path = os.path.join(results, "out.json")
    cmd = command + ["--json", path]
    returncode, out, err = run_in_session(cmd, a.timeout, cwd=cwd)
    if returncode != 3:
        fail(f"exit status {returncode}, expected 3 (integrity error)")

    with open(path) as f:
        doc = json.load(f)
    packing = doc["config"]["fragment"]["events"]
    if packing == 1:
        named = [(bu, ru, asked, labelled, None, kept) for bu, ru, _rank, asked, labelled, kept in
                 re.findall(r"BU (\d+): RU (\d+) \(rank (\d+)\) is out of sync: its fragment for "
                            r"event (\d+) is labelled event (\d+); fragment kept in (\S+)", err)]
    else:
        named = [(bu, ru, asked, labelled, mep, kept) for bu, ru, mep, labelled, asked, kept in
                 re.findall(r"BU (\d+): RU (\d+) \(rank \d+\) is out of sync: its fragment for "
                            r"MEP (\d+) carries event (\d+) where event (\d+) belongs; fragment "
                            r"kept in (\S+)", err)]
    if not named:
        fail(f"stderr names no RU out of sync with a kept fragment (fragment.events {packing})")
    for bu, ru, asked, labelled, mep, kept in named:
        if int(ru) != a.ru:
            fail(f"BU {bu} named RU {ru} out of sync; the fault hit RU {a.ru}")
        if int(labelled) - int(asked) != a.by:
            fail(f"event {asked} labelled {labelled}: not {a.by} events off")
        if mep is not None and int(asked) // packing != int(mep):
            fail(f"event {asked} named as belonging to MEP {mep} of {packing} events")
        if os.path.dirname(kept) != os.path.realpath(results):
            fail(f"fragment kept in {kept}, not next to the results ({results})")
        name = f"evbench-desync-ru{ru}-bu{bu}-event{asked}-labelled{labelled}.frag"
        if os.path.basename(kept) != name:
            fail(f"kept fragment named {os.path.basename(kept)}, expected {name}")
        if mep is None:
            error = check_event_fragment(kept, a.ru, int(bu), int(labelled))
        else:
            # The MEP the RU sent: its header names the one its first event is in.
            error = check_mep_fragment(kept, a.ru, int(labelled) // packing, packing,
                                       int(labelled))
        if error:
            fail(error)
    if os.listdir(cwd):
        fail(f"files left in the working directory: {os.listdir(cwd)}")

r = doc["results"]
i = r["integrity"]
if r["status"] != "integrity_error":
    fail(f"status {r['status']}, expected integrity_error")
if i["out_of_sync"] < 1 or i["corrupt"] != 0:
    fail(f"integrity.out_of_sync {i['out_of_sync']}, corrupt {i['corrupt']}")
if i["lost"] != 0 or i["duplicate_events"] != 0:
    fail(f"lost {i['lost']}, built twice {i['duplicate_events']}: not every event accounted for")
if i["out_of_sync_events"] % packing != 0:
    fail(f"out_of_sync_events {i['out_of_sync_events']}: not whole MEPs of {packing} events")
first = i["first_problem"]
if not re.search(rf"RU {a.ru} \(rank \d+\) is out of sync: its fragment for (event \d+ is "
                 rf"labelled event \d+|MEP \d+ carries event \d+ where event \d+ belongs)", first):
    fail(f"first_problem {first!r} does not name RU {a.ru} out of sync")
entry = [f for f in r["faults"] if f["kind"] == "desync"]
if not entry or entry[0]["by_events"] != a.by or entry[0]["out_of_sync"] != i["out_of_sync"]:
    fail(f"results.faults has no desync entry by {a.by}: {r['faults']}")
if a.masked:
    unit = f"RU {a.ru}"
    rec = [f for f in r["faults"] if f.get("unit") == unit and f["kind"] == "out_of_sync"]
    if not rec or rec[0].get("action") != "masked":
        fail(f"no out_of_sync failure record masking {unit}: {r['faults']}")
    src = [m for m in i["masked_events"]["sources"] if m["ru"] == a.ru]
    if not src or src[0]["events_built_without"] < 1 or i["masked_events"]["count"] < 1:
        fail(f"{unit} masked but no event built without it: {i['masked_events']}")
    if r["events_built"] + i["out_of_sync_events"] != r["events_assigned"]:
        fail(f"built {r['events_built']} + out of sync {i['out_of_sync_events']} of "
             f"{r['events_assigned']} assigned")
last = out.rstrip("\n").splitlines()[-1]
if a.masked and f"; masked: {unit} (rank " not in last:
    fail(f"the table ends with {last!r}, which does not name {unit} masked")
if not last.startswith("# FAILED: integrity errors (desync: "):
    fail(f"the table ends with {last!r}, not a FAILED line naming desync")
print(f"PASSED ({len(named)} kept fragment(s); out_of_sync {i['out_of_sync']}, "
      f"out_of_sync_events {i['out_of_sync_events']}, built {r['events_built']} of "
      f"{r['events_assigned']})")
