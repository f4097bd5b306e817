"""The report's opening answer: one short paragraph per question the
campaign varies (which variant, which credits x parallel, how it scales with
nodes, where one variant overtakes another as fragments grow, which value of
a categorical key), each figure a median of repeats and each lead said only
as far as the repeats' spread allows (stats.lead_sentence).
"""
from . import analysis, tables
from .stats import Verdict, lead_sentence


def variants(rows, vary, fmt):
    if "variant" not in vary:
        return []
    tops = analysis.ranked(list(analysis.best_by(rows, lambda r: r.variant).values()))
    others = [k for k in vary if k != "variant"]
    where = " (each at its best %s)" % ", ".join(others) if others else ""
    out = ["Fastest variant%s: %s, %s. %s" % (
        where, tops[0].variant, tops[0].per_node.text(),
        lead_sentence(tops[0].variant, tops[0].per_node, tops[1].variant, tops[1].per_node))]
    if len(tops) > 2:
        out.append("Ranking (Gb/s per node, medians): %s." % "; ".join(
            "%s %s" % (r.variant, r.per_node.short()) for r in tops))
    if "fragment.size" in vary:
        out.append(crossovers(rows, fmt))
    return [s for s in out if s]


def crossovers(rows, fmt):
    """Which variant leads at each fragment size, and where the lead changes hands."""
    sizes = sorted({r.value("fragment.size") for r in rows})
    leaders = []
    for size in sizes:
        at = analysis.ranked(list(analysis.best_by([r for r in rows if r.value("fragment.size") == size],
                                                   lambda r: r.variant).values()))
        if len(at) < 2:
            continue
        noise = not Verdict(at[0].per_node, at[1].per_node).beyond_noise
        leaders.append((size, at[0].variant, at[1].variant, noise))
    if not leaders:
        return ""
    names = set(lead for _, lead, _, _ in leaders)
    if all(n for _, _, _, n in leaders):
        return "No variant leads beyond noise at any fragment size: %s." % "; ".join(
            "%s: %s and %s" % (fmt("fragment.size", s), lead, second) for s, lead, second, _ in leaders)
    if len(names) == 1:
        text = "%s leads at every fragment size measured (%s)" % (
            leaders[0][1], ", ".join(fmt("fragment.size", s) for s, _, _, _ in leaders))
    else:
        parts = []
        for i, (size, lead, _, _) in enumerate(leaders):
            if not i or lead != leaders[i - 1][1]:
                parts.append("%s leads from %s" % (lead, fmt("fragment.size", size)))
        text = "By fragment size: " + "; ".join(parts)
    noisy = ["%s (%s vs %s)" % (fmt("fragment.size", s), lead, second) for s, lead, second, n in leaders if n]
    if noisy:
        text += "; the lead is within noise at %s" % ", ".join(noisy)
    return text + "."


def tuning(rows, vary, fmt):
    if "credits" not in vary or "parallel" not in vary:
        return []
    out = []
    groups = {}
    for r in rows:
        groups.setdefault(r.variant, []).append(r)
    for name, members in sorted(groups.items()):
        top = analysis.best(members)
        within = sum(1 for r in members if r.per_node.median >= 0.9 * top.per_node.median)
        out.append("%s: best at credits=%s, parallel=%s (%s); %d of %d configurations are "
                   "within 90 %% of it." % (name, top.value("credits"), top.value("parallel"),
                                             top.per_node.text(), within, len(members)))
    return out


def numeric_axis(rows, vary, k, fmt):
    """How the per-node rate moves along a numeric key, per variant."""
    if k in ("credits", "parallel") and "credits" in vary and "parallel" in vary:
        return []
    out, trends = [], []
    groups = {}
    for r in rows:
        groups.setdefault(r.variant, []).append(r)
    for name, members in sorted(groups.items()):
        by_x = analysis.best_by(members, lambda r: r.value(k))
        xs = sorted(by_x)
        if len(xs) < 2:
            continue
        first, last = by_x[xs[0]], by_x[xs[-1]]
        top = analysis.best(list(by_x.values()))
        v = Verdict(last.per_node, first.per_node)
        trends.append((name, v, xs))
        out.append("%s, %s from %s to %s: %s → %s Gb/s per node (%s); best at %s=%s." % (
            name, k, fmt(k, xs[0]), fmt(k, xs[-1]), first.per_node.short(), last.per_node.short(),
            v.text(), k, fmt(k, top.value(k))))
    if len(out) > 3:   # many variants: one sentence instead of one each
        return [trend_summary(k, trends, fmt)]
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


def categorical_axis(rows, vary, k, fmt):
    if k == "variant":
        return []
    tops = analysis.ranked(list(analysis.best_by(rows, lambda r: fmt(k, r.value(k))).values()))
    if len(tops) < 2:
        return []
    a, b = tops[0], tops[1]
    return ["%s: %s" % (k, lead_sentence("%s=%s" % (k, fmt(k, a.value(k))), a.per_node,
                                          "%s=%s" % (k, fmt(k, b.value(k))), b.per_node))]


def not_run(missing):
    """One sentence naming what did not run (the Not run table has the reasons)."""
    here = [row[0] for row in missing if row[1] == "not run here"]
    failed = [row[0].split(" (")[0] for row in missing if row[1] != "not run here"]
    parts = []
    if here:
        parts.append("not run on this machine: %s" % ", ".join(x.split(" (")[0] for x in here))
    if failed:
        parts.append("failed: %s" % ", ".join(sorted(set(failed))))
    return ["Also in the campaign but not compared — %s (reasons under Not run)." % "; ".join(parts)] \
        if parts else []


def answer(rows, vary, fmt, scans=(), missing=()):
    """Sentences, in the order a reader asks. A campaign with measured and
    simulated points is answered per kind, measured first, each sentence of a
    simulated group starting "Simulated" (with its model and platform when
    several simulated): a simulation is never ranked against a measurement."""
    kinds = analysis.kinds(rows)
    if len(kinds) < 2:
        return answer_one(rows, vary, fmt, scans, missing)
    simulated = ["%s model on %s" % sim for sim, _ in kinds if sim]
    out = ["Measured and simulated (%s) results are answered apart, never ranked against each other; "
           "what a simulation found starts \"Simulated\"." % "; ".join(simulated)]
    for sim, members in kinds:
        prefix = "" if not sim else "Simulated: " if len(simulated) == 1 else \
            "Simulated (%s model on %s): " % sim
        own = [scan for scan in scans if scan.row in members]
        out += [prefix + text for text in answer_one(members, analysis.varying(members, vary), fmt, own,
                                                     () if sim else missing)]
    return out


def answer_one(rows, vary, fmt, scans=(), missing=()):
    """The sentences for rows of one kind (all measured, or one model on one platform)."""
    out = variants(rows, vary, fmt) + not_run(missing)
    if not out and rows:
        top = analysis.best(rows)
        others = [k for k in vary if k != "variant"]
        out.append("%s: best %s%s." % (
            top.variant, top.per_node.text(),
            " at %s" % tables.config_text(top, others, fmt) if others else ""))
    out += tuning(rows, vary, fmt)
    for k in vary:
        if k == "variant":
            continue
        if analysis.is_numeric(rows, k):
            out += numeric_axis(rows, vary, k, fmt)
        else:
            out += categorical_axis(rows, vary, k, fmt)
    for scan in scans:
        out += scan.sentences()
    return out
