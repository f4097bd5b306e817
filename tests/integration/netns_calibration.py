#!/usr/bin/python3
"""A calibrated prediction checked against measurement on the emulated
cluster (issue 35 item 4, docs/SCALE.md "Calibrated from a measured run"):
scripts/netns-cluster.sh brings up the 16-host cluster of 4 leaves at 125
Mbit/s with 125 Mbit/s uplinks to a spine (4:1) that
docs/emulated-cluster/16hosts-125mbit/emulated-4x4-125mbit.yaml describes;
scripts/netns-run.sh measures, for the calibration, small runs only: PULL
on its first 4 hosts (one leaf: its hosts' own links limit it) and
one-to-one with shift 4 on its first 8 (two leaves: every flow crosses an
uplink, 4 each way on each); then what is predicted: PULL on 8 and 16 hosts
with barrel and with random scheduling, and with --scan the one-to-one
shift scan on all 16 (env bootstrap, TCP driver). `evbench sim --model credit --calibrate
4-HOST --calibrate 8-HOST-SHIFT4` takes the CPU per fragment at the RU and BU
the 4-host run recorded (its ranks' own), fits the host links' efficiency and the
per-message overhead to the 4-host run and the switch links' efficiency to
the 8-host shift, and predicts the 8- and 16-host PULL runs (simulating a
longer window than was measured: SIMULATED_WINDOW) and the scan (--scan). Asserts
that the results say what was calibrated (the CPU per fragment too, as
recorded) and from which files, that the
overlay is reused, that the fit reproduces the 4-host run, and that every
calibrated PULL prediction is within --tolerance (default 0.15, the issue's
target) of its measured run; prints measured, predicted uncalibrated and
calibrated per-node rates, for the scan per shift (not asserted:
docs/SCALE.md; not measured in CI, where it would add a minute to the
suite's longest serial test for a printout).

A measured PULL run that stalls is the emulated cluster's, not the
prediction's: under heavy load a 16-host run sometimes has seconds in its
window with no event built (TCP retransmission timeouts, most likely;
docs/SCALE.md), and its rate falls to a third. Such a run (a second of its
window, results.samples, with nothing built) is measured once more; if the
repeat stalls too the test fails saying the cluster stalled, never comparing
a stalled run with a prediction. The cluster is torn down whatever happens
(SIGTERM too) and checked gone.

  netns_calibration.py EVBENCH SOURCE_DIR [--keep DIR] [--tolerance T] [--prefix P] [--scan]

--keep DIR keeps the measured and predicted documents and the overlay;
--tolerance T: how far (relative) a calibrated prediction may be off;
--prefix P: the cluster's netns prefix (default c<pid>, unique);
--scan: measure and predict the 16-host shift scan too.
Exit 77 (skipped, with the reason) where network namespaces cannot be made.
"""
import json
import os
import shutil
import signal
import subprocess
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
                   "--set", "duration=10s", "--set", "warmup=2s"] + PULL
# The switch links' run, on the first 8 hosts (2 leaves of 4): one-to-one
# with shift 4, the one shift of 8 whose every flow crosses the uplinks (4
# flows each way on each), 4 s after a 1-s warm-up.
SWITCH_RUN = ["--set", "nodes=8", "--set", "protocol=one-to-one", "--set", "shift=4",
              "--set", "duration=4s", "--set", "warmup=1s"]
# The 16-host one-to-one shift scan, predicted from the same calibration:
# every shift for 3 s (2 after a 1-s warm-up).
SCAN_RUN = ["--set", "nodes=16", "--set", "protocol=one-to-one", "--set", "shift=scan",
            "--set", "duration=3s", "--set", "warmup=1s"]
PREDICTED = {f"{n}-{s}": ["--set", f"nodes={n}", "--set", f"scheduling={s}",
                          "--set", "duration=20s", "--set", "warmup=5s"] + PULL
             for n in (8, 16) for s in ("barrel", "random")}
TOLERANCE = 0.15
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


def measure(evbench, scripts, prefix, tmp, name, sets, timeout=90):
    out = os.path.join(tmp, name + ".json")
    nodes = int(sets[sets.index("--set") + 1].split("=")[1])
    try:
        r = sh([os.path.join(scripts, "netns-run.sh"), "--prefix", prefix, "--procs", str(nodes),
                "--evbench", evbench, "--timeout", str(timeout), "--json", out,
                "--logs", os.path.join(tmp, "logs-" + name), "--",
                "--set", "poll_mode=block", "--set", "driver=tcp", "--set", "peer_timeout=20s"]
               + sets, timeout=timeout + 30)
    except subprocess.TimeoutExpired:
        fail(f"measured {name} did not end in {timeout + 30} s (netns-run.sh's own "
             f"--timeout {timeout} did not stop it): the cluster under this load")
    if r.returncode != 0:
        fail(f"measured {name} exited {r.returncode}:\n{r.stdout}")
    return out


