#!/usr/bin/env python3
"""Runs the credit model's validation points (docs/SCALE.md, "The credit
model against the paper") and records each in docs/scale/credit-results.json:
the command, the per-node rate (results.bandwidth_gbps.arrivals, min / avg /
max), events per BU, simulated time, wall time and peak memory.

  docs/scale/credit.py [--only PREFIX] [--evbench build/bin/evbench] [--list] [--table] [--bands]

A point runs `evbench sim configs/sim/pull-512.yaml --model credit` (the
paper's exchange: 512 KiB fragments, 2 credits x 8 requests, 21 events per
BU) on a platform, with `network.queueing` fifo (the platform file as it is)
or voq (a copy of it with `network: {queueing: voq}` added); one chunk and
one buffer size (the defaults) for every point. `fluid-*` points run the
same configuration under SimGrid (the fluid model; needs build-sim/).
`band-*` points are the paper's four bands again at other single settings
(one for every row: `voq-1mib` adds `network: {queueing: voq, buffer:
1MiB}`, `fifo-1mib` `network: {buffer: 1MiB}`, `vl4` `network:
{virtual_lanes: 4}`, `voq` as above); the fourth
band is the one-to-one shift scan on 46 nodes of miscabled-64, recorded
with its per-shift average and slowest node (`--bands` prints them).
Points already recorded are skipped unless --force. Not a test: minutes of
CPU per 512-node point. Run one at a time: each run rewrites the whole
results file with what it read at its start and its own points.
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RESULTS = os.path.join(ROOT, "docs", "scale", "credit-results.json")
CONFIG = "configs/sim/pull-512.yaml"
PLATFORMS = {"ideal": "configs/platforms/fat-tree-512.yaml",
             "irregular": "configs/platforms/irregular-512.yaml"}
# The paper's first three bands (platform, nodes, scheduling; docs/SCALE.md)
# and the one-to-one shift scan of the fourth, each at one setting per table.
BANDS = [("ideal", 64, "barrel"), ("irregular", 256, "barrel"), ("irregular", 512, "random")]
SCAN = ["--set", "nodes=46", "--set", "protocol=one-to-one", "--set", "shift=scan",
        "--set", "duration=20ms", "--set", "warmup=5ms", "--set", "fragment.size=512KiB",
        "--set", "ru_buffer=4MiB", "--set", "parallel=8"]
EXTRA = {"voq": "network: {queueing: voq}\n",
         "voq-1mib": "network: {queueing: voq, buffer: 1MiB}\n",
         "fifo-1mib": "network: {buffer: 1MiB}\n",
         "infinite": "network: {infinite_buffers: true}\n",
         "window": "network: {infinite_buffers: true, flow_window: 2}\n",
         # Four virtual lanes, the default map (commands on VL 0, data on VLs
         # 1-3 by destination host), 256 KiB per port and VL, FIFO inputs.
         "vl4": "network: {virtual_lanes: 4}\n"}


def points():
    out = []
    for plat in ("ideal", "irregular"):
        for nodes in (16, 64, 256, 512):
            for sched in ("barrel", "random"):
                for q in ("fifo", "voq") if nodes < 512 else ("fifo",):
                    out.append({"id": f"credit-{plat}-{nodes}-{sched}-{q}", "model": "credit",
                                "platform": plat, "nodes": nodes, "scheduling": sched,
                                "queueing": q})
            if nodes <= 64:
                for sched in ("barrel", "random"):
                    out.append({"id": f"fluid-{plat}-{nodes}-{sched}", "model": "fluid",
                                "platform": plat, "nodes": nodes, "scheduling": sched})
    out.append({"id": "credit-ideal-512-alltoall-fifo", "model": "credit", "platform": "ideal",
                "nodes": 512, "protocol": "alltoall", "queueing": "fifo"})
    # Infinite buffers against the fluid model's 16-node table (configs/sim/pull-1mib.yaml).
    for plat in ("sim-switch-16", "sim-tree-16", "sim-miscabled-16"):
        for sched in ("barrel", "random"):
            out.append({"id": f"infinite-{plat}-{sched}", "model": "credit", "platform": plat,
                        "nodes": 16, "scheduling": sched, "queueing": "infinite",
                        "config": "configs/sim/pull-1mib.yaml"})
            # ... and with a window of two chunks per connection (the bridge).
            out.append({"id": f"window-{plat}-{sched}", "model": "credit", "platform": plat,
                        "nodes": 16, "scheduling": sched, "queueing": "window",
                        "config": "configs/sim/pull-1mib.yaml"})
    for q in ("voq-1mib", "fifo-1mib", "voq", "vl4"):
        for plat, nodes, sched in BANDS:
            if q == "voq" and nodes < 512:
                continue  # the credit-*-voq points above
            out.append({"id": f"band-{plat}-{nodes}-{sched}-{q}", "model": "credit",
                        "platform": plat, "nodes": nodes, "scheduling": sched, "queueing": q})
        out.append({"id": f"band-scan-{q}", "model": "credit", "platform": "miscabled-64",
                    "nodes": 46, "protocol": "scan", "queueing": q})
    out.append({"id": "band-scan-fifo", "model": "credit", "platform": "miscabled-64",
                "nodes": 46, "protocol": "scan", "queueing": "fifo"})
    # What the scan's miss depends on: the same scan over the 46 hosts and
    # order `evbench topo` proposes (docs/SCALE.md, "Mis-cabled tree"), the
    # placement under which topo's per-shift counts take figure 6's shape.
    out.append({"id": "band-scan-fifo-proposal", "model": "credit", "platform": "miscabled-64",
                "nodes": 46, "protocol": "scan", "queueing": "fifo", "order": "proposal"})
    return out


def platform_file(p, tmp):
    path = PLATFORMS.get(p["platform"], f"configs/platforms/{p['platform']}.yaml")
    q = p.get("queueing", "fifo")
    if q == "fifo":
        return path
    extra = EXTRA[q]
    copy = os.path.join(tmp, f"{p['platform']}-{q}.yaml")
    with open(os.path.join(ROOT, path)) as f, open(copy, "w") as out:
        out.write(f.read() + extra)
    return copy


def proposal_order(p, evbench, tmp):
    """`evbench topo`'s proposed hosts and order for the point's nodes, as an order file."""
    order = os.path.join(tmp, "proposal.order")
    subprocess.run([evbench, "topo", PLATFORMS.get(p["platform"], f"configs/platforms/{p['platform']}.yaml"),
                    "--nodes", str(p["nodes"]), "--write-order", order, "--quiet"],
                   cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    return order


def command(p, evbench, plat, order=None):
    if p.get("protocol") == "scan":  # the embedded default configuration, as in docs/SCALE.md
        extra = ["--order", order] if order else []
        return [evbench, "sim", "--platform", plat] + extra + ["--quiet", "--model", "credit"] + SCAN
    cfg = p.get("config", CONFIG)
    cmd = [evbench, "sim", cfg, "--platform", plat, "--quiet"]
    if p["model"] == "credit":
        cmd += ["--model", "credit"]
    if p.get("protocol") == "alltoall":
        cmd += ["--set", "protocol=alltoall", "--set", "duration=20ms", "--set", "warmup=0s"]
    elif cfg == CONFIG:
        cmd += ["--set", f"nodes={p['nodes']}", "--set", f"events={21 * p['nodes']}"]
    if "scheduling" in p:
        cmd += ["--set", f"scheduling={p['scheduling']}"]
    return cmd


def run(p, evbench, tmp):
    plat = platform_file(p, tmp)
    order = proposal_order(p, evbench, tmp) if p.get("order") == "proposal" else None
    cmd = command(p, evbench, plat, order)
    out = os.path.join(tmp, "r.json")
    start = time.time()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    # /usr/bin/time: this run's own peak RSS (RUSAGE_CHILDREN keeps the largest child so far).
    proc = subprocess.run(["/usr/bin/time", "-f", "maxrss_kib %M"] + cmd + ["--json", out],
                          cwd=ROOT, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    rec = dict(p)
    shown = [c if c != plat else PLATFORMS.get(p["platform"], f"configs/platforms/{p['platform']}.yaml")
             for c in cmd[1:]]
    shown = [c if c != order else "ORDER" for c in shown]
    rec["command"] = "evbench " + " ".join(shown)
    if order:
        rec["command"] = (f"evbench topo {shown[2]} --nodes {p['nodes']} --write-order ORDER --quiet; "
                          + rec["command"])
    if p.get("queueing", "fifo") != "fifo":
        rec["command"] += f"   (platform with network: {p['queueing']})"
    rec["exit"] = proc.returncode
    rec["wall_s"] = round(time.time() - start, 1)
    rec["cpu_s"] = round(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, 1)
    rss = [l for l in proc.stderr.splitlines() if l.startswith("maxrss_kib ")]
    rec["max_rss_mib"] = round(int(rss[-1].split()[1]) / 1024) if rss else None
    proc.stderr = "\n".join(l for l in proc.stderr.splitlines() if not l.startswith("maxrss_kib "))
    if proc.returncode != 0 or not os.path.exists(out):
        rec["error"] = (proc.stderr.strip().splitlines() or ["?"])[-1]
        return rec
    r = json.load(open(out))["results"]
    bw = r["bandwidth_gbps"]
    arr = bw.get("arrivals", {})
    per = arr.get("per_node") or bw["per_node"]
    rec.update({"gbps": [round(per["min"], 2), round(per["avg"], 2), round(per["max"], 2)],
                "events_built": r.get("events_built"),
                "simulated_s": round(r.get("simulated_time_s", 0), 4)})
    if r.get("shifts"):
        rec["shifts"] = [{"shift": x["shift"], "avg": round(x["per_node"]["avg"], 2),
                          "min": round(x["per_node"]["min"], 2),
                          "max": round(x["per_node"]["max"], 2)} for x in r["shifts"]]
    if r.get("events_per_bu"):
        rec["events_per_bu"] = r["events_per_bu"]
    net = r.get("network") or {}
    if "events" in net:
        rec["network_events"] = net["events"]
        rec["network_events_per_wall_s"] = round(net.get("events_per_wall_s", 0))
    return rec


def cell(done, key):
    r = done.get(key)
    if not r:
        return "–"
    if "error" in r:
        return "failed"
    lo, avg, hi = r["gbps"]
    return f"{lo:.1f} / **{avg:.1f}** / {hi:.1f}"


# The paper's figures (reference 004: figure 3 on cluster A, the irregular
# tables; figure 9 on cluster D, the ideal tree) where it gives one for the
# row, and `evbench topo`'s step-synchronous barrel bound, efficiency x 100
# Gb/s (docs/SCALE.md, "Ideal fat tree" and "Irregular routing tables":
# `evbench topo PLATFORM --nodes N --keep-hosts`; at 16 nodes both platforms
# are one leaf switch). topo bounds barrel only.
PAPER = {("ideal", 64, "barrel"): "83", ("irregular", 256, "barrel"): "10",
         ("irregular", 512, "random"): "30"}
TOPO = {("ideal", 16): 100.0, ("ideal", 64): 100.0, ("ideal", 256): 100.0, ("ideal", 512): 100.0,
        ("irregular", 16): 100.0, ("irregular", 64): 31.7, ("irregular", 256): 22.3,
        ("irregular", 512): 20.0}


def table():
    """The recorded points, one row per platform, nodes and scheduling."""
    done = json.load(open(RESULTS))
    print("| platform | nodes | scheduling | paper | topo bound | fluid | credit, fifo | credit, voq "
          "| wall (fifo) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for plat in ("ideal", "irregular"):
        for nodes in (16, 64, 256, 512):
            for sched in ("barrel", "random"):
                fifo = done.get(f"credit-{plat}-{nodes}-{sched}-fifo", {})
                wall = f"{fifo['wall_s']:.0f} s" if "wall_s" in fifo else "–"
                paper = PAPER.get((plat, nodes, sched), "–")
                topo = f"{TOPO[(plat, nodes)]:.1f}" if sched == "barrel" else "–"
                print(f"| {plat} | {nodes} | {sched} | {paper} | {topo} "
                      f"| {cell(done, f'fluid-{plat}-{nodes}-{sched}')} "
                      f"| {cell(done, f'credit-{plat}-{nodes}-{sched}-fifo')} "
                      f"| {cell(done, f'credit-{plat}-{nodes}-{sched}-voq')} | {wall} |")
    return 0


def scan_summary(shifts):
    """The paper's figure 6 in its own terms (reference 004, section 3.6: "the
    lowest bandwidth drop at half the highest"; full speed at shifts 1-3 and
    the last three; the average near 70): the lowest node at the three
    shifts of each end and in the middle half of the scan, against the
    highest per-shift figure (the largest per-node maximum where recorded,
    else the largest per-shift average), and the average of all shifts."""
    n = max(x["shift"] for x in shifts) + 1
    low = {x["shift"]: x["min"] for x in shifts}
    top = max(x.get("max", x["avg"]) for x in shifts)
    ends = [low[k] for k in (1, 2, 3, n - 3, n - 2, n - 1)]
    middle = [low[k] for k in low if n / 4 <= k <= 3 * n / 4]
    return {"top": top, "ends_low": min(ends), "middle_low": (min(middle), max(middle)),
            "average": sum(x["avg"] for x in shifts) / len(shifts)}


def band_cell(done, key, band):
    """A band's figure at one setting and whether it is met (docs/SCALE.md)."""
    r = done.get(key)
    if not r or "error" in r:
        return "–" if not r else "failed"
    if band == "scan":
        m = scan_summary(r["shifts"])
        top = m["top"]
        lo, hi = m["middle_low"]
        # Met: every node near full speed at both ends (85 % of the highest),
        # the middle's lowest node down to between a third and a half of it,
        # the average within 10 % of 70.
        met = (m["ends_low"] >= 0.85 * top and 1 / 3 <= lo / top <= 1 / 2
               and 63 <= m["average"] <= 77)
        return (f"lowest node: ends {m['ends_low']:.1f} ({m['ends_low'] / top:.2f} of the highest, "
                f"{top:.1f}), middle {lo:.1f}–{hi:.1f} ({lo / top:.2f}–{hi / top:.2f}); average "
                f"{m['average']:.1f}: {'yes' if met else 'no'}")
    lo, hi = band
    avg = r["gbps"][1]
    return f"{avg:.1f}: {'yes' if lo <= avg <= hi else 'no'}"


