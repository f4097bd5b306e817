"""Campaign reports: figures and tables as HTML (PNGs embedded) and Markdown.

"Bandwidth" is evbench's per-node figure (bytes received by a node's BU per
second, one direction), averaged over nodes unless min/max is said. Repeats of
one configuration are averaged. Points are matched with a baseline campaign by
their configuration, not by point id. Configurations come from the result
documents (sizes in bytes); sizes are labelled with the unit words of the key
table saved with the campaign, so no evbench binary is needed here.
"""
import base64
import html
import json
import os

from . import collect
from .campaign import Campaign

IDENTITY = ("driver", "protocol", "scheduling", "layout", "evm", "nodes", "credits", "parallel",
            "fragment.size", "ru_buffer", "shift")


def formatter(schema):
    """fmt(key, value) -> label text: sizes (by the key table's types) in unit
    words, everything else as is. Without a key table, plain numbers."""
    def fmt(key, value):
        if schema is not None and schema.type_of(key) == "size" and isinstance(value, int):
            return schema.format_size(value)
        return str(value)
    return fmt


def aggregate(recs, axis_keys):
    """Rows, one per distinct configuration, with figures averaged over repeats."""
    keys = list(IDENTITY) + [k for k in axis_keys if k not in IDENTITY]
    groups = {}
    for r in recs:
        if not r.ok:
            continue
        params = dict((k, r.cfg(k)) for k in keys)
        groups.setdefault(tuple(str(params[k]) for k in keys), (params, []))[1].append(r)
    rows = []
    for params, members in groups.values():
        f = [m.figures for m in members]

        def mean(name):
            vals = [x[name] for x in f if x[name] is not None]
            return sum(vals) / len(vals) if vals else None
        shifts = (members[0].doc.get("results") or {}).get("shifts")
        faults = [m.faults for m in members if m.faults]
        rows.append({"params": params, "ids": [m.id for m in members], "n": len(members),
                     "faults": faults,
                     "min": mean("per_node_min_gbps"), "avg": mean("per_node_avg_gbps"),
                     "max": mean("per_node_max_gbps"), "aggregate": mean("aggregate_gbps"),
                     "eps": mean("events_per_second"), "p99": mean("latency_p99_ms"), "shifts": shifts})
    return rows


def varying(rows):
    keys = []
    for k in rows[0]["params"] if rows else []:
        if len({str(r["params"][k]) for r in rows}) > 1:
            keys.append(k)
    return keys


def _ident(row):
    return tuple(sorted((k, str(v)) for k, v in row["params"].items()))


def _best(rows):
    return max(rows, key=lambda r: r["avg"] or 0.0)


def _pct(now, before):
    return None if not before or now is None else 100.0 * (now - before) / before


def _series(rows, xkey, label_keys, fmt):
    """{label: [(x, min, avg, max)]}: for each label and x the best row over the other keys."""
    best = {}
    for r in rows:
        # With no varying key to tell series apart, name the driver they share.
        label = ", ".join(fmt(k, r["params"][k]) for k in label_keys) or str(r["params"].get("driver", "all"))
        x = r["params"][xkey]
        if (label, x) not in best or (r["avg"] or 0) > (best[(label, x)]["avg"] or 0):
            best[(label, x)] = r
    out = {}
    for (label, x), r in sorted(best.items(), key=lambda item: (item[0][0], item[0][1])):
        out.setdefault(label, []).append((x, r["min"], r["avg"], r["max"]))
    return out


def surface_panels(rows, base_index, fmt):
    panels = []
    drivers = sorted({str(r["params"]["driver"]) for r in rows})
    for driver in drivers:
        for size in sorted({r["params"]["fragment.size"] for r in rows if str(r["params"]["driver"]) == driver}):
            sub = [r for r in rows if str(r["params"]["driver"]) == driver and r["params"]["fragment.size"] == size]
            credits = sorted({r["params"]["credits"] for r in sub})
            parallel = sorted({r["params"]["parallel"] for r in sub})
            cells, delta = {}, {}
            for r in sub:
                cell = (r["params"]["credits"], r["params"]["parallel"])
                if cell not in cells or r["avg"] > cells[cell]["avg"]:
                    cells[cell] = r
            grid = [[cells[(c, p)]["avg"] if (c, p) in cells else None for p in parallel] for c in credits]
            deltas = [[None for _ in parallel] for _ in credits]
            for i, c in enumerate(credits):
                for j, p in enumerate(parallel):
                    if (c, p) in cells and base_index:
                        before = base_index.get(_ident(cells[(c, p)]))
                        deltas[i][j] = _pct(cells[(c, p)]["avg"], before["avg"] if before else None)
            best_cell = max(cells, key=lambda cp: cells[cp]["avg"])
            best_val = cells[best_cell]["avg"]
            share = 100.0 * sum(1 for r in cells.values() if r["avg"] >= 0.9 * best_val) / len(cells)
            panels.append({"title": "%s, fragment %s" % (driver, fmt("fragment.size", size)),
                           "credits": credits, "parallel": parallel, "grid": grid,
                           "best": (credits.index(best_cell[0]), parallel.index(best_cell[1])),
                           "best_row": cells[best_cell], "share": share,
                           "delta": deltas if base_index else None})
    return panels


