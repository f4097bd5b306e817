#!/usr/bin/python3
"""Summary of a bench/soak.sh run: RSS per rank over time and throughput drift.

Reads OUTDIR/results.json (evbench's results: samples per report interval,
peak_rss_bytes per rank) and OUTDIR/rss.tsv (VmRSS sampled by soak.sh), prints
a table and writes OUTDIR/soak.json. Usage: soak_report.py OUTDIR
"""
import json
import os
import sys
from collections import defaultdict
from pathlib import Path


def mean(xs):
    return sum(xs) / len(xs) if xs else 0.0


def ticks_at(series, t):
    """CPU ticks of one rank at time t (linear between samples; None outside)."""
    for (t0, c0), (t1, c1) in zip(series, series[1:]):
        if t0 <= t <= t1:
            return c0 + (c1 - c0) * ((t - t0) / (t1 - t0) if t1 > t0 else 0)
    return None


def cpu_normalised(measured, interval, cpu, tenth):
    """Gbit built per CPU-second of all ranks, first vs last tenth: a
    slowdown of evbench itself shows here, a busy neighbour does not (it takes
    CPU time away, not CPU work per byte). None without CPU samples. The
    watcher's clock starts with the launcher, the samples' at the data phase
    (about a second later): the windows are a tenth of the run, so that
    offset is small against them."""
    if not cpu or not measured:
        return None
    hz = os.sysconf("SC_CLK_TCK")

    def window(samples):
        t0, t1 = samples[0]["t_s"] - interval, samples[-1]["t_s"]
        used = 0.0
        for series in cpu.values():
            # The part of the window the watcher sampled, scaled to the whole
            # window (the last interval may end after the last sample).
            lo, hi = max(t0, series[0][0]), min(t1, series[-1][0])
            if hi - lo < 0.5 * (t1 - t0):
                return None
            used += (ticks_at(series, hi) - ticks_at(series, lo)) / hz * (t1 - t0) / (hi - lo)
        bits = sum(s["aggregate_gbps"] * interval for s in samples)
        return bits / used if used > 0 else None
    first, last = window(measured[:tenth]), window(measured[-tenth:])
    return {"first_gbit_per_cpu_s": first, "last_gbit_per_cpu_s": last,
            "drift_percent": (last - first) / first * 100 if first and last else None}


def main(outdir):
    out = Path(outdir)
    doc = json.loads((out / "results.json").read_text())
    res = doc["results"]
    cfg = doc.get("config", {})
    warmup = float(cfg.get("warmup", 0) or 0)
    duration = float(cfg.get("duration", 0) or 0)
    interval = float(cfg.get("report_interval", 1) or 1)
    # Whole intervals inside the measured window: none that began in the
    # warm-up, none past the end (the teardown's stragglers).
    eps = 1e-9
    measured = [s for s in res["samples"]
                if s["t_s"] - interval >= warmup - eps and (not duration or s["t_s"] <= duration + eps)]
    tenth = max(1, len(measured) // 10)
    first, last = measured[:tenth], measured[-tenth:]
    gb_first = mean([s["aggregate_gbps"] for s in first])
    gb_last = mean([s["aggregate_gbps"] for s in last])
    ev_first = mean([s["events_per_second"] for s in first])
    ev_last = mean([s["events_per_second"] for s in last])

    rss = defaultdict(list)  # rank -> [(t, kib)]
    cpu = defaultdict(list)  # rank -> [(t, ticks)]
    for line in (out / "rss.tsv").read_text().splitlines()[1:]:
        t, rank, _pid, kib, *ticks = line.split()
        rss[int(rank)].append((float(t), int(kib)))
        if ticks:
            cpu[int(rank)].append((float(t), int(ticks[0])))
    per_cpu = cpu_normalised(measured, interval, cpu, tenth)
    peaks = res.get("peak_rss_bytes", [])
    ranks = []
    for rank in sorted(rss):
        series = rss[rank]
        after = [k for t, k in series if t > warmup] or [k for _, k in series]
        ranks.append({
            "rank": rank,
            "samples": len(series),
            "rss_after_warmup_kib": after[0],
            "rss_end_kib": after[-1],
            "rss_max_sampled_kib": max(k for _, k in series),
            "growth_kib": after[-1] - after[0],
            "peak_rss_bytes": peaks[rank] if rank < len(peaks) else None,
        })
    summary = {
        "window_s": res.get("window_s"),
        "report_interval_s": interval,
        "intervals_measured": len(measured),
        "intervals_compared": tenth,
        "throughput": {
            "first_gbps": gb_first, "last_gbps": gb_last,
            "drift_percent": (gb_last - gb_first) / gb_first * 100 if gb_first else None,
            "first_events_per_second": ev_first, "last_events_per_second": ev_last,
        },
        "per_cpu_second": per_cpu,
        "ranks": ranks,
        "integrity": res.get("integrity"),
    }
    (out / "soak.json").write_text(json.dumps(summary, indent=2) + "\n")

    print(f"soak: {len(measured)} measured intervals; first vs last {tenth} interval(s)")
    t = summary["throughput"]
    drift = t["drift_percent"]
    print(f"aggregate Gb/s  first {gb_first:9.3f}  last {gb_last:9.3f}  drift "
          f"{drift:+.2f} %" if drift is not None else "drift n/a")
    print(f"events/s        first {ev_first:9.0f}  last {ev_last:9.0f}")
    if per_cpu and per_cpu["drift_percent"] is not None:
        print(f"Gbit/CPU-s      first {per_cpu['first_gbit_per_cpu_s']:9.3f}  last "
              f"{per_cpu['last_gbit_per_cpu_s']:9.3f}  drift {per_cpu['drift_percent']:+.2f} %")
    print(f"{'rank':>4} {'samples':>7} {'RSS after warm-up':>18} {'RSS end':>10} "
          f"{'growth':>9} {'peak (results)':>15}")
    for r in ranks:
        peak = r["peak_rss_bytes"]
        print(f"{r['rank']:>4} {r['samples']:>7} {r['rss_after_warmup_kib']:>14} KiB "
              f"{r['rss_end_kib']:>6} KiB {r['growth_kib']:>+5} KiB "
              f"{(peak or 0) // 1024:>11} KiB")
    print(f"written: {out / 'soak.json'}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