def bands():
    """The paper's four bands, one column per single setting of the whole table."""
    done = json.load(open(RESULTS))
    rows = [("ideal fat tree, 64 nodes, barrel, >= 80", "ideal-64-barrel", (80, 1e9)),
            ("irregular tables, 256 nodes, barrel, 7-15", "irregular-256-barrel", (7, 15)),
            ("irregular tables, 512 nodes, random, 20-40", "irregular-512-random", (20, 40)),
            ("one-to-one scan, 46 nodes of miscabled-64", "scan", "scan")]
    cols = [("fifo, 256 KiB", "fifo"), ("voq, 256 KiB", "voq"), ("fifo, 1 MiB", "fifo-1mib"),
            ("voq, 1 MiB", "voq-1mib"), ("fifo, 4 VLs x 256 KiB", "vl4")]
    print("| band (Gb/s per node) | " + " | ".join(c for c, _ in cols) + " |")
    print("|---|" + "---|" * len(cols))
    for label, row, band in rows:
        cells = []
        for _, q in cols:
            key = f"band-{row}-{q}"
            if key not in done and row != "scan":
                key = f"credit-{row}-{q}"  # the first table's points
            cells.append(band_cell(done, key, band))
        print(f"| {label} | " + " | ".join(cells) + " |")
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="")
    ap.add_argument("--evbench", default="build/bin/evbench")
    ap.add_argument("--force", action="store_true")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--table", action="store_true", help="print the recorded points as Markdown")
    ap.add_argument("--bands", action="store_true", help="print the paper's bands per setting")
    a = ap.parse_args()
    if a.table:
        return table()
    if a.bands:
        return bands()
    todo = [p for p in points() if p["id"].startswith(a.only)]
    if a.list:
        for p in todo:
            print(p["id"])
        return
    done = json.load(open(RESULTS)) if os.path.exists(RESULTS) else {}
    with tempfile.TemporaryDirectory() as tmp:
        for p in todo:
            if p["id"] in done and not a.force and "error" not in done[p["id"]]:
                continue
            rec = run(p, a.evbench, tmp)
            done[p["id"]] = rec
            with open(RESULTS + ".tmp", "w") as f:
                json.dump(done, f, indent=1, sort_keys=True)
            os.replace(RESULTS + ".tmp", RESULTS)
            print(p["id"], rec.get("gbps", rec.get("error")), f"{rec['wall_s']} s", flush=True)


if __name__ == "__main__":
    sys.exit(main())
