"""Local campaigns with a stand-in evbench: layout, index, resume, --force, failures, Ctrl-C."""
import csv
import json
import os
import signal
import subprocess
import time

import pytest

from conftest import CLI, FAKE, run_cli, write

SCAN = """name: small
config:
  nodes: 4
  duration: 100ms
  warmup: 0s
axes:
  credits: [1, 2]
  fragment.size: [128KiB, 1MiB]
"""


def count_runs(path):
    return len(open(path).read().splitlines()) if os.path.exists(path) else 0


def index_rows(outdir):
    with open(os.path.join(outdir, "index.csv")) as f:
        return list(csv.DictReader(f))


@pytest.fixture
def scan(tmp_path):
    return write(tmp_path / "small.yaml", SCAN)


def test_layout_index_and_resume(tmp_path, scan):
    out, count = str(tmp_path / "out"), str(tmp_path / "count")
    env = {"EVBENCH": FAKE, "FAKE_EVBENCH_COUNT": count}
    proc = run_cli(["run", scan, "-o", out], env=env)
    assert proc.returncode == 0, proc.stderr
    assert "4/4" in proc.stderr and "Gb/s" in proc.stderr
    for name in ("scan.yaml", "campaign.json", "index.csv"):
        assert os.path.isfile(os.path.join(out, name))
    assert open(os.path.join(out, "scan.yaml")).read() == SCAN
    for pid in ("p0001", "p0002", "p0003", "p0004"):
        doc = json.load(open(os.path.join(out, "results", pid + ".json")))
        assert doc["schema_version"] == 1
        assert os.path.getsize(os.path.join(out, "logs", pid + ".log")) > 0
        assert os.path.isfile(os.path.join(out, "points", pid + ".yaml"))
    rows = index_rows(out)
    assert [r["point"] for r in rows] == ["p0001", "p0002", "p0003", "p0004"]
    assert rows[1]["credits"] == "1" and rows[1]["fragment.size"] == "1MiB"
    doc = json.load(open(os.path.join(out, "results", "p0002.json")))
    assert float(rows[1]["aggregate_gbps"]) == pytest.approx(doc["results"]["bandwidth_gbps"]["aggregate"], rel=1e-5)
    assert float(rows[1]["per_node_min_gbps"]) == pytest.approx(doc["results"]["bandwidth_gbps"]["per_node"]["min"], rel=1e-5)
    assert int(rows[1]["events_built"]) == doc["results"]["events_built"]
    assert {r["status"] for r in rows} == {"ok"}
    assert count_runs(count) == 4

    proc = run_cli(["run", scan, "-o", out], env=env)       # resume: nothing left to do
    assert proc.returncode == 0 and count_runs(count) == 4
    os.remove(os.path.join(out, "results", "p0003.json"))   # one result lost
    proc = run_cli(["run", scan, "-o", out], env=env)
    assert proc.returncode == 0 and count_runs(count) == 5
    proc = run_cli(["run", scan, "-o", out, "--force"], env=env)
    assert proc.returncode == 0 and count_runs(count) == 9


def test_changed_point_is_rerun(tmp_path, scan):
    out, count = str(tmp_path / "out"), str(tmp_path / "count")
    env = {"EVBENCH": FAKE, "FAKE_EVBENCH_COUNT": count}
    assert run_cli(["run", scan, "-o", out], env=env).returncode == 0
    write(scan, SCAN.replace("duration: 100ms", "duration: 200ms"))
    assert run_cli(["run", scan, "-o", out], env=env).returncode == 0
    assert count_runs(count) == 8


def test_failed_point_recorded_and_campaign_goes_on(tmp_path, scan):
    out = str(tmp_path / "out")
    proc = run_cli(["run", scan, "-o", out], env={"EVBENCH": FAKE, "FAKE_EVBENCH_FAIL": "credits=2"})
    assert proc.returncode == 1
    assert "p0003" in proc.stderr and "failed (exit 1)" in proc.stderr
    rows = index_rows(out)
    assert [r["status"] for r in rows] == ["ok", "ok", "failed", "failed"]
    assert [r["exit_code"] for r in rows] == ["0", "0", "1", "1"]
    assert rows[2]["json"] == "" and rows[2]["aggregate_gbps"] == ""
    assert "fake failure" in open(os.path.join(out, "logs", "p0003.log")).read()
    # The failure is fixed: a rerun retries exactly the failed points.
    count = str(tmp_path / "count")
    proc = run_cli(["run", scan, "-o", out], env={"EVBENCH": FAKE, "FAKE_EVBENCH_COUNT": count})
    assert proc.returncode == 0 and count_runs(count) == 2
    assert {r["status"] for r in index_rows(out)} == {"ok"}
    assert run_cli(["collect", out]).returncode == 0


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:   # a zombie is not alive
        with open("/proc/%d/stat" % pid) as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.timeout(60)
def test_ctrl_c_kills_the_point_and_keeps_the_directory_consistent(tmp_path, scan):
    out, pids = str(tmp_path / "out"), str(tmp_path / "pids")
    env = dict(os.environ, EVBENCH=FAKE, FAKE_EVBENCH_PIDS=pids, FAKE_EVBENCH_SLEEP="30")
    proc = subprocess.Popen([CLI, "run", scan, "-o", out], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and count_runs(pids) < 1:
            time.sleep(0.05)
        assert count_runs(pids) == 1, "evbench did not start"
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert "interrupted" in err
    leader, child = map(int, open(pids).read().split())
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and (_alive(leader) or _alive(child)):
        time.sleep(0.05)
    assert not _alive(leader) and not _alive(child)
    rows = index_rows(out)
    assert [r["status"] for r in rows] == ["pending"] * 4
    assert not [f for f in os.listdir(os.path.join(out, "results")) if "partial" in f or "tmp" in f]
    # Resuming completes the campaign.
    proc = run_cli(["run", scan, "-o", out], env={"EVBENCH": FAKE})
    assert proc.returncode == 0
    assert {r["status"] for r in index_rows(out)} == {"ok"}
