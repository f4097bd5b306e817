"""Of an `strace -f -e trace=sendmsg,sendto` of one-to-one over ucx/tcp write
(window 1), the writer's calls in order: put fragments (sendto of 8197 or
1305 bytes), the flush request (sendmsg of 25) and the notify (sendto of 45:
32 bytes and UCX's headers). For each notify: how many put fragments the
writer sent between its write's flush request and it, i.e. of the next
write, posted before this one's flush answer came back and its notify went
(0 = the window waited). Flushes and notifies pair in order.
  python3 notes/h38w/overlap.py TRACE[.xz]"""
import collections, lzma, re, sys

calls = collections.defaultdict(list)  # pid -> [(syscall, bytes)]
pending = {}
opener = lzma.open if sys.argv[1].endswith(".xz") else open
for line in opener(sys.argv[1], "rt"):
    m = re.match(r"(\d+)\s+(.*)", line)
    if not m:
        continue
    pid, rest = m.groups()
    if "<unfinished ...>" in rest:
        pending[pid] = rest.split("(")[0]
        continue
    r = re.match(r"<\.\.\. (\w+) resumed>.*= (-?\d+)", rest)
    if r:
        calls[pid].append((r.group(1), int(r.group(2))))
        pending.pop(pid, None)
        continue
    r = re.match(r"(\w+)\(.*= (-?\d+)", rest)
    if r:
        calls[pid].append((r.group(1), int(r.group(2))))
writer = max(calls, key=lambda p: sum(1 for c, n in calls[p] if c == "sendto" and n == 8197))
seq = calls[writer]
flushes, counts, frags = collections.deque(), [], 0
for c, n in seq:
    if c == "sendmsg" and n == 25:
        flushes.append(frags)
    elif c == "sendto" and n in (8197, 1305):
        frags += 1
    elif c == "sendto" and n == 45 and flushes:
        counts.append(frags - flushes.popleft())
overlapped = sum(1 for x in counts if x > 0)
print("notifies %d; with put fragments of the next write sent between the flush request and "
      "the notify: %d (%.0f %%); fragments between, median %d, max %d" % (
          len(counts), overlapped, 100.0 * overlapped / max(len(counts), 1),
          sorted(counts)[len(counts) // 2] if counts else 0, max(counts) if counts else 0))
