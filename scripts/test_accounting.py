#!/usr/bin/python3
"""What ran, what failed and what did not run, over every test runner that
scripts/test.sh called, checked against tests/expected-not-run.txt.

  test_accounting.py --expected tests/expected-not-run.txt RESULTS_DIR

RESULTS_DIR (scripts/test.sh writes it, build-test-results/) holds:
  RUNNER.xml   a JUnit report per runner: ctest --output-junit (ctest,
               ctest-asan, ctest-sim) or pytest --junitxml (pytest);
  steps.tsv    one line per step: NAME<TAB>EXIT STATUS (a runner's own exit
               status, the build, clang-format, the fuzz run...).

A test is named RUNNER:NAME (ctest-asan:eb_tcp_auto_is_send,
pytest:test_runner::test_ctrl_c...). Every test that did not run must match
an entry of the list; the script fails (exit 1) naming any that does not,
with its skip message. A listed entry whose tests all ran is reported (so the
list shrinks), not failed. The expected not-run tests are printed with their
reasons, and the very last line is always

  N passed, N failed, N skipped

(totals over all runners; a step that failed without a test result of its
own, a build or the fuzz run, counts as one failed).
Exit status: 0 only when nothing failed and every not-run test is listed.
"""
import argparse
import fnmatch
import os
import re
import sys
import xml.etree.ElementTree as ET