def driver_table(rows, vary, base_rows, fmt):
    best_by_driver = {}
    for r in rows:
        d = str(r["params"]["driver"])
        if d not in best_by_driver or r["avg"] > best_by_driver[d]["avg"]:
            best_by_driver[d] = r
    top = max(r["avg"] for r in best_by_driver.values())
    base_best = {}
    for r in base_rows:
        d = str(r["params"]["driver"])
        if d not in base_best or r["avg"] > base_best[d]["avg"]:
            base_best[d] = r
    table = []
    for d, r in sorted(best_by_driver.items(), key=lambda item: -item[1]["avg"]):
        conf = ", ".join("%s=%s" % (k, fmt(k, r["params"][k])) for k in vary if k != "driver")
        entry = {"driver": d, "points": r["ids"], "configuration": conf or "(only configuration)",
                 "per_node_avg_gbps": r["avg"], "aggregate_gbps": r["aggregate"],
                 "ratio_to_best": r["avg"] / top if top else None}
        if base_rows:
            b = base_best.get(d)
            entry["baseline_gbps"] = b["avg"] if b else None
            entry["change_pct"] = _pct(r["avg"], b["avg"] if b else None)
        table.append(entry)
    return table


def fault_table(rows, vary, fmt):
    """One row per configuration whose runs had faults: detection, recovery,
    what was reassigned, reported incomplete, lost and discarded (averaged
    over repeats; `recovered`: repeats whose aggregate came back to 90 %).
    Lets a scan compare scheduling (or anything else) under the same faults."""
    def mean(fs, key):
        vals = [f[key] for f in fs if f.get(key) is not None]
        return sum(vals) / len(vals) if vals else None
    head = ["points"] + vary + ["peers lost", "detect s", "rebuild s", "recover s (90 %)",
                                "recovered", "reassigned", "incomplete (lost RU)", "lost",
                                "late discarded", "corrupt injected/detected", "aggregate Gb/s"]
    body, entries = [], []
    for r in rows:
        fs = r["faults"]
        if not fs:
            continue
        e = {"points": r["ids"], "params": dict((k, r["params"][k]) for k in vary),
             "recovered": sum(1 for f in fs if f["recovered"]), "repeats": len(fs)}
        for key in ("peers", "detect_s", "rebuild_s", "recover_s", "reassigned",
                    "incomplete_lost_peer", "lost", "late_discarded", "corrupt_injected",
                    "corrupt_detected"):
            e[key] = mean(fs, key)
        entries.append(e)
        num = lambda v, f="%.3f": "-" if v is None else f % v
        body.append([" ".join(r["ids"])] + [fmt(k, r["params"][k]) for k in vary] + [
            num(e["peers"], "%g"), num(e["detect_s"]), num(e["rebuild_s"]), num(e["recover_s"]),
            "%d/%d" % (e["recovered"], e["repeats"]) if e["peers"] else "-",
            num(e["reassigned"], "%g"), num(e["incomplete_lost_peer"], "%g"),
            num(e["lost"], "%g"), num(e["late_discarded"], "%g"),
            "%s/%s" % (num(e["corrupt_injected"], "%g"), num(e["corrupt_detected"], "%g")),
            _g(r["aggregate"])])
    return head, body, entries


def analyse(root, baseline=None):
    meta = Campaign(root).meta()
    recs = collect.write_index(root)
    rows = aggregate(recs, meta["axes"])
    base_rows = []
    if baseline:
        base_rows = aggregate(collect.records(baseline), Campaign(baseline).meta()["axes"])
    return meta, recs, rows, base_rows


