"""Job scripts for Slurm and PBS: one per scale, directives, placement, launchers."""
import json
import os
import re
import subprocess

import pytest

from conftest import real_evbench, run_cli, write
from evbench_scan.run import submit
from evbench_scan.spec import expand, grammar

SCAN = """name: scale
config:
  protocol: pull
  credits: 2
  duration: 10s
  warmup: 1s
cluster:
  startup: 20s
axes:
  layout: [rubu, split]
  zip:
    nodes: [2, 4]
    parallel: [2, 4]
"""


def scripts(tmp_path, scheduler, *extra):
    scan = write(tmp_path / "scale.yaml", SCAN)
    out = str(tmp_path / ("out-" + scheduler))
    proc = run_cli(["submit", scan, "--scheduler", scheduler, "--dry-run", "-o", out] + list(extra),
                   env={"EVBENCH": real_evbench()})
    assert proc.returncode == 0, proc.stderr
    jobs = os.path.join(out, "jobs")
    return out, {name: open(os.path.join(jobs, name)).read() for name in sorted(os.listdir(jobs))}, proc.stdout


def directives(text, prefix):
    return [line[len(prefix):].strip() for line in text.splitlines() if line.startswith(prefix)]


def test_slurm_one_script_per_scale(tmp_path):
    out, jobs, stdout = scripts(tmp_path, "slurm", "--account", "phys42", "--partition", "big")
    assert sorted(jobs) == ["n2.sbatch", "n4.sbatch"]
    assert "would submit: sbatch --parsable" in stdout
    d = directives(jobs["n4.sbatch"], "#SBATCH")
    assert "--nodes=4" in d
    # split layout: RU + BU per node, plus the dedicated EVM on the first node
    assert "--ntasks-per-node=3" in d
    assert "--account=phys42" in d and "--partition=big" in d
    # 2 points x (10 s + 1 s + 20 s startup) x 1.5 + 60 s = 153 s -> 3 minutes
    assert "--time=00:03:00" in d
    assert any(x.startswith("--output=" + out) for x in d)
    runs = re.findall(r"^run_point (\S+) (\d+) (\d+) (\d+) (\d+)", jobs["n4.sbatch"], re.M)
    # rubu: 4 ranks + EVM; split: 8 ranks + EVM
    assert [r[1:] for r in runs] == [("5", "4", "1", "1"), ("9", "4", "2", "1")]
    text = jobs["n2.sbatch"]
    assert 'scontrol show hostnames "$SLURM_JOB_NODELIST"' in text
    assert "srun --ntasks=\"$ntasks\" --distribution=arbitrary" in text and "SLURM_HOSTFILE" in text
    assert "--set bootstrap=env" in text and "EVBENCH_RENDEZVOUS" in text
    assert 'export EVBENCH_RUN_ID="$(od -An -N16 -tx1 /dev/urandom' in text  # a secret per point
    assert "EVBENCH=%s\n" % real_evbench() in text


def test_pbs_directives_and_mpirun(tmp_path):
    _, jobs, stdout = scripts(tmp_path, "pbs", "--queue", "short", "--account", "a1")
    assert sorted(jobs) == ["n2.pbs", "n4.pbs"]
    assert "would submit: qsub" in stdout
    d = directives(jobs["n2.pbs"], "#PBS")
    assert "-l nodes=2:ppn=3" in d and "-q short" in d and "-A a1" in d
    assert "-l walltime=00:03:00" in d
    text = jobs["n2.pbs"]
    assert "PBS_NODEFILE" in text and "mpirun -np \"$ntasks\"" in text
    assert '--rankfile "$ranks.rankfile"' in text and "--set bootstrap=mpi" in text
    assert "srun" not in text