def stalled_seconds(path):
    """The seconds of the measured window with no event built."""
    with open(path) as f:
        r = json.load(f)["results"]
    end = r["warmup_s"] + r["window_s"]
    return [x["t_s"] for x in r.get("samples", [])
            if not x["warmup"] and x["t_s"] <= end and x["events_per_second"] == 0]


def measure_pull(evbench, scripts, prefix, tmp, name, sets):
    """A PULL run that did not stall, measured at most twice."""
    for attempt in (1, 2):
        out = measure(evbench, scripts, prefix, tmp, f"{name}-{attempt}", sets)
        stalls = stalled_seconds(out)
        if not stalls:
            return out
        if attempt == 1:
            print(f"{name}: the emulated cluster stalled (no event built in second(s) "
                  f"{stalls} of the window), measuring once more")
    fail(f"{name}: the emulated cluster stalled twice (no event built in second(s) {stalls} "
         "of the window): the cluster under this load, not the prediction (docs/SCALE.md)")


def shift_rates(path):
    with open(path) as f:
        return {x["shift"]: x["per_node"]["avg"] for x in json.load(f)["results"]["shifts"]
                if not x["local_copy"]}


def scan_rows(evbench, platform, tmp, measured, overlay):
    """Prints the 16-host scan measured, predicted uncalibrated and calibrated
    per shift (shift 0, the local copy, left out)."""
    out = {}
    for name, extra in (("uncalibrated", []), ("calibrated", ["--calibration", overlay])):
        out[name] = os.path.join(tmp, f"{name}-16-scan.json")
        sh([evbench, "sim", "--model", "credit", "--platform", platform, "--quiet",
            "--json", out[name]] + SCAN_RUN + extra, timeout=180, check=True)
    meas, uncal, cal = (shift_rates(p) for p in (measured, out["uncalibrated"],
                                                 out["calibrated"]))
    for s in sorted(meas):
        print(f"16-host scan, shift {s}: measured {meas[s]:.4f}, predicted uncalibrated "
              f"{uncal[s]:.4f} ({uncal[s] / meas[s] - 1:+.1%}), calibrated {cal[s]:.4f} "
              f"({cal[s] / meas[s] - 1:+.1%}) Gb/s per node")


