"""The shapes of a parsed scan file (docs/SCANS.md): its axes (one key and
its values), variants (partial configurations), groups (matrix or zip) and
the Scan that holds them, the keys an axis may set that are not evbench's,
and ScanError, every problem located at FILE:LINE:COLUMN. grammar.py fills
them from YAML; expand.py turns them into points; neither imports the other's
internals.
"""
import itertools
import os

from . import rounds, simspec

TOP_KEYS = ("name", "description", "base", "config", "env", "axes", "repeats", "order", "skip_invalid", "cluster",
            "sim")
CLUSTER_KEYS = ("launcher", "startup", "margin", "account", "partition", "queue", "port",
                "overcommit", "evbench", "modules", "max_hosts", "same_host")
LAUNCHERS = ("srun-env", "srun-pmix", "mpirun", "mpirun-env")
GROUP_KINDS = ("matrix", "zip")
RANGE_KEYS = ("from", "to", "factor", "step")
VARIANTS = "variants"
# Axis keys that are not evbench config keys: what the runner does for a point.
#   env.NAME   an environment variable of the point's evbench (and mpirun) process
#   wrapper    a command the point's evbench (or mpirun) is run under
#   label      the `name:` of a variants entry (a label for reports)
#   sim.KEY    how a simulated point runs (simspec.py: model, platform, order)
ENV_PREFIX = "env."
WRAPPER = "wrapper"
VARIANT_NAME = "label"


def is_config_key(key):
    """True for evbench config keys, False for env.NAME, wrapper, label and sim.KEY."""
    return not (key.startswith(ENV_PREFIX) or simspec.is_sim_key(key) or key in (WRAPPER, VARIANT_NAME))


class ScanError(Exception):
    """A problem in a scan file, located at FILE:LINE:COLUMN."""

    def __init__(self, path, mark, key, message):
        self.path, self.key, self.message = path, key, message
        self.line = mark.line + 1 if mark is not None else 0
        self.column = mark.column + 1 if mark is not None else 0
        super().__init__(str(self))

    def __str__(self):
        where = "%s:%d:%d" % (self.path, self.line, self.column) if self.line else self.path
        return "%s: %s: %s" % (where, self.key, self.message) if self.key else \
            "%s: %s" % (where, self.message)


class Axis:
    """One config key and the values it takes, in order."""

    def __init__(self, key, values, mark):
        self.key, self.values, self.mark = key, values, mark

    def __repr__(self):
        return "Axis(%s=%r)" % (self.key, self.values)


class Variants:
    """A list of partial configurations, each one value of the axis: the keys
    are the union of the flattened (dotted) keys of the maps; a map that lacks
    a key leaves it unset (None)."""

    def __init__(self, keys, rows, marks, mark):
        self.keys, self.rows, self.marks, self.mark = keys, rows, marks, mark
        self.key = "variants"

    @property
    def values(self):
        return self.rows

    def __repr__(self):
        return "Variants(%r)" % (self.rows,)


class Group:
    """Entries (axes or groups) combined by cartesian product ('matrix') or in lock-step ('zip')."""

    def __init__(self, kind, entries, mark):
        self.kind, self.entries, self.mark = kind, entries, mark

    def axes(self):
        for entry in self.entries:
            if isinstance(entry, Group):
                yield from entry.axes()
            else:
                yield entry

    def combinations(self):
        """The group's points as a list of {key: value} dicts: the product
        of its entries' values (matrix) or their values side by side (zip)."""
        lists = [e.combinations() if isinstance(e, Group) else
                 [dict(row) for row in e.rows] if isinstance(e, Variants) else
                 [{e.key: v} for v in e.values]
                 for e in self.entries]
        combos = zip(*lists) if self.kind == "zip" else itertools.product(*lists)
        out = []
        for combo in combos:
            merged = {}
            for part in combo:
                merged.update(part)
            out.append(merged)
        return out


class Scan:
    """A parsed scan: base config (nested dict) + axes + run options."""

    def __init__(self, path, schema):
        self.path = path
        self.schema = schema      # the evbench key table and units (schema.Schema)
        self.text = ""
        self.name = os.path.splitext(os.path.basename(path))[0]
        self.description = ""
        self.base_path = None
        self.config = {}
        self.config_marks = {}   # dotted key -> (file, Mark) where it was set
        self.axes = Group("matrix", [], None)
        self.repeats = 1
        self.repeats_auto = None  # {"min", "max"} under repeats: auto (rounds.py); repeats is then max
        self.order, self.order_seed = "interleaved", rounds.DEFAULT_SEED
        self.skip_invalid = False
        self.cluster = {}
        self.env = {}             # top-level env: NAME -> value, for every point
        self.sim = {}             # top-level sim: KEY -> value as written (simspec.py)
        self.sim_marks = {}       # "sim" and "sim.KEY" -> Mark where the sim: section set it

    def axis_list(self):
        return list(self.axes.axes())

    def axis_keys(self):
        """The flattened keys the axes set, in axis order (a variants entry
        contributes every key any of its maps sets)."""
        seen = []
        for axis in self.axis_list():
            for key in (axis.keys if isinstance(axis, Variants) else [axis.key]):
                if key not in seen:
                    seen.append(key)
        return seen

    def where(self, key):
        """(file, Mark or None) of the scan line that decides `key`."""
        for axis in self.axis_list():
            if isinstance(axis, Variants) and key in axis.marks:
                return self.path, axis.marks[key]
            if axis.key == key:
                return self.path, axis.mark
        marks = self.sim_marks if key == "sim" or simspec.is_sim_key(key) else self.config_marks
        while key:
            if key in marks:
                return marks[key] if marks is self.config_marks else (self.path, marks[key])
            key = key.rpartition(".")[0]
        return self.path, None

    def mark_of(self, key):
        """(file, line) that decides `key` in this scan, for error messages."""
        path, mark = self.where(key)
        return path, mark.line + 1 if mark is not None else 0
