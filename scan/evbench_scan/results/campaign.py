"""The results directory of one campaign and the files in it.

    DIR/scan.yaml            copy of the scan file (base.yaml: copy of its base)
    DIR/campaign.json        scan name, axes, points (id, axis values, repeat),
                             skipped points (id, values, repeat, reason, source)
    DIR/drivers.json         `evbench drivers --json` of the machine that ran the points (run)
    DIR/evbench-config.json  `evbench config --json` of the binary that checked the points
    DIR/points/ID.yaml       the full evbench config of each point
    DIR/results/ID.json      the `evbench run --json` document of each point
    DIR/status/ID.json       exit status of each finished attempt
    DIR/logs/ID.log          stdout+stderr of each point
    DIR/jobs/                job scripts, hostfiles, scheduler output (clusters)
    DIR/index.csv            one row per point with its key figures

Every file is written to a temporary name and renamed, so a reader (or a
resumed campaign) never sees half a file.
"""
import json
import os
import shutil
import time

from ..spec import schema as schema_mod

SUBDIRS = ("points", "results", "status", "logs")


def write_atomic(path, text):
    tmp = "%s.tmp.%d" % (path, os.getpid())
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def read_json(path):
    """Parsed JSON, or None when missing or incomplete."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


class Campaign:
    def __init__(self, root):
        self.root = os.path.abspath(root)

    def path(self, *parts):
        return os.path.join(self.root, *parts)

    def point_yaml(self, pid):
        return self.path("points", pid + ".yaml")

    def result_json(self, pid):
        return self.path("results", pid + ".json")

    def status_json(self, pid):
        return self.path("status", pid + ".json")

    def log(self, pid):
        return self.path("logs", pid + ".log")

    def create(self, scan, points, mode, skipped=(), drivers=None, order=None):
        """Lay out the directory for `points` (existing results are kept).
        `skipped`: the points not run, as dicts {id, values, repeat, reason,
        source}; `drivers`: what `evbench drivers --json` said here (a dict
        {"plain": doc, "wrapped": {wrapper: doc}}), or None; `order`: the
        order the points run in (rounds.describe)."""
        for sub in SUBDIRS:
            os.makedirs(self.path(sub), exist_ok=True)
        write_atomic(self.path("scan.yaml"), scan.text)
        if scan.base_path:
            shutil.copyfile(scan.base_path, self.path("base.yaml"))
        schema_mod.save(scan.schema, self.root)
        meta = {
            "scan": scan.name, "description": scan.description,
            "scan_file": os.path.abspath(scan.path), "mode": mode,
            "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "axes": scan.axis_keys(), "repeats": scan.repeats,
            "points": [dict({"id": p.id, "values": p.values, "repeat": p.repeat},
                            **({"sim": p.sim} if p.sim else {})) for p in points],
            "skipped": list(skipped),
        }
        if order is not None:
            meta["order"] = order
        if scan.repeats_auto:
            meta["repeats_auto"] = scan.repeats_auto
        write_atomic(self.path("campaign.json"), json.dumps(meta, indent=1) + "\n")
        if drivers and drivers.get("plain") is not None:
            write_atomic(self.path("drivers.json"), json.dumps(drivers["plain"], indent=1) + "\n")
        if drivers and any(doc is not None for doc in (drivers.get("wrapped") or {}).values()):
            write_atomic(self.path("drivers-wrapped.json"), json.dumps(drivers["wrapped"], indent=1) + "\n")
        for p in points:
            text = p.yaml_text()
            old = None
            if os.path.exists(self.point_yaml(p.id)):
                with open(self.point_yaml(p.id)) as f:
                    old = f.read()
            if old != text:
                # A changed point invalidates what was measured for it.
                for stale in (self.result_json(p.id), self.status_json(p.id)):
                    if os.path.exists(stale):
                        os.remove(stale)
                write_atomic(self.point_yaml(p.id), text)

    def schema(self):
        """The key table saved with the campaign (None for campaigns without one)."""
        return schema_mod.read(self.root)

    def meta(self):
        meta = read_json(self.path("campaign.json"))
        if meta is None:
            raise FileNotFoundError("%s is not a campaign directory (no campaign.json)" % self.root)
        return meta

    def result(self, pid):
        """The complete result document of a point, or None."""
        doc = read_json(self.result_json(pid))
        if isinstance(doc, dict) and isinstance(doc.get("results"), dict) and "status" in doc["results"]:
            return doc
        return None

    def is_done(self, pid):
        doc = self.result(pid)
        return doc is not None and doc["results"].get("status") == "ok"

    def update_meta(self, **fields):
        """Set top-level fields of campaign.json (e.g. "rounds" after an adaptive run)."""
        meta = self.meta()
        meta.update(fields)
        write_atomic(self.path("campaign.json"), json.dumps(meta, indent=1) + "\n")

    def write_status(self, pid, status, exit_code, seconds, message="", **extra):
        """status/ID.json; `extra`: what else the runner knows (started, round, load)."""
        doc = {"point": pid, "status": status, "exit_code": exit_code,
               "seconds": round(seconds, 3), "message": message,
               "finished": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
        doc.update(extra)
        write_atomic(self.status_json(pid), json.dumps(doc) + "\n")


# --- evbench-scan import: a campaign from loose `evbench run --json` documents ---

STATUS_EXIT = {"ok": 0, "failed": 1, "config-error": 2, "integrity": 3, "integrity_error": 3,
               "data_source_lost": 3}


class ImportProblem(ValueError):
    """A file that is not an `evbench run --json` result; names the file."""


def read_result_file(path):
    """(parsed document, raw text) of an `evbench run --json` result; ImportProblem otherwise."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as err:
        raise ImportProblem("%s: cannot read: %s" % (path, err.strerror or err))
    try:
        doc = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as err:
        raise ImportProblem("%s: not JSON (%s)" % (path, err))
    if not isinstance(doc, dict):
        raise ImportProblem("%s: not an `evbench run --json` result (not a JSON object)" % path)
    if not isinstance(doc.get("config"), dict):
        raise ImportProblem("%s: not an `evbench run --json` result (no config object)" % path)
    results = doc.get("results")
    if not isinstance(results, dict) or not isinstance(results.get("status"), str):
        raise ImportProblem("%s: not an `evbench run --json` result (no results.status)" % path)
    return doc, raw


