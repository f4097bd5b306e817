#!/usr/bin/python3
"""`evbench sim --model credit` as users run it (docs/SCALE.md, "The credit
model"): the real CLI, platform files written by the test.

  credit_sim.py EVBENCH CHECK WORKDIR

CHECK is one of
  chunk-convergence  configs/sim/pull-512.yaml at 16 nodes (1024 events) on
                     sim-tree-16 with 32 KiB and 16 KiB chunks: the per-node
                     rate of bytes as they arrived is within 5 %, every event
                     built, the network reported (results.network, with the
                     simulator's network events per second of wall time), no
                     host load recorded (results.host_load: the simulator's host)
  bad-network-key    a platform whose network.queueing is not fifo or voq is
                     refused before start (exit 2, nothing printed on
                     stdout), naming file:line:column and key
  driver-is-credit   --set driver=tcp is refused (the model runs its own
                     network), exit 2
  emulated-shift-scan  a one-to-one shift scan on the emulated cluster's 8 hosts
                     at 250 Mbit/s with a 4:1 uplink, under the credit model
                     with infinite buffers (output queueing, as Linux's tc
                     queues are), agrees with the scan measured on the
                     emulated cluster (docs/emulated-cluster/8hosts-250mbit/,
                     committed) within scripts/netns-compare.py's 0.15
  calibrate          --calibrate with PULL measured on 4 hosts of the 16-host
                     emulated cluster (docs/emulated-cluster/16hosts-125mbit/
                     calibrated/measured-4-barrel.json, docs/SCALE.md):
                     the overlay is written with both parameters and the
                     measured run's origin, the simulated 4-host run
                     reproduces the measured rate within 2 %, the results
                     say what was calibrated and from what, and --calibration
                     applies the overlay again to the same figures
  calibrate-per-kind  --calibrate twice, the 4-host PULL then the 16-host
                     one-to-one shift scan (committed, as above): the switch
                     links get their own efficiency, fitted to the shifts the
                     model says the uplinks limit (not 1-3 and 13-15), the
                     host links the same as from the 4-host run alone; the
                     overlay and results.calibration say which were fitted
                     and from what; --calibration reads it back to the same
                     figures; the scan first, or a second run no switch link
                     limits, is refused (exit 2) naming the file
  calibrate-bad-input  results of a protocol that builds no events, of a run
                     that built nothing, of a simulation, a file that is not
                     JSON, a document that is not results, another protocol,
                     and the fluid model are refused (exit 2) naming the file
                     and the key
Simulated figures are deterministic: no timing of this machine is compared.
"""
import json
import os
import subprocess
import sys

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def platform(workdir, name, network):
    with open(os.path.join(SOURCE, "configs/platforms/sim-tree-16.yaml")) as f:
        text = f.read()
    path = os.path.join(workdir, name)
    with open(path, "w") as f:
        f.write(text + network)
    return path


def run(evbench, args, timeout=120):
    p = subprocess.run([evbench, "sim"] + args, capture_output=True, text=True, timeout=timeout,
                       cwd=SOURCE)
    return p.returncode, p.stdout, p.stderr


def rate(evbench, workdir, chunk):
    out = os.path.join(workdir, f"chunk-{chunk}.json")
    code, stdout, stderr = run(evbench, [
        "configs/sim/pull-512.yaml", "--model", "credit", "--platform",
        platform(workdir, f"tree-{chunk}.yaml", f"network: {{chunk: {chunk}}}\n"),
        "--set", "nodes=16", "--set", "events=1024", "--quiet", "--json", out])
    if code != 0:
        sys.exit(f"FAIL: exit {code}\n{stdout}\n{stderr}")
    r = json.load(open(out))["results"]
    assert r["events_built"] == r["events_assigned"] == 1024, r["events_built"]
    assert r["simulation_model"] == "credit" and r["network"]["model"] == "credit"
    assert any(link["inter_switch"] and link["bytes"] > 0 for link in r["network"]["links"])
    # The simulator's own speed: its network events per second of wall time.
    net = r["network"]
    assert net["events"] > 0 and net["events_per_wall_s"] > 0, net
    assert abs(net["events_per_wall_s"] * r["wall_time_s"] / net["events"] - 1) < 0.5, net
    # The ranks ran on the simulator's host: its load is not the simulated cluster's.
    assert "host_load" not in r and "# host load" not in stdout, r.get("host_load")
    avg = r["bandwidth_gbps"]["arrivals"]["per_node"]["avg"]
    print(f"chunk {chunk}: {avg:.2f} Gb/s per node ({r['simulated_time_s']:.3f} s simulated)")
    return avg


