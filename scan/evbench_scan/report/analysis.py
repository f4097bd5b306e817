"""From a campaign's records to rows: one row per configuration that ran.

A row is every repeat of one configuration (the variant that ran and the
whole resolved config, flattened to dotted keys), each figure reduced to a
`stats.Spread` over those repeats. `varying` names the keys a reader needs to
tell the rows apart: the variant first when more than one ran, then every
config key whose value differs across rows — except the keys that only say
which variant it was (driver, data_path, bootstrap, driver_options.*, and in
a campaign with simulated points the keys a simulation sets itself, such as
poll_mode), when each variant has one value of them.

Measured and simulated rows are never ranked against each other: `kinds`
splits the rows into the groups a report compares within.
"""
from ..spec import simspec
from .stats import Spread, key as spread_key

# Keys whose values say which variant ran (its name carries them).
VARIANT_KEYS = ("driver", "data_path", "bootstrap")


def _text(value):
    return "" if value is None else str(value)


class Row:
    """All repeats of one configuration, figures as spreads over the repeats."""

    def __init__(self, members):
        self.members = members
        first = members[0]
        self.variant = first.variant    # its name: the scan's `name:`, else what ran
        self.ran_as = first.ran_as      # what evbench says ran (results.variant)
        self.simulated = first.simulated   # (model, platform) of `evbench sim`, None: measured
        self.config = dict(first.flat, variant=first.variant)
        self.builder = first.builder
        self.ids = [m.id for m in members]
        f = [m.figures for m in members]
        spread = lambda name: Spread([x[name] for x in f])
        self.per_node = spread("per_node_avg_gbps")
        self.node_min = spread("per_node_min_gbps")
        self.node_max = spread("per_node_max_gbps")
        self.network = spread("network_per_node_avg_gbps")
        self.aggregate = spread("aggregate_gbps")
        self.eps = spread("events_per_second")
        self.meps = spread("meps_per_second")   # empty unless the runs packed events in MEPs
        self.p99 = spread("latency_p99_ms")
        self.faults = [m.faults for m in members if m.faults]
        self.status = first.status

    def value(self, k):
        return self.config.get(k)

    def identity(self):
        return tuple(sorted((k, _text(v)) for k, v in self.config.items()))

    def docs(self):
        return [m.doc for m in self.members]


def rows_of(recs, statuses=("ok",)):
    """Rows of the points that ran with one of `statuses` and have figures, in
    the order first seen (the Faults table also takes runs that lost a data
    source: they ran, their status says what they lost)."""
    groups = {}
    for r in recs:
        if r.status not in statuses or r.figures["aggregate_gbps"] is None:
            continue
        ident = (r.variant, tuple(sorted((k, _text(v)) for k, v in r.flat.items())))
        groups.setdefault(ident, []).append(r)
    return [Row(members) for members in groups.values()]


def is_variant_key(k):
    """A key that says which variant ran (driver, data path, bootstrap, driver options)."""
    return k in VARIANT_KEYS or k.startswith("driver_options.")


def _simulation_key(k, rows, axes):
    """A key a simulation in `rows` set itself (not one the scan varies)."""
    return k not in axes and any(k in simspec.sets_itself(r.simulated[0]) for r in rows if r.simulated)


def varying(rows, axes=()):
    """The keys whose values differ across rows, axis keys first."""
    if not rows:
        return []
    keys = set()
    for r in rows:
        keys.update(r.config)
    differ = [k for k in keys if k != "variant" and len({_text(r.value(k)) for r in rows}) > 1]
    variants = {r.variant for r in rows}
    out = ["variant"] if len(variants) > 1 else []
    for k in differ:
        if is_variant_key(k) or _simulation_key(k, rows, axes):
            per_variant = {}
            for r in rows:
                per_variant.setdefault(r.variant, set()).add(_text(r.value(k)))
            if all(len(v) == 1 for v in per_variant.values()):
                continue   # said by the variant's name
        out.append(k)
    order = dict((a, i) for i, a in enumerate(axes))
    head, rest = out[:1] if out[:1] == ["variant"] else [], out[1:] if out[:1] == ["variant"] else out
    return head + sorted(rest, key=lambda k: (order.get(k, len(order)), k))


def kinds(rows):
    """[(None, measured rows), ((model, platform), rows simulated so), ...]:
    measured first, in the rows' order within each."""
    groups = {}
    for r in rows:
        groups.setdefault(r.simulated, []).append(r)
    return sorted(groups.items(), key=lambda item: (item[0] is not None, item[0] or ()))


def is_numeric(rows, k):
    vals = [r.value(k) for r in rows]
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vals)


def best(rows):
    return max(rows, key=lambda r: spread_key(r.per_node)) if rows else None


def ranked(rows):
    return sorted(rows, key=lambda r: -spread_key(r.per_node))


def best_by(rows, label_of):
    """{label: best row with that label}."""
    out = {}
    for r in rows:
        label = label_of(r)
        if label not in out or spread_key(r.per_node) > spread_key(out[label].per_node):
            out[label] = r
    return out


def match(rows, base_rows):
    """{id(row): baseline row with the same variant and configuration}."""
    index = dict((b.identity(), b) for b in base_rows)
    return dict((id(r), index.get(r.identity())) for r in rows)
