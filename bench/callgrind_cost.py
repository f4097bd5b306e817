#!/usr/bin/python3
"""Sums what bench/overhead.sh needs from a directory of callgrind outputs
(one per evbench process of one run): the program total, the instructions
spent copying or checksumming bytes (exclusive cost of memcpy/memmove/memset
and CRC32C), the inclusive cost of evb::Engine::dispatch (everything a
completion sets off: protocol logic and the driver calls it makes), and the
number of heap allocations (calls into malloc and its relatives: operator new
ends in malloc, so it is not counted twice).

overhead.sh runs callgrind with --dump-after=evb::Engine::run(), so each
process leaves two files: cg.PID.1 (start-up and the event loop) and cg.PID
(what follows the loop: the results exchange and report, whose cost and
allocations grow with the run's duration, not with its fragments). Every
figure counts only the part up to the end of the loop. A process without a
part file (the launcher, which runs no Engine, or an older callgrind
command) counts whole.

  callgrind_cost.py DIR      prints: total copies dispatch allocations
"""
import glob
import re
import subprocess
import sys

# Byte-moving work: the data copies and checksums the framework cost excludes.
COPY = re.compile(r"(memcpy|memmove|memset|crc32c)", re.I)
DISPATCH = "evb::Engine::dispatch(evb::Completion const&)"
LINE = re.compile(r"^\s*([\d,]+)\s+\([^)]*\)\s+(\S.*)$")


def annotate(path, inclusive):
    out = subprocess.run(["callgrind_annotate", "--inclusive=" + ("yes" if inclusive else "no"),
                          "--threshold=100", "--auto=no", path],
                         capture_output=True, text=True, check=True).stdout
    rows = []
    for line in out.splitlines():
        m = LINE.match(line)
        if m:
            rows.append((int(m.group(1).replace(",", "")), m.group(2)))
    return rows


ALLOC = re.compile(r"^(malloc|calloc|realloc|aligned_alloc|posix_memalign|memalign)$")
NAMED = re.compile(r"^c?fn=\((\d+)\)(?: (.*))?$")


def allocations(path):
    """Calls into the allocator, read from the call records of the file
    (names are compressed: "cfn=(12) malloc" once, then "cfn=(12)")."""
    names = {}
    count = 0
    target = None
    with open(path, errors="replace") as f:
        for line in f:
            m = NAMED.match(line.rstrip("\n"))
            if m:
                if m.group(2):
                    names[m.group(1)] = m.group(2)
                target = names.get(m.group(1)) if line.startswith("cfn=") else None
                continue
            if line.startswith("calls=") and target and ALLOC.match(target):
                count += int(line.split()[0][6:])
                target = None
    return count


total = copies = dispatch = allocs = 0
files = sorted(glob.glob(sys.argv[1] + "/cg.*"))
if not files:
    sys.exit("no callgrind.out files in " + sys.argv[1])
parts = {f for f in files if re.search(r"/cg\.\d+\.\d+$", f)}
split = {f.rsplit(".", 1)[0] for f in parts}  # processes whose loop ended in a part
for f in files:
    if f not in parts and f in split:
        continue  # after the event loop
    for cost, name in annotate(f, inclusive=False):
        if name.startswith("PROGRAM TOTALS"):
            total += cost
        elif COPY.search(name.split("[")[0]):
            copies += cost
    for cost, name in annotate(f, inclusive=True):
        if DISPATCH in name:
            dispatch += cost
            break
    allocs += allocations(f)
print(total, copies, dispatch, allocs)
