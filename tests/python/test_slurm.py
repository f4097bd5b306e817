"""Real submissions through sbatch and qsub on a one-node Slurm cluster started here.

The cluster (munged, slurmctld, slurmd on free loopback ports, all state in a
temporary directory) lives for this module and is stopped by pid afterwards.
The campaign folds its evbench nodes onto the one host (cluster.max_hosts: 1).
"""
import json
import os

import pytest

import slurm_cluster
from conftest import run_cli, real_evbench, write
from evbench_scan.results import collect
from evbench_scan.run import submit

# scripts/test.sh sets EVBENCH_TESTS_STRICT: there a missing Slurm is a failure.
pytestmark = pytest.mark.skipif(not slurm_cluster.installed() and not os.environ.get("EVBENCH_TESTS_STRICT"),
                                reason="Slurm not installed (apt-get install slurm-wlm slurm-wlm-torque munge)")

SCAN = """name: cluster
config:
  protocol: pull
  credits: 2
  duration: {duration}
  warmup: 100ms
cluster:
  max_hosts: 1
  startup: 20s
  same_host: true           # the test's Slurm runs on this machine: its /tmp is theirs
  port: {port}
axes:
  layout: [rubu, split]
  zip:
    nodes: [2, 3]
    parallel: [2, 3]
"""


def rendezvous_base():
    """A rendezvous port base below the ephemeral range (whose ports any
    outgoing connection may hold) with the ports of job ids 1..9 free."""
    import random
    import socket
    for _ in range(50):
        base = random.randrange(21000, 30000, 100)
        try:
            for port in range(base + 100, base + 1000, 100):   # job ids 1..9
                with socket.socket() as s:
                    s.bind(("0.0.0.0", port))
            return base
        except OSError:
            continue
    return 20000


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    c = slurm_cluster.SlurmCluster(str(tmp_path_factory.mktemp("slurm")), cpus=16)
    # Open MPI refuses to run as root unless told; tests run as root in CI containers.
    c.env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    try:
        c.start()
    except Exception as err:
        c.stop()
        pytest.fail("could not start the test cluster: %s\n%s" % (err, c.log_tail("slurmctld.log")))
    yield c
    c.stop()


def submit_and_check(cluster, tmp_path, scheduler, evbench, launcher, duration):
    scan = write(tmp_path / "cluster.yaml", SCAN.format(duration=duration, port=rendezvous_base()))
    out = str(tmp_path / scheduler)
    env = dict(cluster.env, EVBENCH=evbench)
    proc = run_cli(["submit", scan, "--scheduler", scheduler, "--launcher", launcher, "-o", out], env=env)
    assert proc.returncode == 0, proc.stderr
    ids = proc.stdout.split("submitted:")[1].split()[0:2]
    assert len(ids) == 2 and all(i.isdigit() for i in ids), proc.stdout
    os.environ["SLURM_CONF"] = cluster.env["SLURM_CONF"]   # for squeue/qstat in wait()
    try:
        done = submit.wait(scheduler, ids, timeout=150)
    finally:
        del os.environ["SLURM_CONF"]
    logs = "".join(open(os.path.join(out, "logs", f)).read()[-1500:] for f in sorted(os.listdir(os.path.join(out, "logs"))))
    assert done, "jobs did not finish\n" + cluster.log_tail("slurmctld.log")
    proc = run_cli(["collect", out], env=env)
    recs = collect.records(out)
    assert [r.status for r in recs] == ["ok"] * 4, proc.stdout + logs + _job_out(out)
    for r in recs:
        doc = json.load(open(os.path.join(out, "results", r.id + ".json")))
        assert doc["schema_version"] == 1 and doc["results"]["status"] == "ok"
        assert doc["config"]["nodes"] == r.values["nodes"]
        assert doc["config"]["layout"] == r.values["layout"]
        assert doc["results"]["events_built"] > 0
        # The job started as many ranks as evbench's topology has processes
        # (split: RU and BU per node, plus the dedicated EVM).
        ranks = r.values["nodes"] * (2 if r.values["layout"] == "split" else 1) + 1
        assert doc["topology"]["processes"] == ranks
        assert "%s: %d ranks for %d node(s)" % (r.id, ranks, r.values["nodes"]) in _job_out(out)
    assert proc.returncode == 0
    return out, logs


