"""The run monitor's endpoint (docs/MONITORING.md) against real clients.

A real Prometheus scrapes a running evbench with the token from a file, sees
its rate, and sees a change made through POST /control; hostile requests
(no token, a wrong one, malformed bodies, garbage bytes, a half-sent request)
change nothing in the run; the monitor is refused where no EVM runs; a token
file the run creates is private and holds the printed token.
"""
import json
import os
import re
import secrets
import socket
import stat
import subprocess
import urllib.parse

import pytest

from conftest import kill_group
from monitor_run import (CONTROL_LINE, MONITOR_LINE, MonitorRun, free_port, http_request, real_evbench,
                         require_monitor, wait_until)

PROMETHEUS = "/usr/bin/prometheus"
# Every integrity counter of results (write_integrity_counters and the rest of
# `integrity`) that must be 0 in a clean run.
INTEGRITY_ZERO = ("incomplete", "lost", "duplicate_events", "duplicate", "corrupt", "corrupt_events",
                  "out_of_sync", "out_of_sync_events", "incomplete_lost_peer", "late_discarded",
                  "ring_overrun")


def require_prometheus():
    if not os.access(PROMETHEUS, os.X_OK):
        reason = "prometheus not installed (bash scripts/install-deps.sh --test installs it)"
        if os.environ.get("EVBENCH_TESTS_STRICT"):  # scripts/test.sh: nothing may skip
            pytest.fail(reason)
        pytest.skip(reason)


