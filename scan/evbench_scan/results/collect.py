"""Gathering per-point results into index.csv and into records for reports."""
import csv
import io
import json
import os
import re

from . import failures, hostload
from .campaign import Campaign, read_json, write_atomic

FIGURES = ("events_built", "aggregate_gbps", "per_node_min_gbps", "per_node_avg_gbps",
           "per_node_max_gbps", "network_per_node_avg_gbps", "network_aggregate_gbps",
           "events_per_second", "latency_p99_ms")

# The protocols that built events before results said so themselves
# (results.builds_events, the protocol's trait); the others are
# micro-benchmarks (no latency, no events assigned: docs/MICROBENCH.md).
OLD_EVENT_BUILDERS = ("pull", "push", "pull-noevm")


def builds_events(doc):
    """Whether the run built events: results.builds_events, or for results
    older than that field, its protocol's name."""
    res = (doc or {}).get("results") or {}
    if isinstance(res.get("builds_events"), bool):
        return res["builds_events"]
    return ((doc or {}).get("config") or {}).get("protocol") in OLD_EVENT_BUILDERS


def figures(doc):
    """Key figures of one result document (missing ones are None)."""
    res = (doc or {}).get("results") or {}
    bw = res.get("bandwidth_gbps") or {}
    per_node = bw.get("per_node") or {}
    network = bw.get("network") or {}
    builder = builds_events(doc)
    return {
        "events_built": res.get("events_built"),
        "aggregate_gbps": bw.get("aggregate"),
        "per_node_min_gbps": per_node.get("min"),
        "per_node_avg_gbps": per_node.get("avg"),
        "per_node_max_gbps": per_node.get("max"),
        "network_per_node_avg_gbps": (network.get("per_node") or {}).get("avg"),
        "network_aggregate_gbps": network.get("aggregate"),
        "events_per_second": res.get("events_per_second"),
        # multi-event fragments (fragment.events > 1) only; not an index.csv column
        "meps_per_second": res.get("meps_per_second"),
        # a micro-benchmark has no event latency (its columns would read 0)
        "latency_p99_ms": (res.get("latency_ms") or {}).get("p99") if builder else None,
    }


def simulation(doc):
    """(model, platform) of a simulated result (`evbench sim`: results.simulated,
    simulation_model, simulated_platform), or None for a measured one. The
    platform is the file's name without .yaml, "(order NAME)" kept:
    ("credit", "sim-tree-16")."""
    res = (doc or {}).get("results") or {}
    if not res.get("simulated"):
        return None
    m = re.match(r"^(.*?)(?: \(order (.*)\))?$", str(res.get("simulated_platform") or "?"))
    platform = os.path.splitext(os.path.basename(m.group(1)))[0]
    if m.group(2):
        platform += " (order %s)" % os.path.basename(m.group(2))
    return str(res.get("simulation_model") or "fluid"), platform


def simulated_text(sim):
    """'simulated: credit model, sim-tree-16' (the words every simulated variant carries)."""
    return "simulated: %s model, %s" % sim


def variant(doc):
    """The variant that ran, as the result says (`results.variant`: driver,
    transport or provider, data path where the driver has two): "ucx/sm
    write", "mpi/vader", "tcp". Older results name it from `results.driver`
    and the data path. A simulated result says so, with its model and
    platform: "sim/credit send (simulated: credit model, sim-tree-16)", so it
    is never taken for a measurement, nor merged with another platform's."""
    res = (doc or {}).get("results") or {}
    if res.get("variant"):
        name = str(res["variant"])
    else:
        name = str(res.get("driver") or ((doc or {}).get("config") or {}).get("driver") or "?")
        name = name + " write" if res.get("data_path") == "write" else name
    sim = simulation(doc)
    return "%s (%s)" % (name, simulated_text(sim)) if sim else name


