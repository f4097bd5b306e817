#!/usr/bin/python3
"""Runs a test only where evbench's own probe says the driver (or variant) can
run, deciding from the structured `evbench drivers --json`, never from text.

  probe_gate.py EVBENCH DRIVER[/VARIANT] [--expect-cannot] -- COMMAND...

VARIANT as `evbench drivers --json` names it; libfabric/tcp stands for
libfabric/tcp;ofi_rxm (the part before ';').
Without --expect-cannot: the probe says it can run -> COMMAND runs (exec) and
its result is the test's; the probe says it cannot -> "not run: <reason>" and
exit 77 (SKIP_RETURN_CODE). --expect-cannot turns it round, for the tests of
a refusal: COMMAND runs only where the probe says the driver cannot run.

Anything else is a failure (exit 1), not a skip: the probe does not answer or
answers something that is not the documented JSON, the driver is built but
not listed, the variant is neither usable nor "not here". A probe regression
can therefore never turn a test into a quiet not-run.
"""
import json
import os
import subprocess
import sys


def fail(msg):
    print("FAILED (probe_gate): " + msg, flush=True)
    sys.exit(1)


def decide(doc, target):
    """(can_run, reason) for DRIVER or DRIVER/VARIANT from `drivers --json`."""
    if not isinstance(doc, list):
        fail("evbench drivers --json is not a JSON array")
    driver = target.split("/", 1)[0]
    entries = [d for d in doc if isinstance(d, dict) and d.get("driver") == driver]
    if len(entries) != 1:
        fail("driver %r is listed %d times by evbench drivers --json (built, so expected once)"
             % (driver, len(entries)))
    d = entries[0]
    if not isinstance(d.get("can_run"), bool):
        fail("%s: can_run is %r, not a boolean" % (driver, d.get("can_run")))
    if not d["can_run"]:
        return False, "driver %s cannot run here: %s" % (driver, d.get("reason") or "(no reason)")
    if "/" not in target:
        return True, ""
    usable = d.get("variants_usable") or []
    not_here = {v.get("name"): v.get("reason", "") for v in d.get("variants_not_here") or []
                if isinstance(v, dict)}
    # libfabric/tcp names libfabric/tcp;ofi_rxm (CMake splits arguments at ';').
    def named(v):
        return v == target or v.split(";", 1)[0] == target
    for v in usable:
        if named(v):
            return True, ""
    for v, why in not_here.items():
        if named(v):
            return False, "variant %s not here: %s" % (v, why or "(no reason)")
    fail("variant %s is neither usable (%s) nor listed as not here (%s)"
         % (target, ", ".join(usable) or "none", ", ".join(not_here) or "none"))


def main(argv):
    if "--" not in argv or len(argv) < 4:
        fail("usage: probe_gate.py EVBENCH DRIVER[/VARIANT] [--expect-cannot] -- COMMAND...")
    sep = argv.index("--")
    head, command = argv[1:sep], argv[sep + 1:]
    expect_cannot = "--expect-cannot" in head
    head = [a for a in head if a != "--expect-cannot"]
    if len(head) != 2 or not command:
        fail("usage: probe_gate.py EVBENCH DRIVER[/VARIANT] [--expect-cannot] -- COMMAND...")
    evbench, target = head
    try:
        proc = subprocess.run([evbench, "drivers", "--json"], capture_output=True, text=True,
                              timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        fail("evbench drivers --json: %s" % e)
    if proc.returncode != 0:
        fail("evbench drivers --json exited %d: %s" % (proc.returncode, proc.stderr.strip()))
    try:
        doc = json.loads(proc.stdout)
    except ValueError as e:
        fail("evbench drivers --json is not JSON (%s): %.200s" % (e, proc.stdout))
    can_run, reason = decide(doc, target)
    if expect_cannot and can_run:
        print("not run: the probe says %s can run here, so there is no refusal to test" % target,
              flush=True)
        sys.exit(77)
    if not expect_cannot and not can_run:
        print("not run: %s (evbench drivers --json)" % reason, flush=True)
        sys.exit(77)
    print("probe_gate: %s %s; running the test" % (target, reason or "can run here"), flush=True)
    try:
        os.execvp(command[0], command)
    except OSError as e:
        fail("cannot run %s: %s" % (command[0], e))


if __name__ == "__main__":
    main(sys.argv)
