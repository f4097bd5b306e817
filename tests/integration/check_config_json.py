#!/usr/bin/python3
"""Checks `evbench config --json` against the rest of the binary.

The JSON is what tools (scan/) read instead of keeping their own key list, so
it must say what the binary does: the same keys as `config --explain` (core
and per driver), defaults equal to what an empty config resolves to, and unit
words with the factors the value parser applies.

  check_config_json.py EVBENCH
"""
import json
import math
import subprocess
import sys
import tempfile

EVBENCH = sys.argv[1]
problems = []


def evbench(*args):
    proc = subprocess.run([EVBENCH] + list(args), capture_output=True, text=True, timeout=30)
    if proc.returncode != 0:
        print(f"FAILED: evbench {' '.join(args)} exited {proc.returncode}: {proc.stderr.strip()}")
        sys.exit(1)
    return proc.stdout


def explain_tables(text):
    """{None: core keys, driver: its keys} from the --explain text, in order."""
    tables, current = {}, None
    for line in text.splitlines():
        if line.startswith("# driver_options for driver "):
            current = line.split()[-1]
            tables[current] = []
        elif line.startswith("KEY "):
            tables.setdefault(current, [])
        elif line and not line.startswith(("#", " ", "(")):
            tables[current].append(line.split()[0])
    return tables


def resolved(empty, *sets):
    import yaml
    args = ["config", "--resolved", empty]
    for s in sets:
        args += ["--set", s]
    return yaml.safe_load(evbench(*args))


def dotted(tree, path):
    for part in path.split("."):
        tree = tree[part]
    return tree


def seconds(value):
    """A resolved duration: bare seconds, or "7200s" from 1000 s on (evbench
    refuses a bare number that large, so --resolved writes its unit)."""
    if isinstance(value, str) and value.endswith("s"):
        return float(value[:-1])
    return value


doc = json.loads(evbench("config", "--json"))
if doc.get("schema_version") != 1:
    problems.append(f"schema_version is {doc.get('schema_version')!r}, expected 1")

# The same keys as --explain, core and per driver, in the same order.
tables = explain_tables(evbench("config", "--explain"))
core = [k["key"] for k in doc["keys"]]
if core != tables.get(None):
    problems.append(f"core keys differ from --explain:\n  json:    {core}\n  explain: {tables.get(None)}")
drivers = {d: [k["key"] for k in keys] for d, keys in doc["driver_options"].items()}
explained = {d: keys for d, keys in tables.items() if d is not None}
if drivers != explained:
    problems.append(f"driver options differ from --explain:\n  json:    {drivers}\n  explain: {explained}")
for k in doc["keys"]:
    missing = [f for f in ("type", "default", "unit", "min", "max", "choices", "doc") if f not in k]
    if missing:
        problems.append(f"{k['key']}: no {', '.join(missing)}")

with tempfile.NamedTemporaryFile("w", suffix=".yaml") as empty:
    # Defaults: what an empty configuration resolves to (canonical units).
    defaults = resolved(empty.name)
    for k in doc["keys"]:
        if k["key"] == "driver_options":  # resolved shows the selected driver's options
            continue
        got = dotted(defaults, k["key"])
        if got != k["default"]:
            problems.append(f"{k['key']}: json default {k['default']!r}, resolves to {got!r}")

    # Unit words: N<unit> resolves to N x factor (ru_buffer: 4 KiB .. 1 TiB,
    # with fragments small enough to fit; peer_timeout: 0.1 s .. 1 day).
    units = doc["units"]
    if units["size"].get("KiB") != 1024 or units["duration"].get("ms") != 0.001:
        problems.append(f"unexpected unit table: {units}")
    for word, factor in units["size"].items():
        count = 8192 // factor if factor < 4096 else 1
        got = dotted(resolved(empty.name, "fragment.size=1KiB", f"ru_buffer={count}{word}"), "ru_buffer")
        if got != count * factor:
            problems.append(f"size unit {word}: {count}{word} resolves to {got}, json says {count * factor}")
    for word, factor in units["duration"].items():
        count = max(2, math.ceil(0.2 / factor))
        got = seconds(dotted(resolved(empty.name, f"peer_timeout={count}{word}"), "peer_timeout"))
        if not math.isclose(got, count * factor, rel_tol=1e-9):
            problems.append(f"duration unit {word}: {count}{word} resolves to {got} s, json says {count * factor}")

if problems:
    print("FAILED:\n" + "\n".join(problems))
    sys.exit(1)
print(f"PASSED: {len(core)} keys, {len(drivers)} drivers, "
      f"{len(units['size'])} size and {len(units['duration'])} duration units")
