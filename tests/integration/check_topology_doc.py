#!/usr/bin/python3
"""Fails when docs/TOPOLOGY.md's key table differs from `evbench topo --reference`."""
import subprocess
import sys

evbench, doc = sys.argv[1], sys.argv[2]
begin = "<!-- platform-keys:begin (generated: evbench topo --reference) -->\n"
end = "<!-- platform-keys:end -->"
generated = subprocess.run([evbench, "topo", "--reference"], check=True, capture_output=True,
                           text=True, timeout=30).stdout
with open(doc) as f:
    text = f.read()
if begin not in text or end not in text:
    print(f"{doc}: the platform-keys markers are missing")
    sys.exit(1)
current = text[text.index(begin) + len(begin):text.index(end)]
if current != generated:
    print(f"{doc} is stale: regenerate with `python3 {sys.argv[0]} EVBENCH {doc} --write`")
    if "--write" in sys.argv[3:]:
        with open(doc, "w") as f:
            f.write(text[:text.index(begin) + len(begin)] + generated + text[text.index(end):])
        print("rewritten")
    sys.exit(1)
print("PASSED")
