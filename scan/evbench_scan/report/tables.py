"""The report's tables as plain data (title, head, body, note) that both
templates render: variants, configurations (with the baseline, point by
point), faults (counts per repeat, never averaged), what did not run.

Gb/s figures are medians of the repeats, with the repeats' min–max beside
them; "per node" counts the node's own fragment (it never crosses a
network), "network only" leaves it out.
"""
from ..results import failures
from . import analysis
from .stats import Spread, Verdict

MAX_ROWS = 30


class Table:
    def __init__(self, title, head, body, note=""):
        self.title, self.head, self.body, self.note = title, head, body, note


def _g(spread):
    return spread.short() if spread else "-"


def _range(spread):
    if not spread:
        return "-"
    return "%.2f–%.2f" % (spread.lo, spread.hi)


def config_text(row, keys, fmt):
    return ", ".join("%s=%s" % (k, fmt(k, row.value(k))) for k in keys) or "(the only configuration)"


def variants(rows, vary, fmt):
    tops = analysis.ranked(list(analysis.best_by(rows, lambda r: r.variant).values()))
    others = [k for k in vary if k != "variant"]
    head = ["variant", "Gb/s per node", "repeats min–max", "runs", "network only Gb/s per node",
            "aggregate Gb/s", "vs the fastest", "best configuration", "points"]
    # The `name:` a scan gave a variant is what it is called; where that differs
    # from what evbench says ran (results.variant), a column says both.
    renamed = any(r.ran_as and r.ran_as != r.variant for r in tops)
    if renamed:
        head.insert(1, "ran as")
    # A simulated variant stands against the fastest of its own model and
    # platform, a measured one against the fastest measured.
    fastest, mixed = {}, len({r.simulated for r in tops}) > 1
    for r in tops:
        fastest.setdefault(r.simulated, r)
    body = []
    for r in tops:
        lead = fastest[r.simulated]
        vs = ("fastest %s" % ("simulated" if r.simulated else "measured") if mixed else "fastest") \
            if r is lead else Verdict(r.per_node, lead.per_node).text()
        line = [r.variant, _g(r.per_node), _range(r.per_node), str(r.per_node.n), _g(r.network),
                _g(r.aggregate), vs, config_text(r, others, fmt), " ".join(r.ids)]
        if renamed:
            line.insert(1, r.ran_as or "-")
        body.append(line)
    note = "Each variant at its best configuration%s." % (
        " over %s" % ", ".join(others) if others else "")
    if mixed:
        note += " A simulated variant is set only against the fastest simulated by the same model on the " \
                "same platform, a measured one against the fastest measured."
    return Table("Variants", head, body, note)


def configurations(rows, vary, fmt, base_rows=None):
    ranked = analysis.ranked(rows)
    matched = analysis.match(rows, base_rows) if base_rows else {}
    builders = any(r.builder for r in rows)
    rate = "events/s" if all(r.builder for r in rows) else "events/s (messages/s)" if builders else "messages/s"
    head = list(vary) + ["Gb/s per node", "repeats min–max", "runs", "over nodes min / max",
                         "network only", "aggregate Gb/s", rate]
    meps = any(r.meps for r in rows)   # fragment.events > 1: the MEP rate beside the event rate
    if meps:
        head.append("MEPs/s")
    if builders:
        head.append("p99 ms")
    if base_rows is not None:
        head += ["baseline Gb/s", "change vs baseline"]
    head.append("points")
    body = []
    for r in ranked[:MAX_ROWS]:
        line = [fmt(k, r.value(k)) for k in vary] + [
            _g(r.per_node), _range(r.per_node), str(r.per_node.n),
            "%s / %s" % (_g(r.node_min), _g(r.node_max)), _g(r.network), _g(r.aggregate),
            "%.0f" % r.eps.median if r.eps else "-"]
        if meps:
            line.append("%.0f" % r.meps.median if r.meps else "-")
        if builders:
            line.append(_g(r.p99) if r.builder else "-")
        if base_rows is not None:
            b = matched.get(id(r))
            line += [_g(b.per_node) if b else "-", Verdict(r.per_node, b.per_node).text() if b else "-"]
        line.append(" ".join(r.ids))
        body.append(line)
    note = "Fastest first%s. Gb/s per node: median over the repeats of the nodes' average; " \
           "\"over nodes\": the slowest and fastest node (medians of the repeats)." % (
               ", %d of %d shown" % (MAX_ROWS, len(rows)) if len(rows) > MAX_ROWS else "")
    if base_rows is not None:
        n = sum(1 for r in rows if matched.get(id(r)))
        note += " Baseline: only configurations equal in every key are compared (%d of %d matched)." % (
            n, len(rows))
    return Table("Configurations", head, body, note)


def _counts(values):
    """Counts per repeat, never averaged: '77' when all agree, else '77 / 78'."""
    vals = [v for v in values if v is not None]
    if not vals:
        return "-"
    texts = ["%d" % v if float(v).is_integer() else "%g" % v for v in vals]
    return texts[0] if len(set(texts)) == 1 else " / ".join(texts)


def _seconds(values):
    """Median (min–max) of the runs' times, or '-'."""
    spread = Spread(values)
    if not spread:
        return "-"
    if spread.n == 1:
        return "%.3f" % spread.median
    return "%.3f (%.3f–%.3f)" % (spread.median, spread.lo, spread.hi)


