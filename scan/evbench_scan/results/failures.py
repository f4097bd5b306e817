"""Why a point failed, in the run's own words, and the configurations that
will certainly fail (docs/SCANS.md, "Failures").

evbench logs each error once, as an `evbench: ...` line on stderr; the first
one is the cause and later ones its echoes (a rank that died, the launcher
that saw it). Some `evbench:` lines are not errors: a fault injection says
what it does before doing it ("rank 5: fault injection at 0.500 s: kill
bu2"), so a killed BU's own notice must not be given as the reason: the
reason is what the others saw ("rank 8: rank 5 (BU 2) disappeared ...").
Without such a line, the result table's `# FAILED: ...` verdict, then the
runner's own note (a point killed at its time limit), then the exit code.
"""
NOTICES = ("fault injection at", "warning: ")
MAX_CHARS = 300


def _is_notice(text):
    return any(n in text for n in NOTICES)


def first_error(log_path):
    """The first error line of a point's log ('' when there is none)."""
    try:
        with open(log_path, errors="replace") as f:
            lines = [line.strip() for line in f]
    except OSError:
        return ""
    for line in lines:
        if line.startswith("evbench:") and not _is_notice(line):
            return line[:MAX_CHARS]
    for line in lines:
        if line.startswith("# FAILED:"):
            return line[2:MAX_CHARS + 2]
    for line in lines:
        if line.startswith("# evbench-scan:"):
            return line[2:MAX_CHARS + 2]
    return ""


def reason(status, exit_code, log_path, doc=None):
    """What a failed point's status says about it: the log's first error, the
    result's status, or the exit code."""
    text = first_error(log_path)
    if text:
        return text
    res = (doc or {}).get("results") or {}
    if res.get("status") not in (None, "ok"):
        return "results.status: %s" % res["status"]
    if status == "timeout":
        return "killed at its time limit"
    return "exit %s" % exit_code if exit_code is not None else status


def _seconds(value, schema):
    try:
        return schema.parse_duration(value) if schema is not None else float(value)
    except (TypeError, ValueError):
        return None


def certain_failures(scan, points):
    """Warnings for points that will fail whatever the machine: a `kill` fault
    (a rank killed on purpose) under on_failure: abort ends the run with exit
    1, so nothing is measured; `on_failure: exclude` is what lets the others
    go on. One line per distinct problem, naming the scan line and the points."""
    hits = {}
    for p in points:
        faults = p.setting("faults") or []
        if p.setting("on_failure") == "exclude" or not isinstance(faults, list):
            continue
        try:
            run = p.seconds("duration") + p.seconds("warmup")
        except (TypeError, ValueError):
            run = None
        for f in faults:
            if not isinstance(f, dict) or "kill" not in f:
                continue
            at = _seconds(f.get("at", 0), p.schema)
            if at is not None and run is not None and at >= run:
                continue   # after the run's end: never fires
            hits.setdefault((str(f["kill"]), str(p.setting("on_failure") or "abort")), []).append(p.id)
    out = []
    path, line = scan.mark_of("faults")
    where = "%s:%d" % (path, line) if line else path
    for (unit, policy), ids in hits.items():
        out.append("%s: faults: kill %s under on_failure: %s ends the run (exit 1): %d point%s will fail "
                   "(%s) — set `on_failure: exclude` to measure the recovery instead" % (
                       where, unit, policy, len(ids), "" if len(ids) == 1 else "s",
                       " ".join(ids[:5]) + (" ..." if len(ids) > 5 else "")))
    return out