def write_report(root, outdir, baseline=None, reference_files=()):
    from . import plots   # matplotlib import is slow; only here
    from . import references
    # Bad reference files fail before anything is written.
    ref_docs = [references.load(path) for path in reference_files]
    os.makedirs(outdir, exist_ok=True)
    meta, recs, rows, base_rows = analyse(root, baseline)
    fmt = formatter(Campaign(root).schema())
    base_index = dict((_ident(r), r) for r in base_rows)
    vary = varying(rows)
    figures, summary = [], {"campaign": meta["scan"], "points": len(recs),
                            "status": collect.summary(recs), "figures": []}

    def add(name, caption, path):
        figures.append((name, caption, path))
        summary["figures"].append(os.path.basename(path))

    if rows and "fragment.size" in vary:
        labels = ["driver"] if "driver" in vary else []
        others = [k for k in vary if k not in ("fragment.size", "driver")]
        note = "best over %s" % ", ".join(others) if others else ""
        path = plots.bandwidth_vs_size(_series(rows, "fragment.size", labels, fmt),
                                       _series(base_rows, "fragment.size", labels, fmt) if base_rows else {},
                                       os.path.join(outdir, "bandwidth_vs_size.png"), note,
                                       size_label=lambda n: fmt("fragment.size", n))
        add("Bandwidth vs fragment size", "Per driver; shaded: min..max over nodes. " + note, path)
    if rows and "credits" in vary and "parallel" in vary:
        panels = surface_panels(rows, base_index, fmt)
        path = plots.tuning_surface(panels, os.path.join(outdir, "tuning_surface.png"))
        summary["surfaces"] = [{"title": p["title"], "best_gbps": p["best_row"]["avg"],
                                "best_points": p["best_row"]["ids"], "share_within_90pct": p["share"]}
                               for p in panels]
        text = "; ".join("%s: best %.2f Gb/s at credits=%s, parallel=%s, %.0f%% of the space within 90%%" % (
            p["title"], p["best_row"]["avg"], p["best_row"]["params"]["credits"],
            p["best_row"]["params"]["parallel"], p["share"]) for p in panels)
        add("Tuning surface (credits x parallel)", text, path)
    if rows and "nodes" in vary:
        labels = [k for k in ("driver", "scheduling") if k in vary] or ["driver"]
        path = plots.bandwidth_vs_nodes(_series(rows, "nodes", labels, fmt),
                                        _series(base_rows, "nodes", labels, fmt) if base_rows else {},
                                        os.path.join(outdir, "bandwidth_vs_nodes.png"))
        add("Bandwidth vs node count", "Per %s; best over other parameters." % " and ".join(labels), path)
    shift_rows = [r for r in rows if r["shifts"]]
    if shift_rows:
        entries = []
        for r in shift_rows[:6]:
            label = ", ".join("%s=%s" % (k, fmt(k, r["params"][k])) for k in vary) or r["ids"][0]
            b = base_index.get(_ident(r))
            conv = lambda s: [(x["shift"], x["per_node"]["min"], x["per_node"]["avg"], x["per_node"]["max"]) for x in s]
            entries.append((label, conv(r["shifts"]), conv(b["shifts"]) if b and b["shifts"] else None))
        add("One-to-one by shift", "Per-node bandwidth for each shift.",
            plots.shift_bars(entries, os.path.join(outdir, "shifts.png")))
    drivers = driver_table(rows, vary, base_rows, fmt) if rows else []
    summary["drivers"] = drivers
    top = sorted(rows, key=lambda r: -(r["avg"] or 0))[:10]
    faults = fault_table(rows, vary, fmt)
    if faults[1]:
        summary["faults"] = faults[2]
    extra = []
    if ref_docs:
        head, body, summary["references"] = references.table(ref_docs)
        extra.append(("Against the references", head, body))
    with open(os.path.join(outdir, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    md = _markdown(meta, summary, figures, drivers, top, vary, base_index, baseline, fmt, faults, extra)
    md_path = os.path.join(outdir, "report.md")
    with open(md_path, "w") as f:
        f.write(md)
    html_path = os.path.join(outdir, "report.html")
    with open(html_path, "w") as f:
        f.write(_html(meta, summary, figures, drivers, top, vary, base_index, baseline, fmt, faults, extra))
    return html_path, md_path


def _g(v):
    return "-" if v is None else "%.2f" % v


def _table_rows(drivers, top, vary, base_index, baseline, fmt):
    dh = ["driver", "best configuration", "points", "Gb/s per node", "aggregate Gb/s", "ratio to best"]
    if baseline:
        dh += ["baseline Gb/s", "change"]
    dr = []
    for d in drivers:
        row = [d["driver"], d["configuration"], " ".join(d["points"]), _g(d["per_node_avg_gbps"]),
               _g(d["aggregate_gbps"]), "%.2f" % d["ratio_to_best"]]
        if baseline:
            row += [_g(d.get("baseline_gbps")),
                    "-" if d.get("change_pct") is None else "%+.1f%%" % d["change_pct"]]
        dr.append(row)
    th = ["points"] + vary + ["Gb/s per node (min/avg/max)", "aggregate Gb/s", "events/s", "p99 ms"]
    if baseline:
        th.append("change vs baseline")
    tr = []
    for r in top:
        row = [" ".join(r["ids"])] + [fmt(k, r["params"][k]) for k in vary] + [
            "%s / %s / %s" % (_g(r["min"]), _g(r["avg"]), _g(r["max"])), _g(r["aggregate"]),
            "%.0f" % r["eps"] if r["eps"] is not None else "-", _g(r["p99"])]
        if baseline:
            b = base_index.get(_ident(r))
            change = _pct(r["avg"], b["avg"] if b else None)
            row.append("-" if change is None else "%+.1f%%" % change)
        tr.append(row)
    return (dh, dr), (th, tr)


def _markdown(meta, summary, figures, drivers, top, vary, base_index, baseline, fmt, faults, extra):
    out = ["# evbench campaign: %s" % meta["scan"], "",
           "%s. Points: %s. Bandwidth = per node, BU receive direction, averaged over repeats." % (
               meta.get("description") or "Scan %s" % meta["scan"], summary["status"])]
    if baseline:
        out.append("Baseline: `%s` (changes are relative to it)." % baseline)
    (dh, dr), (th, tr) = _table_rows(drivers, top, vary, base_index, baseline, fmt)
    tables = [("Driver comparison", dh, dr), ("Best points", th, tr)]
    if faults[1]:
        tables.append(("Faults", faults[0], faults[1]))
    tables += extra
    for title, head, body in tables:
        out += ["", "## " + title, "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        out += ["| " + " | ".join(str(c) for c in row) + " |" for row in body]
    for name, caption, path in figures:
        out += ["", "## " + name, "", caption, "", "![%s](%s)" % (name, os.path.basename(path))]
    return "\n".join(out) + "\n"


def _html(meta, summary, figures, drivers, top, vary, base_index, baseline, fmt, faults, extra):
    e = html.escape
    (dh, dr), (th, tr) = _table_rows(drivers, top, vary, base_index, baseline, fmt)

    def table(head, body):
        return "<table><tr>%s</tr>%s</table>" % ("".join("<th>%s</th>" % e(h) for h in head), "".join(
            "<tr>%s</tr>" % "".join("<td>%s</td>" % e(str(c)) for c in row) for row in body))
    parts = ["<!DOCTYPE html><html><head><meta charset='utf-8'><title>evbench: %s</title>" % e(meta["scan"]),
             "<style>body{font-family:sans-serif;max-width:1100px;margin:2em auto}"
             "table{border-collapse:collapse}td,th{border:1px solid #bbb;padding:3px 8px;text-align:right}"
             "img{max-width:100%}</style></head><body>",
             "<h1>evbench campaign: %s</h1>" % e(meta["scan"]),
             "<p>%s. Points: %s. Bandwidth = per node, BU receive direction, averaged over repeats.</p>" % (
                 e(meta.get("description") or "Scan " + meta["scan"]), e(summary["status"]))]
    if baseline:
        parts.append("<p>Baseline: <code>%s</code> (changes are relative to it).</p>" % e(baseline))
    parts += ["<h2>Driver comparison</h2>", table(dh, dr), "<h2>Best points</h2>", table(th, tr)]
    if faults[1]:
        parts += ["<h2>Faults</h2>", table(faults[0], faults[1])]
    for title, head, body in extra:
        parts += ["<h2>%s</h2>" % e(title), table(head, body)]
    for name, caption, path in figures:
        with open(path, "rb") as f:
            data = base64.b64encode(f.read()).decode()
        parts += ["<h2>%s</h2><p>%s</p>" % (e(name), e(caption)),
                  "<img alt='%s' src='data:image/png;base64,%s'>" % (e(name), data)]
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
