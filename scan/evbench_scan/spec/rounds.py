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
rounds have run, and says which (campaign.json "rounds").
"""
import random

AUTO_MIN, AUTO_MAX = 3, 10          # repeats: auto
AUTO_KEYS = ("auto", "min", "max")
ORDERS = ("interleaved", "sequential")
ORDER_KEYS = ("mode", "seed")
DEFAULT_SEED = 1


def parse_repeats(path, loader, node, error):
    """`repeats:` -> (count of rounds expanded, {"min", "max"} or None).
    `error(node, message)` builds the ScanError naming the line."""
    value = loader.construct_object(node, deep=True)
    if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
        return value, None
    if value == "auto":
        return AUTO_MAX, {"min": AUTO_MIN, "max": AUTO_MAX}
    if not isinstance(value, dict):
        raise error(node, "must be a positive integer, auto or {auto: true, min: M, max: N}, got %r" % (value,))
    for key in value:
        if key not in AUTO_KEYS:
            raise error(node, "unknown key '%s' (known: %s)" % (key, ", ".join(AUTO_KEYS)))
    if value.get("auto", True) is not True:
        raise error(node, "auto must be true (for a fixed count write repeats: N)")
    lo, hi = value.get("min", AUTO_MIN), value.get("max", max(AUTO_MAX, value.get("min", AUTO_MIN)))
    for name, n in (("min", lo), ("max", hi)):
        if not isinstance(n, int) or isinstance(n, bool):
            raise error(node, "%s must be a whole number of rounds, got %r" % (name, n))
    if lo < 2:
        raise error(node, "min must be at least 2 (a single run measures no spread), got %d" % lo)
    if hi < lo:
        raise error(node, "max (%d) must be at least min (%d)" % (hi, lo))
    if hi > 100:
        raise error(node, "max must be at most 100 rounds, got %d" % hi)
    return hi, {"min": lo, "max": hi}


def parse_order(path, loader, node, error):
    """`order: interleaved | sequential | {mode: M, seed: S}` -> (mode, seed)."""
    value = loader.construct_object(node, deep=True)
    if isinstance(value, str):
        value = {"mode": value}
    if not isinstance(value, dict):
        raise error(node, "expected interleaved, sequential or {mode: interleaved, seed: N}")
    for key in value:
        if key not in ORDER_KEYS:
            raise error(node, "unknown key '%s' (known: %s)" % (key, ", ".join(ORDER_KEYS)))
    mode, seed = value.get("mode", "interleaved"), value.get("seed", DEFAULT_SEED)
    if mode not in ORDERS:
        raise error(node, "must be one of %s, got %r" % (", ".join(ORDERS), mode))
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise error(node, "seed must be an integer, got %r" % (seed,))
    return mode, seed


def check(scan, node, error):
    """repeats: auto decides between rounds, so it needs them."""
    if scan.repeats_auto and scan.order == "sequential":
        raise error(node, "repeats: auto runs rounds and decides after each: it needs order: interleaved")


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
    from ..report.answers import Context, headline
    from ..results import collect, hostload
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


def sentences(meta):
    """What the answer says about an adaptive campaign's rounds."""
    rounds = meta.get("rounds") or {}
    if not rounds.get("auto"):
        return []
    return ["repeats: auto ran %d round%s (min %d, max %d): %s." % (
        rounds["run"], "" if rounds["run"] == 1 else "s", rounds["min"], rounds["max"], rounds["why"])]


def order_line(meta):
    """'Order: interleaved rounds, each shuffled (seed 1).' for the report's head, or ''."""
    order = meta.get("order") or {}
    if order.get("mode") == "interleaved":
        return "Order: interleaved rounds (every configuration once per round, each round shuffled with " \
               "seed %s)." % order.get("seed")
    if order.get("mode") == "sequential":
        return "Order: sequential (the repeats of a configuration back to back)."
    return ""
