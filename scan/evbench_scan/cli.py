"""`evbench-scan`: check, run, submit, collect and report parameter scans."""
import argparse
import os
import sys

from . import version
from .results import collect, failures, hostload
from .run import jobshell, runner, sharedpaths, submit
from .spec import expand, schema, simspec
from .spec.grammar import ScanError, load_scan


def _log(text):
    sys.stderr.write("evbench-scan: %s\n" % text)


def _default_outdir(scan_path):
    return os.path.join("scans", os.path.splitext(os.path.basename(scan_path))[0])


def _load(args, skipped=None):
    """The scan, its valid points and the evbench binary that checked them.
    Keys, defaults and units come from that binary, so it must be there.
    Points dropped by skip_invalid are appended to `skipped`."""
    evbench = runner.find_evbench(args.evbench)
    if evbench is None:
        raise schema.EvbenchMissing(
            "evbench binary not found (looked at --evbench, $EVBENCH, %s and PATH): build it "
            "(cmake --build build) or point at one with --evbench PATH or EVBENCH=PATH" % runner.built_evbench())
    scan = load_scan(args.scan, schema.load(evbench))
    points = expand.validated_points(scan, evbench, log=_log, skipped=skipped)
    return scan, points, evbench


def cmd_check(args):
    skipped = []
    scan, points, evbench = _load(args, skipped)
    repeats = ", repeats: auto (%d to %d rounds)" % (scan.repeats_auto["min"], scan.repeats_auto["max"]) \
        if scan.repeats_auto else ", %d repeat(s) each" % scan.repeats if scan.repeats > 1 else ""
    print("# %s: %d point(s)%s" % (scan.name, len(points), repeats))
    drivers = runner.machine_drivers(evbench, points)
    for p in points:
        key = " ".join(p.wrapper or [])
        why = runner.cannot_run(p, drivers["wrapped"].get(key) if key else drivers["plain"])
        print("%s  %s%s%s" % (p.id, p.label() or "base config",
                              "  [simulated: %s]" % simspec.describe(p.sim) if p.sim else "",
                              "  [cannot run on this machine: %s]" % why if why else ""))
    for s in skipped:
        print("# skipped %s: %s" % (s["id"], s["reason"]))
    for warning in failures.certain_failures(scan, points):
        _log("warning: " + warning)
    return 0


def cmd_run(args):
    skipped = []
    scan, points, evbench = _load(args, skipped)
    outdir = args.output or _default_outdir(args.scan)
    drivers = runner.machine_drivers(evbench, points)
    points = runner.runnable_points(scan, points, drivers, skipped)
    if not points:
        _log("no point can run on this machine")
        return 2
    _log("%d point(s)%s -> %s%s" % (len(points), ", up to %d rounds (repeats: auto)" % scan.repeats
                                    if scan.repeats_auto else "", outdir,
                                    " (%d skipped, listed in campaign.json)" % len(skipped) if skipped else ""))
    for warning in failures.certain_failures(scan, points):
        _log("warning: " + warning)
    try:
        recs = runner.run_campaign(scan, points, outdir, evbench, force=args.force,
                                   skipped=sorted(skipped, key=lambda s: s["id"]), drivers=drivers)
    except KeyboardInterrupt:
        return 130
    _log("%s; index: %s" % (collect.summary(recs), os.path.join(outdir, "index.csv")))
    return 0 if all(r.status == "ok" for r in recs) else 1