def test_launcher_choice_and_placement_files(tmp_path):
    hosts = write(tmp_path / "hosts", "nodeB\nnodeA\nnodeC\nnodeD\n")
    _, jobs, _ = scripts(tmp_path, "slurm", "--nodelist", hosts, "--launcher", "srun-pmix")
    text = jobs["n2.sbatch"]
    assert "--nodelist=nodeB,nodeA" in directives(text, "#SBATCH")
    assert 'cp "%s" "$HOSTS"' % hosts in text
    assert "--mpi=pmix" in text and "--set bootstrap=mpi" in text
    rankfile = write(tmp_path / "ranks", "rank 0=nodeA slot=0\n")
    _, jobs, _ = scripts(tmp_path, "pbs", "--rankfile", rankfile, "--launcher", "mpirun-env")
    text = jobs["n4.pbs"]
    assert "--rankfile %s" % rankfile in text
    assert "EVBENCH_RANK=$OMPI_COMM_WORLD_RANK" in text and "--set bootstrap=env" in text
    proc = run_cli(["submit", str(tmp_path / "scale.yaml"), "--scheduler", "pbs", "--launcher", "srun-env",
                    "--dry-run", "-o", str(tmp_path / "x")], env={"EVBENCH": real_evbench()})
    assert proc.returncode == 2 and "needs Slurm" in proc.stderr


def test_scripts_are_valid_bash_and_place_ranks(tmp_path, evbench, schema):
    """Run the generated rank-placement code with a fake allocation of 4 hosts."""
    _, jobs, _ = scripts(tmp_path, "slurm")
    for text in jobs.values():
        path = write(tmp_path / "check.sh", text)
        assert subprocess.run(["bash", "-n", path]).returncode == 0
    scan = grammar.load_scan(str(tmp_path / "scale.yaml"), schema)
    points = expand.validated_points(scan, evbench)
    split4 = [p for p in points if p.values == {"layout": "split", "nodes": 4, "parallel": 4}][0]
    assert submit.ranks_of(split4) == (2, 1, 9)
    awk = re.search(r"(awk -v n=.*?\"\$HOSTS\" > \"\$ranks\")", jobs["n4.sbatch"], re.S).group(1)
    hostsfile = write(tmp_path / "alloc", "h1\nh2\nh3\nh4\n")
    proc = subprocess.run(["bash", "-c", 'nodes=4 ppn=2 evm=1 hosts=4 HOSTS=%s ranks=/dev/stdout; %s' % (hostsfile, awk)],
                          stdout=subprocess.PIPE, universal_newlines=True)
    assert proc.stdout.split() == ["h1", "h1", "h2", "h2", "h3", "h3", "h4", "h4", "h1"]


def test_walltime_estimate(schema):
    scan = grammar.parse_scan("config: {duration: 1min, warmup: 0s}\nrepeats: 2\n", "w.yaml", schema)
    points = expand.expand(scan)
    # 2 x (60 + 10) x 1.5 + 60 = 270 s -> 5 minutes
    assert submit.walltime(points, 10.0) == 300
    # Unset keys take evbench's defaults: its duration and warm-up, 1 rank per
    # node plus the dedicated EVM (rubu, pull) on its default node count.
    point = expand.expand(grammar.parse_scan("config: {}\n", "d.yaml", schema))[0]
    run = schema.parse_duration(schema.keys["duration"]["default"]) + \
        schema.parse_duration(schema.keys["warmup"]["default"])
    assert submit.point_seconds(point, 10.0) == pytest.approx(run + 10.0)
    assert submit.ranks_of(point) == (1, 1, schema.keys["nodes"]["default"] + 1)
    assert submit.format_hms(3725) == "01:02:05"


def test_max_hosts_folds_nodes_onto_fewer_hosts(tmp_path):
    scan = write(tmp_path / "fold.yaml", SCAN.replace("  startup: 20s\n", "  startup: 20s\n  max_hosts: 1\n"))
    out = str(tmp_path / "fold")
    assert run_cli(["submit", scan, "--scheduler", "slurm", "--dry-run", "-o", out],
                   env={"EVBENCH": real_evbench()}).returncode == 0
    d = directives(open(os.path.join(out, "jobs", "n4.sbatch")).read(), "#SBATCH")
    assert "--nodes=1" in d and "--ntasks-per-node=9" in d


EXCLUDE_SCAN = """name: exclude
config:
  protocol: pull
  nodes: 2
  layout: split
  duration: 1s
  warmup: 100ms
axes:
  on_failure: [abort, exclude]
"""


