"""Campaign directories made of hand-written result documents, for report
tests whose arithmetic must be exact (medians, noise verdicts, pair matrix,
baseline matching): every figure in them is chosen by the test, so what the
report says can be checked against it to the digit.

The documents carry the fields `evbench run --json` writes (docs/METRICS.md)
that reports read; nothing else.
"""
import json
import os


def result(variant, per_node, nodes=4, protocol="pull", network=None, shifts=None, faults=None,
           integrity=None, **config):
    """One result document whose nodes all report `per_node` Gb/s."""
    driver = variant.split("/")[0].split()[0]
    cfg = {"nodes": nodes, "protocol": protocol, "driver": driver, "credits": 2, "parallel": 4,
           "fragment": {"size": 524288}, "driver_options": {}}
    for k, v in config.items():
        target = cfg
        parts = k.split("__")
        for p in parts[:-1]:
            target = target.setdefault(p, {})
        target[parts[-1]] = v
    net = per_node * (nodes - 1) / nodes if network is None else network
    res = {"status": "ok", "driver": variant.split()[0], "variant": variant,
           "data_path": "write" if variant.endswith(" write") else "send",
           "events_built": 100, "events_per_second": 1000.0, "warmup_s": 0.2,
           "bandwidth_gbps": {"per_node": {"min": per_node, "avg": per_node, "max": per_node},
                              "per_node_values": [per_node] * nodes, "aggregate": per_node * nodes,
                              "network": {"per_node": {"min": net, "avg": net, "max": net},
                                          "per_node_values": [net] * nodes, "aggregate": net * nodes}},
           "latency_ms": {"p50": 1.0, "p99": 2.0, "max": 3.0},
           "integrity": integrity or {"lost": 0, "incomplete_lost_peer": 0, "late_discarded": 0},
           "faults": faults or []}
    if shifts is not None:
        res["shifts"] = shifts
    return {"schema_version": 1, "tool": "evbench", "config": cfg, "results": res}


def shift_entries(rates, local=40.0):
    """results.shifts for a one-to-one scan: rates[s][n] is node n's receive rate at shift s >= 1."""
    nodes = len(rates[0])
    out = [{"shift": 0, "local_copy": True, "per_node_values": [local] * nodes,
            "per_node": {"min": local, "avg": local, "max": local}, "aggregate": local * nodes}]
    for s, vals in enumerate(rates, start=1):
        out.append({"shift": s, "local_copy": False, "per_node_values": list(vals),
                    "per_node": {"min": min(vals), "avg": sum(vals) / nodes, "max": max(vals)},
                    "aggregate": sum(vals)})
    return out


def campaign(root, points, axes, skipped=None, schema=None):
    """points: [(axis values, result document or None (pending))]."""
    for sub in ("results", "status", "points", "logs"):
        os.makedirs(os.path.join(root, sub), exist_ok=True)
    entries = []
    for i, (values, doc) in enumerate(points):
        pid = "p%04d" % (i + 1)
        entries.append({"id": pid, "values": values, "repeat": 0})
        if doc is not None:
            with open(os.path.join(root, "results", pid + ".json"), "w") as f:
                json.dump(doc, f)
    meta = {"scan": os.path.basename(str(root)), "axes": axes, "points": entries}
    if skipped:
        meta["skipped"] = skipped
    with open(os.path.join(root, "campaign.json"), "w") as f:
        json.dump(meta, f)
    if schema is not None:   # the key table a real campaign saves: sizes print as "512KiB"
        from evbench_scan.spec import schema as schema_mod
        schema_mod.save(schema, str(root))
    return str(root)