EMULATED_16 = "docs/emulated-cluster/16hosts-125mbit/emulated-4x4-125mbit.yaml"
MEASURED_4 = "docs/emulated-cluster/16hosts-125mbit/calibrated/measured-4-barrel.json"
PULL_4 = ["--set", "nodes=4", "--set", "protocol=pull", "--set", "evm=with-rank0",
          "--set", "fragment.size=512KiB", "--set", "credits=2", "--set", "parallel=4",
          "--set", "duration=10s", "--set", "warmup=2s"]


def calibrate(evbench, workdir):
    overlay = os.path.join(workdir, "calibration.yaml")
    out = os.path.join(workdir, "calibrated.json")
    code, stdout, stderr = run(evbench, ["--model", "credit", "--platform", EMULATED_16] + PULL_4
                               + ["--calibrate", MEASURED_4, "--calibration", overlay,
                                  "--json", out])
    if code != 0:
        sys.exit(f"FAIL: exit {code}\n{stdout}\n{stderr}")
    with open(overlay) as f:
        text = f.read()
    for key in ("link_efficiency:", "per_message_overhead_s:", "file: \"" + MEASURED_4,
                "config: \"pull, 4 nodes, barrel", "hosts: \"", "git_sha: \"",
                "ru_fragment_cpu_s: 0", "fragment_cpu_from: \"not recorded in"):
        if key not in text:
            sys.exit(f"FAIL: the overlay lacks {key!r}:\n{text}")
    with open(os.path.join(SOURCE, MEASURED_4)) as f:
        measured = json.load(f)["results"]["bandwidth_gbps"]["per_node"]["avg"]
    r = json.load(open(out))["results"]
    cal = r["calibration"]
    if cal["calibrated"] != ["link_efficiency", "per_message_overhead_s"]:
        sys.exit(f"FAIL: results.calibration.calibrated {cal['calibrated']}")
    if cal["from"]["file"] != MEASURED_4 or cal["overlay"] != overlay:
        sys.exit(f"FAIL: results.calibration names {cal['from']['file']}, {cal['overlay']}")
    if not 0 < cal["link_efficiency"] < 1:
        sys.exit(f"FAIL: link efficiency {cal['link_efficiency']} on TCP over shaped links")
    got = r["bandwidth_gbps"]["per_node"]["avg"]
    if abs(got / measured - 1) > 0.02:
        sys.exit(f"FAIL: calibrated 4-host rate {got}, measured {measured}")
    if "# calibrated: link efficiency" not in stdout:
        sys.exit(f"FAIL: no '# calibrated:' line in the report:\n{stdout}")
    again = os.path.join(workdir, "again.json")
    code, stdout, stderr = run(evbench, ["--model", "credit", "--platform", EMULATED_16] + PULL_4
                               + ["--calibration", overlay, "--json", again, "--quiet"])
    if code != 0:
        sys.exit(f"FAIL: --calibration exit {code}\n{stderr}")
    r2 = json.load(open(again))["results"]
    if r2["bandwidth_gbps"]["per_node"]["avg"] != got or r2["calibration"]["from"] != cal["from"]:
        sys.exit(f"FAIL: --calibration gave {r2['bandwidth_gbps']['per_node']['avg']}, not {got}")
    print(f"calibrated: link efficiency {cal['link_efficiency']:.3f}, per-message overhead "
          f"{cal['per_message_overhead_s'] * 1e3:.1f} ms; 4 hosts {got:.4f} Gb/s per node "
          f"simulated, {measured:.4f} measured")


SCAN_16 = "docs/emulated-cluster/16hosts-125mbit/calibrated/measured-16-shift-scan.json"


