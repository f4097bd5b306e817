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
import struct
import sys
import tempfile

from session_run import run_in_session

HEADER = struct.Struct("<IHHQIIQQIIIIQ")  # core/messages.hpp FragmentHeader, 64 bytes
FRAGMENT_MAGIC = 0x46524731


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

    named = re.findall(r"BU (\d+): RU (\d+) \(rank (\d+)\) is out of sync: its fragment for event "
                       r"(\d+) is labelled event (\d+); fragment kept in (\S+)", err)
    if not named:
        fail("stderr names no RU out of sync with a kept fragment")
    for bu, ru, rank, asked, labelled, kept in named:
        if int(ru) != a.ru:
            fail(f"BU {bu} named RU {ru} out of sync; the fault hit RU {a.ru}")
        if int(labelled) - int(asked) != a.by:
            fail(f"event {asked} labelled {labelled}: not {a.by} events off")
        if os.path.dirname(kept) != os.path.realpath(results):
            fail(f"fragment kept in {kept}, not next to the results ({results})")
        name = f"evbench-desync-ru{ru}-bu{bu}-event{asked}-labelled{labelled}.frag"
        if os.path.basename(kept) != name:
            fail(f"kept fragment named {os.path.basename(kept)}, expected {name}")
        with open(kept, "rb") as f:
            data = f.read()
        if len(data) < HEADER.size:
            fail(f"{kept}: {len(data)} bytes, shorter than a header")
        (magic, version, meta_segments, event_id, h_ru, h_bu, _seq, payload, meta_size, _crc,
         _hcrc, _r0, _r1) = HEADER.unpack_from(data)
        if magic != FRAGMENT_MAGIC or version != 2:
            fail(f"{kept}: magic {magic:#x} version {version}")
        if event_id != int(labelled) or h_ru != a.ru or h_bu != int(bu):
            fail(f"{kept}: header event {event_id} RU {h_ru} BU {h_bu}, expected "
                 f"{labelled}, {a.ru}, {bu}")
        if len(data) != HEADER.size + meta_segments * meta_size + payload:
            fail(f"{kept}: {len(data)} bytes, the header says "
                 f"{HEADER.size + meta_segments * meta_size + payload}")
    if os.listdir(cwd):
        fail(f"files left in the working directory: {os.listdir(cwd)}")
    with open(path) as f:
        doc = json.load(f)

r = doc["results"]
i = r["integrity"]
if r["status"] != "integrity_error":
    fail(f"status {r['status']}, expected integrity_error")
if i["out_of_sync"] < 1 or i["corrupt"] != 0:
    fail(f"integrity.out_of_sync {i['out_of_sync']}, corrupt {i['corrupt']}")
if i["lost"] != 0 or i["duplicate_events"] != 0:
    fail(f"lost {i['lost']}, built twice {i['duplicate_events']}: not every event accounted for")
first = i["first_problem"]
if not re.search(rf"RU {a.ru} \(rank \d+\) is out of sync: its fragment for event \d+ is "
                 rf"labelled event \d+", first):
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
