"""A real evbench run with the monitor on, for tests that talk to its endpoint.

MonitorRun starts `evbench run` (its own session, stdout and stderr read to
the end on threads), waits for the `# monitor: URL` line, and offers plain
HTTP requests to that endpoint (http.client: no proxy from the environment,
127.0.0.1 only). Leaving the `with` block ends the run's process group if it
is still there, so a failing test leaves nothing behind.

    with MonitorRun(tmp_path, {"duration": "10s"}) as run:
        status, headers, body = run.request("GET", "/metrics", token=run.token)
        code = run.wait(60)
"""
import http.client
import json
import os
import re
import socket
import subprocess
import threading
import time

import pytest

from conftest import default_signals, kill_group, real_evbench

MONITOR_LINE = re.compile(r"# monitor: (http://127\.0\.0\.1:(\d+)/\?token=(\S+))")
CONTROL_LINE = re.compile(r"control: ")
# A small pull run over tcp on the local bootstrap (no mpirun).
BASE_SETTINGS = {"protocol": "pull", "nodes": 3, "parallel": 2, "driver": "tcp", "bootstrap": "local",
                 "fragment.size": "64KiB", "warmup": "1s", "report_interval": "1s"}


def free_port():
    """A port nothing listens on now (bound to 127.0.0.1:0, then closed)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def require_monitor(exe):
    """Skip (fail under EVBENCH_TESTS_STRICT) when this evbench has no monitor."""
    out = subprocess.run([exe, "config", "--markdown"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         universal_newlines=True, timeout=60).stdout
    if "monitor.port" not in out:
        reason = "this evbench has no monitor (evbench config --markdown lacks monitor.port)"
        if os.environ.get("EVBENCH_TESTS_STRICT"):  # scripts/test.sh: nothing may skip
            pytest.fail(reason)
        pytest.skip(reason)


class Lines:
    """Reads a pipe to the end on its own thread (the child never blocks on a
    full pipe) and lets the test wait for a line matching a pattern."""

    def __init__(self, pipe):
        self.lines, self.cond = [], threading.Condition()
        self.thread = threading.Thread(target=self._read, args=(pipe,), daemon=True)
        self.thread.start()

    def _read(self, pipe):
        for line in pipe:
            with self.cond:
                self.lines.append(line)
                self.cond.notify_all()
        with self.cond:
            self.lines.append(None)  # end of file
            self.cond.notify_all()

    def wait_for(self, pattern, timeout):
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                for line in self.lines:
                    if line is None:
                        return None
                    m = pattern.search(line)
                    if m:
                        return m
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self.cond.wait(left)

    def text(self):
        with self.cond:
            return "".join(l for l in self.lines if l)


def http_request(port, method, path, token=None, body=None, headers=None, timeout=10):
    """One request to 127.0.0.1:port; (status, headers as a dict with lower-case names, body bytes)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        all_headers = dict(headers or {})
        if token is not None:
            all_headers["Authorization"] = "Bearer " + token
        if isinstance(body, (dict, list)):
            body = json.dumps(body)
            all_headers.setdefault("Content-Type", "application/json")
        conn.request(method, path, body=body, headers=all_headers)
        resp = conn.getresponse()
        data = resp.read()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, data
    finally:
        conn.close()


class MonitorRun:
    """`evbench run` with monitor.port set; `settings` override BASE_SETTINGS."""

    def __init__(self, tmp_path, settings=None, port=None, monitor_timeout=60):
        self.exe = real_evbench()
        self.port = port or free_port()
        self.results_path = str(tmp_path / "results.json")
        merged = dict(BASE_SETTINGS, **(settings or {}))
        merged["monitor.port"] = self.port
        self.args = [self.exe, "run"]
        for key, value in merged.items():
            self.args += ["--set", "%s=%s" % (key, value)]
        self.args += ["--json", self.results_path]
        self.cwd = str(tmp_path)
        self.monitor_timeout = monitor_timeout
        self.proc = None
        self.url = self.token = None

    def __enter__(self):
        self.proc = subprocess.Popen(self.args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     stdin=subprocess.DEVNULL, universal_newlines=True, cwd=self.cwd,
                                     start_new_session=True, preexec_fn=default_signals)
        try:
            self.out, self.err = Lines(self.proc.stdout), Lines(self.proc.stderr)
            m = self.err.wait_for(MONITOR_LINE, self.monitor_timeout)
            assert m, "no `# monitor:` line on stderr:\n" + self.err.text()[-2000:]
            assert int(m.group(2)) == self.port, m.group(0)
            self.url, self.token = m.group(1), m.group(3)
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        if self.proc is None:
            return
        if self.proc.poll() is None:
            kill_group(self.proc)
        self.proc.wait(timeout=30)
        for reader in (getattr(self, "out", None), getattr(self, "err", None)):
            if reader:
                reader.thread.join(10)

    def request(self, method, path, token=None, body=None, headers=None, timeout=10):
        return http_request(self.port, method, path, token, body, headers, timeout)

    def state(self):
        """GET /api/state with the run's token, as a dict."""
        status, _, body = self.request("GET", "/api/state", token=self.token)
        assert status == 200, (status, body[:300])
        return json.loads(body)

    def wait(self, timeout):
        """The run's exit code (it must end by itself within `timeout` s); stdout and stderr drained."""
        code = self.proc.wait(timeout=timeout)
        self.out.thread.join(10)
        self.err.thread.join(10)
        return code

    def results(self):
        """The `results` object of the run's --json file."""
        with open(self.results_path) as f:
            return json.load(f)["results"]


def wait_until(what, check, timeout, interval=0.25):
    """Call `check` until it returns something true (that is returned); fail
    with `what` and the last value once `timeout` s have passed (a safety
    deadline, not a measurement)."""
    deadline = time.monotonic() + timeout
    last = None
    while True:
        last = check()
        if last:
            return last
        if time.monotonic() >= deadline:
            pytest.fail("%s: not seen within %d s (last: %r)" % (what, timeout, last))
        time.sleep(interval)
