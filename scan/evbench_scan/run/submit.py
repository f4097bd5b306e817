"""Job scripts for Slurm and PBS/Torque: one job per scale (node count).

All points with the same `nodes` run one after another inside one
allocation. Each point is launched with one rank per process of evbench's
topology (layout rubu: 1 per node, split: 2 per node, a dedicated EVM as one
extra rank on the first node) and the ranks are placed explicitly: the job
writes a host-per-rank file (node-major, EVM last) and hands it to srun
(--distribution=arbitrary, SLURM_HOSTFILE) or mpirun (as a rankfile).
"""
import json
import math
import os
import re
import shlex
import subprocess
import time

from ..results.campaign import Campaign, write_atomic
from . import jobshell, rounds

DEFAULT_LAUNCHER = {"slurm": "srun-env", "pbs": "mpirun"}
DEFAULT_STARTUP_S = 10.0
DEFAULT_PORT = 20000


# What a launcher is told for a point's `bind` (docs/USER_GUIDE.md,
# "Placement"): core pins one rank per core, none leaves them to the kernel.
# Open MPI's overload-allowed lets more ranks than cores wrap (as evbench's
# local bootstrap does) instead of refusing; a generated rankfile says it
# with each rank's slot.
MPIRUN_BIND = {"core": ["--map-by", "core", "--bind-to", "core:overload-allowed"],
               "none": ["--bind-to", "none"]}
SRUN_BIND = {"core": "--cpu-bind=cores", "none": "--cpu-bind=none"}


def bind_of(point):
    """The point's `bind` (core when the evbench at hand predates the key)."""
    return point.setting("bind") or "core"


def ranks_of(point):
    """(ranks per node, 1 if a dedicated EVM rank, total ranks) of a point."""
    ppn = 2 if point.setting("layout") == "split" else 1
    evm = 1 if point.setting("protocol") in ("pull", "push") and point.setting("evm") == "dedicated" else 0
    nodes = int(point.setting("nodes"))
    return ppn, evm, nodes * ppn + evm


def point_seconds(point, startup):
    try:
        seconds = point.seconds("duration") + point.seconds("warmup")
    except ValueError:
        seconds = 3.5
    if point.setting("events"):
        seconds = max(seconds, 60.0)
    return seconds + startup


