"""Reading a scan file: a base configuration plus axes (docs/SCANS.md).

The file is parsed with yaml's composer so every key keeps its line and
column; every problem found here is a ScanError that reads
    FILE:LINE:COLUMN: KEY: reason
and is raised before anything runs. Sizes and durations in ranges are read
with the unit words of the evbench binary (a schema.Schema), chosen by the
key's type in its key table.
"""
import difflib
import os

import yaml

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


def _compose(path, text):
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        return loader, node
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        raise ScanError(path, mark, "", "not valid YAML: %s" % getattr(err, "problem", err))
    finally:
        loader.dispose()


def _value(loader, node):
    return loader.construct_object(node, deep=True)


def _mapping_items(path, node, key):
    if not isinstance(node, yaml.MappingNode):
        raise ScanError(path, node.start_mark, key, "expected a mapping")
    seen = set()
    for knode, vnode in node.value:
        if not isinstance(knode, yaml.ScalarNode):
            raise ScanError(path, knode.start_mark, key, "keys must be plain names")
        if knode.value in seen:
            raise ScanError(path, knode.start_mark, _join(key, knode.value), "given twice")
        seen.add(knode.value)
        yield knode, vnode


def _join(prefix, key):
    return "%s.%s" % (prefix, key) if prefix else key


def _config_tree(path, loader, node, prefix, into, marks):
    """Nested config mapping -> nested dict; dotted keys allowed and split."""
    for knode, vnode in _mapping_items(path, node, prefix or "config"):
        dotted = _join(prefix, knode.value)
        marks[dotted] = (path, knode.start_mark)
        parts = knode.value.split(".")
        target = into
        for part in parts[:-1]:
            target = target.setdefault(part, {})
        if isinstance(vnode, yaml.MappingNode) and parts[-1] != "driver_options" and \
                not dotted.startswith("driver_options"):
            _config_tree(path, loader, vnode, dotted, target.setdefault(parts[-1], {}), marks)
        elif isinstance(vnode, yaml.MappingNode):
            sub = target.setdefault(parts[-1], {})
            for k2, v2 in _mapping_items(path, vnode, dotted):
                marks[_join(dotted, k2.value)] = (path, k2.start_mark)
                sub[k2.value] = _value(loader, v2)
        else:
            target[parts[-1]] = _value(loader, vnode)


def load_config_file(path, key_for_errors="base"):
    """A plain evbench config file -> (nested dict, marks)."""
    try:
        with open(path) as f:
            text = f.read()
    except OSError as err:
        raise ScanError(path, None, key_for_errors, "cannot read: %s" % err.strerror)
    loader, node = _compose(path, text)
    config, marks = {}, {}
    if node is not None:
        _config_tree(path, loader, node, "", config, marks)
    return config, marks


def _range(path, knode, key, spec, schema):
    unknown = [k for k in spec if k not in RANGE_KEYS]
    if unknown:
        raise ScanError(path, knode.start_mark, key,
                        "unknown range key '%s' (a range has from, to and factor or step)" % unknown[0])
    if "from" not in spec or "to" not in spec or ("factor" in spec) == ("step" in spec):
        raise ScanError(path, knode.start_mark, key,
                        "a range needs from, to and exactly one of factor or step")
    lo, hi = spec["from"], spec["to"]
    # The key's type decides (fragment.size is a size even written as 65536);
    # a key evbench does not know is judged by how its values are written.
    kind = schema.type_of(key)
    if kind not in ("size", "duration"):
        kind = "duration" if schema.is_duration_text(lo) or schema.is_duration_text(hi) else \
            "size" if schema.is_size_text(lo) or schema.is_size_text(hi) else "number"
    try:
        if kind == "duration":
            lo, hi = schema.parse_duration(lo), schema.parse_duration(hi)
        elif kind == "size":
            lo, hi = schema.parse_size(lo), schema.parse_size(hi)
        elif not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (lo, hi)):
            raise ValueError("from and to must be numbers, sizes or durations")
        if "factor" in spec:
            factor = float(spec["factor"])
            if factor <= 1:
                raise ValueError("factor must be greater than 1, got %s" % spec["factor"])
        else:
            step = spec["step"]
            step = schema.parse_size(step) if kind == "size" else \
                schema.parse_duration(step) if kind == "duration" else step
            if not isinstance(step, (int, float)) or step <= 0:
                raise ValueError("step must be positive, got %s" % spec["step"])
        if lo > hi:
            raise ValueError("from (%s) is larger than to (%s)" % (spec["from"], spec["to"]))
    except (TypeError, ValueError) as err:
        raise ScanError(path, knode.start_mark, key, str(err))
    values, x, eps = [], lo, 1e-9 * max(1.0, abs(hi))
    while x <= hi + eps:
        values.append(x)
        if len(values) > 100000:
            raise ScanError(path, knode.start_mark, key, "range has more than 100000 values")
        x = x * factor if "factor" in spec else x + step
    integral = isinstance(spec["from"], int) and (
        isinstance(spec["step"], int) if "step" in spec else float(spec["factor"]).is_integer())
    if kind == "size":
        return [schema.format_size(int(round(v))) for v in values]
    if kind == "duration":
        return [schema.format_duration(v) for v in values]
    return [int(round(v)) if integral else v for v in values]