def main():
    args = sys.argv[1:]
    keep = None
    tolerance = TOLERANCE
    if "--keep" in args:
        keep = args[args.index("--keep") + 1]
        del args[args.index("--keep"):args.index("--keep") + 2]
    prefix = "c%d" % (os.getpid() % 1000000)  # unique: never touches a user's cluster
    if "--prefix" in args:
        prefix = args[args.index("--prefix") + 1]
        del args[args.index("--prefix"):args.index("--prefix") + 2]
    scan = "--scan" in args
    if scan:
        args.remove("--scan")
    if "--tolerance" in args:
        tolerance = float(args[args.index("--tolerance") + 1])
        del args[args.index("--tolerance"):args.index("--tolerance") + 2]
    evbench, source = args[0], args[1]
    scripts = os.path.join(source, "scripts")
    platform = os.path.join(source, PLATFORM)
    cluster = os.path.join(scripts, "netns-cluster.sh")
    probe(prefix + "-probe")
    # ctest's timeout sends SIGTERM: tear the cluster down then too.
    signal.signal(signal.SIGTERM, lambda *_: fail("terminated (SIGTERM)"))
    with tempfile.TemporaryDirectory(prefix="netns-calibration-") as tmp:
        measured = {}
        try:
            sh([cluster, "up", "16", "--leaves", "4", "--host-rate", "125mbit",
                "--uplink-rate", "125mbit", "--prefix", prefix], check=True)
            measured["4"] = measure_pull(evbench, scripts, prefix, tmp, "measured-4",
                                         CALIBRATION_RUN)
            measured["switch"] = measure(evbench, scripts, prefix, tmp, "measured-8-shift4",
                                         SWITCH_RUN)
            if scan:  # 16 shifts of 3 s: more room for 16 ranks' start under load
                measured["scan"] = measure(evbench, scripts, prefix, tmp, "measured-16-scan",
                                           SCAN_RUN, timeout=150)
            for name, sets in PREDICTED.items():
                measured[name] = measure_pull(evbench, scripts, prefix, tmp, "measured-" + name,
                                              sets)
        finally:
            down = sh([cluster, "down", "--prefix", prefix])
            print(down.stdout.strip())
        if down.returncode != 0 or namespaces(prefix):
            fail(f"cluster not torn down: {namespaces(prefix)}")
        overlay = os.path.join(tmp, "calibration.yaml")
        rows = []
        bad = []
        for name, sets in PREDICTED.items():
            predicted = os.path.join(tmp, f"predicted-{name}.json")
            uncalibrated = os.path.join(tmp, f"uncalibrated-{name}.json")
            # The first prediction fits and writes the overlay; the others
            # apply it.
            how = (["--calibrate", measured["4"], "--calibrate", measured["switch"],
                    "--calibration", overlay] if not rows else ["--calibration", overlay])
            for out, extra in ((predicted, how), (uncalibrated, [])):
                sh([evbench, "sim", "--model", "credit", "--platform", platform, "--quiet",
                    "--json", out] + sets + SIMULATED_WINDOW + extra, timeout=180,
                   check=True)
            doc, pred = per_node(predicted)
            _, meas = per_node(measured[name])
            _, uncal = per_node(uncalibrated)
            cal = doc["results"].get("calibration")
            if not cal or cal.get("calibrated") != ["link_efficiency", "per_message_overhead_s",
                                                    "switch_link_efficiency", "ru_fragment_cpu_s",
                                                    "bu_fragment_cpu_s"]:
                fail(f"{name}: results.calibration does not name what was calibrated: {cal}")
            if (cal["from"]["file"] != measured["4"] or cal["overlay"] != overlay
                    or cal["switch_from"]["file"] != measured["switch"]):
                fail(f"{name}: results.calibration names {cal['from']['file']}, "
                     f"{cal['switch_from']['file']} / {cal['overlay']}")
            err = pred / meas - 1
            rows.append(f"{name}: measured {meas:.4f}, predicted uncalibrated {uncal:.4f}, "
                        f"calibrated {pred:.4f} Gb/s per node ({err:+.1%})")
            if abs(err) > tolerance:
                bad.append(f"{name} ({err:+.1%})")
        _, m4 = per_node(measured["4"])
        fitted = cal["from"]["simulated_calibrated_per_node_gbps"]
        print(f"4 hosts (host links): measured {m4:.4f} Gb/s per node, {fitted:.4f} simulated "
              f"with the fitted parameters; link efficiency {cal['link_efficiency']:.3f}, "
              f"per-message overhead {cal['per_message_overhead_s'] * 1e3:.1f} ms")
        # The CPU per fragment the 4-host run recorded (its ranks' own, over
        # the window) is what the overlay charges the hosts.
        cost = per_node(measured["4"])[0]["results"]["cost"]
        for role in ("ru", "bu"):
            recorded = cost[role].get("cpu_us_per_fragment")
            if recorded is None or recorded <= 0 or cost[role]["cpu_fragments"] <= 0:
                fail(f"the 4-host run recorded no {role.upper()} CPU per fragment: {cost[role]}")
            if abs(cal[role + "_fragment_cpu_s"] * 1e6 / recorded - 1) > 1e-3:
                fail(f"{role}_fragment_cpu_s {cal[role + '_fragment_cpu_s']} is not the "
                     f"recorded {recorded} us")
        print(f"4 hosts: CPU per fragment {cal['ru_fragment_cpu_s'] * 1e6:.0f} us at the RU, "
              f"{cal['bu_fragment_cpu_s'] * 1e6:.0f} us at the BU (the ranks' own, recorded in "
              f"the run's results.cost; {cal['fragment_cpu_from']})")
        sw = cal["switch_from"]
        print(f"8-host shift 4 (switch links, {sw['rates']}): measured "
              f"{sw['measured_per_node_gbps']:.4f} Gb/s per node, "
              f"{sw['simulated_uncalibrated_per_node_gbps']:.4f} simulated at 1; "
              f"switch link efficiency {cal['switch_link_efficiency']:.3f}")
        if abs(fitted / m4 - 1) > FIT_TOLERANCE or cal["from"]["measured_per_node_gbps"] != m4:
            fail(f"the fit does not reproduce the 4-host run: {fitted} against {m4}")
        print("\n".join(rows))
        if scan:
            scan_rows(evbench, platform, tmp, measured["scan"], overlay)
        if keep:
            os.makedirs(keep, exist_ok=True)
            for name in os.listdir(tmp):
                if name.endswith((".json", ".yaml")):
                    shutil.copy(os.path.join(tmp, name), keep)
        if bad:
            fail(f"calibrated prediction off by more than {tolerance:.0%}: {', '.join(bad)}")
    print("OK")


if __name__ == "__main__":
    main()