def dry_run_scripts(tmp_path, name, text, scheduler, launcher):
    """`evbench-scan submit --dry-run` of scan `text` into tmp_path/NAME-SCHEDULER-LAUNCHER:
    (the finished process, that output directory)."""
    scan = write(tmp_path / (name + ".yaml"), text)
    out = str(tmp_path / ("%s-%s-%s" % (name, scheduler, launcher)))
    proc = run_cli(["submit", scan, "--scheduler", scheduler, "--launcher", launcher, "--dry-run", "-o", out],
                   env={"EVBENCH": real_evbench()})
    return proc, out


def exclude_scripts(tmp_path, scheduler, launcher):
    return dry_run_scripts(tmp_path, "ex", EXCLUDE_SCAN, scheduler, launcher)


def run_lines(text):
    return re.findall(r"^run_point (\S+)((?: \d+){7})( exclude)?   # (.*)$", text, re.M)


def choose_in_bash(text, variable, on_failure):
    """What run_point's setup line sets `variable` to for a point's 9th argument."""
    line = [l for l in text.splitlines() if l.strip().startswith("local %s=" % variable)][0]
    proc = subprocess.run(["bash", "-c", 'f() { local on_failure=$1\n%s\necho "[$%s]"; }; f %s' % (
        line, variable, on_failure)], stdout=subprocess.PIPE, universal_newlines=True)
    return proc.stdout.strip()


def test_default_scripts_do_not_keep_going(tmp_path):
    """Without on_failure: exclude a job ends a launch when a task dies, as always."""
    _, jobs, _ = scripts(tmp_path, "slurm")
    for text in jobs.values():
        assert "srun --ntasks=\"$ntasks\" --distribution=arbitrary --overcommit --kill-on-bad-exit=1 $cpu_bind " \
            "--mpi=none" \
            in text
        assert "exclude" not in text and "kill_on_bad_exit" not in text
    _, jobs, _ = scripts(tmp_path, "pbs", "--launcher", "mpirun-env")
    for text in jobs.values():
        assert 'mpirun -np "$ntasks" --oversubscribe --rankfile' in text
        assert "exclude" not in text and "recovery" not in text


def test_exclude_point_keeps_its_srun_step_going(tmp_path):
    """Per point: the exclude point's srun gets --kill-on-bad-exit=0, the other =1."""
    proc, out = exclude_scripts(tmp_path, "slurm", "srun-env")
    assert proc.returncode == 0, proc.stderr
    text = open(os.path.join(out, "jobs", "n2.sbatch")).read()
    assert subprocess.run(["bash", "-n", os.path.join(out, "jobs", "n2.sbatch")]).returncode == 0
    runs = run_lines(text)
    assert [(r[2], r[3]) for r in runs] == [("", "on_failure=abort"), (" exclude", "on_failure=exclude")]
    assert '--overcommit --kill-on-bad-exit="$kill_on_bad_exit" $cpu_bind --mpi=none' in text
    assert choose_in_bash(text, "kill_on_bad_exit", "exclude") == "[0]"
    assert choose_in_bash(text, "kill_on_bad_exit", "abort") == "[1]"
    # A launch that ended with a task killed (srun exits 137), not at the time
    # limit (124), is ok when rank 0's results say so, for an exclude point only.
    assert '[ "$on_failure" = exclude ] && [ $code -ne 0 ] && [ $code -ne 124 ] && [ -s "$result" ]' in text


def test_exclude_point_under_mpirun_env_enables_recovery(tmp_path):
    proc, out = exclude_scripts(tmp_path, "pbs", "mpirun-env")
    assert proc.returncode == 0, proc.stderr
    text = open(os.path.join(out, "jobs", "n2.pbs")).read()
    assert 'mpirun -np "$ntasks" --oversubscribe $enable_recovery --rankfile' in text
    assert choose_in_bash(text, "enable_recovery", "exclude") == "[--enable-recovery]"
    assert choose_in_bash(text, "enable_recovery", "abort") == "[]"
    assert [r[2] for r in run_lines(text)] == ["", " exclude"]