def _axis(path, loader, knode, vnode, prefix, schema):
    key = knode.value
    where = _join(prefix, key)
    if key in ("config", "base", "repeats", "env") or key.startswith("."):
        raise ScanError(path, knode.start_mark, where, "'%s' is not a config key" % key)
    if key == WRAPPER or key == VARIANT_NAME:
        raise ScanError(path, knode.start_mark, where,
                        "'%s' is set inside a variants entry, not as an axis" % key)
    if isinstance(vnode, yaml.SequenceNode):
        if any(isinstance(item, yaml.MappingNode) for item in vnode.value):
            # driver_options: [{tls: sm}, {tls: tcp}]: maps are flattened to
            # driver_options.tls, one value per map (as a variants entry).
            return _variants(path, loader, knode, vnode, prefix, key)
        values = [_value(loader, item) for item in vnode.value]
        for item, value in zip(vnode.value, values):
            if isinstance(value, (list, dict)):
                raise ScanError(path, item.start_mark, key, "axis values must be scalars")
    elif isinstance(vnode, yaml.MappingNode) and (key == "driver_options" or not any(
            k.value in RANGE_KEYS for k, _ in vnode.value if isinstance(k, yaml.ScalarNode))):
        # A single map (driver_options: {tls: sm}): a one-value axis of its keys.
        return _variants(path, loader, knode, yaml.SequenceNode("tag:yaml.org,2002:seq", [vnode]),
                         prefix, key)
    elif isinstance(vnode, yaml.MappingNode):
        spec = _value(loader, vnode)
        values = _range(path, knode, key, spec, schema)
    else:
        values = [_value(loader, vnode)]
    if not values:
        raise ScanError(path, knode.start_mark, key, "an axis needs at least one value")
    return Axis(key, values, knode.start_mark)


def _flat_variant(path, loader, node, prefix, where, row, marks):
    """One variant map -> flat {dotted key: scalar or None} in `row`."""
    for knode, vnode in _mapping_items(path, node, where):
        name = knode.value
        if not prefix and name == "env":
            for k2, v2 in _mapping_items(path, vnode, _join(where, "env")):
                value = _value(loader, v2)
                if isinstance(value, (list, dict)) or value is None:
                    raise ScanError(path, v2.start_mark, _join(where, "env." + k2.value),
                                    "an environment value must be a string or number")
                row[ENV_PREFIX + k2.value] = value if isinstance(value, str) else \
                    ("true" if value is True else "false" if value is False else str(value))
                marks.setdefault(ENV_PREFIX + k2.value, k2.start_mark)
            continue
        if not prefix and name == WRAPPER:
            value = _value(loader, vnode)
            if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
                value = " ".join(value)
            if not isinstance(value, str) or not value.strip():
                raise ScanError(path, vnode.start_mark, _join(where, WRAPPER),
                                "expected a command (a string or a list of strings)")
            row[WRAPPER] = value
            marks.setdefault(WRAPPER, knode.start_mark)
            continue
        if not prefix and name == "name":
            value = _value(loader, vnode)
            if not isinstance(value, (str, int)) or isinstance(value, bool):
                raise ScanError(path, vnode.start_mark, _join(where, "name"), "expected a name")
            row[VARIANT_NAME] = str(value)
            marks.setdefault(VARIANT_NAME, knode.start_mark)
            continue
        dotted = _join(prefix, name)
        if name in ("config", "base", "repeats", VARIANTS) or name.startswith("."):
            raise ScanError(path, knode.start_mark, _join(where, name), "'%s' is not a config key" % name)
        if isinstance(vnode, yaml.MappingNode):
            _flat_variant(path, loader, vnode, dotted, where, row, marks)
            continue
        value = _value(loader, vnode)
        if isinstance(value, (list, dict)):
            raise ScanError(path, vnode.start_mark, _join(where, dotted),
                            "variant values must be scalars or null (~ for not set)")
        if dotted in row:
            raise ScanError(path, knode.start_mark, _join(where, dotted), "given twice")
        row[dotted] = value
        marks.setdefault(dotted, knode.start_mark)


