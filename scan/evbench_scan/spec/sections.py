"""The scan file's `sim:` and `cluster:` sections (docs/SCANS.md), read
from their YAML nodes by grammar.py.
"""
from . import simspec
from .scanfile import CLUSTER_KEYS, LAUNCHERS, ScanError, Variants
from .yamlnodes import _mapping_items, _value, did_you_mean


def read_sim(scan, loader, knode, vnode):
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


def check_sim_axes(scan, keys, marks, items):
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


def read_cluster(path, loader, node, schema):
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