def faults(rows, vary, fmt):
    head = list(vary) + ["status", "runs", "peers lost", "detect s", "rebuild s", "recover s (90 %)", "recovered",
                         "reassigned", "incomplete (lost RU)", "lost", "late discarded",
                         "corrupt injected/detected", "aggregate Gb/s", "points"]
    body, entries = [], []
    for r in rows:
        fs = r.faults
        if not fs:
            continue
        col = lambda key: [f.get(key) for f in fs]
        entry = {"points": r.ids, "params": dict((k, r.value(k)) for k in vary), "repeats": len(fs),
                 "recovered": sum(1 for f in fs if f["recovered"])}
        for key in ("peers", "detect_s", "rebuild_s", "recover_s", "reassigned", "incomplete_lost_peer",
                    "lost", "late_discarded", "corrupt_injected", "corrupt_detected"):
            entry[key] = col(key)
        entries.append(entry)
        pairs = ["%s/%s" % (_counts([f["corrupt_injected"]]), _counts([f["corrupt_detected"]])) for f in fs]
        corrupt = pairs[0] if len(set(pairs)) == 1 else "; ".join(pairs)   # per run, never averaged
        body.append([fmt(k, r.value(k)) for k in vary] + [
            r.status, str(len(fs)), _counts(col("peers")), _seconds(col("detect_s")), _seconds(col("rebuild_s")),
            _seconds(col("recover_s")),
            "%d/%d" % (entry["recovered"], len(fs)) if any(col("peers")) else "-",
            _counts(col("reassigned")), _counts(col("incomplete_lost_peer")), _counts(col("lost")),
            _counts(col("late_discarded")), corrupt, _g(r.aggregate), " ".join(r.ids)])
    note = "Counts are per run (\"77 / 78\": two runs), never averaged; times are the median " \
           "(min–max) of the runs. Status data_source_lost: an RU was lost and its events stayed " \
           "incomplete (exit 3, docs/METRICS.md); those runs are in no other table."
    return Table("Faults", head, body, note), entries


def not_run(meta, recs, fmt):
    """Variants or points that did not run, with the reason evbench gave."""
    body, groups = [], {}
    for s in meta.get("skipped") or []:   # one row per variant (label) and reason, however many points
        values = dict(s.get("values") or {})
        name = values.pop("label", None) or s.get("variant") or ", ".join(
            "%s=%s" % (k, fmt(k, v)) for k, v in sorted(values.items()))
        groups.setdefault((name, s.get("reason", "")), []).append(s.get("id", "?"))
    for (name, reason), ids in groups.items():
        body.append(["%s (%d point%s)" % (name, len(ids), "" if len(ids) == 1 else "s") if len(ids) > 1 else name,
                     "not run here", reason])
    failed = {}
    for r in recs:   # failed points, one row per variant (label or set values), status and reason
        if r.status in ("ok", "pending"):
            continue
        values = dict((k, v) for k, v in r.values.items() if v is not None)
        name = values.pop("label", None) or ", ".join("%s=%s" % (k, fmt(k, v)) for k, v in sorted(values.items()))
        reason = r.message or failures.first_error(r.log_path) or "exit %s" % r.exit_code
        failed.setdefault((name or r.id, r.status), []).append((r.id, reason))
    for (name, status), points in failed.items():
        reasons = {reason for _, reason in points}
        body.append(["%s (%s)" % (name, " ".join(pid for pid, _ in points)), status, points[0][1] + (
            " (the first point's; the others' differ, see logs/)" if len(reasons) > 1 else "")])
    pending = sum(1 for r in recs if r.status == "pending")
    note = "%d point(s) not run yet (pending)." % pending if pending else ""
    return Table("Not run", ["variant or point", "status", "reason"], body, note)


def _source(load, flags):
    """Where a point's readings came from; the run queue is always the runner's."""
    source = load.get("source", "-")
    return source + " (run queue: runner)" if flags.kind == "runnable_others" and source != "runner" else source


def host_load(recs, flags, vary, fmt):
    """The points whose host load differed from the campaign's (hostload.LoadFlags)."""
    head = ["point", "round"] + list(vary) + [flags.words(), "other processes' CPU, CPUs",
                                              "load average start → end", "source"]
    body = []
    by_id = dict((r.id, r) for r in recs)
    num = lambda v: "-" if v is None else "%.2f" % v
    for pid in sorted(flags.flagged):
        r = by_id[pid]
        load = r.load or {}
        config = [fmt(k, r.variant) if k == "variant" else fmt(k, r.cfg(k)) for k in vary]
        body.append([pid, str(r.repeat + 1)] + config + [
            num(flags.flagged[pid]), num(load.get("other_cpus")),
            "%s → %s" % (num(load.get("loadavg_start")), num(load.get("loadavg_end"))), _source(load, flags)])
    own = " (the job scripts' readings include the point's own ranks on the batch host)" \
        if "job" in flags.sources else ""
    note = "%d of %d points measured; the campaign's median point had %.2f %s%s. A point more than %.2f " \
           "from that (half a CPU, or a quarter of the median when that is more) is listed here, and an " \
           "answer whose lead rests on such runs says so." % (
               len(flags.values), len(recs), flags.median, flags.words(), own, flags.bound)
    return Table("Host load", head, body, note)
