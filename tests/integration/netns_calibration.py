#!/usr/bin/python3
"""A calibrated prediction checked against measurement on the emulated
cluster (issue 35 item 4, docs/SCALE.md "Calibrated from a measured run"):
scripts/netns-cluster.sh brings up the 16-host cluster of 4 leaves at 125
Mbit/s with 125 Mbit/s uplinks to a spine (4:1) that
docs/emulated-cluster/16hosts-125mbit/emulated-4x4-125mbit.yaml describes;
scripts/netns-run.sh measures PULL on its first 4 hosts (one leaf), then on
all 16 with barrel and with random scheduling (env bootstrap, TCP driver).
`evbench sim --model credit --calibrate` fits the platform's link efficiency
and per-message overhead to the 4-host run and predicts the 16-host runs
(simulating a longer window than was measured: SIMULATED_WINDOW). Asserts
that the results say what was calibrated and from which file, that the
overlay is reused, and that the fit reproduces the 4-host run it was fitted
to; prints measured, predicted uncalibrated and calibrated per-node rates
for 16 hosts. The issue's target, every calibrated prediction within 15 % of
the measured rate, is not met reliably (docs/SCALE.md "Checked against the
emulated cluster": -12 % to -21 % on this cluster, because the 4-host run
loses more than the 16-host one, measured there), so it is asserted only
with --tolerance. The cluster is torn down whatever happens (SIGTERM too)
and checked gone.

  netns_calibration.py EVBENCH SOURCE_DIR [--keep DIR] [--tolerance T]

--keep DIR keeps the measured and predicted documents and the overlay;
--tolerance T (e.g. 0.15) fails when a calibrated 16-host prediction is off
by more than T (relative).
Exit 77 (skipped, with the reason) where network namespaces cannot be made.
"""
import json
import os
import shutil
import signal
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from netns_cluster import fail, namespaces, probe, sh  # noqa: E402

PLATFORM = "docs/emulated-cluster/16hosts-125mbit/emulated-4x4-125mbit.yaml"
# How close the fit must reproduce the run it was fitted to: its rate
# tolerance (1 %) and some room.
FIT_TOLERANCE = 0.02
# What every run sets (the measured ones add the TCP driver and poll_mode
# block, which sim sets itself). PULL needs a window several times its event
# latency: 3.4 s on this cluster at 16 hosts (docs/EMULATED_CLUSTER.md).
PULL = ["--set", "protocol=pull", "--set", "evm=with-rank0", "--set", "fragment.size=512KiB",
        "--set", "credits=2", "--set", "parallel=4"]
CALIBRATION_RUN = ["--set", "nodes=4", "--set", "scheduling=barrel",
                   "--set", "duration=10s", "--set", "warmup=2s"]
PREDICTED = {s: ["--set", "nodes=16", "--set", f"scheduling={s}",
                 "--set", "duration=20s", "--set", "warmup=5s"] for s in ("barrel", "random")}
# The predictions simulate a longer window than the runs measure: at 16
# hosts an event takes 3-4 s, and the credit model's 32 events in flight
# (16 BUs, 2 credits) complete in waves, so a 15-s window counts 4 or 5 of
# them and the rate it gives moves by up to a fifth with where the waves
# fall; the measured run's events do not come in waves (docs/SCALE.md
# "Checked against the emulated cluster"). 45 s after a 15-s warm-up holds
# some 10 waves.
SIMULATED_WINDOW = ["--set", "duration=60s", "--set", "warmup=15s"]


def per_node(path):
    with open(path) as f:
        doc = json.load(f)
    r = doc["results"]
    rate = r["bandwidth_gbps"]["per_node"]["avg"]
    if r["status"] != "ok" or r["events_built"] <= 0 or not rate > 0:
        fail(f"{path}: status {r['status']}, {r['events_built']} events built, "
             f"{rate} Gb/s per node")
    return doc, rate


def measure(evbench, scripts, prefix, tmp, name, sets):
    out = os.path.join(tmp, name + ".json")
    nodes = int(sets[sets.index("--set") + 1].split("=")[1])
    r = sh([os.path.join(scripts, "netns-run.sh"), "--prefix", prefix, "--procs", str(nodes),
            "--evbench", evbench, "--timeout", "60", "--json", out,
            "--logs", os.path.join(tmp, "logs-" + name), "--",
            "--set", "poll_mode=block", "--set", "driver=tcp", "--set", "peer_timeout=20s"]
           + PULL + sets, timeout=70)
    if r.returncode != 0:
        fail(f"measured {name} exited {r.returncode}:\n{r.stdout}")
    return out


