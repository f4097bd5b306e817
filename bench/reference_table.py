#!/usr/bin/python3
"""The table bench/reference.sh prints, and its JSON (-j): medians of the
interleaved samples per pair, node count and buffer policy, their ratio, and
the -b variant's column. The JSON is what `evbench-scan report --reference`
reads (scan/evbench_scan/report/references.py).

  reference_table.py SAMPLES JSON_OUT SECS REPEAT WINDOW PAGES VERSION MPI VARIANT

SAMPLES has one line per measurement: "pair nodes policy side value", side
evbench, evbench_b (the variant) or reference. JSON_OUT "" = no JSON.
"""
import json, math, statistics, sys
samples, out, secs, repeat, window, pages, version, mpi, variant = sys.argv[1:10]
refs = {"pull/mpi": "MPI_Alltoall loop, vader", "pull/tcp": "MPI_Alltoall loop, TCP BTL",
        "p2p/mpi": "p2p_loop (osu_bibw-like), vader", "p2p/tcp": "p2p_loop, TCP BTL"}
table = {}
for line in open(samples):
    row, n, policy, side, value = line.split()
    table.setdefault((row, int(n), policy), {}).setdefault(side, []).append(float(value))
def median(v):
    v = [x for x in v if not math.isnan(x)]
    return statistics.median(v) if v else float("nan")
rows = []
print(f"# {version}; {mpi}; medians of {repeat}, {secs} s each; one-to-one window {window}; {pages} pages")
def div(a, b):
    return a / b if b and not math.isnan(a) and not math.isnan(b) else float("nan")
if variant:
    how = variant if variant.startswith("binary ") else f"--set {variant}"
    print(f"# B: every evbench measurement again with {how}, interleaved")
extra = f" {'B Gb/s':>8} {'B ratio':>7} {'B/A':>5}" if variant else ""
print(f"{'pair':9} {'n':>2} {'policy':7} {'evbench Gb/s':>12} {'reference Gb/s':>14} {'ratio':>6}{extra}  reference")
for (row, n, policy), sides in table.items():
    e, r = median(sides.get("evbench", [])), median(sides.get("reference", []))
    ratio = div(e, r)
    b = median(sides.get("evbench_b", [])) if variant else float("nan")
    more = f" {b:8.2f} {div(b, r):7.2f} {div(b, e):5.2f}" if variant else ""
    print(f"{row:9} {n:>2} {policy:7} {e:12.2f} {r:14.2f} {ratio:6.2f}{more}  {refs[row]}")
    entry = {"pair": row, "nodes": n, "policy": policy, "evbench_gbps": e,
             "reference_gbps": r, "ratio": ratio, "reference": refs[row],
             "evbench_samples": sides.get("evbench", []),
             "reference_samples": sides.get("reference", [])}
    if variant:
        entry.update({"variant": variant, "variant_gbps": b, "variant_ratio": div(b, r),
                      "variant_samples": sides.get("evbench_b", [])})
    rows.append(entry)
if out:
    clean = lambda x: None if isinstance(x, float) and math.isnan(x) else x
    for r in rows:
        for k in ("evbench_gbps", "reference_gbps", "ratio", "variant_gbps", "variant_ratio"):
            if k in r:
                r[k] = clean(r[k])
        for k in ("evbench_samples", "reference_samples", "variant_samples"):
            if k in r:
                r[k] = [clean(x) for x in r[k]]
    json.dump({"benchmark": "reference", "block_bytes": 524288, "seconds": float(secs),
               "repeat": int(repeat), "window": int(window), "pages": pages, "evbench": version, "mpi": mpi,
               "rows": rows}, open(out, "w"), indent=1)
    print(f"# JSON: {out}")