def cmd_submit(args):
    skipped = []
    scan, points, evbench = _load(args, skipped)
    simulated = [p.id for p in points if p.sim]
    if simulated:   # before anything is written, at the line that chose the model
        path, mark = scan.where("sim.model")
        raise ScanError(path, mark, "sim.model", "%s (simulated points: %s%s)" % (
            simspec.LOCAL_ONLY, " ".join(simulated[:5]), " ..." if len(simulated) > 5 else ""))
    outdir = args.output or _default_outdir(args.scan)
    evbench = scan.cluster.get("evbench") or evbench
    opts = {"account": args.account, "partition": args.partition, "queue": args.queue,
            "nodelist": args.nodelist, "rankfile": args.rankfile, "launcher": args.launcher}
    if args.scheduler == "pbs" and opts["launcher"] and opts["launcher"].startswith("srun"):
        _log("launcher %s needs Slurm; PBS jobs use mpirun or mpirun-env" % opts["launcher"])
        return 2
    local = [] if scan.cluster.get("same_host") else sharedpaths.problems([
        ("the campaign directory", outdir), ("evbench", evbench), ("--nodelist", args.nodelist),
        ("--rankfile", args.rankfile)])
    for problem in local:
        _log(("warning: " if args.dry_run else "") + problem)
    if local and not args.dry_run:
        _log("nothing submitted")
        return 1
    for warning in failures.certain_failures(scan, points):
        _log("warning: " + warning)
    if scan.repeats_auto:
        _log("repeats: auto: a job cannot decide between rounds, so the job scripts run all %d rounds (max)"
             % scan.repeats)
    scripts = submit.write_jobs(scan, points, outdir, args.scheduler, os.path.abspath(evbench)
                                if os.sep in evbench else evbench, opts, skipped=skipped)
    for script in scripts:
        print(("would submit: %s" if args.dry_run else "job script: %s") %
              " ".join(submit.submit_command(args.scheduler, script)))
    if args.dry_run:
        return 0
    ids = submit.submit(args.scheduler, scripts, outdir)
    print("submitted: %s" % " ".join(ids))
    print("afterwards: evbench-scan collect %s" % outdir)
    if args.wait:
        if not submit.wait(args.scheduler, ids, args.wait):
            _log("jobs still running after %d s" % args.wait)
            return 1
        recs = collect.write_index(outdir)
        _log(collect.summary(recs))
    return 0


def cmd_collect(args):
    recs = collect.write_index(args.dir)
    print("%s: %s; index: %s" % (args.dir, collect.summary(recs), os.path.join(args.dir, "index.csv")))
    return 0 if all(r.status == "ok" for r in recs) else 1


def cmd_import(args):
    from .results.campaign import ImportProblem, import_results
    evbench = runner.find_evbench(args.evbench)
    loaded = None
    if evbench:   # only to write sizes and durations with units; not needed
        try:
            loaded = schema.load(evbench)
        except schema.EvbenchMissing:
            loaded = None
    try:
        new, duplicates = import_results(args.dir, args.results, name=args.name, schema=loaded)
    except ImportProblem as err:
        print("evbench-scan import: %s (nothing imported)" % err, file=sys.stderr)
        return 2
    for path in duplicates:
        _log("%s: already imported, skipped" % path)
    recs = collect.write_index(args.dir)
    from .results.campaign import Campaign
    meta = Campaign(args.dir).meta()
    print("%s: imported %d result(s)%s; axes: %s; %s; index: %s" % (
        args.dir, len(new), " (%s)" % " ".join(new) if new else "", ", ".join(meta["axes"]) or "(none: "
        "the documents have the same configuration)", collect.summary(recs), os.path.join(args.dir, "index.csv")))
    return 0


def cmd_report(args):
    from .report import report   # matplotlib only when reporting
    out = args.output or os.path.join(args.dir, "report")
    from .report.references import ReferenceError
    evbench = runner.find_evbench(args.evbench) if args.platform else None
    if args.platform and not os.path.isfile(args.platform):
        print("evbench-scan report: --platform %s: no such file" % args.platform, file=sys.stderr)
        return 2
    try:
        html, md = report.write_report(args.dir, out, baseline=args.baseline,
                                       reference_files=args.reference or (),
                                       platform=args.platform, evbench=evbench, load_bound=args.load_bound)
    except ReferenceError as e:
        print("evbench-scan report: --reference %s" % e, file=sys.stderr)
        return 2
    except (report.ReportError, FileNotFoundError) as e:
        print("evbench-scan report: %s" % e, file=sys.stderr)
        return 1
    print("report: %s\n        %s" % (html, md))
    return 0