def _variants(path, loader, knode, vnode, prefix, key_prefix=""):
    """`variants: [{driver: ucx, driver_options.tls: sm}, {driver: tcp}, ...]`
    (or KEY: [{...}, ...], whose maps are under KEY)."""
    where = _join(prefix, knode.value)
    if not isinstance(vnode, yaml.SequenceNode):
        raise ScanError(path, vnode.start_mark, where,
                        "expected a list of partial configurations ([{driver: tcp}, ...])")
    if not vnode.value:
        raise ScanError(path, knode.start_mark, where, "needs at least one variant")
    rows, marks, keys = [], {}, []
    for i, item in enumerate(vnode.value):
        here = "%s[%d]" % (where, i)
        if not isinstance(item, yaml.MappingNode):
            raise ScanError(path, item.start_mark, here,
                            "expected a map of config keys (a partial configuration)")
        if not item.value and not key_prefix:
            raise ScanError(path, item.start_mark, here, "an empty variant sets nothing")
        row = {}
        if key_prefix:
            _flat_variant(path, loader, item, key_prefix, here, row, marks)
        else:
            _flat_variant(path, loader, item, "", here, row, marks)
        if row in rows:
            raise ScanError(path, item.start_mark, here,
                            "the same as variant %d" % rows.index(row))
        names = [r.get(VARIANT_NAME) for r in rows]
        if row.get(VARIANT_NAME) is not None and row[VARIANT_NAME] in names:
            raise ScanError(path, item.start_mark, here,
                            "name '%s' is used by variant %d too" % (row[VARIANT_NAME],
                                                                     names.index(row[VARIANT_NAME])))
        rows.append(row)
        keys.extend(k for k in row if k not in keys)
    if VARIANT_NAME in keys:   # the name first: it is what reports show
        keys.remove(VARIANT_NAME)
        keys.insert(0, VARIANT_NAME)
    rows = [dict((k, row.get(k)) for k in keys) for row in rows]
    return Variants(keys, rows, marks, knode.start_mark)


def _group(path, loader, node, kind, prefix, mark, schema):
    entries = []
    for knode, vnode in _mapping_items(path, node, prefix):
        if knode.value == VARIANTS:
            entries.append(_variants(path, loader, knode, vnode, prefix))
        elif knode.value in GROUP_KINDS:
            subs = vnode.value if isinstance(vnode, yaml.SequenceNode) else [vnode]
            for i, sub in enumerate(subs):
                where = _join(prefix, knode.value) + ("[%d]" % i if len(subs) > 1 else "")
                entries.append(_group(path, loader, sub, knode.value, where, knode.start_mark, schema))
        else:
            entries.append(_axis(path, loader, knode, vnode, prefix, schema))
    if not entries:
        raise ScanError(path, mark or node.start_mark, prefix, "a %s group needs entries" % kind)
    if kind == "zip":
        lengths = [(len(_entry_values(e)), e) for e in entries]
        if len({n for n, _ in lengths}) > 1:
            detail = ", ".join("%s has %d" % (_entry_name(e), n) for n, e in lengths)
            raise ScanError(path, mark or node.start_mark, prefix,
                            "zip entries must have the same number of values (%s)" % detail)
    return Group(kind, entries, mark or node.start_mark)