def flatten_config(config, prefix=""):
    """Resolved nested config -> {dotted key: plain value}; lists as compact JSON
    text, driver options as driver_options.KEY."""
    out = {}
    for key, value in config.items():
        dotted = "%s.%s" % (prefix, key) if prefix else key
        if isinstance(value, dict) and (key != "driver_options" or not prefix):
            if key == "driver_options" and not prefix:
                for k2, v2 in value.items():
                    out["driver_options.%s" % k2] = json.dumps(v2, separators=(",", ":")) \
                        if isinstance(v2, (list, dict)) else v2
            else:
                out.update(flatten_config(value, dotted))
        elif isinstance(value, list):
            out[dotted] = json.dumps(value, separators=(",", ":"))
        else:
            out[dotted] = value
    return out


def _plain(schema, key, value):
    """A resolved value as a scan would write it (sizes and durations with units)."""
    if schema is None or isinstance(value, bool) or not isinstance(value, (int, float)):
        return value
    kind = schema.type_of(key)
    try:
        if kind == "size":
            return schema.format_size(value)
        if kind == "duration":
            return schema.format_duration(float(value))
    except (TypeError, ValueError):
        pass
    return value


def varying_keys(flats):
    """Keys with more than one value among the documents that have them (a
    driver option only some drivers have does not vary by being absent)."""
    order, seen = [], {}
    for flat in flats:
        for key, value in flat.items():
            if key not in seen:
                order.append(key)
                seen[key] = set()
            seen[key].add(json.dumps(value, sort_keys=True))
    return [k for k in order if len(seen[k]) > 1]


# The knobs POST /control can change that are configuration keys, as
# results.control_initial names them.
STEERED_KEYS = ("parallel", "credits", "fu.processing_time")


def config_as_started(doc):
    """The configuration a run started with: results.config shows a steered
    run's knobs as they ended (docs/METRICS.md, phases), so a run with
    phases gets its starting values back from results.control_initial."""
    config = json.loads(json.dumps(doc.get("config") or {}))
    res = doc.get("results") or {}
    initial = res.get("control_initial")
    if not res.get("phases") or not isinstance(initial, dict):
        return config
    for key in STEERED_KEYS:
        if key not in initial:
            continue
        node, parts = config, key.split(".")
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        node[parts[-1]] = initial[key]
    return config


