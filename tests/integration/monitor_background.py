#!/usr/bin/python3
"""Background traffic in the monitor and under run-time control
(docs/MONITORING.md "Background traffic"): one run of 2 nodes with an incast
of 3 congestor ranks beside it, local launcher, the monitor on. The test
finds the `# monitor:` line and, by counts (never by time):

  1. scrapes until /metrics shows the incast's bytes rising and a positive
     rate, one series for the entry (not one per rank), and /api/state's
     background[] the same entry;
  2. checks refusals: an entry the run lacks, a quoted value (400, the key
     named, nothing applied);
  3. stops it (POST {"background.1.active": false}, 202): once every rank
     reports that it no longer sends (nor awaits an ack), the rate comes to
     read 0 (not carried) two snapshots or more later, with the sent bytes
     the same as then;
  4. starts it again: the bytes rise past the stopped figure, the rate is
     positive again, and /api/state's control[] holds the stop and the
     start (source http);
  5. interrupts the run (SIGTERM to the launcher): exit 130, no process is
     left, and no shm region of a killed rank.

The run is long (duration 600 s) and ended by the test once it has seen what
it waits for: on a loaded machine a process (the test's, or a rank) may get
no CPU for tens of seconds, and a run of fixed length then ended before the
test was done (issue 36; tests/integration/monitor.cmake). What the run
records of the same changes (results.control, results.background) is
checked by control_list_background (monitor.cmake), where the EVM applies
them from the configuration.

  monitor_background.py EVBENCH [--set KEY=VALUE]...
Every wait has a deadline; the run is killed with its session on any path."""
import argparse
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time

import shm_leftovers
from monitor_client import Client
from session_run import fail, session_processes

WAIT_S = 90  # the longest any one step may take on a loaded machine


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def series(text, name, entry="1"):
    """The value of family `name`'s series for background entry `entry`, and
    how many series the family has."""
    found, count = None, 0
    for line in text.splitlines():
        m = re.match(r"([a-z_]+)\{([^}]*)\}\s+(\S+)$", line)
        if not m or m.group(1) != name:
            continue
        count += 1
        if f'entry="{entry}"' in m.group(2):
            found = float(m.group(3))
    return found, count