def main():
    args = sys.argv[1:]
    keep = None
    tolerance = None
    if "--keep" in args:
        keep = args[args.index("--keep") + 1]
        del args[args.index("--keep"):args.index("--keep") + 2]
    if "--tolerance" in args:
        tolerance = float(args[args.index("--tolerance") + 1])
        del args[args.index("--tolerance"):args.index("--tolerance") + 2]
    evbench, source = args[0], args[1]
    scripts = os.path.join(source, "scripts")
    platform = os.path.join(source, PLATFORM)
    cluster = os.path.join(scripts, "netns-cluster.sh")
    prefix = "c%d" % (os.getpid() % 1000000)  # unique: never touches a user's cluster
    probe(prefix + "-probe")
    # ctest's timeout sends SIGTERM: tear the cluster down then too.
    signal.signal(signal.SIGTERM, lambda *_: fail("terminated (SIGTERM)"))
    with tempfile.TemporaryDirectory(prefix="netns-calibration-") as tmp:
        measured = {}
        try:
            sh([cluster, "up", "16", "--leaves", "4", "--host-rate", "125mbit",
                "--uplink-rate", "125mbit", "--prefix", prefix], check=True)
            measured["4"] = measure(evbench, scripts, prefix, tmp, "measured-4", CALIBRATION_RUN)
            for s, sets in PREDICTED.items():
                measured[s] = measure(evbench, scripts, prefix, tmp, "measured-16-" + s, sets)
        finally:
            down = sh([cluster, "down", "--prefix", prefix])
            print(down.stdout.strip())
        if down.returncode != 0 or namespaces(prefix):
            fail(f"cluster not torn down: {namespaces(prefix)}")
        overlay = os.path.join(tmp, "calibration.yaml")
        rows = []
        bad = []
        for s, sets in PREDICTED.items():
            predicted = os.path.join(tmp, f"predicted-16-{s}.json")
            uncalibrated = os.path.join(tmp, f"uncalibrated-16-{s}.json")
            # The first prediction fits and writes the overlay; the second
            # applies it.
            how = (["--calibrate", measured["4"], "--calibration", overlay] if s == "barrel"
                   else ["--calibration", overlay])
            for out, extra in ((predicted, how), (uncalibrated, [])):
                sh([evbench, "sim", "--model", "credit", "--platform", platform, "--quiet",
                    "--json", out] + PULL + sets + SIMULATED_WINDOW + extra, timeout=120,
                   check=True)
            doc, pred = per_node(predicted)
            _, meas = per_node(measured[s])
            _, uncal = per_node(uncalibrated)
            cal = doc["results"].get("calibration")
            if not cal or cal.get("calibrated") != ["link_efficiency", "per_message_overhead_s"]:
                fail(f"{s}: results.calibration does not name what was calibrated: {cal}")
            if cal["from"]["file"] != measured["4"] or cal["overlay"] != overlay:
                fail(f"{s}: results.calibration names {cal['from']['file']} / {cal['overlay']}")
            err = pred / meas - 1
            rows.append(f"16 hosts {s}: measured {meas:.4f}, predicted uncalibrated {uncal:.4f}, "
                        f"calibrated {pred:.4f} Gb/s per node ({err:+.1%}; link efficiency "
                        f"{cal['link_efficiency']:.3f}, per-message overhead "
                        f"{cal['per_message_overhead_s'] * 1e3:.1f} ms from 4 hosts)")
            if tolerance is not None and abs(err) > tolerance:
                bad.append(s)
        _, m4 = per_node(measured["4"])
        fitted = cal["from"]["simulated_calibrated_per_node_gbps"]
        print(f"4 hosts (calibration): measured {m4:.4f} Gb/s per node, {fitted:.4f} simulated "
              f"with the fitted parameters")
        if abs(fitted / m4 - 1) > FIT_TOLERANCE or cal["from"]["measured_per_node_gbps"] != m4:
            fail(f"the fit does not reproduce the 4-host run: {fitted} against {m4}")
        print("\n".join(rows))
        if keep:
            os.makedirs(keep, exist_ok=True)
            for name in os.listdir(tmp):
                if name.endswith((".json", ".yaml")):
                    shutil.copy(os.path.join(tmp, name), keep)
        if bad:
            fail(f"calibrated prediction off by more than {tolerance:.0%} for {', '.join(bad)}")
    print("OK")


if __name__ == "__main__":
    main()
