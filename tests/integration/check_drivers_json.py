#!/usr/bin/python3
"""Checks `evbench drivers --json`: a JSON array with one object per driver
the text listing shows, each with driver, can_run, library, reason, details,
variants_usable (strings) and variants_not_here ({name, reason}); tcp can run
everywhere; a driver that cannot run says why.

  check_drivers_json.py EVBENCH
"""
import json
import subprocess
import sys


def fail(msg):
    print("FAILED: " + msg)
    sys.exit(1)


def main():
    evbench = sys.argv[1]
    out = subprocess.run([evbench, "drivers", "--json"], capture_output=True, text=True,
                         timeout=60, check=True).stdout
    doc = json.loads(out)
    if not isinstance(doc, list) or not doc:
        fail(f"not a non-empty array: {out[:200]}")
    text = subprocess.run([evbench, "drivers"], capture_output=True, text=True, timeout=60,
                          check=True).stdout
    listed = [line.split()[0] for line in text.splitlines() if line and not line.startswith("#")]
    names = [d.get("driver") for d in doc]
    if names != listed:
        fail(f"--json lists {names}, the text {listed}")
    for d in doc:
        for key, kind in (("driver", str), ("can_run", bool), ("library", str), ("reason", str),
                          ("details", str), ("variants_usable", list),
                          ("variants_not_here", list)):
            if not isinstance(d.get(key), kind):
                fail(f"{d.get('driver')}: {key} = {d.get(key)!r}")
        if not d["can_run"] and not d["reason"]:
            fail(f"{d['driver']} cannot run and gives no reason")
        for v in d["variants_usable"]:
            if not isinstance(v, str) or not v.startswith(d["driver"] + "/"):
                fail(f"{d['driver']}: usable variant {v!r}")
        for v in d["variants_not_here"]:
            if not v.get("name", "").startswith(d["driver"] + "/") or not v.get("reason"):
                fail(f"{d['driver']}: variant not here {v!r}")
    tcp = [d for d in doc if d["driver"] == "tcp"]
    if not tcp or not tcp[0]["can_run"]:
        fail("tcp cannot run")
    for d in doc:
        print(d["driver"], d["can_run"], d["variants_usable"],
              [v["name"] for v in d["variants_not_here"]])
    print("PASSED")


if __name__ == "__main__":
    main()
