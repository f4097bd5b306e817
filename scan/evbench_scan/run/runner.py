"""Running a campaign's points one after another with the local bootstrap.

Each point is one `evbench run POINT.yaml --json TMP` (a simulated point:
`evbench sim POINT.yaml --model M --platform P ... --json TMP --quiet`,
simspec.py) in its own session
(process group); its JSON is renamed into results/ only when evbench exits,
so an interrupted or crashed point never looks complete. Ctrl-C (or SIGTERM)
kills the running process group, rewrites the index from what is done and
leaves nothing behind.
"""
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time

from ..results import collect, failures, hostload
from ..results.campaign import Campaign
from ..spec import simspec
from . import rounds
from .progress import Progress

EXIT_MEANING = {0: "ok", 1: "failed", 2: "config-error", 3: "integrity"}


class Interrupted(Exception):
    pass


def point_timeout(point):
    """Generous wall-clock limit for one point (its run time x3 + 60 s; a
    simulation's wall time does not follow its simulated duration)."""
    if point.sim:
        return simspec.TIMEOUT_S
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


def point_env(point):
    """The environment of a point's process: ours plus the scan's `env:` and
    the point's env.NAME values."""
    env = dict(os.environ)
    env.update(point.env)
    return env


def launch_prefix(point, env=None):
    """Points configured with `bootstrap: mpi` are started by mpirun, one rank
    per evbench process (the same count the job scripts use). All ranks are on
    this host, so Open MPI's TCP traffic is kept on loopback unless the
    environment says otherwise; the point's own environment variables are
    exported to the ranks (OMPI_MCA_* are read by mpirun itself). The
    point's `bind` becomes Open MPI's binding flags (submit.MPIRUN_BIND)."""
    if point.setting("bootstrap") != "mpi" or point.sim:
        return []
    from .submit import MPIRUN_BIND, bind_of, ranks_of
    env = os.environ if env is None else env
    prefix = ["mpirun", "-np", str(ranks_of(point)[2]), "--oversubscribe"] + MPIRUN_BIND[bind_of(point)]
    if os.geteuid() == 0 and not env.get("OMPI_ALLOW_RUN_AS_ROOT"):
        prefix.append("--allow-run-as-root")
    for param in ("btl_tcp_if_include", "oob_tcp_if_include"):
        if not env.get("OMPI_MCA_" + param) and not env.get("OMPI_MCA_" + param.replace("include", "exclude")):
            prefix += ["--mca", param, "lo"]
    for name in sorted(point.env):
        if not name.startswith("OMPI_"):
            prefix += ["-x", name]
    return prefix


def point_command(point, evbench, config_path, json_path, extra_args=(), env=None):
    """argv of one point: [wrapper...] [mpirun ...] evbench run CONFIG --json FILE
    (or evbench sim ..., simspec.command)."""
    if point.sim:
        return simspec.command(point, evbench, config_path, json_path, extra_args)
    return list(point.wrapper or []) + launch_prefix(point, env) + \
        [evbench, "run", config_path, "--json", json_path] + list(extra_args)


