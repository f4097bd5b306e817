#!/usr/bin/env python3
"""`evbench sim` reports its progress (docs/SCALE.md, "Progress").

  sim_progress.py EVBENCH

Runs configs/sim/pull-1mib.yaml on configs/platforms/sim-tree-16.yaml with a
longer simulated duration, twice:
  - without --quiet: stderr has progress lines `evbench: sim: S of ~T s
    simulated, W s wall[, about L s left | (setting up)]`, simulated time S
    never going back and wall time W increasing, T the run's duration, and
    the last line's S above the first's when there are several. A run that
    ended within two cadences (6 s of wall time) may have printed none: the
    test is skipped then (exit 77), as it says nothing about progress;
  - with --quiet: no progress line at all.
The run's own result (exit 0, # OK) is checked too.
Exit 77 (CTest skip) with the reason when the ordinary evbench is missing.
"""
import os
import re
import signal
import subprocess
import sys
import time

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CADENCE_S = 3
DURATION = "200ms"  # simulated; about 20 s of wall time here
LINE = re.compile(r"^evbench: sim: (\d+\.\d+) of ~(\d+\.\d+) s simulated, (\d+) s wall"
                  r"(, about \d+ s left| \(setting up\))?$")


def run(evbench, quiet):
    cmd = [evbench, "sim", os.path.join(SOURCE, "configs/sim/pull-1mib.yaml"),
           "--platform", os.path.join(SOURCE, "configs/platforms/sim-tree-16.yaml"),
           "--set", f"duration={DURATION}"] + (["--quiet"] if quiet else [])
    start = time.monotonic()
    # Own process group: on a timeout smpirun and the simulation go too.
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    try:
        out, err = p.communicate(timeout=240)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        sys.exit(f"FAIL: {' '.join(cmd)} did not end within 240 s")
    if p.returncode != 0 or "\n# OK\n" not in out:
        sys.exit(f"FAIL: {' '.join(cmd)}: exit {p.returncode}\n{out}\n{err}")
    return time.monotonic() - start, err


def main():
    evbench = sys.argv[1]
    if not os.access(evbench, os.X_OK):
        print(f"skipped: no ordinary evbench at {evbench}")
        sys.exit(77)
    wall, err = run(evbench, quiet=False)
    lines = [line for line in err.splitlines() if line.startswith("evbench: sim:")]
    print(f"{len(lines)} progress line(s) in {wall:.1f} s:\n" + "\n".join(lines))
    if not lines:
        if wall < 2 * CADENCE_S:
            print(f"skipped: the simulation ended within {2 * CADENCE_S} s, before a progress line")
            sys.exit(77)
        sys.exit(f"FAIL: no progress line in {wall:.1f} s of wall time\n{err}")
    seen = []
    for line in lines:
        m = LINE.match(line)
        if not m:
            sys.exit(f"FAIL: not a progress line: {line!r}")
        sim, total, wall_s = float(m.group(1)), float(m.group(2)), int(m.group(3))
        if abs(total - 0.2) > 1e-9:
            sys.exit(f"FAIL: the simulated length is {total} s, expected 0.2 (duration)")
        seen.append((sim, wall_s))
    for (s0, w0), (s1, w1) in zip(seen, seen[1:]):
        if s1 < s0 or w1 <= w0:
            sys.exit(f"FAIL: progress went back: {seen}")
    if len(seen) > 1 and not seen[-1][0] > seen[0][0]:
        sys.exit(f"FAIL: simulated time did not advance between progress lines: {seen}")
    _, err = run(evbench, quiet=True)
    if "evbench: sim:" in err:
        sys.exit(f"FAIL: progress lines under --quiet:\n{err}")
    print("ok")


if __name__ == "__main__":
    main()
