#!/usr/bin/python3
"""The monitor (docs/MONITORING.md) where users run evbench: under cluster
launchers, not the local fork launcher. One run of 3 nodes + a dedicated EVM
(4 ranks, the EVM the last one) for ~12 s with the monitor on; the test finds
the `# monitor:` line in the ranks' output, scrapes /metrics until events are
built, POSTs {"parallel": 2} (202), scrapes until evbench_parallel is 2, and
after the run: every process exited 0, results.control holds the change
(key parallel, value "2", from the event the EVM's stderr names), every
assigned event was built with zero integrity errors, and no process of the
run is left (process groups killed on every path, hard deadlines everywhere).

  monitor_launchers.py EVBENCH MODE ... [--set KEY=VALUE]...
      the run's settings after the test's own (a batched variant's).
  monitor_launchers.py EVBENCH mpirun [--mpirun PATH] [--driver mpi|tcp]
      mpirun -np 4 --oversubscribe --tag-output on lo, --set bootstrap=mpi;
      mpirun forwards the EVM rank's stderr, tagged with its rank (3). The
      token comes from the printed line.
  monitor_launchers.py EVBENCH env
      the 4 ranks started by hand as srun would (EVBENCH_RANK/SIZE/RENDEZVOUS/
      RUN_ID, --set bootstrap=env), tcp driver; monitor.token_file names a file
      that does not exist: the EVM's rank must create it (mode 0600) with the
      token it prints.
  monitor_launchers.py EVBENCH netns --scripts DIR
      3 hosts of scripts/netns-cluster.sh, the ranks by scripts/netns-run.sh
      (the EVM, rank 3, in host 0's namespace), the monitor bound to 0.0.0.0
      there and scraped FROM host 1's namespace (monitor_client.py runs there)
      at host 0's address on the emulated network, with the token from a
      monitor.token_file the test writes first (Prometheus's credentials_file
      on another node). The cluster is torn down on every path. Exit 77
      (skipped) where network namespaces cannot be made (not root, no
      iproute2)."""
import argparse
import collections
import json
import os
import pathlib
import re
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time

from monitor_client import Client, metric
from netns_cluster import namespaces, probe, processes_mentioning, root_links, sh

RANKS = 4  # nodes 3 + the dedicated EVM (the last rank)
RUN = ["nodes=3", "fragment.size=64KiB", "duration=12s", "warmup=200ms", "verify.sample=1",
       "peer_timeout=20s"]
RUN_DEADLINE = 75  # s from the start to every process gone; below ctest's TIMEOUT
NETNS_PORT = 9464  # the monitor in host 0's namespace (namespaces are private)
NETNS_RENDEZVOUS = 43210
INTEGRITY = ("incomplete", "lost", "duplicate", "duplicate_events", "corrupt",
             "corrupt_events", "out_of_sync", "out_of_sync_events")


def fail(msg):
    print("FAILED: " + msg, flush=True)
    sys.exit(1)


def free_ports(n):
    """n distinct free loopback ports (all held at once while chosen)."""
    socks = [socket.socket() for _ in range(n)]
    try:
        for s in socks:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def scrape_until(client, name, want, deadline, procs):
    """Scrapes /metrics until `want(value of name)`; fails at the deadline."""
    last = "no scrape yet"
    while time.monotonic() < deadline:
        status, text = client.request("GET", "/metrics")
        if status == 200:
            value = metric(text, name)
            if value is not None and want(value):
                return value, text
            last = f"{name} = {value}"
        else:
            last = f"status {status}: {text[:300]}"
        if all(p.poll() is not None for p in procs):
            fail(f"the run ended before /metrics showed what was awaited ({last})")
        time.sleep(0.3)
    fail(f"timed out scraping /metrics for {name} ({last})")


def read_all(files):
    out = {}
    for f in files:
        try:
            out[f] = pathlib.Path(f).read_text(errors="replace")
        except OSError:
            out[f] = ""
    return out


# mpirun --tag-output prefixes each line with [job,rank]<stderr>:
MONITOR_LINE = re.compile(
    r"^(?:\[\d+,(\d+)\]<stderr>:)?# monitor: (http://[^/\s]+)/\?token=(\S+)\n", re.M)


