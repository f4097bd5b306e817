"""In which order a campaign's points run, and how many rounds it takes
(docs/SCANS.md, "Order and rounds").

A round is every configuration once: round r holds the points with repeat
r. By default (`order: interleaved`) the rounds run one after another, each
in its own shuffled order (a random.Random seeded with the campaign's seed
and the round's number), so a load that comes and goes on a shared machine
hits every configuration alike instead of all repeats of one.
`order: sequential` keeps the expansion order (a configuration's repeats
back to back). Point ids and their numbering do not change with the order.

`repeats: auto` (or `{auto: true, min: M, max: N}`) runs at least M rounds,
then one round at a time until the campaign's leading configuration is ahead
of its runner-up beyond noise (noise.Call, the rule the report uses) or N
rounds have run, and says which (campaign.json "rounds"). The scan file's
`repeats:` and `order:` keys are read by spec/rounds.py.
"""
import random


def plan(points, mode, seed):
    """The rounds to run: [[point, ...], ...] (sequential: one round, in order)."""
    if mode == "sequential":
        return [list(points)]
    by_round = {}
    for p in points:
        by_round.setdefault(p.repeat, []).append(p)
    out = []
    for r in sorted(by_round):
        members = sorted(by_round[r], key=lambda p: p.index)
        random.Random("%d/%d" % (seed, r)).shuffle(members)
        out.append(members)
    return out


def describe(scan, plan_rounds):
    """campaign.json "order": the mode, the seed and the planned sequence."""
    return {"mode": scan.order, "seed": scan.order_seed,
            "run_order": [p.id for members in plan_rounds for p in members]}


def decision(root):
    """After a round of repeats: auto: (stop?, why) by the report's rule on
    what the campaign holds now."""
    from ..report import analysis
    from ..results import collect, hostload
    from ..report.answers import Context, headline
    meta_axes = collect.Campaign(root).meta().get("axes") or ()
    recs = collect.records(root)
    rows = analysis.rows_of(recs)
    if not rows:
        return False, "no configuration has finished yet"
    rows = analysis.kinds(rows)[0][1]   # the measured ones (simulated points are never ranked with them)
    fmt = lambda key, value: collect.cell(value)
    call = headline(Context(rows, analysis.varying(rows, meta_axes), fmt, hostload.LoadFlags(recs)))
    if call is None:
        return True, "one configuration: nothing to decide between"
    if call.decided:
        return True, "%s leads %s beyond noise" % (call.leader_name, call.runner_name)
    return False, "%s and %s: %s" % (call.leader_name, call.runner_name, call.kind)