def calibrate_per_kind(evbench, workdir):
    base = ["--model", "credit", "--platform", EMULATED_16] + PULL_4
    one, two = os.path.join(workdir, "one.yaml"), os.path.join(workdir, "two.yaml")
    out = os.path.join(workdir, "two.json")
    code, _, stderr = run(evbench, base + ["--calibrate", MEASURED_4, "--calibration", one,
                                           "--quiet"])
    if code != 0:
        sys.exit(f"FAIL: one run: exit {code}\n{stderr}")
    code, stdout, stderr = run(evbench, base + ["--calibrate", MEASURED_4, "--calibrate", SCAN_16,
                                                "--calibration", two, "--json", out])
    if code != 0:
        sys.exit(f"FAIL: two runs: exit {code}\n{stdout}\n{stderr}")
    with open(one) as f:
        text_one = f.read()
    with open(two) as f:
        text_two = f.read()
    if "switch" in text_one:
        sys.exit(f"FAIL: one run's overlay names switch links:\n{text_one}")
    for key in ("switch_link_efficiency:", "switch_from:", "file: \"" + SCAN_16,
                "rates: \"shifts 4-12\"", "config: \"one-to-one, 16 nodes"):
        if key not in text_two:
            sys.exit(f"FAIL: the overlay lacks {key!r}:\n{text_two}")
    line = [l for l in text_one.splitlines() if "link_efficiency:" in l]
    if line[0] not in text_two.splitlines():
        sys.exit(f"FAIL: the host links' fit changed with a second run: {line[0]}\n{text_two}")
    cal = json.load(open(out))["results"]["calibration"]
    if cal["calibrated"] != ["link_efficiency", "per_message_overhead_s",
                             "switch_link_efficiency"]:
        sys.exit(f"FAIL: results.calibration.calibrated {cal['calibrated']}")
    if cal["switch_from"]["file"] != SCAN_16 or not 0 < cal["switch_link_efficiency"] <= 1:
        sys.exit(f"FAIL: results.calibration {cal}")
    if "switch links" not in stdout:
        sys.exit(f"FAIL: the '# calibrated:' line does not name the switch links:\n{stdout}")
    # The overlay applied to the 16-host PULL: the same figures as fitted.
    pull_16 = [a if a != "nodes=4" else "nodes=16" for a in base]
    a, b = os.path.join(workdir, "a.json"), os.path.join(workdir, "b.json")
    for path in (a, b):
        code, _, stderr = run(evbench, pull_16 + ["--calibration", two, "--json", path, "--quiet"])
        if code != 0:
            sys.exit(f"FAIL: --calibration exit {code}\n{stderr}")
    ra, rb = (json.load(open(p))["results"] for p in (a, b))
    if ra["bandwidth_gbps"] != rb["bandwidth_gbps"] or ra["calibration"] != cal:
        sys.exit("FAIL: --calibration did not read back what was fitted")
    # Refused: the scan as the host links' run; a second run no switch link limits.
    for args, want, named in (
            (["--calibrate", SCAN_16, "--calibrate", MEASURED_4], "results.builds_events: false",
             SCAN_16),
            (["--calibrate", MEASURED_4, "--calibrate", MEASURED_4],
             "no rate the links between switches limit", MEASURED_4)):
        code, _, stderr = run(evbench, base + args + ["--calibration", os.path.join(workdir,
                                                                                   "c.yaml")])
        if code != 2 or want not in stderr or named + ":" not in stderr:
            sys.exit(f"FAIL: {args}: exit {code}, stderr: {stderr}")
    print(f"per kind: host links {cal['link_efficiency']:.3f}, switch links "
          f"{cal['switch_link_efficiency']:.3f} ({cal['switch_from']['rates']})")


def calibrate_bad_input(evbench, workdir):
    with open(os.path.join(SOURCE, MEASURED_4)) as f:
        good = json.load(f)

    def variant(name, change):
        doc = json.loads(json.dumps(good))
        change(doc)
        path = os.path.join(workdir, name)
        with open(path, "w") as f:
            json.dump(doc, f)
        return path

    notjson = os.path.join(workdir, "notes.txt")
    with open(notjson, "w") as f:
        f.write("not: [a results document\n")
    cases = [
        (variant("scan.json", lambda d: d["results"].update(builds_events=False)),
         "results.builds_events: false"),
        (variant("nothing.json", lambda d: d["results"].update(events_built=0)),
         "results.events_built: 0: the run built nothing"),
        (variant("simulated.json", lambda d: d["results"].update(simulated=True)),
         "results.simulated: a simulated run"),
        (notjson, "not a results JSON"),
        ("configs/sim/pull-1mib.yaml", "results: missing"),
    ]
    for path, want in cases:
        code, _, stderr = run(evbench, ["--model", "credit", "--platform", EMULATED_16] + PULL_4
                              + ["--calibrate", path,
                                 "--calibration", os.path.join(workdir, "c.yaml")])
        if code != 2 or want not in stderr or path + ":" not in stderr:
            sys.exit(f"FAIL: {path}: exit {code}, stderr: {stderr}")
    code, _, stderr = run(evbench, ["--model", "credit", "--platform", EMULATED_16] + PULL_4
                          + ["--set", "protocol=push", "--calibrate", MEASURED_4,
                             "--calibration", os.path.join(workdir, "c.yaml")])
    if code != 2 or MEASURED_4 + ": config.protocol: 'pull'" not in stderr:
        sys.exit(f"FAIL: another protocol: exit {code}, stderr: {stderr}")
    code, _, stderr = run(evbench, ["--platform", EMULATED_16, "--calibrate", MEASURED_4])
    if code != 2 or "--calibrate needs --model credit" not in stderr:
        sys.exit(f"FAIL: fluid model: exit {code}, stderr: {stderr}")