def format_hms(seconds):
    """Walltime as HH:MM:SS (schedulers' format)."""
    seconds = int(max(0, round(seconds)))
    return "%02d:%02d:%02d" % (seconds // 3600, seconds % 3600 // 60, seconds % 60)


KILL_AFTER_S = 10     # `timeout --kill-after`: a point that ignores SIGTERM gets this long
JOB_SETUP_S = 60      # host list, module lines, the job's start and end


def point_limit(point, startup, margin=1.5):
    """A point's time limit in the job (`timeout`): margin x (run + warmup + startup), whole seconds."""
    return int(math.ceil(margin * point_seconds(point, startup)))


def walltime(points, startup, margin=1.5):
    """The allocation's time in seconds: every point's limit and kill grace,
    plus the job's set-up, in whole minutes, so that points which all run to
    their limit still end before the scheduler ends the job."""
    seconds = sum(point_limit(p, startup, margin) + KILL_AFTER_S for p in points) + JOB_SETUP_S
    return int((seconds + 59) // 60 * 60)


def by_scale(points):
    groups = {}
    for p in points:
        groups.setdefault(int(p.setting("nodes")), []).append(p)
    return [(n, groups[n]) for n in sorted(groups)]


def _directives(scheduler, name, nodes, per_node, seconds, opts, out):
    d = []
    if scheduler == "slurm":
        d += ["#SBATCH --job-name=%s" % name,
              "#SBATCH --nodes=%d" % nodes,
              "#SBATCH --ntasks-per-node=%d" % per_node,
              "#SBATCH --time=%s" % format_hms(seconds),
              "#SBATCH --output=%s" % out,
              "#SBATCH --exclusive"]
        if opts.get("overcommit"):
            d.append("#SBATCH --overcommit")
        if opts.get("account"):
            d.append("#SBATCH --account=%s" % opts["account"])
        if opts.get("partition"):
            d.append("#SBATCH --partition=%s" % opts["partition"])
        if opts.get("hosts"):
            d.append("#SBATCH --nodelist=%s" % ",".join(opts["hosts"][:nodes]))
    else:
        d += ["#PBS -N %s" % name[:15],
              "#PBS -l nodes=%d:ppn=%d" % (nodes, per_node),
              "#PBS -l walltime=%s" % format_hms(seconds),
              "#PBS -j oe",
              "#PBS -o %s" % out]
        if opts.get("account"):
            d.append("#PBS -A %s" % opts["account"])
        if opts.get("queue"):
            d.append("#PBS -q %s" % opts["queue"])
    return d

def excludes(point):
    """True when the point runs under `on_failure: exclude` (ranks may die)."""
    return point.setting("on_failure") == "exclude"


def check_launcher(points, launcher):
    """Refuses exclude points a launcher cannot keep going; ValueError naming them."""
    bad = [p.id for p in points if excludes(p)]
    if bad and launcher in jobshell.NO_EXCLUDE:
        raise ValueError("point(s) %s run under on_failure: exclude, but launcher %s starts evbench's mpi "
                         "bootstrap, which cannot go on when a rank dies: use %s" % (
                             ", ".join(bad), launcher, jobshell.NO_EXCLUDE[launcher]))


def job_script(campaign, scheduler, nodes, points, evbench, opts):
    """Text of the job script running `points` (all with `nodes` nodes)."""
    launcher = opts.get("launcher") or DEFAULT_LAUNCHER[scheduler]
    if scheduler == "slurm" and launcher.startswith("mpirun") is False and launcher not in jobshell.LAUNCH:
        raise ValueError("unknown launcher %s" % launcher)
    startup = opts.get("startup", DEFAULT_STARTUP_S)
    tag = "n%d" % nodes
    # max_hosts folds the campaign's nodes onto fewer hosts (node i -> host i mod H).
    hosts = min(nodes, int(opts.get("max_hosts") or nodes))
    per_host = (nodes + hosts - 1) // hosts
    per_node = max(per_host * r[0] + r[1] for r in map(ranks_of, points))
    margin = opts.get("margin", 1.5)
    seconds = walltime(points, startup, margin)
    out = os.path.join(campaign.root, "jobs", "%s.out" % tag)
    name = "evb-%s-%s" % (opts.get("name", "scan"), tag)
    lines = ["#!/bin/bash"] + _directives(scheduler, name, hosts, per_node, seconds, opts, out)
    lines.append("# Generated by evbench-scan: %d point(s) on %d node(s), launcher %s." % (
        len(points), nodes, launcher))
    rankfile = opts.get("rankfile") or ""
    pre_launch = "# (ranks placed by SLURM_HOSTFILE)"
    if rankfile and launcher.startswith("mpirun"):
        placement = "--rankfile %s" % shlex.quote(rankfile)
    elif launcher.startswith("mpirun"):
        # Host-per-rank list -> Open MPI rankfile: under bind core the k-th
        # rank of a host gets core k mod (cores), under bind none all cores
        # (not pinned). Open MPI 4.1's sequential mapper crashes in finalize.
        placement = '--rankfile "$ranks.rankfile"'
        pre_launch = ('awk -v c="$(nproc)" -v b="$bind" \'{k = n[$1]++; '
                      'print "rank " NR-1 "=" $1 " slot=" (b == "none" ? "0-" c-1 : k % c)}\' '
                      '"$ranks" > "$ranks.rankfile"')
    else:
        placement = ""
    launch, bootstrap = jobshell.LAUNCH[launcher]
    # Only a job with an exclude point gets the per-point choice: other
    # scripts are as they always were.
    default_opt, exclude_opt, choose = jobshell.KEEP_GOING["srun" if launcher.startswith("srun") else "mpirun"]
    any_exclude = any(excludes(p) for p in points)
    exclude = {"exclude_usage": " [exclude]" if any_exclude else "",
               "exclude_setup": jobshell.EXCLUDE_SETUP.format(choose=choose) if any_exclude else "",
               "exclude_status": jobshell.EXCLUDE_STATUS.format() if any_exclude else ""}
    hosts_command = jobshell.NODELIST_HOSTS.format(nodelist=opts["nodelist"]) if opts.get("nodelist") \
        else jobshell.SLURM_HOSTS if scheduler == "slurm" else jobshell.PBS_HOSTS
    ranks_cmd = jobshell.RANKS_FROM_FILE.format(rankfile=rankfile) if rankfile and not launcher.startswith("mpirun") \
        else jobshell.RANKS
    lines.append(jobshell.PREAMBLE.format(
        campaign=shlex.quote(campaign.root), evbench=shlex.quote(evbench), port=opts.get("port", DEFAULT_PORT),
        tag=tag, modules="\n".join(opts.get("modules", [])) or "# (no modules)",
        hosts_command=hosts_command,
        ranks_command=ranks_cmd, bootstrap=bootstrap, pre_launch=pre_launch,
        bind_setup=jobshell.SRUN_BIND_SETUP.format(**SRUN_BIND) if launcher.startswith("srun") else "",
        launch=launch.format(placement=placement, keep_going=exclude_opt if any_exclude else default_opt),
        **exclude))
    for index, p in enumerate(points):
        ppn, evm, ntasks = ranks_of(p)
        if p.wrapper:
            raise ValueError("%s: wrapper (%s) is for local runs; submit cannot run a point under it" % (
                p.id, " ".join(p.wrapper)))
        # The point's env (scan env: + env.NAME keys), exported for its launch
        # (srun passes the environment on; mpirun passes OMPI_MCA_*).
        env = "".join("%s=%s " % (k, shlex.quote(v)) for k, v in sorted(p.env.items()))
        # A point with bind other than core says so to run_point (bind=none).
        if bind_of(p) != "core":
            env = "bind=%s %s" % (shlex.quote(bind_of(p)), env)
        lines.append("%srun_point %s %d %d %d %d %d %d %d%s   # %s" % (
            env, p.id, ntasks, nodes, ppn, evm, index, point_limit(p, startup, margin), hosts,
            " exclude" if excludes(p) else "", p.label() or "base config"))
    lines.append('echo "evbench-scan job $JOBID finished"')
    return "\n".join(lines) + "\n"


def write_jobs(scan, points, outdir, scheduler, evbench, opts, skipped=()):
    """Lay out the campaign and write one job script per scale; returns paths."""
    opts = dict(scan.cluster, **{k: v for k, v in opts.items() if v is not None})
    check_launcher(points, opts.get("launcher") or DEFAULT_LAUNCHER[scheduler])
    campaign = Campaign(outdir)
    campaign.create(scan, points, scheduler, skipped=skipped,
                    order=rounds.describe(scan, rounds.plan(points, scan.order, scan.order_seed)))
    os.makedirs(campaign.path("jobs"), exist_ok=True)
    opts.setdefault("name", re.sub(r"[^A-Za-z0-9_.-]", "_", scan.name))
    if opts.get("nodelist"):
        with open(opts["nodelist"]) as f:
            opts["hosts"] = [line.split()[0] for line in f if line.strip() and not line.startswith("#")]
        opts["nodelist"] = os.path.abspath(opts["nodelist"])
    if opts.get("rankfile"):
        opts["rankfile"] = os.path.abspath(opts["rankfile"])
    scripts = []
    # Interleaved rounds inside each job, as local runs have them (rounds.py).
    ordered = [p for members in rounds.plan(points, scan.order, scan.order_seed) for p in members]
    for nodes, group in by_scale(ordered):
        need = min(nodes, int(opts.get("max_hosts") or nodes))
        if opts.get("hosts") and len(opts["hosts"]) < need:
            raise ValueError("node list has %d hosts, points need %d" % (len(opts["hosts"]), need))
        path = campaign.path("jobs", "n%d.%s" % (nodes, "sbatch" if scheduler == "slurm" else "pbs"))
        write_atomic(path, job_script(campaign, scheduler, nodes, group, evbench, opts))
        os.chmod(path, 0o755)
        scripts.append(path)
    return scripts


def submit_command(scheduler, script):
    return ["sbatch", "--parsable", script] if scheduler == "slurm" else ["qsub", script]


def submit(scheduler, scripts, outdir):
    """Submit every script; returns job ids (also saved in jobs/submitted.json)."""
    ids = []
    for script in scripts:
        cmd = submit_command(scheduler, script)
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              universal_newlines=True, timeout=60, cwd=os.path.dirname(script))
        m = re.search(r"(\d+)(\.[\w.-]+)?", proc.stdout)
        if proc.returncode != 0 or not m:
            raise RuntimeError("%s failed (exit %d): %s" % (" ".join(cmd), proc.returncode,
                                                              (proc.stderr or proc.stdout).strip()))
        ids.append(proc.stdout.strip().split(";")[0] if scheduler == "slurm" else m.group(0))
    path = Campaign(outdir).path("jobs", "submitted.json")
    write_atomic(path, json.dumps({"scheduler": scheduler, "jobs": dict(
        zip([os.path.basename(s) for s in scripts], ids))}, indent=1) + "\n")
    return ids


def job_running(scheduler, job_id):
    if scheduler == "slurm":
        proc = subprocess.run(["squeue", "-h", "-j", str(job_id), "-o", "%T"], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, universal_newlines=True, timeout=30)
        return proc.returncode == 0 and proc.stdout.strip() != ""
    proc = subprocess.run(["qstat", "-f", str(job_id)], stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, universal_newlines=True, timeout=30)
    state = re.search(r"job_state\s*=\s*(\w)", proc.stdout)
    return proc.returncode == 0 and state is not None and state.group(1) not in ("C", "F", "E")


def wait(scheduler, ids, timeout, poll=1.0):
    """Block until no job of `ids` is queued or running; False on timeout."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not any(job_running(scheduler, j) for j in ids):
            return True
        time.sleep(poll)
    return False
