"""Local campaigns with the real evbench: layout, index, resume, --force, failures, Ctrl-C."""
import csv
import json
import os
import signal
import subprocess
import time

import pytest

from conftest import (CLI, default_signals, inject_env, kill_group, kill_processes_with, processes_with,
                      quick_config, run_cli, write)

SCAN = """name: small
config:
%saxes:
  credits: [1, 2]
  fragment.size: [64KiB, 256KiB]
""" % quick_config()


def index_rows(outdir):
    with open(os.path.join(outdir, "index.csv")) as f:
        return list(csv.DictReader(f))


def results(outdir):
    """{point: identity of its result file}: a point that ran again has a new one
    (results are renamed into place, so a rerun means a new inode)."""
    folder = os.path.join(outdir, "results")
    out = {}
    for name in sorted(os.listdir(folder)):
        if name.endswith(".json"):
            st = os.stat(os.path.join(folder, name))
            out[name[:-5]] = (st.st_ino, st.st_mtime_ns)
    return out


def rerun(before, after):
    """Points whose result is new or replaced between two results() snapshots."""
    return sorted(p for p in after if before.get(p) != after[p])


@pytest.fixture
def scan(tmp_path):
    return write(tmp_path / "small.yaml", SCAN)


def test_layout_index_and_resume(tmp_path, scan, evbench):
    out = str(tmp_path / "out")
    env = {"EVBENCH": evbench}
    proc = run_cli(["run", scan, "-o", out], env=env)
    assert proc.returncode == 0, proc.stderr
    assert "4/4" in proc.stderr and "Gb/s" in proc.stderr
    for name in ("scan.yaml", "campaign.json", "index.csv", "evbench-config.json"):
        assert os.path.isfile(os.path.join(out, name))
    assert open(os.path.join(out, "scan.yaml")).read() == SCAN
    assert "fault.corrupt_every" in open(os.path.join(out, "evbench-config.json")).read()
    for pid in ("p0001", "p0002", "p0003", "p0004"):
        doc = json.load(open(os.path.join(out, "results", pid + ".json")))
        assert doc["schema_version"] == 1 and doc["results"]["status"] == "ok"
        assert os.path.getsize(os.path.join(out, "logs", pid + ".log")) > 0
        assert os.path.isfile(os.path.join(out, "points", pid + ".yaml"))
    rows = index_rows(out)
    assert [r["point"] for r in rows] == ["p0001", "p0002", "p0003", "p0004"]
    assert rows[1]["credits"] == "1" and rows[1]["fragment.size"] == "256KiB"
    doc = json.load(open(os.path.join(out, "results", "p0002.json")))
    assert doc["config"]["credits"] == 1 and doc["config"]["fragment"]["size"] == 256 * 1024
    assert float(rows[1]["aggregate_gbps"]) == pytest.approx(doc["results"]["bandwidth_gbps"]["aggregate"], rel=1e-5)
    assert float(rows[1]["per_node_min_gbps"]) == pytest.approx(doc["results"]["bandwidth_gbps"]["per_node"]["min"], rel=1e-5)
    assert int(rows[1]["events_built"]) == doc["results"]["events_built"]
    assert {r["status"] for r in rows} == {"ok"}
    first = results(out)
    assert sorted(first) == ["p0001", "p0002", "p0003", "p0004"]

    proc = run_cli(["run", scan, "-o", out], env=env)       # resume: nothing left to do
    assert proc.returncode == 0 and rerun(first, results(out)) == []
    os.remove(os.path.join(out, "results", "p0003.json"))   # one result lost
    proc = run_cli(["run", scan, "-o", out], env=env)
    second = results(out)
    assert proc.returncode == 0 and rerun(first, second) == ["p0003"]
    proc = run_cli(["run", scan, "-o", out, "--force"], env=env)
    assert proc.returncode == 0 and rerun(second, results(out)) == ["p0001", "p0002", "p0003", "p0004"]
    # Reading a campaign needs no evbench.
    assert run_cli(["collect", out], env={"EVBENCH": "/nonexistent/evbench"}).returncode == 0


def test_changed_point_is_rerun(tmp_path, evbench):
    text = SCAN.replace("  credits: [1, 2]\n", "")
    scan = write(tmp_path / "two.yaml", text)
    out = str(tmp_path / "out")
    assert run_cli(["run", scan, "-o", out], env={"EVBENCH": evbench}).returncode == 0
    before = results(out)
    write(scan, text.replace("fragment.size: [64KiB, 256KiB]", "fragment.size: [64KiB, 128KiB]"))
    assert run_cli(["run", scan, "-o", out], env={"EVBENCH": evbench}).returncode == 0
    assert rerun(before, results(out)) == ["p0002"]
    assert json.load(open(os.path.join(out, "results", "p0002.json")))["config"]["fragment"]["size"] == 128 * 1024