def main():
    evbench, check, workdir = sys.argv[1:4]
    os.makedirs(workdir, exist_ok=True)
    if check == "chunk-convergence":
        a, b = rate(evbench, workdir, "32KiB"), rate(evbench, workdir, "16KiB")
        if abs(a - b) > 0.05 * b:
            sys.exit(f"FAIL: {a:.2f} Gb/s with 32 KiB chunks, {b:.2f} with 16 KiB: "
                     "more than 5 % apart")
    elif check == "bad-network-key":
        bad = platform(workdir, "bad.yaml", "network: {queueing: lifo}\n")
        code, stdout, stderr = run(evbench, ["configs/sim/pull-1mib.yaml", "--model", "credit",
                                             "--platform", bad])
        if code != 2 or "network.queueing: expected fifo or voq, got 'lifo'" not in stderr:
            sys.exit(f"FAIL: exit {code}, stderr: {stderr}")
        # The file, line and column of the value (the line appended last).
        line = sum(1 for _ in open(bad))
        if f"bad.yaml:{line}:21: network.queueing" not in stderr:
            sys.exit(f"FAIL: the file and line are not named (line {line}): {stderr}")
        # Refused before start: no rank ran, no table, no simulated time.
        if stdout.strip() or "simulated" in stderr:
            sys.exit(f"FAIL: something ran before the refusal:\n{stdout}\n{stderr}")
    elif check == "emulated-shift-scan":
        base = os.path.join(SOURCE, "docs/emulated-cluster/8hosts-250mbit")
        with open(os.path.join(base, "emulated-2x4-250mbit.yaml")) as f:
            text = f.read() + "network: {infinite_buffers: true}\n"
        plat = os.path.join(workdir, "emulated-oq.yaml")
        with open(plat, "w") as f:
            f.write(text)
        out = os.path.join(workdir, "scan.json")
        code, stdout, stderr = run(evbench, [
            "--model", "credit", "--platform", plat, "--set", "nodes=8", "--set",
            "protocol=one-to-one", "--set", "shift=scan", "--set", "duration=1s", "--set",
            "warmup=200ms", "--set", "ru_buffer=4MiB", "--quiet", "--json", out])
        if code != 0:
            sys.exit(f"FAIL: exit {code}\n{stdout}\n{stderr}")
        cmp = subprocess.run([sys.executable, os.path.join(SOURCE, "scripts/netns-compare.py"),
                              os.path.join(base, "uplink-250mbit/shift-scan.json"), out,
                              "--tolerance", "0.15"], capture_output=True, text=True)
        print(cmp.stdout)
        if cmp.returncode != 0:
            sys.exit("FAIL: the credit model's scan does not agree with the emulated cluster's")
    elif check == "calibrate":
        calibrate(evbench, workdir)
    elif check == "calibrate-per-kind":
        calibrate_per_kind(evbench, workdir)
    elif check == "calibrate-bad-input":
        calibrate_bad_input(evbench, workdir)
    elif check == "driver-is-credit":
        code, stdout, stderr = run(evbench, ["configs/sim/pull-1mib.yaml", "--model", "credit",
                                             "--platform", "configs/platforms/sim-tree-16.yaml",
                                             "--set", "driver=tcp"])
        if code != 2 or "runs its own network (driver credit)" not in stderr:
            sys.exit(f"FAIL: exit {code}, stderr: {stderr}")
    else:
        sys.exit(f"unknown check {check}")
    print("PASSED")
    return 0


if __name__ == "__main__":
    sys.exit(main())