def drivers_json(evbench, wrapper=None):
    """`evbench drivers --json` (run under `wrapper`, an argv list, if given):
    a list of {"driver", "can_run", "library", "reason", "details",
    "variants_usable", "variants_not_here": [{"name", "reason"}]}, or None
    when this evbench cannot say (an older build prints only its table)."""
    fd, path = tempfile.mkstemp(prefix="evbench-drivers-", suffix=".json")
    os.close(fd)
    os.remove(path)
    try:
        try:
            # evbench prints the JSON on stdout (an older build: its table, or
            # an error); a FILE after --json is read too, should it write one.
            proc = subprocess.run(list(wrapper or []) + [evbench, "drivers", "--json"],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  stdin=subprocess.DEVNULL, universal_newlines=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            return None
        for text in (_read(path), proc.stdout):
            try:
                doc = json.loads(text) if text else None
            except ValueError:
                continue
            if isinstance(doc, dict) and isinstance(doc.get("drivers"), list):
                doc = doc["drivers"]
            if isinstance(doc, list) and all(isinstance(d, dict) and "driver" in d for d in doc):
                return doc
        return None
    finally:
        if os.path.exists(path):
            os.remove(path)


def _read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def cannot_run(point, drivers):
    """Why `evbench drivers --json` says this point's driver or variant cannot
    run here (None: it can, or nothing is known). A simulated point's driver
    is the simulation's, not this machine's."""
    if not drivers or point.sim:
        return None
    driver = point.setting("driver")
    entry = next((d for d in drivers if d.get("driver") == driver), None)
    if entry is None:
        return None
    if entry.get("can_run") is False:
        return "driver %s cannot run here: %s" % (driver, entry.get("reason") or entry.get("details") or "no reason given")
    # A variant (libfabric provider, ucx tls, verbs device, ...) is named by
    # one of the point's driver options.
    options = point.get("driver_options") or {}
    for value in options.values():
        for missing in entry.get("variants_not_here") or ():
            name = str(missing.get("name", ""))
            short = name[len(driver) + 1:] if name.startswith(driver + "/") else name   # libfabric/verbs -> verbs
            if short and str(value) in (short, short.split(";")[0]):
                return "%s cannot run here: %s" % (name if "/" in name else "%s/%s" % (driver, name),
                                                   missing.get("reason") or "no reason given")
    return None


def machine_drivers(evbench, points):
    """What `evbench drivers --json` says, plain and under each wrapper the
    points use: {"plain": doc or None, "wrapped": {wrapper text: doc}}."""
    out = {"plain": drivers_json(evbench), "wrapped": {}}
    for point in points:
        key = " ".join(point.wrapper or [])
        if key and key not in out["wrapped"]:
            out["wrapped"][key] = drivers_json(evbench, point.wrapper)
    return out


def runnable_points(scan, points, drivers, skipped):
    """Split off the points whose driver or variant cannot run on this machine:
    appended to `skipped` with the reason when skip_invalid, otherwise a
    ScanError lists them (nothing is run)."""
    from ..spec.expand import skipped_entry
    from ..spec.grammar import ScanError
    skip_invalid = scan.skip_invalid
    kept, bad = [], []
    for point in points:
        key = " ".join(point.wrapper or [])
        doc = drivers["wrapped"].get(key) if key else drivers["plain"]
        reason = cannot_run(point, doc)
        if reason is None:
            kept.append(point)
        elif skip_invalid:
            skipped.append(skipped_entry(point, reason, "drivers"))
        else:
            bad.append("%s (%s): %s" % (point.id, point.label(), reason))
    if bad:
        raise ScanError(scan.path, None, "", "points that cannot run on this machine (evbench drivers):\n  " +
                           "\n  ".join(bad[:5]) + ("\n  (and %d more)" % (len(bad) - 5) if len(bad) > 5 else "") +
                           "\n(add 'skip_invalid: true' to list them as skipped and run the rest)")
    return kept


def run_point(campaign, point, evbench, extra_args=()):
    """Run one point; returns (status, exit_code, result document or None).
    Its status file says why it failed (failures.reason) and what the host's
    load was around it (hostload.window)."""
    before = hostload.read_now()
    started = time.time()
    status, code, doc, seconds, runnable = _run_point(campaign, point, evbench, extra_args)
    message = failures.reason(status, code, campaign.log(point.id), doc) if status != "ok" else ""
    load = hostload.window(before, hostload.read_now())
    load["runnable_others"] = runnable
    campaign.write_status(point.id, status, code, seconds, message, started=round(started, 3),
                          round=point.repeat, load=load)
    return status, code, doc


def _run_point(campaign, point, evbench, extra_args):
    final = campaign.result_json(point.id)
    tmp = final + ".partial"
    if os.path.exists(tmp):
        os.remove(tmp)
    env = point_env(point)
    cmd = point_command(point, evbench, campaign.point_yaml(point.id), tmp, extra_args, env)
    start = time.monotonic()
    with open(campaign.log(point.id), "w") as log:
        log.write("# %s%s\n" % ("".join("%s=%s " % kv for kv in sorted(point.env.items())), " ".join(cmd)))
        log.flush()
        proc = None
        for attempt in range(4):
            try:
                proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                        start_new_session=True, cwd=campaign.root, env=env)
                break
            except OSError as err:
                # The binary may be briefly missing (being rebuilt): retry,
                # then record the point as failed and go on with the campaign.
                log.write("# evbench-scan: cannot start %s: %s\n" % (cmd[0], err.strerror or err))
                log.flush()
                if attempt < 3:
                    time.sleep(5)
        if proc is None:
            return "failed", None, None, time.monotonic() - start, None
        queue = hostload.RunQueue(proc.pid).start()   # its session: the point's processes
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
        finally:
            runnable = queue.stop()
    doc = None
    if os.path.exists(tmp):
        doc = collect.read_json(tmp)
        if doc is not None and isinstance(doc.get("results"), dict):
            os.replace(tmp, final)
            if status != "timeout":
                # exit 3 says which integrity problem in the document (integrity_error, data_source_lost)
                status = doc["results"].get("status", status) if code in (0, 3) else status
        else:
            os.remove(tmp)
            doc = None
    if code == 0 and doc is None:
        status = "failed"   # exit 0 without a result document is not a result
    return status, code, doc, time.monotonic() - start, runnable