def test_failed_point_recorded_and_campaign_goes_on(tmp_path, scan, evbench):
    out = str(tmp_path / "out")
    proc = run_cli(["run", scan, "-o", out], env=inject_env(do="fail", where="credits=2"))
    assert proc.returncode == 1
    assert "p0003" in proc.stderr and "failed (exit 1)" in proc.stderr
    rows = index_rows(out)
    assert [r["status"] for r in rows] == ["ok", "ok", "failed", "failed"]
    assert [r["exit_code"] for r in rows] == ["0", "0", "1", "1"]
    assert rows[2]["json"] == "" and rows[2]["aggregate_gbps"] == ""
    assert "evbench-inject: failing" in open(os.path.join(out, "logs", "p0003.log")).read()
    assert sorted(results(out)) == ["p0001", "p0002"]
    # The failure is fixed: a rerun retries exactly the failed points.
    before = results(out)
    proc = run_cli(["run", scan, "-o", out], env={"EVBENCH": evbench})
    assert proc.returncode == 0 and rerun(before, results(out)) == ["p0003", "p0004"]
    assert {r["status"] for r in index_rows(out)} == {"ok"}
    assert run_cli(["collect", out]).returncode == 0


@pytest.mark.timeout(90)
def test_ctrl_c_kills_the_point_and_keeps_the_directory_consistent(tmp_path, scan, evbench):
    out = str(tmp_path / "out")
    marker = os.path.join(out, "points")   # on the command line of evbench and its ranks
    env = dict(os.environ, **inject_env(do="hang"))
    # SIGINT back to its default in the child: when the tests run from a
    # non-interactive background shell (nohup ... &) it is ignored here, and
    # evbench-scan would inherit that and never see the Ctrl-C. Its own
    # session: the finally below can end it and all it started.
    proc = subprocess.Popen([CLI, "run", scan, "-o", out], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                            preexec_fn=default_signals, start_new_session=True)
    try:
        # The wrapper (as a launcher would be), evbench and its 3 ranks (2 nodes +
        # EVM) are up and the ranks exchange data.
        deadline = time.monotonic() + 30
        # the first point of the (shuffled) round, as campaign.json plans it
        while time.monotonic() < deadline and not os.path.exists(os.path.join(out, "campaign.json")):
            time.sleep(0.1)
        first = json.load(open(os.path.join(out, "campaign.json")))["order"]["run_order"][0]
        log = os.path.join(out, "logs", first + ".log")
        while time.monotonic() < deadline and not (
                len(processes_with(marker)) >= 4 and os.path.exists(log) and "Gb/s" in open(log).read()):
            time.sleep(0.1)
        running = processes_with(marker)
        assert len(running) >= 4, "evbench did not start: %s" % (open(log).read() if os.path.exists(log) else "")
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
        assert proc.returncode == 130, err
        assert "interrupted" in err
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and processes_with(marker):
            time.sleep(0.05)
        assert processes_with(marker) == []
    finally:
        # Whatever failed above, no 1-hour run (the point runs in a session of
        # its own, so it is found by its command line) is left behind.
        if proc.poll() is None:
            kill_group(proc)
        kill_processes_with(marker)
        kill_processes_with(out)
    rows = index_rows(out)
    assert [r["status"] for r in rows] == ["pending"] * 4
    assert not [f for f in os.listdir(os.path.join(out, "results")) if "partial" in f or "tmp" in f]
    # Resuming completes the campaign.
    proc = run_cli(["run", scan, "-o", out], env={"EVBENCH": evbench})
    assert proc.returncode == 0, proc.stderr
    assert {r["status"] for r in index_rows(out)} == {"ok"}


# --- plain values, skipped points, drivers.json, env ---------------------------

# A stand-in for `evbench drivers --json` as the C++ side writes it: verbs cannot
# run, libfabric's verbs provider is not here. Everything else goes to the real
# binary (os.execv), so runs and validation are evbench's own.
FAKE_DRIVERS = r'''#!/usr/bin/python3
import json, os, sys
real = os.environ["EVBENCH_FAKE_REAL"]
if sys.argv[1:] == ["drivers", "--json"]:
    doc = [{"driver": "tcp", "can_run": True, "library": "Linux", "reason": "", "details": "",
            "variants_usable": [], "variants_not_here": []},
           {"driver": "verbs", "can_run": False, "library": "libibverbs", "reason": "no RDMA device found",
            "details": "", "variants_usable": [], "variants_not_here": []},
           {"driver": "libfabric", "can_run": True, "library": "libfabric", "reason": "", "details": "",
            "variants_usable": ["libfabric/tcp;ofi_rxm", "libfabric/shm"],
            "variants_not_here": [{"name": "libfabric/verbs", "reason": "no RDMA device, provider not initialised"}]}]
    print(json.dumps(doc))
    sys.exit(0)
os.execv(real, [real] + sys.argv[1:])
'''


