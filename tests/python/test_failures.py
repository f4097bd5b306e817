"""Failures say why (docs/SCANS.md, "Failures"): `check` warns about a kill
fault that will end every run, a failed point's status carries the run's
own error line (not the fault injection's notice), and `report` writes a
report listing each failure even when no point finished."""
import json
import os

from conftest import quick_config, real_evbench, run_cli, write
from evbench_scan.results import failures

KILL = """name: kill
config:
%s  layout: split
  faults: [{at: 300ms, kill: bu1}]
axes:
  credits: [1, 2]
""" % quick_config(duration="1s", warmup="200ms")


def line_of(text, needle):
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def test_check_warns_about_a_kill_fault_without_exclude(tmp_path):
    scan = write(tmp_path / "kill.yaml", KILL)
    env = {"EVBENCH": real_evbench()}
    proc = run_cli(["check", scan], env=env)
    assert proc.returncode == 0, proc.stderr
    assert "warning: %s:%d: faults: kill bu1 under on_failure: abort ends the run (exit 1): 2 points will fail " \
           "(p0001 p0002) — set `on_failure: exclude`" % (scan, line_of(KILL, "faults:")) in proc.stderr
    excluded = write(tmp_path / "exclude.yaml", KILL.replace("  layout: split\n",
                                                             "  layout: split\n  on_failure: exclude\n"))
    late = write(tmp_path / "late.yaml", KILL.replace("at: 300ms", "at: 5s"))   # after the run's end
    for quiet in (excluded, late):
        proc = run_cli(["check", quiet], env=env)
        assert proc.returncode == 0 and "warning" not in proc.stderr, proc.stderr


def test_a_failed_points_status_has_the_runs_error_and_report_lists_every_failure(tmp_path):
    scan = write(tmp_path / "kill.yaml", KILL)
    out = str(tmp_path / "out")
    proc = run_cli(["run", scan, "-o", out], env={"EVBENCH": real_evbench()}, timeout=180)
    assert proc.returncode == 1, proc.stderr
    reasons = {}
    for pid in ("p0001", "p0002"):
        status = json.load(open(os.path.join(out, "status", pid + ".json")))
        log = open(os.path.join(out, "logs", pid + ".log")).read()
        assert status["status"] == "failed" and status["exit_code"] == 1
        # the killed rank announces its own fault first; that is not why the run failed
        assert "fault injection at" in log and "fault injection" not in status["message"]
        first = [line for line in log.splitlines() if line.startswith("evbench:")]
        assert status["message"] == next(x for x in first if "fault injection" not in x)
        assert "rank 3" in status["message"]       # bu1 is rank 3 (2 nodes, split): its loss, as a peer or the parent saw it
        assert "%s credits=%s: failed (exit 1): %s" % (pid, pid[-1], status["message"]) in proc.stderr
        reasons[pid] = status["message"]
    proc = run_cli(["report", out], env={"EVBENCH": "/nonexistent/evbench"})
    assert proc.returncode == 0, proc.stderr
    md = open(os.path.join(out, "report", "report.md")).read()
    assert "No point finished: 2 of 2 failed" in md
    rows = [line for line in md.split("## Not run")[1].splitlines() if line.startswith("| credits=")]
    assert len(rows) == 2
    for pid, reason in reasons.items():
        assert any(("(%s) | failed | %s |" % (pid, reason)) in row for row in rows), rows
    summary = json.load(open(os.path.join(out, "report", "summary.json")))
    assert summary["answer"][0].startswith("No point finished") and len(summary["not_run"]) == 2
    assert os.path.isfile(os.path.join(out, "report", "report.html"))


def test_the_first_error_skips_notices(tmp_path):
    log = write(tmp_path / "p.log", "# evbench run ...\n"
                "evbench: rank 5: fault injection at 0.500 s: kill bu2\n"
                "evbench: warning: something harmless\n"
                "evbench: rank 8: rank 5 (BU 2) disappeared (tcp: connection closed without BYE)\n"
                "evbench: rank 5 (pid 1) died: signal 9 (Killed)\n")
    assert failures.first_error(log) == "evbench: rank 8: rank 5 (BU 2) disappeared (tcp: connection closed " \
                                        "without BYE)"
    table = write(tmp_path / "t.log", "# FAILED: data source lost: RU 3 (rank 3) at 2.00 s\n")
    assert failures.first_error(table) == "FAILED: data source lost: RU 3 (rank 3) at 2.00 s"
    assert failures.reason("timeout", None, str(tmp_path / "none.log")) == "killed at its time limit"
