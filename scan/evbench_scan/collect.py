"""Gathering per-point results into index.csv and into records for reports."""
import csv
import io

from .campaign import Campaign, read_json, write_atomic

FIGURES = ("events_built", "aggregate_gbps", "per_node_min_gbps", "per_node_avg_gbps",
           "per_node_max_gbps", "events_per_second", "latency_p99_ms")


def figures(doc):
    """Key figures of one result document (missing ones are None)."""
    res = (doc or {}).get("results") or {}
    bw = res.get("bandwidth_gbps") or {}
    per_node = bw.get("per_node") or {}
    return {
        "events_built": res.get("events_built"),
        "aggregate_gbps": bw.get("aggregate"),
        "per_node_min_gbps": per_node.get("min"),
        "per_node_avg_gbps": per_node.get("avg"),
        "per_node_max_gbps": per_node.get("max"),
        "events_per_second": res.get("events_per_second"),
        "latency_p99_ms": (res.get("latency_ms") or {}).get("p99"),
    }


def fault_figures(doc):
    """What a run with faults (results.faults) says about them, or None.

    Detection and recovery over the peers the EVM lost or excluded (the
    slowest one); recover_s is None when one of them never got the aggregate
    back to 90 % (`recovered` False)."""
    res = (doc or {}).get("results") or {}
    faults = res.get("faults") or []
    if not faults:
        return None
    integ = res.get("integrity") or {}
    peers = [f for f in faults if f.get("kind") in ("peer_lost", "excluded_silent")]
    bus = [f for f in peers if str(f.get("unit", "")).startswith("BU")]
    recover = [f.get("time_to_recover_s") for f in bus]
    rebuild = [f.get("time_to_rebuild_s") for f in bus]
    corrupt = [f for f in faults if f.get("kind") == "corrupt"]
    return {
        "peers": len(peers),
        "detect_s": max((f["time_to_detect_s"] for f in peers), default=None),
        "rebuild_s": None if None in rebuild else max(rebuild, default=None),
        "recover_s": None if None in recover else max(recover, default=None),
        "recovered": bool(bus) and None not in recover,
        "reassigned": sum(f.get("events_reassigned", 0) for f in peers),
        "incomplete_lost_peer": integ.get("incomplete_lost_peer"),
        "lost": integ.get("lost"),
        "late_discarded": integ.get("late_discarded"),
        "corrupt_injected": sum(f.get("injected", 0) for f in corrupt),
        "corrupt_detected": sum(f.get("detected", 0) for f in corrupt),
    }


class Record:
    """One point as seen by reports: axis values, full config, status, figures."""

    def __init__(self, pid, values, repeat, status, exit_code, doc):
        self.id, self.values, self.repeat = pid, values, repeat
        self.status, self.exit_code, self.doc = status, exit_code, doc
        self.figures = figures(doc)
        self.faults = fault_figures(doc)
        self.config = (doc or {}).get("config") or {}

    @property
    def ok(self):
        return self.status == "ok" and self.figures["aggregate_gbps"] is not None

    def cfg(self, dotted, default=None):
        """A config value from the result document (falls back to axis value)."""
        target = self.config
        for part in dotted.split("."):
            if not isinstance(target, dict) or part not in target:
                return self.values.get(dotted, default)
            target = target[part]
        return target


def records(root):
    campaign = Campaign(root)
    meta = campaign.meta()
    out = []
    for entry in meta["points"]:
        pid = entry["id"]
        doc = campaign.result(pid)
        status_doc = read_json(campaign.status_json(pid)) or {}
        if doc is not None:
            status = doc["results"].get("status", "unknown")
        else:
            status = status_doc.get("status", "pending")
        exit_code = status_doc.get("exit_code", 0 if status == "ok" else None)
        out.append(Record(pid, entry["values"], entry.get("repeat", 0), status, exit_code, doc))
    return out


def _cell(value):
    if value is None:
        return ""
    if isinstance(value, float):
        return "%.6g" % value
    return str(value)


def write_index(root):
    """Rewrite DIR/index.csv from what is in the directory; returns the records."""
    campaign = Campaign(root)
    axes = campaign.meta()["axes"]
    recs = records(root)
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["point", "repeat"] + axes + ["status", "exit_code"] + list(FIGURES) + ["json"])
    for r in recs:
        writer.writerow([r.id, r.repeat] + [_cell(r.values.get(a)) for a in axes] +
                        [r.status, _cell(r.exit_code)] + [_cell(r.figures[f]) for f in FIGURES] +
                        ["results/%s.json" % r.id if r.doc is not None else ""])
    write_atomic(campaign.path("index.csv"), buf.getvalue())
    return recs


def read_index(root):
    with open(Campaign(root).path("index.csv")) as f:
        return list(csv.DictReader(f))


def summary(recs):
    counts = {}
    for r in recs:
        counts[r.status] = counts.get(r.status, 0) + 1
    return ", ".join("%d %s" % (n, s) for s, n in sorted(counts.items()))