@pytest.mark.parametrize("scheduler,launcher,instead", [("slurm", "srun-pmix", "srun-env"),
                                                        ("pbs", "mpirun", "mpirun-env")])
def test_exclude_point_refused_with_an_mpi_bootstrap(tmp_path, scheduler, launcher, instead):
    """evbench's mpi bootstrap cannot lose a rank (the launch aborts or hangs):
    refused before anything is written, naming the point and what to use."""
    proc, out = exclude_scripts(tmp_path, scheduler, launcher)
    assert proc.returncode == 1
    assert "on_failure: exclude" in proc.stderr and "launcher %s" % launcher in proc.stderr
    assert "mpi bootstrap, which cannot go on when a rank dies: use %s" % instead in proc.stderr
    assert re.search(r"point\(s\) \S+ run under", proc.stderr)
    assert not os.path.exists(out)


BIND_SCAN = """name: bind
config:
  protocol: pull
  nodes: 2
  duration: 1s
  warmup: 100ms
axes:
  bind: [core, none]
"""


def bind_scripts(tmp_path, scheduler, launcher):
    proc, out = dry_run_scripts(tmp_path, "bind", BIND_SCAN, scheduler, launcher)
    assert proc.returncode == 0, proc.stderr
    path = os.path.join(out, "jobs", "n2.%s" % ("sbatch" if scheduler == "slurm" else "pbs"))
    assert subprocess.run(["bash", "-n", path]).returncode == 0
    return open(path).read()


def in_run_point(text, lines, bind):
    """Runs run_point's bind lines and then `lines` in bash, as a point called
    with bind=`bind` (None: no prefix, a bind: core point); returns stdout."""
    setup = [l for l in text.splitlines() if l.strip().startswith(("local bind=", "local cpu_bind="))
             or "= none ] && cpu_bind=" in l]
    prefix = "" if bind is None else "bind=%s " % bind
    proc = subprocess.run(["bash", "-c", "f() {\n%s\n%s\n}; %sf" % ("\n".join(setup), lines, prefix)],
                          stdout=subprocess.PIPE, universal_newlines=True)
    return proc.stdout


def test_bind_points_get_srun_cpu_binding(tmp_path):
    """bind core (default, no prefix) -> --cpu-bind=cores; a bind: none point
    is called as bind=none run_point and gets --cpu-bind=none."""
    text = bind_scripts(tmp_path, "slurm", "srun-env")
    assert re.search(r"^run_point p0001 ", text, re.M) and re.search(r"^bind=none run_point p0002 ", text, re.M)
    assert "--kill-on-bad-exit=1 $cpu_bind --mpi=none" in text
    assert in_run_point(text, 'echo "[$cpu_bind]"', None).strip() == "[--cpu-bind=cores]"
    assert in_run_point(text, 'echo "[$cpu_bind]"', "none").strip() == "[--cpu-bind=none]"


def test_bind_points_get_rankfile_slots_under_mpirun(tmp_path):
    """The generated rankfile pins the k-th rank of a host on slot k mod CPUs
    under bind core, and gives every CPU under bind none."""
    text = bind_scripts(tmp_path, "pbs", "mpirun")
    awk = [l.strip() for l in text.splitlines() if '> "$ranks.rankfile"' in l][0]
    ranks = write(tmp_path / "ranks", "h1\nh1\nh2\nh1\nh1\n")
    cpus = len(os.sched_getaffinity(0))
    run = 'ranks=%s\n%s\ncat "$ranks.rankfile"' % (ranks, awk.replace("$(nproc)", str(cpus)))
    slots = [l.split(" slot=")[1] for l in in_run_point(text, run, None).splitlines()]
    assert slots == [str(k % cpus) for k in (0, 1, 0, 2, 3)]
    slots = [l.split(" slot=")[1] for l in in_run_point(text, run, "none").splitlines()]
    assert slots == ["0-%d" % (cpus - 1)] * 5


def hms(text):
    h, m, s = (int(x) for x in text.split(":"))
    return 3600 * h + 60 * m + s