class Run:
    def __init__(self, evbench, extra, workdir):
        self.port = free_port()
        self.err_path = os.path.join(workdir, "stderr.txt")
        cmd = [evbench, "run", "--quiet",
               "--set", "driver=tcp", "--set", "nodes=2", "--set", "evm=dedicated",
               "--set", "duration=600s", "--set", "warmup=0s", "--set", "report_interval=500ms",
               "--set", "fragment.size=16KiB", "--set", "page_size=normal", "--set", "peer_timeout=300s",
               "--set", f"monitor.port={self.port}",
               "--set", "background=[{pattern: incast, ranks: 3, size: 16KiB, in_flight: 4}]"]
        for kv in extra:
            cmd += ["--set", kv]
        print("running:", " ".join(cmd), flush=True)
        self.shm_before = shm_leftovers.snapshot()
        self.err = open(self.err_path, "w")
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=self.err, text=True,
                                     start_new_session=True)
        self.client = None

    def connect(self):
        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline:
            m = re.search(r"# monitor: (http://[^/]+)/\?token=([0-9a-f]+)", open(self.err_path).read())
            if m:
                self.client = Client(m.group(1), m.group(2))
                return
            if self.proc.poll() is not None:
                self.stop(f"the run exited ({self.proc.returncode}) before its # monitor: line")
            time.sleep(0.2)
        self.stop("no # monitor: line")

    def get(self, path):
        status, text = self.client.request("GET", path)
        if status is None and self.proc.poll() is not None:
            self.stop(f"GET {path}: the run exited ({self.proc.returncode}) before the test was done")
        if status != 200:
            self.stop(f"GET {path}: {status} {text[:200]}")
        return text

    def state(self):
        return json.loads(self.get("/api/state"))

    def post(self, body):
        status, text = self.client.request("POST", "/control", json.dumps(body))
        if status is None:
            self.stop(f"POST {body}: no answer ({text}); the run "
                      + ("has exited" if self.proc.poll() is not None else "still runs"))
        return status, text

    def wait(self, what, check, seen=lambda: ""):
        """Polls `check()` (a value, or None) until it gives one; `seen()` says what was seen last."""
        deadline = time.monotonic() + WAIT_S
        before = ""
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                self.stop(f"the run exited ({self.proc.returncode}) while waiting for {what}; {seen()}")
            got = check()
            if got is not None:
                # (a state: its first 120 characters)
                print(f"ok: {what} after {WAIT_S - deadline + time.monotonic():.1f} s: {str(got)[:120]}",
                      flush=True)
                if before:
                    print(f"   (the poll before it saw {before[:600]})", flush=True)
                return got
            before = seen()
            time.sleep(0.25)
        self.stop(f"no {what} within {WAIT_S} s; {seen()}")

    def stop(self, msg):
        self.cleanup(kill=True)
        fail(msg)

    def cleanup(self, kill):
        if kill and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
        try:
            self.proc.communicate(timeout=WAIT_S)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.communicate()
        time.sleep(0.3)
        left = session_processes(self.proc.pid)
        if left:
            os.killpg(self.proc.pid, signal.SIGKILL)
        shm_leftovers.remove_dead(self.shm_before)
        self.err.close()
        sys.stderr.write(open(self.err_path).read())
        if left:
            fail(f"processes left behind: {left}")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("evbench")
    p.add_argument("--set", action="append", default=[], dest="sets")
    a = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="evb-monbg-") as workdir:
        run = Run(a.evbench, a.sets, workdir)
        run.connect()
        entry = run.state().get("background") or []
        if len(entry) != 1 or entry[0]["pattern"] != "incast" or entry[0]["ranks"] != 3:
            run.stop(f"/api/state background: {entry}")

        # 1. on: the bytes rise, the rate is positive; one series per entry;
        # /api/state the same once every rank of the entry has reported (the
        # incast's target sends nothing, and may report after the senders).
        first = {}

        def rising():
            text = run.get("/metrics")
            sent, n = series(text, "evbench_background_sent_bytes_total")
            rate, _ = series(text, "evbench_background_rate_bytes_per_second")
            first.update(sent=sent, rate=rate, carried=series(text, "evbench_background_rate_carried")[0],
                         sending=series(text, "evbench_background_ranks_sending")[0])
            if n != 1:
                run.stop(f"{n} series of evbench_background_sent_bytes_total, expected one per entry")
            s = run.state()  # what the hub had of the entry, also for a failure's message
            b = s["background"][0]
            first.update(t_s=s["run"]["t_s"], state=b,
                         history=[h.get("background_gbps") for h in s["history"][-4:]])
            if not (sent and rate and rate > 0):
                return None
            if not (b["ranks_reported"] == 3 and b["active"] and b["bytes"] > 0 and b["gbps"] > 0
                    and s["history"] and s["history"][-1].get("background_gbps")):
                return None
            return sent, rate
        run.wait("background bytes and a positive rate in /metrics and /api/state, every rank reported",
                 rising, lambda: f"last seen: {first}")

        # 2. refusals name the key and change nothing.
        for body, part in (({"background.2.active": False}, "background.2.active"),
                           ({"background.1.active": "no"}, "background.1.active"),
                           ({"parallel": 1, "background.0.active": False}, "background.0.active")):
            status, text = run.post(body)
            if status != 400 or part not in text:
                run.stop(f"POST {body}: {status} {text}, expected 400 naming {part}")
        if run.state()["control"]:
            run.stop("a refused request changed something: " + str(run.state()["control"]))

        # 3. stopped: once no rank sends, the counters stand still, the rate reads 0.
        status, text = run.post({"background.1.active": False})
        if status != 202 or "background.1.active" not in text:
            run.stop(f"stop: {status} {text}")
        run.wait("evbench_background_active 0",
                 lambda: True if series(run.get("/metrics"), "evbench_background_active")[0] == 0 else None)

        def quiet():
            s = run.state()
            b = s["background"][0]
            return (s["run"]["t_s"], b["bytes"]) if b["ranks_sending"] == 0 and b["ranks_reported"] == 3 else None
        t_quiet, bytes_quiet = run.wait("every congestor rank reporting it stopped", quiet)

        def rate_zero_later():  # a late rank's last rate is carried forward a few snapshots
            s = run.state()
            b = s["background"][0]
            later = s["run"]["t_s"] >= t_quiet + 2 * s["run"]["interval_s"]
            return s if later and b["gbps"] == 0 and not b["rate_carried"] else None
        s = run.wait("a rate of 0, two snapshots or more later", rate_zero_later)
        b = s["background"][0]
        if b["bytes"] != bytes_quiet or s["history"][-1]["background_gbps"][0] != 0:
            run.stop(f"still sending while stopped: {bytes_quiet} bytes then {b}")

        # 4. on again: the bytes rise past the stopped figure, the rate is positive.
        status, text = run.post({"background.1.active": True})
        if status != 202:
            run.stop(f"start: {status} {text}")

        last = {}

        def resumed():
            s = run.state()
            last.update(background=s["background"][0], control=s["control"], t_s=s["run"]["t_s"])
            b = last["background"]
            return b["bytes"] if b["active"] and b["bytes"] > bytes_quiet and b["gbps"] > 0 else None
        run.wait("the background's bytes rising again", resumed, lambda: f"last seen: {last}")

        if [(c["key"], c["value"], c["source"]) for c in last["control"]] != [
                ("background.1.active", "false", "http"), ("background.1.active", "true", "http")]:
            run.stop(f"/api/state control: {last['control']}")

        # 5. interrupted: the launcher stops every rank and exits 130.
        run.proc.send_signal(signal.SIGTERM)
        try:
            run.proc.wait(timeout=WAIT_S)
        except subprocess.TimeoutExpired:
            run.stop(f"the run did not end within {WAIT_S} s of SIGTERM")
        rc = run.proc.returncode
        run.cleanup(kill=False)
        if rc != 130:
            fail(f"evbench exited {rc} on SIGTERM, expected 130")
        print("ok: stopped and restarted through POST /control; the run ended on SIGTERM")


if __name__ == "__main__":
    main()
