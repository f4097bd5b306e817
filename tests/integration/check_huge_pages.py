#!/usr/bin/python3
"""eb_huge_pages: page_size: huge must give the large buffers huge pages.

  check_huge_pages.py CHECK_RESULT RANKS -- EVBENCH ARGS...

When transparent huge pages can back an advised mapping here
(/sys/kernel/mm/transparent_hugepage/enabled is [always] or [madvise]), runs
the command through CHECK_RESULT (check_result.py: every event built once,
no integrity error) and asserts results.anon_huge_bytes.R > 0 for every rank
R in RANKS (comma separated: the ranks holding the large ring buffers and
windows). With transparent huge pages off ([never], or no such file) no rank
can get any, so there is nothing to assert: exit 77 (a skip, with the reason
on stdout). SIM_THP_ENABLED=TEXT stands in for the sysfs file (tests of this
script).
"""
import os
import re
import sys

THP = "/sys/kernel/mm/transparent_hugepage/enabled"


def thp_mode():
    text = os.environ.get("SIM_THP_ENABLED")
    if text is None:
        try:
            with open(THP) as f:
                text = f.read()
        except OSError as e:
            return None, f"{THP} unreadable ({e.strerror})"
    m = re.search(r"\[(\w+)\]", text)
    if not m:
        return None, f"{THP} has no selected mode: {text.strip()!r}"
    return m.group(1), f"{THP}: {text.strip()}"


def main():
    if len(sys.argv) < 5 or sys.argv[3] != "--":
        print(__doc__, file=sys.stderr)
        return 2
    check, ranks, command = sys.argv[1], sys.argv[2], sys.argv[4:]
    mode, said = thp_mode()
    if mode not in ("always", "madvise"):
        print(f"SKIP: transparent huge pages cannot back page_size: huge here ({said}); "
              "anon_huge_bytes would be 0 on every rank, nothing to assert")
        return 77
    print(f"transparent huge pages: {mode} ({said}); expecting anon_huge_bytes > 0 on ranks "
          f"{ranks}")
    args = [sys.executable, check]
    for r in ranks.split(","):
        args += ["--expect-json-gt", f"results.anon_huge_bytes.{int(r)}=0"]
    sys.stdout.flush()
    os.execv(sys.executable, args + ["--"] + command)


if __name__ == "__main__":
    sys.exit(main())
