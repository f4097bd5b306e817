"""evbench against external references in a campaign report: reads the JSON
that bench/reference.sh writes (-j FILE, made by bench/reference_table.py)
and turns it into the report's "Against the references" table.

A file that is not such a document is an error naming the file and the
first field that is wrong; nothing is guessed."""
import json
import math

_ROW_FIELDS = (("pair", str), ("nodes", int), ("policy", str), ("reference", str))
_KIND = {str: "a string", int: "an integer"}
_RATES = ("evbench_gbps", "reference_gbps", "ratio")


class ReferenceError(Exception):
    pass


def _number_or_null(value):
    return value is None or (isinstance(value, (int, float)) and not isinstance(value, bool)
                             and math.isfinite(value) and value >= 0)


def load(path):
    """The validated document: {"meta": {...}, "rows": [...]}."""
    try:
        with open(path) as f:
            doc = json.load(f)
    except OSError as e:
        raise ReferenceError("%s: %s" % (path, e.strerror or e))
    except ValueError as e:
        raise ReferenceError("%s: not JSON (%s)" % (path, e))
    if not isinstance(doc, dict) or doc.get("benchmark") != "reference":
        raise ReferenceError("%s: not a bench/reference.sh result (no \"benchmark\": \"reference\")" % path)
    rows = doc.get("rows")
    if not isinstance(rows, list) or not rows:
        raise ReferenceError("%s: \"rows\" must be a non-empty list" % path)
    for i, row in enumerate(rows):
        where = "%s: rows[%d]" % (path, i)
        if not isinstance(row, dict):
            raise ReferenceError("%s: not an object" % where)
        for key, kind in _ROW_FIELDS:
            if not isinstance(row.get(key), kind) or isinstance(row.get(key), bool):
                raise ReferenceError("%s.%s: missing or not %s" % (where, key, _KIND[kind]))
        for key in _RATES + ("variant_gbps", "variant_ratio"):
            if key in row and not _number_or_null(row[key]):
                raise ReferenceError("%s.%s: not a non-negative number or null" % (where, key))
        for key in _RATES:
            if key not in row:
                raise ReferenceError("%s.%s: missing" % (where, key))
        if "variant_gbps" in row and not isinstance(row.get("variant"), str):
            raise ReferenceError("%s.variant: missing (the row has variant_gbps)" % where)
    meta = dict((k, doc.get(k)) for k in ("evbench", "mpi", "seconds", "repeat", "pages", "block_bytes"))
    return {"path": path, "meta": meta, "rows": rows}


def _g(v):
    return "-" if v is None else "%.2f" % v


def table(docs):
    """(head, body, summary) over every loaded document, rows in file order."""
    variant = any("variant_gbps" in r for d in docs for r in d["rows"])
    head = ["pair", "nodes", "policy", "evbench Gb/s", "reference Gb/s", "ratio"]
    if variant:
        head += ["variant", "variant Gb/s", "variant ratio"]
    head += ["reference", "source"]
    body, summary = [], []
    for d in docs:
        source = "%s (%s)" % (d["path"], d["meta"].get("evbench") or "?")
        for r in d["rows"]:
            row = [r["pair"], str(r["nodes"]), r["policy"], _g(r["evbench_gbps"]),
                   _g(r["reference_gbps"]), _g(r["ratio"])]
            if variant:
                row += [r.get("variant", "-"), _g(r.get("variant_gbps")), _g(r.get("variant_ratio"))]
            row += [r["reference"], source]
            body.append(row)
            summary.append(dict((k, r.get(k)) for k in (
                "pair", "nodes", "policy", "evbench_gbps", "reference_gbps", "ratio", "reference",
                "variant", "variant_gbps", "variant_ratio") if k in r) | {"source": d["path"]})
    return head, body, summary
