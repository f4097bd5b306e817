"""The report's opening answer: one short paragraph per question the
campaign varies (which variant, which credits x parallel, how it scales with
nodes, where one variant overtakes another as fragments grow, which value of
a categorical key), each figure a median of repeats. Every statement of a
winner or a best cell is a noise.Call, so the same rule decides each one
(ranges overlap, a single run, or a lead that rests on load-flagged runs:
"within noise"); summary.json carries each answer's verdict.
"""
from . import analysis, tables
from .noise import ALONE, LOAD, WITHIN, Call, edge
from .stats import Verdict, ranges, runs


class Answer:
    """One sentence of the answer and, where it names a winner, its calls."""

    def __init__(self, text, calls=(), **facts):
        self.text, self.calls, self.facts = text, list(calls), facts

    def as_dict(self):
        out = {"text": self.text}
        if len(self.calls) == 1:
            out.update(self.calls[0].as_dict())
        elif self.calls:
            out["calls"] = [c.as_dict() for c in self.calls]
        out.update(self.facts)
        return out


class Context:
    """What every question needs: rows, varying keys, the label formatter,
    the load flags and the key table (for the edges of numeric keys)."""

    def __init__(self, rows, vary, fmt, flags=None, schema=None):
        self.rows, self.vary, self.fmt, self.flags, self.schema = rows, vary, fmt, flags, schema

    def config(self, row, keys):
        return ", ".join("%s=%s" % (k, self.fmt(k, row.value(k))) for k in keys)


def _ranked(rows, label_of):
    return analysis.ranked(list(analysis.best_by(rows, label_of).values()))


def variants(ctx):
    if "variant" not in ctx.vary:
        return []
    tops = _ranked(ctx.rows, lambda r: r.variant)
    others = [k for k in ctx.vary if k != "variant"]
    where = " (each at its best %s)" % ", ".join(others) if others else ""
    call = Call("fastest variant", tops[0], tops[1], tops[0].variant, tops[1].variant, ctx.flags)
    out = [Answer("Fastest variant%s: %s, %s. %s" % (where, tops[0].variant, tops[0].per_node.text(),
                                                    call.sentence()), [call])]
    if len(tops) > 2:
        out.append(Answer("Ranking (Gb/s per node, medians): %s." % "; ".join(
            "%s %s" % (r.variant, r.per_node.short()) for r in tops)))
    if "fragment.size" in ctx.vary:
        out += crossovers(ctx)
    return out


def crossovers(ctx):
    """Which variant leads at each fragment size, and where the lead changes hands."""
    fmt = ctx.fmt
    sizes = sorted({r.value("fragment.size") for r in ctx.rows})
    leaders = []
    for size in sizes:
        at = _ranked([r for r in ctx.rows if r.value("fragment.size") == size], lambda r: r.variant)
        if len(at) < 2:
            continue
        call = Call("leader at fragment.size=%s" % fmt("fragment.size", size), at[0], at[1],
                    at[0].variant, at[1].variant, ctx.flags)
        leaders.append((size, call))
    if not leaders:
        return []
    calls = [c for _, c in leaders]
    if not any(c.decided for c in calls):
        return [Answer("No variant leads beyond noise at any fragment size: %s." % "; ".join(
            "%s: %s and %s" % (fmt("fragment.size", s), c.leader_name, c.runner_name) for s, c in leaders), calls)]
    names = set(c.leader_name for c in calls)
    if len(names) == 1:
        text = "%s leads at every fragment size measured (%s)" % (
            calls[0].leader_name, ", ".join(fmt("fragment.size", s) for s, _ in leaders))
    else:
        parts = []
        for i, (size, c) in enumerate(leaders):
            if not i or c.leader_name != leaders[i - 1][1].leader_name:
                parts.append("%s leads from %s" % (c.leader_name, fmt("fragment.size", size)))
        text = "By fragment size: " + "; ".join(parts)
    noisy = ["%s (%s vs %s%s)" % (fmt("fragment.size", s), c.leader_name, c.runner_name,
                                 ": load may have decided it" if c.kind == LOAD else "")
             for s, c in leaders if not c.decided]
    if noisy:
        text += "; the lead is within noise at %s" % ", ".join(noisy)
    return [Answer(text + ".", calls)]