@pytest.mark.timeout(120)
def test_variants_skipped_points_and_drivers_json(tmp_path, evbench):
    fake = write(tmp_path / "evbench-fake", FAKE_DRIVERS)
    os.chmod(fake, 0o755)
    scan = write(tmp_path / "v.yaml", """name: v
config:
%sskip_invalid: true
env: {EVBENCH_SCAN_TEST_VAR: hello}
axes:
  variants:
    - {name: tcp, driver: tcp, env: {EVBENCH_SCAN_TEST_OTHER: x}}
    - {name: verbs, driver: verbs}
    - {name: fi-verbs, driver: libfabric, driver_options: {provider: verbs}}
    - {name: bad, driver: tcp, credits: 0}
""" % quick_config(driver="~"))
    out = str(tmp_path / "out")
    env = {"EVBENCH": fake, "EVBENCH_FAKE_REAL": evbench}
    proc = run_cli(["check", scan], env=env)
    assert proc.returncode == 0, proc.stderr
    assert "p0002  label=verbs, driver=verbs  [cannot run on this machine: driver verbs cannot run here: " \
           "no RDMA device found]" in proc.stdout
    assert "# skipped p0004: credits: " in proc.stdout
    proc = run_cli(["run", scan, "-o", out], env=env)
    assert proc.returncode == 0, proc.stderr
    assert "(3 skipped, listed in campaign.json)" in proc.stderr
    meta = json.load(open(os.path.join(out, "campaign.json")))
    assert meta["axes"] == ["label", "driver", "env.EVBENCH_SCAN_TEST_OTHER", "driver_options.provider", "credits"]
    assert meta["points"] == [{"id": "p0001", "repeat": 0, "values": {
        "label": "tcp", "driver": "tcp", "env.EVBENCH_SCAN_TEST_OTHER": "x", "driver_options.provider": None,
        "credits": None}}]
    skipped = dict((s["id"], s) for s in meta["skipped"])
    assert sorted(skipped) == ["p0002", "p0003", "p0004"]
    assert skipped["p0002"]["reason"] == "driver verbs cannot run here: no RDMA device found"
    assert skipped["p0002"]["source"] == "drivers" and skipped["p0002"]["values"]["driver"] == "verbs"
    assert skipped["p0003"]["reason"] == "libfabric/verbs cannot run here: no RDMA device, provider not initialised"
    assert skipped["p0003"]["values"]["driver_options.provider"] == "verbs"
    assert skipped["p0004"]["source"] == "validate" and skipped["p0004"]["reason"].startswith("credits: ")
    drivers = json.load(open(os.path.join(out, "drivers.json")))
    assert [d["driver"] for d in drivers] == ["tcp", "verbs", "libfabric"]
    rows = index_rows(out)
    assert [r["point"] for r in rows] == ["p0001"] and rows[0]["status"] == "ok"
    assert rows[0]["driver_options.provider"] == "" and rows[0]["env.EVBENCH_SCAN_TEST_OTHER"] == "x"
    assert "{" not in open(os.path.join(out, "index.csv")).read()
    log = open(os.path.join(out, "logs", "p0001.log")).readline()
    assert log.startswith("# EVBENCH_SCAN_TEST_OTHER=x EVBENCH_SCAN_TEST_VAR=hello ")
    # Without skip_invalid, a point that cannot run here stops the run before anything runs.
    strict = write(tmp_path / "s.yaml", open(scan).read().replace("skip_invalid: true\n", "")
                   .replace("    - {name: bad, driver: tcp, credits: 0}\n", ""))
    proc = run_cli(["run", strict, "-o", str(tmp_path / "out2")], env=env)
    assert proc.returncode == 2
    assert "p0002 (label=verbs, driver=verbs): driver verbs cannot run here: no RDMA device found" in proc.stderr
    assert not os.path.exists(str(tmp_path / "out2"))


def test_mpirun_points_stay_on_loopback_and_get_their_env(schema):
    from evbench_scan.run import runner
    from evbench_scan.spec import expand
    from evbench_scan.spec.grammar import parse_scan
    pts = expand.expand(parse_scan("config: {nodes: 2, driver: mpi, bootstrap: mpi}\naxes:\n  variants:\n"
                                   "    - {env: {OMPI_MCA_pml: ucx, UCX_TLS: 'self,sm'}}\n"
                                   "    - {env: {OMPI_MCA_btl_tcp_if_include: eth9}}\n", "s.yaml", schema))
    cmd = runner.point_command(pts[0], "/x/evbench", "p.yaml", "p.json", env=dict(pts[0].env))
    assert cmd[:4] == ["mpirun", "-np", "3", "--oversubscribe"]
    assert "btl_tcp_if_include lo" in " ".join(cmd) and "oob_tcp_if_include lo" in " ".join(cmd)
    assert "-x UCX_TLS" in " ".join(cmd) and "OMPI_MCA_pml" not in " ".join(cmd)
    cmd = runner.point_command(pts[1], "/x/evbench", "p.yaml", "p.json", env=dict(pts[1].env))
    assert "btl_tcp_if_include" not in " ".join(cmd)     # the point's own choice wins
    # bind core (the default) asks Open MPI for one rank per core, bind none for none.
    assert "--oversubscribe --map-by core --bind-to core:overload-allowed " in " ".join(cmd)
    unbound = expand.expand(parse_scan("config: {nodes: 2, driver: mpi, bootstrap: mpi, bind: none}\n",
                                       "s.yaml", schema))[0]
    cmd = runner.point_command(unbound, "/x/evbench", "p.yaml", "p.json", env={})
    assert "--bind-to none" in " ".join(cmd) and "--map-by" not in " ".join(cmd)