def _entry_values(entry):
    from .expand import expand_group  # local: expand depends on grammar
    return expand_group(entry) if isinstance(entry, Group) else entry.values


def _entry_name(entry):
    return entry.kind if isinstance(entry, Group) else entry.key


def load_scan(path, schema):
    """Parse and check a scan file against `schema` (what evbench accepts); raises ScanError."""
    try:
        with open(path) as f:
            text = f.read()
    except OSError as err:
        raise ScanError(path, None, "", "cannot read scan file: %s" % err.strerror)
    return parse_scan(text, path, schema)


def parse_scan(text, path, schema):
    scan = Scan(path, schema)
    scan.text = text
    loader, root = _compose(path, text)
    if root is None:
        raise ScanError(path, None, "", "empty scan file")
    items = dict((k.value, (k, v)) for k, v in _mapping_items(path, root, ""))
    for key, (knode, _) in items.items():
        if key not in TOP_KEYS:
            raise ScanError(path, knode.start_mark, key, "unknown scan key '%s'%s (known: %s)"
                            % (key, did_you_mean(key, TOP_KEYS), ", ".join(TOP_KEYS)))
    if "name" in items:
        scan.name = str(_value(loader, items["name"][1]))
    if "description" in items:
        scan.description = str(_value(loader, items["description"][1]))
    if "base" in items:
        knode, vnode = items["base"]
        base = _value(loader, vnode)
        if not isinstance(base, str):
            raise ScanError(path, knode.start_mark, "base", "expected a file name")
        scan.base_path = os.path.join(os.path.dirname(os.path.abspath(path)), base)
        if not os.path.isfile(scan.base_path):
            raise ScanError(path, vnode.start_mark, "base", "no such file: %s" % scan.base_path)
        scan.config, scan.config_marks = load_config_file(scan.base_path)
    if "config" in items:
        knode, vnode = items["config"]
        inline, marks = {}, {}
        _config_tree(path, loader, vnode, "", inline, marks)
        merge(scan.config, inline)
        scan.config_marks.update(marks)
    # repeats: and order: are rounds.py's; errors name their line
    if "order" in items:
        scan.order, scan.order_seed = rounds.parse_order(path, loader, items["order"][1], _error_at(path, "order"))
    if "repeats" in items:
        error = _error_at(path, "repeats")
        scan.repeats, scan.repeats_auto = rounds.parse_repeats(path, loader, items["repeats"][1], error)
        rounds.check(scan, items["repeats"][1], error)
    if "skip_invalid" in items:
        knode, vnode = items["skip_invalid"]
        value = _value(loader, vnode)
        if not isinstance(value, bool):
            raise ScanError(path, vnode.start_mark, "skip_invalid", "must be true or false")
        scan.skip_invalid = value
    if "cluster" in items:
        scan.cluster = _cluster(path, loader, items["cluster"][1], schema)
    if "sim" in items:
        _sim(scan, loader, *items["sim"])
    if "env" in items:
        for k2, v2 in _mapping_items(path, items["env"][1], "env"):
            value = _value(loader, v2)
            if isinstance(value, (list, dict)) or value is None:
                raise ScanError(path, v2.start_mark, "env." + k2.value,
                                "an environment value must be a string or number")
            scan.env[k2.value] = value if isinstance(value, str) else \
                ("true" if value is True else "false" if value is False else str(value))
    if "axes" in items:
        knode, vnode = items["axes"]
        if not (isinstance(vnode, yaml.ScalarNode) and vnode.value in ("", "~", "null")):
            scan.axes = _group(path, loader, vnode, "matrix", "axes", knode.start_mark, schema)
    keys, marks = [], {}
    for axis in scan.axis_list():
        for key in (axis.keys if isinstance(axis, Variants) else [axis.key]):
            mark = axis.marks.get(key, axis.mark) if isinstance(axis, Variants) else axis.mark
            if key in keys:
                raise ScanError(path, mark, key, "axis appears more than once (first at line %d; a key "
                                "may be set by only one axis or variants entry)" % (marks[key].line + 1))
            keys.append(key)
            marks[key] = mark
    for key in keys:
        for other in keys:
            if other.startswith(key + ".") and is_config_key(key):
                raise ScanError(path, marks[other], other, "'%s' is set by another axis too "
                                "(set either the map or its keys)" % key)
    _sim_axes(scan, keys, marks, items)
    return scan