def test_walltime_covers_every_points_limit_and_rounds_interleave(tmp_path):
    """However long each point runs (to its `timeout`, then the kill grace),
    the job ends before the scheduler's limit; the points of a job run in
    the campaign's interleaved order; no template leftovers."""
    scan = write(tmp_path / "r.yaml", SCAN.replace("cluster:\n", "repeats: 3\ncluster:\n"))
    out = str(tmp_path / "out")
    proc = run_cli(["submit", scan, "--scheduler", "slurm", "--dry-run", "-o", out], env={"EVBENCH": real_evbench()})
    assert proc.returncode == 0, proc.stderr
    order = json.load(open(os.path.join(out, "campaign.json")))["order"]["run_order"]
    for name in ("n2.sbatch", "n4.sbatch"):
        text = open(os.path.join(out, "jobs", name)).read()
        limits = [int(x) for x in re.findall(r"^(?:\S+=\S+ )*run_point \S+ \d+ \d+ \d+ \d+ \d+ (\d+) ", text, re.M)]
        grace = int(re.search(r"timeout --kill-after=(\d+)", text).group(1))
        (wall,) = [hms(d.split("=", 1)[1]) for d in directives(text, "#SBATCH") if d.startswith("--time=")]
        assert len(limits) == 6 and wall >= sum(limit + grace for limit in limits), (wall, limits)
        ids = re.findall(r"^(?:\S+=\S+ )*run_point (\S+) ", text, re.M)
        assert ids == [pid for pid in order if pid in ids]          # the campaign's order, rounds interleaved
        assert ids != sorted(ids)
        assert '[ -n "" ]' not in text and 'cp ""' not in text             # no empty template slot
        assert "scontrol show hostnames" in text


class FakeSbatch:
    """An `sbatch` on PATH that records being called."""

    def __init__(self, tmp_path):
        self.bin = tmp_path / "bin"
        self.bin.mkdir()
        self.called = tmp_path / "sbatch-called"
        write(self.bin / "sbatch", "#!/bin/sh\necho \"$@\" > %s\necho 4242\n" % self.called)
        os.chmod(str(self.bin / "sbatch"), 0o755)

    def env(self):
        return {"EVBENCH": real_evbench(), "PATH": "%s:%s" % (self.bin, os.environ["PATH"])}


def test_node_local_paths_warn_on_dry_run_and_stop_a_submit(tmp_path):
    assert str(tmp_path).startswith("/tmp/") or os.environ.get("TMPDIR")
    fake = FakeSbatch(tmp_path)
    scan = write(tmp_path / "scale.yaml", SCAN)
    out = str(tmp_path / "dry")
    proc = run_cli(["submit", scan, "--scheduler", "slurm", "--dry-run", "-o", out], env=fake.env())
    assert proc.returncode == 0, proc.stderr
    assert "warning: the campaign directory %s is under " % out in proc.stderr
    assert "the compute nodes will not see it" in proc.stderr
    assert os.path.isfile(os.path.join(out, "jobs", "n2.sbatch"))
    hosts = write(tmp_path / "hosts", "a\nb\nc\nd\n")
    proc = run_cli(["submit", scan, "--scheduler", "slurm", "-o", str(tmp_path / "real"), "--nodelist", hosts],
                   env=fake.env())
    assert proc.returncode == 1
    assert "the campaign directory %s is under " % (tmp_path / "real") in proc.stderr
    assert "--nodelist %s is under " % hosts in proc.stderr and "nothing submitted" in proc.stderr
    assert not os.path.exists(str(tmp_path / "real")) and not fake.called.exists()
    # Jobs that run on this very machine see its /tmp: cluster.same_host says so.
    same = write(tmp_path / "same.yaml", SCAN.replace("cluster:\n", "cluster:\n  same_host: true\n"))
    proc = run_cli(["submit", same, "--scheduler", "slurm", "-o", str(tmp_path / "same")], env=fake.env())
    assert proc.returncode == 0 and "will not see" not in proc.stderr, proc.stderr
    assert fake.called.exists() and "submitted: 4242 4242" in proc.stdout