def display_name(values, ran_as, sim=None):
    """What reports call a point's variant: its `name:` (the label axis) when
    the scan gave one (a simulated point's still says so, as variant()
    does), else the variant that ran, with the wrapper it ran under ("psm2
    under with-psm2-shm.sh")."""
    label = (values or {}).get("label")
    if label not in (None, ""):
        return "%s (%s)" % (label, simulated_text(sim)) if sim else str(label)
    wrapper = (values or {}).get("wrapper")
    if ran_as is not None and wrapper:
        return "%s under %s" % (ran_as, str(wrapper).split()[0].rsplit("/", 1)[-1])
    return ran_as


def flatten(tree, prefix=""):
    """{"fragment": {"size": 1}} -> {"fragment.size": 1}; lists become text."""
    out = {}
    for k, v in (tree or {}).items():
        dotted = prefix + str(k)
        if isinstance(v, dict):
            out.update(flatten(v, dotted + "."))
        elif isinstance(v, list):
            out[dotted] = json.dumps(v, sort_keys=True)
        else:
            out[dotted] = v
    return out


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

    def __init__(self, pid, values, repeat, status, exit_code, doc, message=""):
        self.id, self.values, self.repeat = pid, values, repeat
        self.message = message  # why a point did not finish, as its status file says
        self.log_path = None   # logs/ID.log, set by records()
        self.status, self.exit_code, self.doc = status, exit_code, doc
        self.figures = figures(doc)
        self.faults = fault_figures(doc)
        self.config = (doc or {}).get("config") or {}
        self.flat = flatten(self.config)
        self.simulated = simulation(doc)   # (model, platform) or None: measured
        self.ran_as = variant(doc) if doc is not None else None    # results.variant
        self.variant = display_name(values, self.ran_as, self.simulated)   # what reports call it
        self.load = None        # hostload.of_point: the host's load while it ran, set by records()
        self.builder = builds_events(doc)

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
    # repeats: auto stopped after some rounds: the later rounds' points were
    # not needed (unless a run before did them), they are not pending
    rounds = (meta.get("rounds") or {}).get("run")
    out = []
    for entry in meta["points"]:
        pid = entry["id"]
        doc = campaign.result(pid)
        status_doc = read_json(campaign.status_json(pid)) or {}
        if rounds is not None and entry.get("repeat", 0) >= rounds and doc is None and not status_doc:
            continue
        if doc is not None:
            status = doc["results"].get("status", "unknown")
        else:
            status = status_doc.get("status", "pending")
        exit_code = status_doc.get("exit_code", 0 if status == "ok" else None)
        message = status_doc.get("message") or ""
        if not message and status not in ("ok", "pending"):   # job scripts write no message
            message = failures.reason(status, exit_code, campaign.log(pid), doc)
        rec = Record(pid, entry["values"], entry.get("repeat", 0), status, exit_code, doc, message)
        rec.log_path = campaign.log(pid)
        rec.load = hostload.of_point(doc, status_doc)
        out.append(rec)
    return out


def cell(value):
    """A value as plain text for index.csv and reports: never a Python repr."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return "%.6g" % value
    if isinstance(value, dict):   # never a Python repr: key=value pairs
        return ";".join("%s=%s" % (k, cell(v)) for k, v in sorted(flatten(value).items()))
    if isinstance(value, list):
        return json.dumps(value, sort_keys=True)
    return str(value)



def write_index(root):
    """Rewrite DIR/index.csv from what is in the directory; returns the records.

    One row per point: its id and repeat, the variant that ran, one plain
    column per axis key, status, exit code, the key figures and its JSON."""
    campaign = Campaign(root)
    axes = [a for a in campaign.meta()["axes"] if a != "variant"]
    recs = records(root)
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["point", "repeat", "variant"] + axes + ["status", "exit_code"] + list(FIGURES) + ["json"])
    for r in recs:
        writer.writerow([r.id, r.repeat, r.variant or ""] + [cell(r.values.get(a)) for a in axes] +
                        [r.status, cell(r.exit_code)] + [cell(r.figures[f]) for f in FIGURES] +
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
