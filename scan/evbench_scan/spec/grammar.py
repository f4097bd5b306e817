"""Reading a scan file: a base configuration plus axes (docs/SCANS.md).

The file is parsed with yaml's composer so every key keeps its line and
column; every problem found here is a ScanError that reads
    FILE:LINE:COLUMN: KEY: reason
and is raised before anything runs. Sizes and durations in ranges are read
with the unit words of the evbench binary (a schema.Schema), chosen by the
key's type in its key table.
"""
import os

import yaml

from . import rounds, simspec
from .scanfile import (CLUSTER_KEYS, ENV_PREFIX, GROUP_KINDS, LAUNCHERS, RANGE_KEYS, TOP_KEYS,  # noqa: F401
                       VARIANT_NAME, VARIANTS, WRAPPER, Axis, Group, Scan, ScanError, Variants,
                       is_config_key)
from .sections import check_sim_axes, read_cluster, read_sim
from .yamlnodes import _compose, _join, _mapping_items, _value, did_you_mean  # noqa: F401


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
    return entry.combinations() if isinstance(entry, Group) else entry.values


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
        scan.cluster = read_cluster(path, loader, items["cluster"][1], schema)
    if "sim" in items:
        read_sim(scan, loader, *items["sim"])
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
    check_sim_axes(scan, keys, marks, items)
    return scan


def _error_at(path, key):
    """error(node, message) -> the ScanError naming `key` at the node's line."""
    return lambda node, message: ScanError(path, node.start_mark, key, message)


def merge(into, overlay):
    """Deep-merge nested dict `overlay` into `into` (overlay wins)."""
    for key, value in overlay.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            merge(into[key], value)
        else:
            into[key] = value
    return into