def tuning(ctx):
    if "credits" not in ctx.vary or "parallel" not in ctx.vary:
        return []
    out = []
    groups = {}
    for r in ctx.rows:
        groups.setdefault(r.variant, []).append(r)
    others = [k for k in ctx.vary if k not in ("variant", "credits", "parallel")]
    for name, members in sorted(groups.items()):
        ranked = analysis.ranked(members)
        top = ranked[0]
        cell = lambda r: ctx.config(r, ["credits", "parallel"] + others)
        call = Call("best credits x parallel (%s)" % name, top, ranked[1] if len(ranked) > 1 else None,
                    cell(top), cell(ranked[1]) if len(ranked) > 1 else None, ctx.flags)
        close = [r for r in ranked[1:] if not Call("", top, r, "", "", ctx.flags).decided]
        within90 = sum(1 for r in members if r.per_node.median >= 0.9 * top.per_node.median)
        if call.decided:
            text = "%s: best at %s, %s. %s" % (name, cell(top), top.per_node.text(), call.sentence())
        elif call.kind == ALONE:
            text = "%s: one credits × parallel cell measured, %s at %s." % (name, cell(top), top.per_node.text())
        else:
            why = "the runner-up %s at %s: %s overlap, %s" % (
                cell(ranked[1]), ranked[1].per_node.short(), ranges(top.per_node, ranked[1].per_node),
                runs(top.per_node, ranked[1].per_node)) if call.kind == WITHIN else call.sentence()
            text = "%s: no credits × parallel cell leads beyond noise — the highest median, %s at %s, is " \
                   "within noise of %d of the %d other cells (%s)." % (
                       name, cell(top), top.per_node.text(), len(close), len(ranked) - 1, why.rstrip("."))
        text += " %d of %d configurations %s within 90 %% of the highest median." % (
            within90, len(members), "is" if within90 == 1 else "are")
        widen = [edge([r.value(k) for r in members], top.value(k), k, ctx.fmt, ctx.schema)
                 for k in ("credits", "parallel")]
        widen = [w for w in widen if w]
        if widen:
            text += " Best at the edge of the scanned range: %s." % " and ".join(widen)
        out.append(Answer(text, [call], within_noise_of_best=[r.ids for r in close], edge=widen))
    return out


def numeric_axis(ctx, k):
    """How the per-node rate moves along a numeric key, per variant."""
    if k in ("credits", "parallel") and "credits" in ctx.vary and "parallel" in ctx.vary:
        return []
    fmt = ctx.fmt
    out, trends = [], []
    groups = {}
    for r in ctx.rows:
        groups.setdefault(r.variant, []).append(r)
    for name, members in sorted(groups.items()):
        by_x = analysis.best_by(members, lambda r: r.value(k))
        xs = sorted(by_x)
        if len(xs) < 2:
            continue
        first, last = by_x[xs[0]], by_x[xs[-1]]
        ranked = analysis.ranked(list(by_x.values()))
        top = ranked[0]
        v = Verdict(last.per_node, first.per_node)
        trends.append((name, v, xs))
        call = Call("best %s (%s)" % (k, name), top, ranked[1], "%s=%s" % (k, fmt(k, top.value(k))),
                    "%s=%s" % (k, fmt(k, ranked[1].value(k))), ctx.flags)
        best = "best at %s=%s" % (k, fmt(k, top.value(k))) if call.decided else \
            "highest median at %s=%s, within noise of %s=%s%s" % (
                k, fmt(k, top.value(k)), k, fmt(k, ranked[1].value(k)),
                " (load may have decided it)" if call.kind == LOAD else "")
        widen = "" if k == "nodes" else edge(xs, top.value(k), k, fmt, ctx.schema)
        text = "%s, %s from %s to %s: %s → %s Gb/s per node (%s); %s%s." % (
            name, k, fmt(k, xs[0]), fmt(k, xs[-1]), first.per_node.short(), last.per_node.short(),
            v.text(), best, "; best at the edge of the scanned range: " + widen if widen else "")
        out.append(Answer(text, [call], edge=[widen] if widen else []))
    if len(out) > 3:   # many variants: one sentence instead of one each
        return [Answer(trend_summary(k, trends, fmt), [c for a in out for c in a.calls])]
    return out


def trend_summary(k, trends, fmt):
    """'fragment.size 64KiB → 512KiB: higher beyond noise for 9 of 14 variants (largest psm2, +346 %); ...'."""
    up = [(n, v) for n, v, _ in trends if v.kind == "ahead"]
    down = [(n, v) for n, v, _ in trends if v.kind == "behind"]
    flat = [n for n, v, _ in trends if v.kind not in ("ahead", "behind")]
    lo = min(x for _, _, xs in trends for x in xs[:1])
    hi = max(x for _, _, xs in trends for x in xs[-1:])
    parts = []
    if up:
        best = max(up, key=lambda nv: nv[1].pct)
        parts.append("higher beyond noise for %d of %d variants (most: %s, %+.0f %%)" % (
            len(up), len(trends), best[0], best[1].pct))
    if down:
        parts.append("lower for %s" % ", ".join("%s (%+.0f %%)" % (n, v.pct) for n, v in down))
    if flat:
        parts.append("within noise or a single run for %s" % ", ".join(flat))
    return "%s from %s to %s, per-node rate: %s." % (k, fmt(k, lo), fmt(k, hi), "; ".join(parts))