def write_token_file(path):
    """A fresh 32-hex-character token in a file only we can read."""
    token = secrets.token_hex(16)
    fd = os.open(str(path), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(token + "\n")
    return token


def assert_clean_integrity(results):
    integrity = results["integrity"]
    bad = {k: integrity.get(k) for k in INTEGRITY_ZERO if integrity.get(k) != 0}
    assert not bad, "integrity errors: %r (first problem: %r)" % (bad, integrity.get("first_problem"))
    assert integrity["masked_events"]["count"] == 0 and integrity["first_problem"] == ""
    assert integrity["verified_fragments"] > 0 and results["events_built"] > 0
    assert results["status"] == "ok"


class Prometheus:
    """/usr/bin/prometheus on 127.0.0.1 with a generated configuration: one
    job scraping the monitor every second with the token from `token_file`,
    its data in `folder`. A context manager that always ends it."""

    def __init__(self, folder, target_port, token_file):
        os.makedirs(str(folder))
        self.port = free_port()
        self.config = str(folder / "prometheus.yml")
        with open(self.config, "w") as f:
            f.write("global:\n"
                    "  scrape_interval: 1s\n"
                    "  scrape_timeout: 1s\n"
                    "  evaluation_interval: 1s\n"
                    "scrape_configs:\n"
                    "  - job_name: evbench\n"
                    "    authorization:\n"
                    "      type: Bearer\n"
                    "      credentials_file: %s\n"
                    "    static_configs:\n"
                    "      - targets: ['127.0.0.1:%d']\n" % (token_file, target_port))
        self.log_path = str(folder / "prometheus.log")
        self.args = [PROMETHEUS, "--config.file=" + self.config, "--storage.tsdb.path=" + str(folder / "data"),
                     "--web.listen-address=127.0.0.1:%d" % self.port]
        self.proc = None

    def __enter__(self):
        with open(self.log_path, "w") as log:
            self.proc = subprocess.Popen(self.args, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                         start_new_session=True)
        try:
            wait_until("prometheus ready", self.ready, 30)
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        if self.proc is not None and self.proc.poll() is None:
            kill_group(self.proc)
        if self.proc is not None:
            self.proc.wait(timeout=30)

    def ready(self):
        if self.proc.poll() is not None:
            pytest.fail("prometheus ended (exit %s):\n%s" % (self.proc.returncode, self.log()[-2000:]))
        try:
            return http_request(self.port, "GET", "/-/ready", timeout=2)[0] == 200
        except OSError:
            return False

    def log(self):
        with open(self.log_path) as f:
            return f.read()

    def query(self, expr):
        """The instant vector of `expr` now: [(labels, float value)]."""
        status, _, body = http_request(self.port, "GET", "/api/v1/query?query=" + urllib.parse.quote(expr))
        assert status == 200, (expr, status, body[:500])
        answer = json.loads(body)
        assert answer["status"] == "success", answer
        return [(r["metric"], float(r["value"][1])) for r in answer["data"]["result"]]

    def targets(self):
        """What Prometheus says of its targets (for a failure's message)."""
        body = http_request(self.port, "GET", "/api/v1/targets")[2]
        return [(t.get("scrapeUrl"), t.get("health"), t.get("lastError"))
                for t in json.loads(body)["data"]["activeTargets"]]


def run_series(prom, expr):
    """Values of `expr` for the run's series (job evbench, protocol pull)."""
    return [v for labels, v in prom.query(expr)
            if labels.get("job") == "evbench" and labels.get("protocol") == "pull"
            and "variant" in labels and "data_path" in labels]


@pytest.mark.timeout(150)
def test_prometheus_scrapes_a_run_and_sees_a_control_change(tmp_path):
    exe = real_evbench()
    require_monitor(exe)
    require_prometheus()
    token_file = tmp_path / "token"
    token = write_token_file(token_file)
    port = free_port()
    settings = {"duration": "25s", "monitor.token_file": str(token_file)}
    with Prometheus(tmp_path / "prometheus", port, token_file) as prom, \
            MonitorRun(tmp_path, settings, port=port) as run:
        assert run.token == token  # the run took the token from the file

        def rate_and_parallel():
            rates = run_series(prom, "rate(evbench_built_bytes_total[5s])")
            parallel = run_series(prom, "evbench_parallel")
            if rates and rates[0] > 0 and parallel:
                return rates[0], parallel[0]
            assert run.proc.poll() is None, "the run ended before Prometheus saw a rate:\n" + run.err.text()
            return None
        try:
            rate, parallel = wait_until("a rate > 0 through Prometheus", rate_and_parallel, 20)
        except BaseException:
            print("targets:", prom.targets(), "\nprometheus log:\n", prom.log()[-2000:])
            raise
        assert parallel == 2  # as configured, before the change

        status, _, body = run.request("POST", "/control", token=token, body={"parallel": 1})
        assert status == 202, body
        assert json.loads(body)["accepted"] == {"parallel": 1}

        def parallel_is_one():
            values = run_series(prom, "evbench_parallel")
            assert run.proc.poll() is None, "the run ended before Prometheus saw the change:\n" + run.err.text()
            return values == [1.0]
        wait_until("evbench_parallel == 1 through Prometheus", parallel_is_one, 15)
        assert run_series(prom, "evbench_control_changes_total") == [1.0]  # the same scrape
        state = run.state()
        assert state["params"]["parallel"] == 1
        assert [c["key"] for c in state["control"]] == ["parallel"]

        assert run.wait(90) == 0, run.err.text()[-3000:]
        results = run.results()

    changes = results["control"]
    assert [(c["key"], c["value"], c["source"]) for c in changes] == [("parallel", "1", "http")], changes
    assert changes[0]["from_event"] > 0
    assert_clean_integrity(results)
    line = re.search(r"control: parallel 1 \(from event (\d+)\)", run.err.text())
    assert line and int(line.group(1)) == changes[0]["from_event"], run.err.text()[-2000:]


def raw_exchange(port, data, read=True, timeout=5):
    """Send `data` on a fresh TCP connection; what came back before the
    server closed or `timeout` s passed (b"" if nothing)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(data)
        if not read:
            return b""
        got = b""
        try:
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                got += chunk
                if b"\r\n\r\n" in got and b"content-length:" in got.lower():
                    head, _, rest = got.partition(b"\r\n\r\n")
                    length = int(re.search(rb"(?i)content-length:\s*(\d+)", head).group(1))
                    if len(rest) >= length:
                        break
        except socket.timeout:
            pass
        return got


def status_of(reply):
    m = re.match(rb"HTTP/1\.[01] (\d{3})", reply)
    return int(m.group(1)) if m else None


@pytest.mark.timeout(120)
def test_hostile_requests_change_nothing(tmp_path):
    exe = real_evbench()
    require_monitor(exe)
    with MonitorRun(tmp_path, {"duration": "10s"}) as run:
        token, port = run.token, run.port
        wrong = secrets.token_hex(16)
        valid = json.dumps({"parallel": 1})

        # Without the token and with a wrong one, on every route: 401, the same
        # body each time, nothing of the token in the answer.
        refusals = []
        for method, path, body in (("GET", "/", None), ("GET", "/metrics", None), ("GET", "/api/state", None),
                                   ("GET", "/no-such-page", None), ("GET", "/control", None),
                                   ("POST", "/control", valid), ("POST", "/metrics", valid)):
            for how in ("none", "header", "query", "both-wrong-query"):
                headers = {"Content-Type": "application/json"} if body else {}
                target, auth = path, None
                if how == "header":
                    auth = wrong
                elif how == "query":
                    target = path + "?token=" + wrong
                elif how == "both-wrong-query":
                    auth, target = wrong, path + "?token=" + token[:-1]
                status, reply_headers, reply = run.request(method, target, token=auth, body=body, headers=headers)
                refusals.append((method, target, how, status, reply))
                assert status == 401, (method, path, how, status, reply)
                assert reply_headers.get("www-authenticate") == 'Bearer realm="evbench"'
                for secret in (token, token[:8], token[-8:]):
                    assert secret.encode() not in reply
                    assert secret not in json.dumps(reply_headers)
        assert len({r[4] for r in refusals}) == 1, {r[4] for r in refusals}

        # A wrong token with a body announced far over the limit: still 401 (the
        # token is checked before the body's size).
        huge_head = ("POST /control HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer %s\r\n"
                     "Content-Type: application/json\r\nContent-Length: 10485760\r\n\r\n")
        assert status_of(raw_exchange(port, (huge_head % wrong).encode())) == 401

        # The right token, bodies that must be refused (nothing queued).
        bad_bodies = [
            ("{parallel: [1, 2", 400, None),          # not YAML
            ("\x00\x01\x02 not yaml at all: : :", 400, None),
            ("[1, 2]", 400, None),                    # a list
            ("", 400, None),                          # nothing
            ("{}", 400, None),                        # no key
            ('{"paralel": 1}', 400, "paralel"),       # unknown key
            ('{"credits": 1000000}', 400, "credits"),
            ('{"credits": 0}', 400, "credits"),
            ('{"parallel": "abc"}', 400, "parallel"),
            ('{"parallel": 99}', 400, "parallel"),
            ('{"parallel": 1, "credits": 0}', 400, "credits"),  # one bad key refuses all
            ('{"pause": false}', 400, "pause"),
            ('{"pause": true, "resume": true}', 400, None),
            ('{"fu.processing_time": "-1ms"}', 400, "fu.processing_time"),
            ('{"ru_rate_factors": [1, 1]}', 400, "ru_rate_factors"),
            ('{"parallel": 1}' + " " * 5000, 413, None),  # a real body over 4096 bytes
        ]
        for body, expected, names in bad_bodies:
            status, _, reply = run.request("POST", "/control", token=token, body=body.encode(),
                                           headers={"Content-Type": "application/json"})
            assert status == expected, (body[:60], status, reply)
            error = json.loads(reply)["error"]
            assert names is None or names in error, (body, error)
        status, _, reply = run.request("POST", "/control", token=token, body=valid.encode(),
                                       headers={"Content-Type": "application/x-www-form-urlencoded"})
        assert status == 415, reply
        assert status_of(raw_exchange(port, (huge_head % token).encode())) == 413

        # Garbage on the socket, a request line that is not HTTP, and
        # half-sent requests closed before their end.
        raw_exchange(port, bytes(range(256)) * 16 + b"\r\n\r\n")
        raw_exchange(port, b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + b"\x00" * 64)  # a TLS hello
        raw_exchange(port, b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: aaaa", read=False)
        raw_exchange(port, ("POST /control HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer %s\r\n"
                            "Content-Type: application/json\r\nContent-Length: 15\r\n\r\n{\"parallel\": 1"
                            % token).encode(), read=False)

        # The server still answers, and the run is as configured.
        status, _, metrics = run.request("GET", "/metrics", token=token)
        assert status == 200 and b"evbench_info" in metrics
        state = run.state()
        assert state["control"] == [] and state["params"]["parallel"] == 2, state["params"]

        assert run.wait(60) == 0, run.err.text()[-3000:]
        results = run.results()
    assert results["control"] == []
    assert_clean_integrity(results)
    assert not [l for l in run.err.text().splitlines() if CONTROL_LINE.search(l)], run.err.text()[-2000:]


@pytest.mark.timeout(60)
@pytest.mark.parametrize("command", ["validate", "run"])
def test_monitor_refused_without_evm(tmp_path, command):
    exe = real_evbench()
    require_monitor(exe)
    port = free_port()
    args = [exe, command, "--set", "protocol=pull-noevm", "--set", "monitor.port=%d" % port,
            "--set", "nodes=3", "--set", "driver=tcp", "--set", "bootstrap=local"]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                            universal_newlines=True, cwd=str(tmp_path), start_new_session=True)
    try:
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            kill_group(proc)
            proc.communicate()
    assert proc.returncode == 2, (proc.returncode, out, err)
    assert "monitor.port" in err and "pull-noevm" in err, err
    assert not MONITOR_LINE.search(err)


@pytest.mark.timeout(90)
def test_token_file_is_created_private(tmp_path):
    exe = real_evbench()
    require_monitor(exe)
    token_file = tmp_path / "secret" / "monitor-token"
    os.makedirs(str(token_file.parent))
    assert not token_file.exists()
    with MonitorRun(tmp_path, {"duration": "3s", "monitor.token_file": str(token_file)}) as run:
        mode = stat.S_IMODE(os.stat(str(token_file)).st_mode)
        assert mode == 0o600, oct(mode)
        with open(str(token_file)) as f:
            written = f.read().strip()
        assert written == run.token and len(written) >= 16
        assert run.url.endswith("?token=" + written)
        assert run.request("GET", "/api/state", token=written)[0] == 200
        assert run.wait(60) == 0, run.err.text()[-3000:]


def test_a_lost_bu_and_its_recovery_show_while_the_run_goes_on(tmp_path):
    """A BU killed under on_failure exclude (layout split: its RU lives on):
    /metrics shows the fault and, once its events are rebuilt elsewhere,
    evbench_fault_recovered{unit="BU 1"} 1 and its recovery time, while the
    run goes on; /api/state lists it with its times; the run ends degraded
    but whole (every other event built)."""
    settings = {"layout": "split", "on_failure": "exclude", "duration": "10s",
                "peer_timeout": "20s", "faults": "[{at: 2s, kill: bu1}]"}
    with MonitorRun(tmp_path, settings) as run:
        def recovered():
            status, _, body = run.request("GET", "/metrics", token=run.token)
            text = body.decode()
            return status == 200 and re.search(
                r'^evbench_fault_recovered\{[^}]*unit="BU 1"[^}]*\} 1$', text, re.M) and text
        text = wait_until("BU 1 recovered in /metrics", recovered, 40)
        assert re.search(r'^evbench_fault_recovery_seconds\{[^}]*unit="BU 1"[^}]*\} [0-9.e+-]+$',
                         text, re.M), text[-1500:]
        assert re.search(r'^evbench_bu_excluded\{[^}]*bu="1"[^}]*\} 1$', text, re.M)
        assert re.search(r'^evbench_run_finished\{[^}]*\} 0$', text, re.M), "seen after the run"
        faults = run.state()["faults"]
        assert [f["unit"] for f in faults] == ["BU 1"], faults
        assert faults[0]["recovered_at_s"] is not None
        assert faults[0]["recovered_at_s"] >= faults[0]["detected_at_s"] >= faults[0]["lost_at_s"]
        code = run.wait(60)
    results = run.results()
    assert code == 0, run.err.text()[-2000:]
    lost = [f for f in results["faults"] if f.get("unit") == "BU 1"]
    assert len(lost) == 1 and lost[0]["time_to_rebuild_s"] is not None, results["faults"]
    assert results["events_built"] == results["events_assigned"] > 0
