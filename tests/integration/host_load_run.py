#!/usr/bin/python3
"""Runs a short `evbench run` and checks results.host_load (docs/METRICS.md,
"Host load"): one entry for this host naming every rank, each figure within
its range, the CPUs online and the frequency as this host has them (null
where cpufreq is absent, never 0), and the table's `# host load:` line; and
the RU and BU ranks' own CPU per fragment (results.rank_cpu, results.cost),
which the same readings' window contains.

  host_load_run.py EVBENCH [--busy-loop] [--set K=V]...

--busy-loop keeps a shell busy loop running through the run, so the host's
other processes used CPU time in the window: other_cpu_fraction and
other_cpu_s must then be above 0 (a fact of the loop, not a performance
threshold). The loop runs in its own process group, killed on every path;
every run has a hard timeout."""
import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile

TIMEOUT_S = 40


def fail(msg):
    print("FAILED: " + msg)
    sys.exit(1)


def kill_group(proc):
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()


def run(cmd):
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        kill_group(proc)
        fail(f"timed out after {TIMEOUT_S} s: {' '.join(cmd)}")
    finally:
        kill_group(proc)  # nothing of the run may outlive it
    sys.stdout.write(out)
    sys.stderr.write(err)
    if proc.returncode != 0:
        fail(f"exit status {proc.returncode}")
    return out


def has_cpufreq():
    return any(os.path.exists(f"/sys/devices/system/cpu/cpu{n}/cpufreq/scaling_cur_freq")
               for n in range(os.cpu_count() or 1))


def check(doc, out, busy_loop):
    results = doc["results"]
    hosts = results.get("host_load")
    if not isinstance(hosts, list) or len(hosts) != 1:
        fail(f"results.host_load: expected one host, got {hosts!r}")
    h = hosts[0]
    print("host_load:", json.dumps(h))
    if h["hostname"] != socket.gethostname():
        fail(f"hostname {h['hostname']!r}, this host is {socket.gethostname()!r}")
    if sorted(h["ranks"]) != list(range(doc["topology"]["processes"])):
        fail(f"ranks {h['ranks']} are not every rank of the run")
    if not h["window_s"] > 0:
        fail(f"window_s {h['window_s']}")
    for key in ("loadavg_start", "loadavg_end", "other_cpu_s"):
        if not isinstance(h[key], (int, float)) or h[key] < 0:
            fail(f"{key} {h[key]!r} is not a number >= 0")
    for key in ("other_cpu_fraction", "steal_fraction"):
        if not isinstance(h[key], (int, float)) or not 0 <= h[key] <= 1:
            fail(f"{key} {h[key]!r} is not within [0, 1]")
    if h["cpus"] != os.cpu_count():
        fail(f"cpus {h['cpus']}, this host has {os.cpu_count()} online")
    if has_cpufreq():
        if not isinstance(h["freq_mhz"], (int, float)) or h["freq_mhz"] <= 0:
            fail(f"freq_mhz {h['freq_mhz']!r} where cpufreq is readable")
    elif h["freq_mhz"] is not None:
        fail(f"freq_mhz {h['freq_mhz']!r} on a host without cpufreq: expected null")
    if busy_loop and not (h["other_cpu_fraction"] > 0 and h["other_cpu_s"] > 0):
        fail(f"a busy loop ran through the run, yet other processes used {h['other_cpu_s']} s")
    if f"# host load: {h['hostname']}, {h['cpus']} CPUs: load average" not in out:
        fail("the table has no `# host load:` line for this host")
    check_rank_cpu(results, h, out)


def check_rank_cpu(results, host, out):
    """results.rank_cpu and the per-role CPU per fragment (docs/METRICS.md,
    "CPU per fragment at the RU and BU"): every RU and BU rank has its
    entry, within the host's load window, and the roles' figures are the
    ranks' CPU shared by fragments."""
    ranks = results.get("rank_cpu")
    if not isinstance(ranks, list) or not ranks:
        fail(f"results.rank_cpu: {ranks!r}")
    print("rank_cpu:", json.dumps(ranks))
    share = {"ru": 0.0, "bu": 0.0}
    count = {"ru": 0, "bu": 0}
    for r in ranks:
        if "ru" not in r and "bu" not in r:
            fail(f"rank {r['rank']} has neither RU nor BU: {r}")
        if not 0 < r["window_s"] <= host["window_s"]:
            fail(f"rank {r['rank']}: window_s {r['window_s']} outside the host's "
                 f"{host['window_s']} s load window")
        for key in ("user_s", "system_s"):
            if not r[key] >= 0:
                fail(f"rank {r['rank']}: {key} {r[key]}")
        n = r["fragments_sent"] + r["fragments_received"]
        cpu = r["user_s"] + r["system_s"]
        if ("ru" in r) != (r["fragments_sent"] > 0) or ("bu" in r) != (r["fragments_received"] > 0):
            fail(f"rank {r['rank']}: fragments do not match its units: {r}")
        if not cpu > 0 or abs(r["cpu_us_per_fragment"] - cpu / n * 1e6) > 1e-6 * cpu / n * 1e6:
            fail(f"rank {r['rank']}: cpu_us_per_fragment {r['cpu_us_per_fragment']}, "
                 f"its CPU {cpu} s over {n} fragments")
        share["ru"] += cpu * r["fragments_sent"] / n
        share["bu"] += cpu * r["fragments_received"] / n
        count["ru"] += r["fragments_sent"]
        count["bu"] += r["fragments_received"]
    for role in ("ru", "bu"):
        c = results["cost"][role]
        want = share[role] / count[role] * 1e6
        if c["cpu_fragments"] != count[role] or abs(c["cpu_us_per_fragment"] / want - 1) > 1e-6:
            fail(f"results.cost.{role}: {c['cpu_us_per_fragment']} us over {c['cpu_fragments']} "
                 f"fragments, the ranks' give {want} over {count[role]}")
    if "# CPU per fragment (the ranks' own, user + system, in the window): RU " not in out:
        fail("the table has no `# CPU per fragment` line")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("evbench")
    p.add_argument("--busy-loop", action="store_true")
    p.add_argument("--set", action="append", default=[])
    args = p.parse_args()
    loop = None
    if args.busy_loop:
        loop = subprocess.Popen(["/bin/sh", "-c", "while :; do :; done"], start_new_session=True)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "results.json")
            cmd = [args.evbench, "run", "--json", path]
            for kv in args.set:
                cmd += ["--set", kv]
            out = run(cmd)
            with open(path) as f:
                doc = json.load(f)
    finally:
        if loop:
            kill_group(loop)
    check(doc, out, args.busy_loop)
    print("OK")


if __name__ == "__main__":
    main()