def categorical_axis(ctx, k):
    if k == "variant":
        return []
    tops = _ranked(ctx.rows, lambda r: ctx.fmt(k, r.value(k)))
    if len(tops) < 2:
        return []
    a, b = tops[0], tops[1]
    call = Call("best %s" % k, a, b, "%s=%s" % (k, ctx.fmt(k, a.value(k))), "%s=%s" % (k, ctx.fmt(k, b.value(k))),
                ctx.flags)
    return [Answer("%s: %s" % (k, call.sentence()), [call])]


def best_configuration(ctx):
    """For a campaign without a variant or tuning question: its best configuration, by the rule."""
    ranked = analysis.ranked(ctx.rows)
    top = ranked[0]
    others = [k for k in ctx.vary if k != "variant"]
    where = " at %s" % tables.config_text(top, others, ctx.fmt) if others else ""
    if len(ranked) < 2 or not others:
        return [Answer("%s: best %s%s." % (top.variant, top.per_node.text(), where))]
    call = Call("best configuration", top, ranked[1], ctx.config(top, others), ctx.config(ranked[1], others),
                ctx.flags)
    head = "%s: best %s%s." % (top.variant, top.per_node.text(), where) if call.decided else \
        "%s: highest median %s%s, but not beyond noise." % (top.variant, top.per_node.text(), where)
    return [Answer("%s %s" % (head, call.sentence()), [call])]


def headline(ctx):
    """The campaign's first question as a Call: the fastest variant against the
    next (each at its best), or, with one variant, the best configuration
    against the next; None when there is nothing to compare."""
    if "variant" in ctx.vary:
        tops = _ranked(ctx.rows, lambda r: r.variant)
        names = lambda r: r.variant
    else:
        tops = analysis.ranked(ctx.rows)
        keys = [k for k in ctx.vary if k != "variant"]
        names = lambda r: ctx.config(r, keys) or r.variant
    if len(tops) < 2:
        return None
    return Call("headline", tops[0], tops[1], names(tops[0]), names(tops[1]), ctx.flags)


def not_run(missing):
    """One sentence naming what did not run (the Not run table has the reasons)."""
    here = [row[0] for row in missing if row[1] == "not run here"]
    failed = [row[0].split(" (")[0] for row in missing if row[1] != "not run here"]
    parts = []
    if here:
        parts.append("not run on this machine: %s" % ", ".join(x.split(" (")[0] for x in here))
    if failed:
        parts.append("failed: %s" % ", ".join(sorted(set(failed))))
    return [Answer("Also in the campaign but not compared — %s (reasons under Not run)." % "; ".join(parts))] \
        if parts else []


def answer(rows, vary, fmt, scans=(), missing=(), flags=None, schema=None):
    """Answers, in the order a reader asks (Answer objects: .text, .as_dict()).
    A campaign with measured and simulated points is answered per kind,
    measured first, each sentence of a simulated group starting "Simulated"
    (with its model and platform when several simulated): a simulation is
    never ranked against a measurement."""
    kinds = analysis.kinds(rows)
    if len(kinds) < 2:
        return answer_one(rows, vary, fmt, scans, missing, flags, schema)
    simulated = ["%s model on %s" % sim for sim, _ in kinds if sim]
    out = [Answer("Measured and simulated (%s) results are answered apart, never ranked against each other; "
                  "what a simulation found starts \"Simulated\"." % "; ".join(simulated))]
    for sim, members in kinds:
        prefix = "" if not sim else "Simulated: " if len(simulated) == 1 else \
            "Simulated (%s model on %s): " % sim
        own = [scan for scan in scans if scan.row in members]
        for said in answer_one(members, analysis.varying(members, vary), fmt, own, () if sim else missing,
                               flags, schema):
            said.text = prefix + said.text
            out.append(said)
    return out


def answer_one(rows, vary, fmt, scans=(), missing=(), flags=None, schema=None):
    """The answers for rows of one kind (all measured, or one model on one platform)."""
    ctx = Context(rows, vary, fmt, flags, schema)
    out = variants(ctx) + not_run(missing)
    surface = tuning(ctx)
    # The best configuration, unless another answer names it: the variant
    # question, the tuning surface, or the one axis that varies.
    if not out and not surface and rows and len([k for k in vary if k != "variant"]) != 1:
        out += best_configuration(ctx)
    out += surface
    for k in vary:
        if k == "variant":
            continue
        if analysis.is_numeric(rows, k):
            out += numeric_axis(ctx, k)
        else:
            out += categorical_axis(ctx, k)
    for scan in scans:
        out += [Answer(s) for s in scan.sentences()]
    return out