def _job_out(out):
    jobs = os.path.join(out, "jobs")
    return "".join("\n== %s\n%s" % (f, open(os.path.join(jobs, f)).read()[-2000:])
                   for f in sorted(os.listdir(jobs)) if ".o" in f or f.endswith(".out"))


@pytest.mark.timeout(200)
def test_sbatch_campaign_real_evbench(cluster, tmp_path):
    submit_and_check(cluster, tmp_path, "slurm", real_evbench(), "srun-env", "500ms")


@pytest.mark.timeout(200)
def test_qsub_campaign_real_evbench(cluster, tmp_path):
    submit_and_check(cluster, tmp_path, "pbs", real_evbench(), "mpirun-env", "500ms")


@pytest.mark.timeout(200)
def test_sbatch_campaign_real_evbench_srun_pmix(cluster, tmp_path):
    # srun --mpi=pmix starts the ranks; evbench's mpi bootstrap joins them
    # (MPI for start-up only; the data goes over the tcp driver).
    submit_and_check(cluster, tmp_path, "slurm", real_evbench(), "srun-pmix", "500ms")


EXCLUDE_SCAN = """name: exclude
config:
  protocol: pull
  nodes: 4
  layout: split
  evm: dedicated
  on_failure: exclude
  duration: 3s
  warmup: 200ms
  fragment.size: 64KiB
  poll_mode: block
  peer_timeout: 20s
  faults: [{{at: 1s, stall: bu2, for: 200ms}}, {{at: 1s, kill: bu2}}]
cluster:
  max_hosts: 1
  startup: 20s
  same_host: true           # the test's Slurm runs on this machine: its /tmp is theirs
  port: {port}
"""


@pytest.mark.timeout(200)
@pytest.mark.parametrize("scheduler,launcher,exit_code", [("slurm", "srun-env", 137), ("pbs", "mpirun-env", 0)])
def test_exclude_point_survives_a_killed_bu(cluster, tmp_path, scheduler, launcher, exit_code):
    """A point under on_failure exclude whose BU 2 kills itself (9 ranks: 4
    nodes split + the EVM), submitted through sbatch (srun-env: the step is
    kept with --kill-on-bad-exit=0) and qsub (mpirun-env: mpirun
    --enable-recovery): rank 0 writes the results with the BU's loss and
    recovery, and the point is ok, also when srun exits 137 for the killed
    task (mpirun --enable-recovery exits 0)."""
    scan = write(tmp_path / "exclude.yaml", EXCLUDE_SCAN.format(port=rendezvous_base()))
    out = str(tmp_path / "exclude")
    env = dict(cluster.env, EVBENCH=real_evbench())
    proc = run_cli(["submit", scan, "--scheduler", scheduler, "--launcher", launcher, "-o", out], env=env)
    assert proc.returncode == 0, proc.stderr
    ids = proc.stdout.split("submitted:")[1].split()[0:1]
    os.environ["SLURM_CONF"] = cluster.env["SLURM_CONF"]
    try:
        done = submit.wait(scheduler, ids, timeout=150)
    finally:
        del os.environ["SLURM_CONF"]
    assert done, "job did not finish\n" + cluster.log_tail("slurmctld.log")
    proc = run_cli(["collect", out], env=env)
    recs = collect.records(out)
    logs = "".join(open(os.path.join(out, "logs", f)).read()[-3000:] for f in os.listdir(os.path.join(out, "logs")))
    assert [r.status for r in recs] == ["ok"], proc.stdout + logs + _job_out(out)
    assert proc.returncode == 0
    rec = recs[0]
    assert rec.exit_code == exit_code, logs + _job_out(out)
    if exit_code:
        assert "the launcher exited %d (a task was lost)" % exit_code in _job_out(out)
    r = json.load(open(os.path.join(out, "results", rec.id + ".json")))["results"]
    assert r["status"] == "ok" and r["events_built"] == r["events_assigned"] > 0
    assert r["integrity"]["lost"] == 0 and r["integrity"]["duplicate_events"] == 0
    lost = [f for f in r["faults"] if f["kind"] in ("peer_lost", "excluded_silent")]
    assert [(f["unit"], f["rank"]) for f in lost] == [("BU 2", 5)], lost
    assert lost[0]["time_to_rebuild_s"] is not None and "time_to_recover_s" in lost[0]
    assert "BU 2 (rank 5) lost at" in logs and "# OK" in logs


