"""The one rule for every statement of a winner (docs/SCANS.md, "Repeats
and noise"): a leader is called only where its range and the runner-up's do
not overlap (stats.Verdict), and only if that still holds without the runs
whose host load was flagged (hostload.LoadFlags): otherwise load may have
decided it. Every answer that names a best variant, cell or value asks a
`Call`, and summary.json carries the call's verdict beside the sentence.

Also here: whether a best value sits on the edge of the range a numeric axis
scanned (a wider scan may find better).
"""
from .stats import Spread, Verdict, ranges, runs

UNIT = "Gb/s per node"

# The verdict words summary.json uses, per answer.
BEYOND = "beyond noise"        # the leader's range is clear of the runner-up's
WITHIN = "within noise"        # the ranges overlap: no winner
ONE_RUN = "one run"            # a side has a single run: no spread measured, no winner
LOAD = "load may have decided" # clear only with the load-flagged runs: no winner
ALONE = "no rival"             # nothing to compare with


def _quiet(row, flags):
    return Spread([m.figures["per_node_avg_gbps"] for m in row.members if m.id not in flags])


class Call:
    """The leader of one question against its runner-up (analysis rows, named
    `leader_name` and `runner_name`), judged by the noise rule on all their
    runs and again without the load-flagged ones."""

    def __init__(self, question, leader, runner_up, leader_name, runner_name=None, flags=None):
        self.question = question
        self.leader, self.runner_up = leader, runner_up
        self.leader_name, self.runner_name = leader_name, runner_name
        self.verdict = Verdict(leader.per_node, runner_up.per_node) if runner_up is not None else None
        flags = flags if flags is not None else ()
        members = leader.members + (runner_up.members if runner_up is not None else [])
        self.loaded = [m.id for m in members if m.id in flags]
        self.quiet = None
        if self.loaded and runner_up is not None:
            self.quiet = Verdict(_quiet(leader, flags), _quiet(runner_up, flags))
        if self.verdict is None:
            self.kind = ALONE
        elif self.verdict.kind == "ahead":
            self.kind = LOAD if self.quiet is not None and self.quiet.kind != "ahead" else BEYOND
        elif self.verdict.kind == "one run" or self.verdict.kind == "unknown":
            self.kind = ONE_RUN
        else:
            self.kind = WITHIN

    @property
    def decided(self):
        """True when the leader wins by the rule (nothing else names a winner)."""
        return self.kind == BEYOND

    def sentence(self):
        """The lead in words, as far as the rule allows."""
        a, b = self.leader.per_node, self.runner_up.per_node if self.runner_up is not None else None
        if self.kind == ALONE:
            return ""
        if self.kind == BEYOND:
            text = "%s beats %s by %.1f %% (%s vs %s %s; their %s do not overlap, %s)." % (
                self.leader_name, self.runner_name, self.verdict.pct, a.short(), b.short(), UNIT,
                ranges(a, b), runs(a, b))
            if self.loaded:
                text += " The lead holds without the %d load-flagged run%s (%s)." % (
                    len(self.loaded), "" if len(self.loaded) == 1 else "s", " ".join(self.loaded))
            return text
        if self.kind == LOAD:
            return "%s is ahead of %s by %.1f %% (%s vs %s %s), but only with the %d run%s whose host load " \
                   "differed from the campaign's (%s); without them %s: load may have decided it, so this " \
                   "is within noise." % (
                       self.leader_name, self.runner_name, self.verdict.pct, a.short(), b.short(), UNIT,
                       len(self.loaded), "" if len(self.loaded) == 1 else "s", " ".join(self.loaded),
                       _quiet_words(self.quiet))
        if self.kind == ONE_RUN:
            return "%s is %.1f %% ahead of %s (%s vs %s %s), from a single run %s: no spread measured, " \
                   "so this is within noise until repeated (`repeats:`)." % (
                       self.leader_name, self.verdict.pct or 0.0, self.runner_name, a.short(), b.short(), UNIT,
                       "each" if a.n < 2 and b.n < 2 else "on one side")
        return "%s and %s are within noise of each other (%s vs %s %s, %s overlap, %s)." % (
            self.leader_name, self.runner_name, a.short(), b.short(), UNIT, ranges(a, b), runs(a, b))

    def as_dict(self):
        out = {"question": self.question, "verdict": self.kind, "leader": self.leader_name,
               "leader_gbps": self.leader.per_node.as_dict(), "points": self.leader.ids}
        if self.runner_up is not None:
            out.update({"runner_up": self.runner_name, "runner_up_gbps": self.runner_up.per_node.as_dict(),
                        "lead_pct": round(self.verdict.pct, 2) if self.verdict.pct is not None else None})
        if self.loaded:
            out["load_flagged"] = self.loaded
            out["verdict_without_load_flagged"] = _quiet_kind(self.quiet)
        return out


def _quiet_kind(verdict):
    if verdict is None:
        return None
    return {"ahead": BEYOND, "behind": "reversed", "noise": WITHIN}.get(verdict.kind, ONE_RUN)


def _quiet_words(verdict):
    kind = verdict.kind
    if kind == "behind":
        return "the order is reversed"
    if kind == "noise":
        return "their ranges overlap"
    if verdict.a and verdict.b:
        return "a single run is left on a side"
    return "a side has no run left"


def edge(values, best, key, fmt, schema=None):
    """'widen credits beyond 8' when `best` is the largest (or smallest) of a
    numeric axis's scanned `values` and the key's table allows further; ''
    otherwise (fewer than 3 values, or an inner best)."""
    xs = sorted(v for v in set(values) if isinstance(v, (int, float)) and not isinstance(v, bool))
    if len(xs) < 3 or best not in (xs[0], xs[-1]):
        return ""
    spec = schema.key(key) if schema is not None else None
    if best == xs[-1]:
        limit = spec.get("max") if spec else None
        if limit is not None and best >= limit:
            return ""
        return "widen %s beyond %s" % (key, fmt(key, best))
    limit = spec.get("min") if spec else None
    if limit is not None and best <= limit:
        return ""
    return "widen %s below %s" % (key, fmt(key, best))
