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

from . import schema as schema_mod

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

    def create(self, scan, points, mode, skipped=(), drivers=None):
        """Lay out the directory for `points` (existing results are kept).
        `skipped`: the points not run, as dicts {id, values, repeat, reason,
        source}; `drivers`: what `evbench drivers --json` said here (a dict
        {"plain": doc, "wrapped": {wrapper: doc}}), or None."""
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
            "points": [{"id": p.id, "values": p.values, "repeat": p.repeat} for p in points],
            "skipped": list(skipped),
        }
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

    def write_status(self, pid, status, exit_code, seconds, message=""):
        write_atomic(self.status_json(pid), json.dumps({
            "point": pid, "status": status, "exit_code": exit_code,
            "seconds": round(seconds, 3), "message": message,
            "finished": time.strftime("%Y-%m-%dT%H:%M:%S%z")}) + "\n")
