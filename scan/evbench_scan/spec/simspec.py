"""Simulated points: the scan's `sim:` section (docs/SCANS.md, "Simulated points").

    sim: {model: credit, platform: PLATFORM.yaml, order: ORDER (optional)}

makes every point of the campaign an `evbench sim` run instead of an
`evbench run`:

    evbench sim POINT.yaml --model M --platform P [--order O] --json FILE --quiet

The keys can also be axes (`sim.model: [fluid, credit]`, `sim.platform:
[a.yaml, b.yaml]`, or inside a variants map); `sim.model: ~` on an axis
leaves that point measured (`evbench run`). Paths are relative to the scan
file's directory, like `base:` and `wrapper:`.

What evbench sim decides itself a point may not set: `--model credit` runs
driver credit with every rank in this process, blocking (poll_mode block)
and without the live monitor, `--model fluid` driver mpi and bootstrap mpi
under SimGrid (evbench takes its own driver over a file's, so a point that
set one would claim a driver it never ran; it refuses the others). Simulated
points run on this machine, never under Slurm or PBS.

Nothing here reads YAML nodes or imports the grammar (which calls this): the
checks return the reason as text and the caller says where.
"""
import copy
import os

PREFIX = "sim."
KEYS = ("model", "platform", "order")
MODELS = ("credit", "fluid")
# What each model sets itself: key -> the values a point may still give it
# (() : none; the key must be left unset).
FORBIDDEN = {"credit": {"driver": (), "bootstrap": (), "driver_options": (), "poll_mode": ("block",),
                        "monitor.port": (0,)},
             "fluid": {"driver": (), "bootstrap": ()}}
# What each model sets when the point leaves it unset (the point may set it).
DEFAULTS = {"credit": ("page_size",), "fluid": ()}
WHY = {"credit": "sim --model credit runs its own network (driver credit, every rank in this process, "
                 "blocking on a virtual clock, no live monitor)",
       "fluid": "sim --model fluid runs driver mpi and bootstrap mpi (SimGrid SMPI)"}
LOCAL_ONLY = "evbench sim runs every simulated rank on this machine: simulated points are run by " \
             "`evbench-scan run`, never submitted to Slurm or PBS"


def is_sim_key(key):
    return key.startswith(PREFIX)


def resolve(value, scan_path):
    """A path as written in the scan -> absolute (relative: from the scan file's directory)."""
    if value is None or os.path.isabs(value):
        return value
    return os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(scan_path)), value))


def check_value(key, value, scan_path):
    """Why `sim.KEY: value` is wrong, or None. `model: ~` (on an axis) is a
    measured point; `platform: ~` or `order: ~` leave the key unset."""
    if key not in KEYS:
        return "unknown sim key '%s' (known: %s)" % (key, ", ".join(KEYS))
    if value is None:
        return None
    if key == "model":
        if value not in MODELS:
            return "must be one of %s, got %r" % (", ".join(MODELS), value)
        return None
    if not isinstance(value, str) or not value:
        return "expected a file name, got %r" % (value,)
    path = resolve(value, scan_path)
    if not os.path.isfile(path):
        return "no such file: %s (a relative path is taken from the scan file's directory)" % path
    return None


def settings(section, values, scan_path):
    """A point's simulation: the scan's `sim:` section overlaid with its axis
    values (sim.KEY) -> {"model", "platform", "order"} with absolute paths, or
    None when the point is measured (no model)."""
    merged = dict(section)
    for key, value in values.items():
        if is_sim_key(key):
            merged[key[len(PREFIX):]] = value
    if not merged.get("model"):
        return None
    return {"model": merged["model"], "platform": resolve(merged.get("platform"), scan_path),
            "order": resolve(merged.get("order"), scan_path)}


def problems(point):
    """(key, reason) for what a simulated point may not have: a missing
    platform, and the keys its model sets itself."""
    sim = point.sim
    if not sim:
        return []
    out = []
    if not sim.get("platform"):
        out.append(("sim.platform", "a simulated point needs a platform file (sim: {model: %s, "
                                    "platform: FILE})" % sim["model"]))
    for key, allowed in FORBIDDEN[sim["model"]].items():
        value = _get(point.config, key)
        if value in (None, {}) or value in allowed:
            continue
        options = sorted(value) if isinstance(value, dict) else []
        named = "%s.%s" % (key, options[0]) if options else key
        out.append((named, "%s; %s (a measured point of the campaign can keep it in its variants "
                           "entry)" % (WHY[sim["model"]], "drop the key" if not allowed else
                                       "drop the key or set it %s" % " or ".join(map(str, allowed)))))
    return out


def sets_itself(model):
    """The config keys a model decides (or defaults) itself: a simulated
    result differs from a measured one in them because it was simulated."""
    return tuple(FORBIDDEN.get(model, {})) + DEFAULTS.get(model, ())


def credit_config(config, platform):
    """A measured run's resolved configuration as the credit model is to run
    it on `platform`: without the keys the model sets itself, and a
    topology.platform it had pointing at `platform`."""
    out = copy.deepcopy(config)
    for key in sets_itself("credit"):
        parent, _, last = key.rpartition(".")
        target = _get(out, parent) if parent else out
        if isinstance(target, dict):
            target.pop(last, None)
    if _get(out, "topology.platform"):
        out["topology"]["platform"] = platform
    return out


def _get(config, dotted):
    """A dotted key of a nested config (None when unset)."""
    for part in dotted.split("."):
        if not isinstance(config, dict):
            return None
        config = config.get(part)
    return config


def validation_config(point):
    """The configuration `evbench validate` checks for a simulated point: as
    sim runs it, one host per node (credit: bootstrap env, so the memory check
    counts one node's ranks, not all N on this host: the simulation moves no
    payload; fluid: driver and bootstrap mpi, as sim sets them)."""
    config = copy.deepcopy(point.config)
    if point.sim["model"] == "fluid":
        config.update(driver="mpi", bootstrap="mpi")
    else:
        config["bootstrap"] = "env"
    return config


def arguments(sim):
    """--model M --platform P [--order O]."""
    out = ["--model", sim["model"], "--platform", sim["platform"]]
    if sim.get("order"):
        out += ["--order", sim["order"]]
    return out


def command(point, evbench, config_path, json_path, extra_args=()):
    """argv of a simulated point: [wrapper...] evbench sim CONFIG --model ... --json FILE --quiet."""
    return list(point.wrapper or []) + [evbench, "sim", config_path] + arguments(point.sim) + \
        ["--json", json_path, "--quiet"] + list(extra_args)


def describe(sim):
    """'credit model on sim-tree-16.yaml (order o.txt)' for listings."""
    text = "%s model on %s" % (sim["model"], os.path.basename(sim["platform"] or "?"))
    return text + (" (order %s)" % os.path.basename(sim["order"]) if sim.get("order") else "")


# Simulated points are timed by the wall clock of a simulation, not by their
# duration (the fluid model runs thousands of times slower than simulated
# time, the credit model of 512 nodes about 300 times): a point is killed
# after this long.
TIMEOUT_S = 24 * 3600