def await_monitor_line(logs, procs, deadline):
    while time.monotonic() < deadline:
        for f, text in read_all(logs).items():
            m = MONITOR_LINE.search(text)
            if m:
                return f, m.group(1), m.group(2), m.group(3)
        if all(p.poll() is not None for p in procs):
            fail("every process ended without a '# monitor:' line")
        time.sleep(0.2)
    fail("no '# monitor:' line within the deadline")


def sets(keys):
    return [a for kv in keys for a in ("--set", kv)]


# What a launcher started: the processes (each leads a process group of its
# own), the files their output goes to (evm_log: the EVM rank's; evm_tag: its
# rank in mpirun's --tag-output), client(base, token) to reach the monitor,
# codes() every exit status once all are done.
Launch = collections.namedtuple("Launch", "procs logs evm_log evm_tag client codes")


def popen(cmd, out_path, env=None, err_path=None):
    """Starts cmd as the leader of a new process group, output to files."""
    with open(out_path, "w") as out, open(err_path or os.devnull, "w") as err:
        return subprocess.Popen(cmd, env=env, stdout=out, stdin=subprocess.DEVNULL,
                                stderr=err if err_path else subprocess.STDOUT,
                                start_new_session=True)


def launch_mpirun(a, tmp, out, procs):
    port, = free_ports(1)
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    cmd = [a.mpirun, "-np", str(RANKS), "--oversubscribe", "--tag-output",
           "--mca", "btl_tcp_if_include", "lo", "--mca", "oob_tcp_if_include", "lo",
           a.evbench, "run"] + \
        sets(["bootstrap=mpi", f"driver={a.driver}"] + RUN + a.extra + [f"monitor.port={port}"]) + \
        ["--json", out]
    print("$ " + " ".join(cmd), flush=True)
    logs = [os.path.join(tmp, "mpirun.out"), os.path.join(tmp, "mpirun.err")]
    procs.append(popen(cmd, logs[0], env, logs[1]))
    return Launch(procs, logs, logs[1], str(RANKS - 1),
                  lambda base, token: Client(expect_base(base, f"http://127.0.0.1:{port}"), token),
                  lambda: [procs[0].returncode])


def launch_env(a, tmp, out, procs):
    port, rendezvous = free_ports(2)
    token_file = os.path.join(tmp, "monitor.token")  # absent: the EVM's rank creates it
    logs = [os.path.join(tmp, f"rank-{r}.log") for r in range(RANKS)]
    for rank in range(RANKS):
        env = dict(os.environ, EVBENCH_RANK=str(rank), EVBENCH_SIZE=str(RANKS),
                   EVBENCH_RENDEZVOUS=f"127.0.0.1:{rendezvous}", EVBENCH_RUN_ID="monitor-env")
        cmd = [a.evbench, "run"] + sets(["bootstrap=env", "driver=tcp"] + RUN + a.extra + [
            f"monitor.port={port}", f"monitor.token_file={token_file}"]) + ["--json", out]
        if rank == 0:
            print(f"$ EVBENCH_RANK=0..{RANKS - 1} EVBENCH_SIZE={RANKS} "
                  f"EVBENCH_RENDEZVOUS=127.0.0.1:{rendezvous} " + " ".join(cmd), flush=True)
        procs.append(popen(cmd, logs[rank], env))

    def client(base, token):
        st = os.stat(token_file)
        if st.st_mode & 0o777 != 0o600:
            fail(f"{token_file} was created mode {oct(st.st_mode & 0o777)}, expected 0600")
        if pathlib.Path(token_file).read_text().strip() != token:
            fail(f"{token_file} does not hold the printed token {token}")
        return Client(expect_base(base, f"http://127.0.0.1:{port}"), token)
    return Launch(procs, logs, logs[RANKS - 1], None, client, lambda: [p.returncode for p in procs])