def run_campaign(scan, points, outdir, evbench, force=False, retry_failed=True, stream=None,
                 skipped=(), drivers=None):
    """Run every point not yet done, round by round (rounds.plan); returns the
    records of the campaign. `skipped` (points not run, with their reason)
    and `drivers` (what machine_drivers found) are recorded in the campaign
    directory. Under repeats: auto, rounds after the minimum run only while
    the leader is not ahead beyond noise (rounds.decision)."""
    campaign = Campaign(outdir)
    plan = rounds.plan(points, scan.order, scan.order_seed)
    campaign.create(scan, points, "local", skipped=skipped, drivers=drivers, order=rounds.describe(scan, plan))
    auto = scan.repeats_auto
    first = plan[:auto["min"]] if auto else plan
    progress = Progress(sum(len(r) for r in first), stream=stream)

    def on_signal(signum, frame):
        raise Interrupted()
    old_term = signal.signal(signal.SIGTERM, on_signal)
    try:
        ran = 0
        for number, members in enumerate(plan):
            if auto and number >= auto["min"]:
                stop, why = rounds.decision(outdir)
                if stop:
                    break
                progress.message("round %d of at most %d: %s" % (number + 1, auto["max"], why))
                progress.total += len(members)
            for point in members:
                _run_one(campaign, point, evbench, force, retry_failed, progress)
            ran = number + 1
        if auto:
            stop, why = rounds.decision(outdir)
            if not stop:
                why = "reached max %d rounds with %s" % (auto["max"], why) if ran == auto["max"] else why
            campaign.update_meta(rounds={"auto": True, "min": auto["min"], "max": auto["max"], "run": ran,
                                         "decided": stop, "why": why})
    except (KeyboardInterrupt, Interrupted):
        progress.message("interrupted: index rewritten from the points done; rerun to resume")
        collect.write_index(outdir)
        raise KeyboardInterrupt()
    finally:
        signal.signal(signal.SIGTERM, old_term)
        progress.finish()
    return collect.write_index(outdir)


def _run_one(campaign, point, evbench, force, retry_failed, progress):
    """One point of a round: skipped when done (or failed before, without
    retry_failed), else run, its failure said with the run's own reason."""
    if not force and campaign.is_done(point.id):
        figures = collect.figures(campaign.result(point.id))
        progress.advance(_last(point, figures, "done before"), ran=False)
        return
    if not force and not retry_failed and os.path.exists(campaign.status_json(point.id)):
        progress.advance("%s skipped (failed before)" % point.id, ran=False)
        return
    for stale in (campaign.result_json(point.id), campaign.status_json(point.id)):
        if os.path.exists(stale):
            os.remove(stale)
    progress.show("running %s %s" % (point.id, point.label()))
    status, code, doc = run_point(campaign, point, evbench)
    if status != "ok":
        why = (collect.read_json(campaign.status_json(point.id)) or {}).get("message") or ""
        why = "" if why == "exit %s" % code else why    # nothing beyond the exit code
        progress.message("%s %s: %s (exit %s)%s, see %s" % (
            point.id, point.label(), status, code, ": " + why if why else "",
            os.path.relpath(campaign.log(point.id))))
    progress.advance(_last(point, collect.figures(doc), status))
    progress.show()


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
    # this file is <repo>/scan/evbench_scan/run/runner.py
    repo = repo or os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
    return os.path.join(repo, "build", "bin", "evbench")
