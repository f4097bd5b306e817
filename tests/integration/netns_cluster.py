#!/usr/bin/python3
"""The emulated cluster end to end: scripts/netns-cluster.sh brings up 8 hosts
on 2 leaf switches, each host link and the one uplink shaped to the same rate
(4 hosts per leaf: 4:1 oversubscribed),
scripts/netns-run.sh runs the one-to-one shift scan with one evbench rank
per namespace (env bootstrap, TCP driver), and the scan must show the uplink:
shift 4, where every flow crosses it, is the slowest shift, well below shifts
1 and 7 (ratios of measured bandwidths, no absolute figures). Checks on the
way: host names are per namespace, `up` is idempotent and refuses another
shape, and after `down` (run whatever happens) no namespace, /etc/netns file,
state file, root-namespace link or evbench process of the test is left.

  netns_cluster.py EVBENCH SCRIPTS_DIR

Exit 77 (skipped, with the reason) when network namespaces, bridges or tbf
cannot be made here (not root, no iproute2, a kernel without them)."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

SKIP = 77
# Host links and the uplink: 200 Mbit/s, so 8 hosts move at most 1.6 Gbit/s in
# all and the scan measures the shaped links, not this machine's CPU (veth,
# bridge and tbf all run in software on the cores the ranks share).
HOST_RATE = "200mbit"


def skip(why):
    print("SKIPPED: " + why)
    sys.exit(SKIP)


def fail(why):
    print("FAILED: " + why)
    sys.exit(1)


def sh(cmd, timeout=60, check=False):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=timeout)
    if check and r.returncode != 0:
        fail(f"{' '.join(cmd)} exited {r.returncode}:\n{r.stdout}")
    return r


def probe(name):
    """Makes and removes one namespace with a bridge, a veth and a tbf qdisc."""
    if os.geteuid() != 0:
        skip("network namespaces need root")
    for tool in ("ip", "tc", "unshare"):
        if not shutil.which(tool):
            skip(f"'{tool}' not found (iproute2, util-linux)")
    steps = [["ip", "netns", "add", name],
             ["ip", "-n", name, "link", "add", "name", "br0", "type", "bridge"],
             ["ip", "-n", name, "link", "add", "name", "va", "type", "veth", "peer", "name", "vb"],
             ["tc", "-n", name, "qdisc", "add", "dev", "va", "root", "tbf", "rate", "1gbit",
              "burst", "64k", "latency", "20ms"]]
    try:
        for cmd in steps:
            r = sh(cmd)
            if r.returncode != 0:
                skip(f"cannot {' '.join(cmd)}: {r.stdout.strip()}")
    finally:
        sh(["ip", "netns", "del", name])


def root_links():
    return {line.split(":")[1].strip().split("@")[0]
            for line in sh(["ip", "-o", "link", "show"], check=True).stdout.splitlines()}


def namespaces(prefix):
    out = sh(["ip", "netns", "list"], check=True).stdout
    return [line.split()[0] for line in out.splitlines()
            if line.split() and line.split()[0].startswith(prefix + "-")]


def processes_mentioning(marker):
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if marker.encode() in f.read():
                    found.append(pid)
        except OSError:
            pass
    return found


def main():
    evbench, scripts = sys.argv[1], sys.argv[2]
    cluster = os.path.join(scripts, "netns-cluster.sh")
    launcher = os.path.join(scripts, "netns-run.sh")
    prefix = "t%d" % (os.getpid() % 1000000)  # unique: never touches a cluster of a user
    probe(prefix + "-probe")
    links_before = root_links()
    shape = ["--leaves", "2", "--host-rate", HOST_RATE, "--uplink-rate", HOST_RATE,
             "--prefix", prefix]
    with tempfile.TemporaryDirectory(prefix="netns-test-") as tmp:
        try:
            r = sh([cluster, "up", "8"] + shape, check=True)
            print(r.stdout.strip())
            # The same cluster again: nothing to do; another shape: refused.
            r = sh([cluster, "up", "8"] + shape)
            if r.returncode != 0 or "already up" not in r.stdout:
                fail(f"a second identical 'up' should succeed as 'already up':\n{r.stdout}")
            r = sh([cluster, "up", "4", "--prefix", prefix])
            if r.returncode == 0 or "refusing" not in r.stdout:
                fail(f"'up' with another shape over a live cluster must refuse:\n{r.stdout}")
            for host in (0, 5):
                name = sh([cluster, "run", str(host), "--prefix", prefix, "hostname"],
                          check=True).stdout.strip()
                if name != f"{prefix}-h{host}":
                    fail(f"host {host} is named '{name}', expected '{prefix}-h{host}'")

            out = os.path.join(tmp, "scan.json")
            r = sh([launcher, "--prefix", prefix, "--evbench", evbench, "--timeout", "80",
                    "--json", out, "--logs", os.path.join(tmp, "logs"), "--",
                    "--set", "nodes=8", "--set", "poll_mode=block",
                    "--set", "protocol=one-to-one", "--set", "shift=scan",
                    "--set", "duration=1500ms", "--set", "warmup=500ms",
                    "--set", "peer_timeout=20s"], timeout=100)
            table = [line for line in r.stdout.splitlines() if not line.startswith("#  ")]
            print("\n".join(table))
            if r.returncode != 0:
                fail(f"the shift scan exited {r.returncode}")
            with open(out) as f:
                shifts = json.load(f)["results"]["shifts"]
            if [s["shift"] for s in shifts] != list(range(8)):
                fail(f"expected shifts 0..7 in the results, got {[s['shift'] for s in shifts]}")
            avg = {s["shift"]: s["per_node"]["avg"] for s in shifts}
            network = {k: v for k, v in avg.items() if k != 0}  # shift 0 is a local copy
            if min(v for v in network.values()) <= 0:
                fail(f"a shift moved no data: {network}")
            slowest = min(network, key=network.get)
            if slowest != 4:
                fail(f"shift 4 (every flow crosses the 4:1 uplink) should be the slowest; "
                     f"shift {slowest} is: {network}")
            ends = min(avg[1], avg[7])
            if avg[4] > 0.6 * ends:
                fail(f"shift 4 ({avg[4]:.3f} Gb/s) should be well below shifts 1 and 7 "
                     f"({avg[1]:.3f}, {avg[7]:.3f} Gb/s): is the uplink shaped?")
            print(f"shift 4 / min(shift 1, shift 7) = {avg[4] / ends:.2f}")
        finally:
            down = sh([cluster, "down", "--prefix", prefix])
            print(down.stdout.strip())
        # Everything the test made is gone.
        if down.returncode != 0:
            fail(f"down exited {down.returncode}")
        if namespaces(prefix):
            fail(f"namespaces left: {namespaces(prefix)}")
        left = [d for d in os.listdir("/etc/netns") if d.startswith(prefix + "-")] \
            if os.path.isdir("/etc/netns") else []
        if left:
            fail(f"/etc/netns entries left: {left}")
        if os.path.exists(f"/run/evbench-netns/{prefix}.env"):
            fail("the state file is left")
        new_links = root_links() - links_before
        if new_links:
            fail(f"links appeared in the root namespace: {sorted(new_links)}")
        procs = processes_mentioning(tmp)
        if procs:
            fail(f"processes of the run are left: {procs}")
        r = sh([cluster, "down", "--prefix", prefix])
        if r.returncode != 0:
            fail(f"a second 'down' should be a no-op:\n{r.stdout}")
    print("OK")


if __name__ == "__main__":
    main()
