"""Running a campaign's points one after another with the local bootstrap.

Each point is one `evbench run POINT.yaml --json TMP` in its own session
(process group); its JSON is renamed into results/ only when evbench exits,
so an interrupted or crashed point never looks complete. Ctrl-C (or SIGTERM)
kills the running process group, rewrites the index from what is done and
leaves nothing behind.
"""
import os
import shutil
import signal
import subprocess
import time

from . import collect
from .campaign import Campaign
from .progress import Progress

EXIT_MEANING = {0: "ok", 1: "failed", 2: "config-error", 3: "integrity"}


class Interrupted(Exception):
    pass


def point_timeout(point):
    """Generous wall-clock limit for one point (its run time x3 + 60 s)."""
    try:
        run = point.seconds("duration") + point.seconds("warmup")
    except ValueError:
        run = 10.0
    if point.setting("events"):
        run = max(run, 60.0)
    return 3 * run + 60


def kill_group(proc, grace=3.0):
    """SIGTERM the process group of `proc`, SIGKILL after `grace` seconds."""
    if proc.poll() is not None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)   # stray children of an exited leader
        except (ProcessLookupError, PermissionError):
            pass
        return
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
            break
        except subprocess.TimeoutExpired:
            continue
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def launch_prefix(point):
    """Points configured with `bootstrap: mpi` are started by mpirun, one rank
    per evbench process (the same count the job scripts use)."""
    if point.setting("bootstrap") != "mpi":
        return []
    from .submit import ranks_of
    prefix = ["mpirun", "-np", str(ranks_of(point)[2]), "--oversubscribe"]
    if os.geteuid() == 0 and not os.environ.get("OMPI_ALLOW_RUN_AS_ROOT"):
        prefix.append("--allow-run-as-root")
    return prefix


def run_point(campaign, point, evbench, extra_args=()):
    """Run one point; returns (status, exit_code, result document or None)."""
    final = campaign.result_json(point.id)
    tmp = final + ".partial"
    if os.path.exists(tmp):
        os.remove(tmp)
    cmd = launch_prefix(point) + [evbench, "run", campaign.point_yaml(point.id), "--json", tmp] + list(extra_args)
    start = time.monotonic()
    with open(campaign.log(point.id), "w") as log:
        log.write("# %s\n" % " ".join(cmd))
        log.flush()
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True, cwd=campaign.root)
        try:
            code = proc.wait(timeout=point_timeout(point))
            status = EXIT_MEANING.get(code, "failed")
            kill_group(proc)   # children of a finished leader must not outlive it
        except subprocess.TimeoutExpired:
            kill_group(proc)
            code, status = proc.returncode, "timeout"
            log.write("\n# evbench-scan: killed after %.0f s\n" % point_timeout(point))
        except BaseException:
            kill_group(proc)
            if os.path.exists(tmp):
                os.remove(tmp)
            raise
    doc = None
    if os.path.exists(tmp):
        doc = collect.read_json(tmp)
        if doc is not None and isinstance(doc.get("results"), dict):
            os.replace(tmp, final)
            if status != "timeout":
                status = doc["results"].get("status", status) if code == 0 else status
        else:
            os.remove(tmp)
            doc = None
    if code == 0 and doc is None:
        status = "failed"   # exit 0 without a result document is not a result
    campaign.write_status(point.id, status, code, time.monotonic() - start)
    return status, code, doc


def run_campaign(scan, points, outdir, evbench, force=False, retry_failed=True, stream=None):
    """Run every point not yet done; returns the records of the campaign."""
    campaign = Campaign(outdir)
    campaign.create(scan, points, "local")
    progress = Progress(len(points), stream=stream)

    def on_signal(signum, frame):
        raise Interrupted()
    old_term = signal.signal(signal.SIGTERM, on_signal)
    try:
        for point in points:
            if not force and campaign.is_done(point.id):
                figures = collect.figures(campaign.result(point.id))
                progress.advance(_last(point, figures, "done before"), ran=False)
                continue
            if not force and not retry_failed and os.path.exists(campaign.status_json(point.id)):
                progress.advance("%s skipped (failed before)" % point.id, ran=False)
                continue
            for stale in (campaign.result_json(point.id), campaign.status_json(point.id)):
                if os.path.exists(stale):
                    os.remove(stale)
            progress.show("running %s %s" % (point.id, point.label()))
            status, code, doc = run_point(campaign, point, evbench)
            if status != "ok":
                progress.message("%s %s: %s (exit %s), see %s" % (
                    point.id, point.label(), status, code, os.path.relpath(campaign.log(point.id))))
            progress.advance(_last(point, collect.figures(doc), status))
            progress.show()
    except (KeyboardInterrupt, Interrupted):
        progress.message("interrupted: index rewritten from the points done; rerun to resume")
        collect.write_index(outdir)
        raise KeyboardInterrupt()
    finally:
        signal.signal(signal.SIGTERM, old_term)
        progress.finish()
    return collect.write_index(outdir)


def _last(point, figures, status):
    gbps = figures.get("aggregate_gbps")
    if gbps is None:
        return "%s %s" % (point.id, status)
    return "%s %.2f Gb/s" % (point.id, gbps)


def find_evbench(explicit=None, repo=None):
    """--evbench PATH, then $EVBENCH, then <repo>/build/bin/evbench, then PATH."""
    for candidate in (explicit, os.environ.get("EVBENCH")):
        if candidate:
            return os.path.abspath(candidate) if os.sep in candidate else (shutil.which(candidate) or candidate)
    built = built_evbench(repo)
    if os.access(built, os.X_OK):
        return built
    return shutil.which("evbench")


def built_evbench(repo=None):
    """Where this repository's build puts evbench."""
    repo = repo or os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    return os.path.join(repo, "build", "bin", "evbench")
