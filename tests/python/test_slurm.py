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
from evbench_scan import collect, submit

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
  startup: 5s
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
