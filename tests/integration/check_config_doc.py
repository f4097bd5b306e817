#!/usr/bin/python3
"""Fails when docs/CONFIG.md differs from `evbench config --markdown`."""
import subprocess
import sys

evbench, doc = sys.argv[1], sys.argv[2]
generated = subprocess.run([evbench, "config", "--markdown"], check=True, capture_output=True,
                           text=True, timeout=30).stdout
with open(doc) as f:
    current = f.read()
if generated != current:
    print(f"{doc} is stale: regenerate with `evbench config --markdown > docs/CONFIG.md`")
    sys.exit(1)
print("PASSED")