def _task_pid(marker, procid):
    """The pid of the process whose command line has `marker` and whose
    SLURM_PROCID is `procid` (a task of the step), or None."""
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                if marker.encode() not in f.read():
                    continue
            with open("/proc/%s/environ" % pid, "rb") as f:
                if ("SLURM_PROCID=%d" % procid).encode() in f.read().split(b"\0"):
                    return int(pid)
        except OSError:
            continue
    return None


@pytest.mark.timeout(120)
def test_srun_env_bootstrap_survives_a_task_killed_from_outside(cluster, tmp_path):
    """`srun --ntasks=5 --kill-on-bad-exit=0` of evbench under the env bootstrap
    (2 nodes split + the EVM); task 3 (BU 1) is killed with SIGKILL from
    outside while it stalls holding events (the fault injection's stall line
    says when): the others finish, and rank 0's results report BU 1 lost,
    its events built elsewhere."""
    import signal
    import subprocess
    import time
    result = str(tmp_path / "killed.json")
    env = dict(cluster.env, EVBENCH_RENDEZVOUS="127.0.0.1:%d" % (rendezvous_base() + 1),
               EVBENCH_RUN_ID=os.urandom(16).hex())
    cmd = ["srun", "-u", "--ntasks=5", "--overcommit", "--kill-on-bad-exit=0", "--mpi=none", real_evbench(),
           "run", "--set", "nodes=2", "--set", "layout=split", "--set", "on_failure=exclude",
           "--set", "duration=4s", "--set", "warmup=200ms", "--set", "poll_mode=block",
           "--set", "failure_detection=5s", "--set", "peer_timeout=20s",
           "--set", "faults=[{at: 1s, stall: bu1, for: 2s}]", "--set", "bootstrap=env", "--json", result]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
                            universal_newlines=True, start_new_session=True)
    lines, killed = [], None
    try:
        for line in proc.stdout:
            lines.append(line)
            if killed is None and "fault injection at" in line and "stall bu1" in line:
                deadline = time.monotonic() + 10
                while killed is None and time.monotonic() < deadline:
                    killed = _task_pid(result, 3)
                    time.sleep(0.05)
                assert killed, "task 3's process not found"
                os.kill(killed, signal.SIGKILL)
        code = proc.wait(timeout=90)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    out = "".join(lines)
    assert killed, "the stall of BU 1 was never reported:\n" + out
    assert code == 137, out   # srun: task 3 killed by signal 9; the others exited 0
    assert "# OK" in out and "BU 1 (rank 3) lost at" in out, out
    r = json.load(open(result))["results"]
    assert r["status"] == "ok" and r["events_built"] == r["events_assigned"] > 0
    lost = [f for f in r["faults"] if f["kind"] in ("peer_lost", "excluded_silent")]
    assert [(f["unit"], f["kind"]) for f in lost] == [("BU 1", "peer_lost")], lost
    assert lost[0]["events_reassigned"] >= 1 and lost[0]["time_to_rebuild_s"] is not None
    assert _task_pid(result, 0) is None   # nothing of the step left
