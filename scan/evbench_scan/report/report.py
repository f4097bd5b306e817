"""Campaign reports: the answer first, then tables and figures, as HTML
(PNGs embedded, one self-contained file) and Markdown, from Jinja2
templates (templates/), plus summary.json for programs.

The unit of comparison is the variant that ran (`results.variant`: driver,
transport or provider, data path), never the config text. Every figure is
the median of a configuration's repeats with their min–max; a lead is stated
only where the repeats' ranges do not overlap (stats.py). Configurations are
told apart by the keys that vary across the campaign, shown as key=value;
a baseline campaign is compared point by point, only where every key is
equal. Sizes are labelled with the unit words of the key table saved with
the campaign, so no evbench binary is needed (except for --platform, which
asks `evbench topo` for its prediction and, for a measured shift scan the
campaign has not simulated, `evbench sim --model credit`: simshifts.py).
Measured and simulated results are never ranked against each other.
"""
import base64
import json
import os

from ..results import collect, hostload
from ..results.campaign import Campaign
from . import analysis, answers, figures, impact, rounds, simshifts, tables
from .shifts import ShiftScan, ShiftScanError, is_shift_scan, platform_prediction


class ReportError(Exception):
    """The campaign cannot be reported on (exit 1): the message says why."""


def formatter(schema):
    """fmt(key, value) -> label text: sizes and durations in unit words (by the
    key table's types), booleans as true/false, unset as '(unset)'."""
    def fmt(key, value):
        if value is None:
            return "(unset)"
        if isinstance(value, bool):
            return "true" if value else "false"
        if schema is not None and isinstance(value, (int, float)):
            kind = schema.type_of(key)
            if kind == "size" and isinstance(value, int):
                return schema.format_size(value)
            if kind == "duration":
                return schema.format_duration(value)
        if isinstance(value, float):
            return "%g" % value
        return collect.cell(value)   # lists and maps as JSON / key=value, never a Python repr
    return fmt


def _nodes(row):
    return int(row.value("nodes") or 0)


def _empty_message(root, recs):
    if not recs:
        return "%s: the campaign has no points" % root
    return "%s: no point has a result to report (%s); run `evbench-scan run` or `submit` first, " \
           "or look at logs/ for why the points failed" % (root, collect.summary(recs))


def _ran(recs):
    """Points that ran (ok or not): a report can say why the failed ones failed."""
    return [r for r in recs if r.status != "pending"]


def analyse(root, baseline=None, platform=None, evbench=None, load_bound=hostload.BOUND_CPUS):
    """Everything the templates and summary.json need, as one dict."""
    campaign = Campaign(root)
    meta = campaign.meta()
    recs = collect.write_index(root)
    rows = analysis.rows_of(recs)
    if not rows and not _ran(recs):
        raise ReportError(_empty_message(root, recs))
    base_rows = None
    if baseline:
        base_rows = analysis.rows_of(collect.records(baseline))
        if not base_rows:
            raise ReportError("--baseline " + _empty_message(baseline, collect.records(baseline)))
    fmt = formatter(campaign.schema())
    vary = analysis.varying(rows, meta.get("axes") or ())
    scans = [ShiftScan(r, _nodes(r)) for r in rows if is_shift_scan(r)]
    simulations = []   # (file name, result document) of the simulations the report ran
    if platform:
        if not scans:
            raise ReportError("--platform %s: the campaign has no one-to-one shift scan to predict" % platform)
        for scan in scans:
            try:
                scan.apply_prediction(platform_prediction(evbench, platform, scan.nodes))
            except ShiftScanError as err:
                raise ReportError(str(err))
    # The credit model beside a measured scan: the campaign's own simulation
    # of it, else (with --platform) one the report runs.
    for scan in simshifts.pair(scans, platform):
        if platform:
            try:
                simulated, doc = simshifts.simulate(evbench, platform, scan)
            except ShiftScanError as err:
                raise ReportError(str(err))
            name = "credit_%d.json" % len(simulations)
            scan.set_beside(simulated, "evbench sim --model credit, run by the report: %s" % name)
            simulations.append((name, doc))
    return {"meta": meta, "recs": recs, "rows": rows, "base_rows": base_rows, "fmt": fmt,
            "vary": vary, "scans": scans, "simulations": simulations, "schema": campaign.schema(),
            "flags": hostload.LoadFlags([r for r in recs if not r.simulated], load_bound)}


def _nothing_finished(recs):
    """The answer of a campaign none of whose points finished."""
    failed = [r for r in recs if r.status not in ("ok", "pending")]
    return [answers.Answer("No point finished: %d of %d failed%s — nothing to compare; each failure and its "
                           "reason is under Not run." % (
                               len(failed), len(recs), ", %d pending" % (len(recs) - len(_ran(recs)))
                               if len(recs) > len(_ran(recs)) else ""))]