def load_expected(path):
    """[(pattern, reason, line number)] from the list: `PATTERN | REASON` a line."""
    entries = []
    problems = []
    with open(path) as f:
        for number, raw in enumerate(f, 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            pattern, sep, reason = line.partition("|")
            pattern, reason = pattern.strip(), reason.strip()
            if not sep or not pattern or not reason:
                problems.append("%s:%d: want `PATTERN | REASON`: %s" % (path, number, line))
                continue
            if ":" not in pattern:
                problems.append("%s:%d: the pattern names no runner (RUNNER:NAME, e.g. ctest*:...): %s"
                                % (path, number, pattern))
                continue
            entries.append((pattern, reason, number))
    return entries, problems


def first_line(text, limit=240):
    for line in (text or "").splitlines():
        if line.strip():
            return line.strip()[:limit]
    return ""


FAILURE_LINE = re.compile(r"(: Failure$|FAILED|[Ee]rror|Assertion|Timeout|Exception|"
                          r"expected|not found|Killed|Segmentation|Sanitizer)")


def failure_message(msg, output):
    """The first telling line of a failure: GoogleTest's "file:line: Failure"
    with the line after it, a checker's FAILED line, else the runner's message."""
    lines = [l.strip() for l in (output or "").splitlines() if l.strip()]
    for i, line in enumerate(lines):
        if FAILURE_LINE.search(line) and not line.startswith("[  FAILED  ]"):
            if line.endswith(": Failure") and i + 1 < len(lines):
                return " ".join([line] + lines[i + 1:i + 3])[:300]
            return line[:300]
    if msg and msg.strip() and msg.strip() != "Failed":
        return first_line(msg, 300)
    return lines[-1][:300] if lines else (msg or "")


def skip_message(case, output):
    """Why a test did not run: the runner's message, else what the test printed."""
    msg = ""
    sk = case.find("skipped")
    if sk is not None:
        msg = (sk.get("message") or sk.text or "").strip()
    lines = (output or "").splitlines()
    # GTEST_SKIP: "file:line: Skipped" followed by the message.
    for i, line in enumerate(lines):
        if line.rstrip().endswith(": Skipped") and i + 1 < len(lines):
            detail = " ".join(l.strip() for l in lines[i + 1:i + 3]
                              if l.strip() and not l.startswith("["))
            return ("%s (%s)" % (detail, line.strip()))[:300] if detail else line.strip()
    # exit-77 wrappers print "not run: ...".
    for line in lines:
        if "not run" in line.lower():
            return line.strip()[:300]
    if msg and msg.lower() not in ("", "disabled", "skipped"):
        return first_line(msg, 300)
    if msg.lower() == "disabled":
        return "disabled (DISABLED_ prefix or DISABLED property)"
    return first_line(output) or msg or "(no message)"


def read_junit(path, runner):
    """[(name, outcome, message)] with outcome passed, failed or skipped."""
    out = []
    try:
        root = ET.parse(path).getroot()
    except (ET.ParseError, OSError) as e:
        return None, "cannot read %s: %s" % (path, e)
    for case in root.iter("testcase"):
        name = case.get("name", "?")
        if runner == "pytest":
            cls = case.get("classname", "")
            name = "%s::%s" % (cls.rsplit(".", 1)[-1] if cls else "?", name)
        output = "".join((case.findtext(t) or "") for t in ("system-out", "system-err"))
        status = case.get("status", "")
        if case.find("failure") is not None or case.find("error") is not None or status == "fail":
            node = case.find("failure")
            if node is None:
                node = case.find("error")
            msg = ""
            if node is not None:
                msg = node.get("message") or node.text or ""
            out.append((name, "failed", failure_message(msg, output)))
        elif case.find("skipped") is not None or status in ("notrun", "disabled"):
            out.append((name, "skipped", skip_message(case, output)))
        else:
            out.append((name, "passed", ""))
    return out, None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--expected", required=True)
    ap.add_argument("results")
    args = ap.parse_args()

    entries, problems = load_expected(args.expected)
    steps = []
    steps_file = os.path.join(args.results, "steps.tsv")
    if os.path.exists(steps_file):
        with open(steps_file) as f:
            for line in f:
                parts = line.rstrip("\n").split("\t")
                if len(parts) >= 2:
                    steps.append((parts[0], int(parts[1]) if parts[1].lstrip("-").isdigit() else 1,
                                  parts[2] if len(parts) > 2 else ""))

    tests = []       # (id, outcome, message)
    runners = set()
    if os.path.isdir(args.results):
        for fname in sorted(os.listdir(args.results)):
            if not fname.endswith(".xml"):
                continue
            runner = fname[:-4]
            cases, err = read_junit(os.path.join(args.results, fname), runner)
            if err:
                problems.append(err)
                continue
            runners.add(runner)
            tests.extend(("%s:%s" % (runner, n), o, m) for n, o, m in cases)

    passed = [t for t in tests if t[1] == "passed"]
    failed = [t for t in tests if t[1] == "failed"]
    skipped = [t for t in tests if t[1] == "skipped"]

    def entry_of(test_id):
        for e in entries:
            if fnmatch.fnmatchcase(test_id, e[0]):
                return e
        return None

    expected_skips, unlisted = [], []
    for t in skipped:
        e = entry_of(t[0])
        (expected_skips if e else unlisted).append((t, e))
    # Listed entries that matched tests which ran (and none that did not run).
    now_run, dead = [], []
    for pattern, reason, number in entries:
        hits = [t for t in tests if fnmatch.fnmatchcase(t[0], pattern)]
        ran = [t for t in hits if t[1] != "skipped"]
        still = [t for t in hits if t[1] == "skipped"]
        if ran and not still:
            now_run.append((pattern, reason, number, ran))
        runner_glob = pattern.split(":", 1)[0]
        if not hits and any(fnmatch.fnmatchcase(r, runner_glob) for r in runners):
            dead.append((pattern, reason, number))

    # A step that failed with no failed test of its own (a build, clang-format,
    # the fuzz run, a runner that crashed before reporting) counts as one failure.
    failed_steps = []
    for name, rc, note in steps:
        if rc == 0:
            continue
        own = [t for t in failed if t[0].startswith(name + ":")]
        if not own:
            failed_steps.append((name, rc, note))

    print()
    listfile = os.path.relpath(args.expected)
    print("== Test accounting (%s; runners: %s) ==" % (listfile, ", ".join(sorted(runners))) if runners
          else "== Test accounting: no test report was written ==")
    for p in problems:
        print("problem: " + p)
    for name, rc, note in failed_steps:
        print("FAILED step %s (exit %d)%s" % (name, rc, ": " + note if note else ""))
    for tid, _, msg in failed:
        print("FAILED %s%s" % (tid, " — " + msg if msg else ""))
    for (tid, _, msg), _ in unlisted:
        print("NOT RUN and not in %s: %s — %s" % (listfile, tid, msg))
    for pattern, reason, number, ran in now_run:
        names = ", ".join(t[0] for t in ran[:4]) + (" ..." if len(ran) > 4 else "")
        print("listed as not-run but ran: %s (line %d: %s; ran: %s) — remove it from %s"
              % (pattern, number, reason, names, listfile))
    if dead:
        print("%d entr%s of %s matched no test of this run (renamed or removed, or a partial "
              "run?): %s" % (len(dead), "y" if len(dead) == 1 else "ies", listfile,
                             "; ".join("line %d %s" % (n, p) for p, _, n in dead[:3])
                             + (" ..." if len(dead) > 3 else "")))
    if expected_skips:
        print("Expected not run (%d, %s):" % (len(expected_skips), listfile))
        for (tid, _, msg), (pattern, reason, number) in expected_skips:
            print("  %s — %s" % (tid, reason))

    bad = bool(failed or failed_steps or unlisted or problems)
    if unlisted:
        print("%d test(s) did not run and are not listed: a test that cannot run here is listed "
              "in %s with its reason (docs/TESTING.md)" % (len(unlisted), listfile))
    print("%d passed, %d failed, %d skipped"
          % (len(passed), len(failed) + len(failed_steps), len(skipped)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