def parser():
    top = argparse.ArgumentParser(prog="evbench-scan", description=__doc__)
    top.add_argument("--version", action="version", version="evbench-scan " + version.version())
    sub = top.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    def scan_command(name, help_text):
        p = sub.add_parser(name, help=help_text)
        p.add_argument("scan", help="scan file (YAML)")
        p.add_argument("--evbench", help="evbench binary (default: $EVBENCH, build/bin/evbench, PATH)")
        return p

    p = scan_command("check", "expand and validate a scan, list its points")
    p.set_defaults(func=cmd_check)
    p = scan_command("run", "run every point locally (resumable)")
    p.add_argument("-o", "--output", help="campaign directory (default scans/NAME)")
    p.add_argument("--force", action="store_true", help="rerun points that are already done")
    p.set_defaults(func=cmd_run)
    p = scan_command("submit", "write job scripts (one per node count) and submit them")
    p.add_argument("--scheduler", choices=("slurm", "pbs"), required=True)
    p.add_argument("--dry-run", action="store_true", help="write the scripts, do not submit")
    p.add_argument("--account")
    p.add_argument("--partition", help="Slurm partition")
    p.add_argument("--queue", help="PBS queue")
    place = p.add_mutually_exclusive_group()
    place.add_argument("--nodelist", help="file with one host per line: campaign node i runs on line i")
    place.add_argument("--rankfile", help="rank placement file (srun: host per rank; mpirun: Open MPI rankfile)")
    p.add_argument("--launcher", choices=sorted(jobshell.LAUNCH), help="default: srun-env (slurm), mpirun (pbs)")
    p.add_argument("--wait", type=int, metavar="SECONDS", help="wait for the jobs, then collect")
    p.add_argument("-o", "--output", help="campaign directory (default scans/NAME)")
    p.set_defaults(func=cmd_submit)
    p = sub.add_parser("collect", help="rebuild DIR/index.csv from the results in DIR")
    p.add_argument("dir")
    p.set_defaults(func=cmd_collect)
    p = sub.add_parser("import", help="make (or extend) campaign DIR from `evbench run --json` documents")
    p.add_argument("dir", help="campaign directory (created if missing)")
    p.add_argument("results", nargs="+", metavar="RESULT.json", help="`evbench run --json` documents")
    p.add_argument("--name", help="campaign name (default: the directory's name)")
    p.add_argument("--evbench", help="evbench binary, used only to write sizes and durations with units "
                   "(default: $EVBENCH, build/bin/evbench, PATH)")
    p.set_defaults(func=cmd_import)
    p = sub.add_parser("report", help="HTML + Markdown report with plots")
    p.add_argument("dir")
    p.add_argument("--baseline", help="earlier campaign directory to compare against")
    p.add_argument("--reference", action="append", metavar="FILE.json",
                   help="bench/reference.sh -j result to show as a table (repeatable)")
    p.add_argument("--platform", metavar="FILE",
                   help="platform file (configs/platforms/): put `evbench topo`'s per-shift prediction, "
                        "and the credit model's (`evbench sim --model credit`, unless the campaign "
                        "simulated the scan itself), beside a one-to-one shift scan (needs the evbench binary)")
    p.add_argument("--evbench", help="evbench binary for --platform (default: $EVBENCH, build/bin/evbench, PATH)")
    p.add_argument("--load-bound", type=float, default=hostload.BOUND_CPUS, metavar="CPUS",
                   help="flag points whose other processes' CPU use differs from the campaign's median "
                        "by more than this many CPUs (default %(default)s)")
    p.add_argument("-o", "--output", help="report directory (default DIR/report)")
    p.set_defaults(func=cmd_report)
    return top


def main(argv=None):
    args = parser().parse_args(argv)
    try:
        return args.func(args)
    except ScanError as err:
        sys.stderr.write("%s\n" % err)
        return 2
    except schema.EvbenchMissing as err:
        _log(str(err))
        return 2
    except (OSError, ValueError, RuntimeError) as err:
        _log(str(err))
        return 1