def write_report(root, outdir, baseline=None, reference_files=(), platform=None, evbench=None,
                 load_bound=hostload.BOUND_CPUS):
    from . import references
    # Bad inputs fail before anything is written.
    ref_docs = [references.load(path) for path in reference_files]
    a = analyse(root, baseline, platform, evbench, load_bound)
    meta, rows, vary, fmt, scans, flags = a["meta"], a["rows"], a["vary"], a["fmt"], a["scans"], a["flags"]
    os.makedirs(outdir, exist_ok=True)
    for name, doc in a["simulations"]:
        simshifts.write(outdir, name, doc)
    figs = figures.all_figures(rows, a["base_rows"], vary, fmt, outdir, scans, flags) if rows else []
    impact_figure = impact.figure(rows, outdir) if rows else None
    if impact_figure:
        figs.append(impact_figure)
    missing = tables.not_run(meta, a["recs"], fmt)
    said = answers.answer(rows, vary, fmt, scans, missing.body, flags, a["schema"]) if rows else \
        _nothing_finished(a["recs"])
    # Under background traffic (a `background` axis): the impact factor first.
    impact_table, impact_said = impact.impact(rows) if rows else (None, [])
    said = impact_said + said + [answers.Answer(s) for s in rounds.sentences(meta)]
    sentences = [s.text for s in said]
    tabs = [tables.variants(rows, vary, fmt), tables.configurations(rows, vary, fmt, a["base_rows"])] \
        if rows else []
    if impact_table:
        tabs.append(impact_table)
    fault_rows = analysis.rows_of(a["recs"], ("ok", "data_source_lost"))
    fault_table, fault_entries = tables.faults(fault_rows, [k for k in vary], fmt)
    if fault_table.body:
        tabs.append(fault_table)
    if missing.body or missing.note:
        tabs.append(missing)
    if flags.values:
        tabs.append(tables.host_load(a["recs"], flags, vary, fmt))
    summary = {"campaign": meta["scan"], "points": len(a["recs"]), "status": collect.summary(a["recs"]),
               "answer": sentences, "answers": [s.as_dict() for s in said], "varying": vary,
               "load": flags.as_dict(), "order": meta.get("order"), "rounds": meta.get("rounds"),
               "variants": [dict(zip(tabs[0].head, line)) for line in tabs[0].body] if rows else [],
               "configurations": [{"variant": r.variant, "ran_as": r.ran_as,
                                   "params": dict((k, r.value(k)) for k in vary),
                                   "points": r.ids, "per_node_gbps": r.per_node.as_dict(),
                                   "network_per_node_gbps": r.network.as_dict(),
                                   "aggregate_gbps": r.aggregate.as_dict()} for r in analysis.ranked(rows)],
               "figures": [f.file for f in figs],
               "shift_scans": [dict({"points": s.row.ids, "nodes": s.nodes, "pair_matrix_gbps": s.matrix(),
                                     "shifts": s.profile()}, **_beside(s)) for s in scans],
               "not_run": missing.body}
    if fault_entries:
        summary["faults"] = fault_entries
    if impact_table:
        summary["impact"] = [dict(zip(impact_table.head, line)) for line in impact_table.body]
    if ref_docs:
        head, body, summary["references"] = references.table(ref_docs)
        tabs.append(tables.Table("Against the references", head, body))
    with open(os.path.join(outdir, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1, default=lambda o: o.as_dict() if hasattr(o, "as_dict") else str(o))
    context = {"title": meta["scan"], "description": meta.get("description") or "",
               "status": summary["status"], "baseline": baseline, "answer": sentences,
               "order": rounds.order_line(meta),
               "tables": tabs, "figures": figs, "builders": any(r.builder for r in rows),
               "micro": any(not r.builder for r in rows), "platform": platform,
               "simulated": any(r.simulated for r in rows)}
    md_path = os.path.join(outdir, "report.md")
    html_path = os.path.join(outdir, "report.html")
    with open(md_path, "w") as f:
        f.write(_render("report.md.j2", context))
    for fig in figs:
        with open(fig.path, "rb") as img:
            fig.data = base64.b64encode(img.read()).decode()
    with open(html_path, "w") as f:
        f.write(_render("report.html.j2", context))
    return html_path, md_path


def _beside(scan):
    """summary.json's record of the simulation drawn beside a shift scan."""
    if not scan.beside:
        return {}
    return {"simulated_beside": {"model_platform": scan.beside["label"], "source": scan.beside["source"],
                                 "per_node_gbps": dict((str(k), v) for k, v in sorted(scan.beside["steps"].items()))}}


def _md_cell(value):
    return str(value).replace("|", "\\|").replace("\n", " ")


def _is_figure(value):
    """Cells that read as numbers ('12.34', '-8.7 %', '13.2–16.7', '2/2') are right-aligned."""
    text = str(value).strip()
    return bool(text) and (text[0].isdigit() or (text[0] in "+-" and text[1:2].isdigit()) or text == "-")


def _render(name, context):
    import jinja2
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(os.path.join(os.path.dirname(__file__), "templates")),
        autoescape=jinja2.select_autoescape(["html.j2"]), trim_blocks=True, lstrip_blocks=True,
        undefined=jinja2.StrictUndefined, keep_trailing_newline=True)
    env.filters["md"] = _md_cell
    env.tests["figure"] = _is_figure
    return env.get_template(name).render(**context)