def _error_at(path, key):
    """error(node, message) -> the ScanError naming `key` at the node's line."""
    return lambda node, message: ScanError(path, node.start_mark, key, message)


def _sim(scan, loader, knode, vnode):
    """The top-level `sim:` section (simspec.py)."""
    scan.sim_marks["sim"] = knode.start_mark
    for k2, v2 in _mapping_items(scan.path, vnode, "sim"):
        key, value = k2.value, _value(loader, v2)
        if key not in simspec.KEYS:
            raise ScanError(scan.path, k2.start_mark, "sim." + key, "unknown sim key%s (known: %s)" % (
                did_you_mean(key, simspec.KEYS), ", ".join(simspec.KEYS)))
        why = simspec.check_value(key, value, scan.path)
        if why:
            raise ScanError(scan.path, v2.start_mark, "sim." + key, why)
        scan.sim[key], scan.sim_marks["sim." + key] = value, k2.start_mark


def _sim_axes(scan, keys, marks, items):
    """sim.KEY axes (and variants maps) take the values the section takes;
    simulated points are never submitted, so sim and cluster exclude each other."""
    for axis in scan.axis_list():
        for key in (axis.keys if isinstance(axis, Variants) else [axis.key]):
            if key == "sim":
                raise ScanError(scan.path, marks[key], key, "expected sim.model, sim.platform or sim.order "
                                "as the axis (or maps: sim: [{model: fluid}, {model: credit}])")
            if not simspec.is_sim_key(key):
                continue
            for value in (row.get(key) for row in axis.rows) if isinstance(axis, Variants) else axis.values:
                why = simspec.check_value(key[len(simspec.PREFIX):], value, scan.path)
                if why:
                    raise ScanError(scan.path, marks[key], key, why)
    if "cluster" in items and ("sim" in items or any(simspec.is_sim_key(k) for k in keys)):
        key = "sim" if "sim" in items else next(k for k in keys if simspec.is_sim_key(k))
        mark = items["sim"][0].start_mark if "sim" in items else marks[key]
        raise ScanError(scan.path, mark, key, "%s (drop the cluster: section at line %d)" % (
            simspec.LOCAL_ONLY, items["cluster"][0].start_mark.line + 1))


def did_you_mean(word, candidates):
    """" (did you mean 'x'?)" for the closest candidate, or "" when none is close."""
    close = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.6)
    return " (did you mean '%s'?)" % close[0] if close else ""


def _cluster(path, loader, node, schema):
    out = {}
    for knode, vnode in _mapping_items(path, node, "cluster"):
        key = knode.value
        if key not in CLUSTER_KEYS:
            raise ScanError(path, knode.start_mark, "cluster." + key,
                            "unknown cluster key%s (known: %s)" % (
                                did_you_mean(key, CLUSTER_KEYS), ", ".join(CLUSTER_KEYS)))
        value = _value(loader, vnode)
        try:
            if key == "launcher" and value not in LAUNCHERS:
                raise ValueError("must be one of %s, got %r" % (", ".join(LAUNCHERS), value))
            if key == "startup":
                value = schema.parse_duration(value)
            if key == "margin" and (isinstance(value, bool) or not isinstance(value, (int, float)) or value < 1):
                raise ValueError("must be a factor of at least 1, got %r" % (value,))
            if key == "max_hosts" and not (isinstance(value, int) and value >= 1):
                raise ValueError("must be a positive number of hosts")
            if key == "port" and not (isinstance(value, int) and 1024 <= value < 65536):
                raise ValueError("must be a port number 1024..65535")
            if key == "same_host" and not isinstance(value, bool):
                raise ValueError("must be true or false")
        except ValueError as err:
            raise ScanError(path, vnode.start_mark, "cluster." + key, str(err))
        out[key] = value
    return out


def merge(into, overlay):
    """Deep-merge nested dict `overlay` into `into` (overlay wins)."""
    for key, value in overlay.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            merge(into[key], value)
        else:
            into[key] = value
    return into