def launch_netns(a, tmp, out, procs, prefix):
    cluster = os.path.join(a.scripts, "netns-cluster.sh")
    addr0 = sh([cluster, "addr", "0", "--prefix", prefix], check=True).stdout.strip()
    token_file = os.path.join(tmp, "monitor.token")  # the file Prometheus would read
    with open(os.open(token_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w") as f:
        f.write(secrets.token_hex(16) + "\n")
    logdir, codes_file = os.path.join(tmp, "logs"), os.path.join(tmp, "codes")
    cmd = [os.path.join(a.scripts, "netns-run.sh"), "--prefix", prefix, "--evbench", a.evbench,
           "--timeout", str(RUN_DEADLINE - 15), "--procs", str(RANKS),
           "--port", str(NETNS_RENDEZVOUS), "--json", out, "--codes", codes_file,
           "--logs", logdir, "--"] + \
        sets(["driver=tcp", "poll_mode=block"]  # ranks, not links, share 2 cores
             + RUN + a.extra + [
            "monitor.bind=0.0.0.0", f"monitor.port={NETNS_PORT}",
            f"monitor.token_file={token_file}"])
    print("$ " + " ".join(cmd), flush=True)
    procs.append(popen(cmd, os.path.join(tmp, "netns-run.out")))
    logs = [os.path.join(logdir, f"rank-{r}.log") for r in range(RANKS)] + \
        [os.path.join(tmp, "netns-run.out")]

    def client(base, token):
        if pathlib.Path(token_file).read_text().strip() != token:
            fail(f"the run prints token {token}, not the one of {token_file}")
        print(f"the monitor prints {base}; scraping it from {prefix}-h1 at {addr0}", flush=True)
        return Client(f"http://{addr0}:{NETNS_PORT}", netns=f"{prefix}-h1",
                      token_file=token_file)

    def codes():
        with open(codes_file) as f:
            return [int(line.split()[1]) for line in f if line.strip()] + [procs[0].returncode]
    return Launch(procs, logs, logs[RANKS - 1], None, client, codes)


def stop(procs, tmp):
    """Kills every process group started, then any process of the run left
    in a group of its own (its command line names the run's folder)."""
    for p in procs:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    for pid in processes_mentioning(tmp):
        try:
            os.kill(int(pid), signal.SIGKILL)
        except ProcessLookupError:
            pass


def expect_base(base, want):
    if base != want:
        fail(f"the monitor line names {base}, expected {want}")
    return base


def check_results(out, evm_text, driver):
    """results.control, the EVM's stderr line, and the run's integrity."""
    if not os.path.exists(out):
        fail("no results written")
    with open(out) as f:
        r = json.load(f)["results"]
    changes = [c for c in r.get("control", []) if c["key"] == "parallel"]
    if len(changes) != 1 or changes[0]["value"] != "2" or changes[0]["source"] != "http":
        fail(f"results.control: {r.get('control')}, expected one http change of parallel to '2'")
    m = re.search(r"control: parallel 2 \(from event (\d+)\)", evm_text)
    if not m:
        fail("the EVM's output has no 'control: parallel 2 (from event N)' line")
    if int(m.group(1)) != changes[0]["from_event"]:
        fail(f"stderr says from event {m.group(1)}, results.control {changes[0]}")
    bad = {k: r["integrity"].get(k, 0) for k in INTEGRITY if r["integrity"].get(k, 0)}
    if bad:
        fail(f"integrity errors: {bad}")
    if r["events_built"] <= 0 or r["events_built"] != r["events_assigned"]:
        fail(f"{r['events_built']} built of {r['events_assigned']} assigned")
    if not r["driver"].startswith(driver):
        fail(f"results.driver {r['driver']}, expected {driver}")
    return r, changes[0]


def exercise(launch, deadline):
    """The monitor while the run goes on: found, scraped, steered."""
    log, tag, base, token = await_monitor_line(launch.logs, launch.procs, deadline)
    if log != launch.evm_log or tag != launch.evm_tag:
        fail(f"the monitor line is in {log} (mpirun rank {tag}), expected the EVM rank's "
             f"{launch.evm_log} (rank {launch.evm_tag})")
    client = launch.client(base, token)
    status, _ = client.request("GET", "/metrics", auth=False)
    if status != 401:
        fail(f"/metrics without the token answered {status}, expected 401")
    built, _ = scrape_until(client, "evbench_events_built_total", lambda v: v > 0, deadline,
                            launch.procs)
    status, text = client.request("POST", "/control", body='{"parallel": 2}')
    if status != 202:
        fail(f"POST /control {{\"parallel\": 2}} answered {status}: {text}")
    _, text = scrape_until(client, "evbench_parallel", lambda v: v == 2, deadline, launch.procs)
    status, state = client.request("GET", "/api/state")
    if status != 200 or json.loads(state)["params"]["parallel"] != 2:
        fail(f"/api/state answered {status}, params.parallel not 2: {state[:300]}")
    print(f"scraped: {built:.0f} events built, then 202 on /control, then evbench_parallel 2"
          f" and /api/state params.parallel 2", flush=True)
    return client


def run(a):
    start = time.monotonic()
    deadline = start + RUN_DEADLINE
    prefix = None
    if a.mode == "netns":
        if not a.scripts:
            fail("netns needs --scripts DIR")
        prefix = "evbm%d" % (os.getpid() % 10000)  # distinct from every other test's
        probe(prefix + "-p")
        links_before = root_links()
    procs = []
    # ctest's timeout sends SIGTERM: clean up then too.
    signal.signal(signal.SIGTERM, lambda *_: fail("terminated (SIGTERM)"))
    with tempfile.TemporaryDirectory(prefix="monitor-launchers-") as tmp:
        out = os.path.join(tmp, "results.json")
        launch = None
        try:
            if prefix:
                print(sh([os.path.join(a.scripts, "netns-cluster.sh"), "up", "3", "--leaves", "1",
                          "--host-rate", "10gbit", "--prefix", prefix],
                         check=True).stdout.strip(), flush=True)
                launch = launch_netns(a, tmp, out, procs, prefix)
            else:
                launch = {"mpirun": launch_mpirun, "env": launch_env}[a.mode](a, tmp, out, procs)
            client = exercise(launch, deadline)
            for p in procs:
                try:
                    p.wait(timeout=max(0.1, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    fail(f"still running {RUN_DEADLINE} s after the start")
            codes = launch.codes()
            if any(codes):
                fail(f"exit statuses {codes}")
            r, change = check_results(out, read_all([launch.evm_log])[launch.evm_log],
                                      "mpi" if a.mode == "mpirun" and a.driver == "mpi" else "tcp")
            left = processes_mentioning(tmp)
            if left:
                fail(f"processes of the run are left after it ended: {left}")
            status, text = client.request("GET", "/metrics")
            if status is not None:
                fail(f"the monitor's port still answers ({status}) after the run ended")
        except SystemExit:
            for f, text in read_all(launch.logs if launch else []).items():
                print(f"--- {os.path.basename(f)} (last lines)\n" +
                      "\n".join(text.splitlines()[-15:]))
            raise
        finally:
            signal.signal(signal.SIGTERM, signal.SIG_IGN)  # nothing stops the cleanup
            stop(procs, tmp)
            if prefix:
                down = sh([os.path.join(a.scripts, "netns-cluster.sh"), "down",
                           "--prefix", prefix])
                if down.stdout.strip():
                    print(down.stdout.strip())
        if prefix:
            if down.returncode != 0 or namespaces(prefix):
                fail(f"down exited {down.returncode}; namespaces left: {namespaces(prefix)}")
            if root_links() - links_before:
                fail(f"links appeared in the root namespace: {root_links() - links_before}")
    print(f"PASSED: {a.mode}{'/' + a.driver if a.mode == 'mpirun' else ''}: "
          f"{r['events_built']} events built ({r['variant']}), exit statuses {codes}, "
          f"results.control {change}, {time.monotonic() - start:.1f} s")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("evbench")
    p.add_argument("mode", choices=("mpirun", "env", "netns"))
    p.add_argument("--mpirun", default="mpirun")
    p.add_argument("--driver", choices=("mpi", "tcp"), default="mpi")
    p.add_argument("--scripts", help="the scripts/ folder (netns)")
    p.add_argument("--set", action="append", default=[], dest="extra", metavar="KEY=VALUE",
                   help="a run setting after the test's own (a batched variant's)")
    a = p.parse_args()
    a.evbench = os.path.abspath(a.evbench)
    run(a)


if __name__ == "__main__":
    main()