def import_results(root, files, name=None, schema=None):
    """Create or extend the campaign directory `root` from `evbench run --json`
    documents. Every file is read and checked before anything is written.
    Returns (new point ids, files skipped as already imported)."""
    import hashlib
    import yaml
    docs = [(path,) + read_result_file(path) for path in files]
    campaign = Campaign(root)
    old = read_json(campaign.path("campaign.json")) if os.path.exists(campaign.path("campaign.json")) else None
    if os.path.exists(campaign.path("campaign.json")) and not isinstance(old, dict):
        raise ImportProblem("%s: exists but is not a campaign.json" % campaign.path("campaign.json"))
    meta = old or {"scan": name or os.path.basename(campaign.root.rstrip(os.sep)), "description":
                   "imported from evbench run --json documents", "scan_file": None, "mode": "import",
                   "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "axes": [], "repeats": 1,
                   "points": [], "skipped": []}
    if name:
        meta["scan"] = name
    meta.setdefault("imported", [])
    known = set(entry.get("sha256") for entry in meta["imported"])
    numbers = [int(p["id"][1:]) for p in meta["points"] if p["id"][1:].isdigit()]
    next_number = max(numbers, default=0) + 1
    for sub in SUBDIRS:
        os.makedirs(campaign.path(sub), exist_ok=True)
    if schema is None:
        schema = schema_mod.read(campaign.root)
    elif not os.path.exists(campaign.path(schema_mod.FILE_NAME)):
        schema_mod.save(schema, campaign.root)
    new_ids, duplicates = [], []
    for path, doc, raw in docs:
        digest = hashlib.sha256(raw).hexdigest()
        if digest in known:
            duplicates.append(path)
            continue
        known.add(digest)
        pid = "p%04d" % next_number
        next_number += 1
        write_atomic(campaign.result_json(pid), raw.decode("utf-8"))
        write_atomic(campaign.point_yaml(pid), "# evbench point %s: imported from %s\n%s" % (
            pid, os.path.abspath(path), yaml.safe_dump(config_as_started(doc), default_flow_style=False,
                                                       sort_keys=False)))
        status = doc["results"]["status"]
        write_atomic(campaign.status_json(pid), json.dumps({
            "point": pid, "status": status, "exit_code": STATUS_EXIT.get(status),
            "seconds": doc["results"].get("window_s"), "message": "imported from %s" % os.path.abspath(path),
            "finished": time.strftime("%Y-%m-%dT%H:%M:%S%z")}) + "\n")
        meta["points"].append({"id": pid, "values": {}, "repeat": 0})
        meta["imported"].append({"id": pid, "file": os.path.abspath(path), "sha256": digest})
        new_ids.append(pid)
    # Axes: the config keys that differ between the documents (all points with a result).
    flats = {}
    for entry in meta["points"]:
        doc = campaign.result(entry["id"])
        if doc is not None and isinstance(doc.get("config"), dict):
            flats[entry["id"]] = flatten_config(config_as_started(doc))
    axes = varying_keys(list(flats.values()))
    # Keep the campaign's own axis order first (an extended scan campaign).
    axes = [a for a in meta.get("axes", []) if a in axes] + [a for a in axes if a not in meta.get("axes", [])]
    meta["axes"] = axes
    counts = {}
    for entry in meta["points"]:
        flat = flats.get(entry["id"])
        if flat is not None:
            entry["values"] = dict((k, _plain(schema, k, flat.get(k))) for k in axes)
        else:
            entry["values"] = dict((k, entry.get("values", {}).get(k)) for k in axes)
        identity = json.dumps(entry["values"], sort_keys=True)
        entry["repeat"] = counts.get(identity, 0)
        counts[identity] = entry["repeat"] + 1
    meta["repeats"] = max(counts.values(), default=1)
    meta.setdefault("skipped", [])
    write_atomic(campaign.path("campaign.json"), json.dumps(meta, indent=1) + "\n")
    return new_ids, duplicates
