"""A stand-in for the run's monitor endpoint, to develop and test the live page without a run.

Serves src/protocols/monitor/page/ (live.html at /, live.js, live_units.js, live_background.js, live.css) and a synthetic,
changing GET /api/state in the schema of the real server (docs/MONITORING.md),
on 127.0.0.1 only, on a port in 18300-18399 (this helper's range). The token
is checked like the real server does: `/`, `/api/state` and `/control` need
`Authorization: Bearer TOKEN` or `?token=TOKEN` (401 otherwise); live.js,
live_units.js and live.css are public static assets (no run data in them).

POST /control takes the JSON the page sends ({"parallel": 2}, {"pause": true},
...), checks it against the synthetic run's limits and answers 202 or 400 with
a message naming the key, and the change shows in the next state (params and
control[]).

From a test:   with FixtureServer(token="abc") as server: server.url ...
By hand:       python3 tests/python/monitor_fixture.py [--token T] [--port P]
               then open the URL it prints.
`end_after` (requests of /api/state) makes the server drop every later state
request unanswered, as if the run had ended; `public_page` serves `/` without
the token too, so a test sees what the page does with a 401 from /api/state;
`unreported` gives the state of a run whose units have not reported yet (no
history, zeros); `background` adds two congestor entries
(monitor_fixture_background.py). BU 0's rate is always carried forward (its last interval
had not arrived at the snapshot), so the page's flag for it shows. The page is served with PROBE_JS loaded first, under the real
server's Content-Security-Policy, so a test sees every script error and every
CSP refusal in <pre id="page-errors">.
"""
import argparse
import json
import math
import os
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from monitor_fixture_background import SyntheticBackground
from monitor_fixture_probe import PROBE_JS

PAGE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "src", "protocols",
                        "monitor", "page")
PORTS = range(18300, 18400)
ASSETS = {"/": ("live.html", "text/html; charset=utf-8"),
          "/live.js": ("live.js", "text/javascript; charset=utf-8"),
          "/live_units.js": ("live_units.js", "text/javascript; charset=utf-8"),
          "/live_background.js": ("live_background.js", "text/javascript; charset=utf-8"),
          "/live.css": ("live.css", "text/css; charset=utf-8")}
PUBLIC = ("/live.js", "/live_units.js", "/live_background.js", "/live.css", "/probe.js")
# The real server's bounds for a large run (src/protocols/monitor/traffic.hpp): over
# MATRIX_FULL_NODES nodes the matrix is summed over at most MATRIX_GROUPS
# groups a side, and the history gives every k-th of its last 600 snapshots
# so that it holds at most HISTORY_UNIT_CELLS BU figures.
MATRIX_FULL_NODES, MATRIX_GROUPS, HISTORY_UNIT_CELLS = 64, 16, 600 * 64
CONFIG_YAML = """protocol: pull
driver: tcp
bootstrap: local
nodes: {nodes}
parallel: 2
credits: 4
fragment.size: 64KiB
duration: 20s
report_interval: 1s
on_failure: exclude
"""


class SyntheticRun:
    """A run of `nodes` RUs and BUs whose figures change with the wall clock.

    It starts `t0_s` seconds in (so the timeline has history at once), BU 1
    has integrity errors, BU 2 is lost at 6 s and excluded from then on, and
    the configuration changed parallel at 3 s."""

    def __init__(self, nodes=4, t0_s=12.0, interval_s=1.0, unreported=False, background=False):
        self.nodes = nodes
        self.background = SyntheticBackground() if background else None
        self.unreported = unreported
        self.interval_s = interval_s
        self.start = time.monotonic() - t0_s
        self.lock = threading.Lock()
        self.params = {"parallel": 2, "credits": 4, "credits_allocated": 8, "fu.processing_time": 0.0,
                       "ru_rate_factors": [1.0] * nodes, "paused": False}
        self.control = [{"t_s": 3.0, "key": "parallel", "value": "2", "from_event": 3000, "source": "config"}]
        self.finished = False

    def paused_at(self, t):
        """Whether the run was paused at time t (the last pause or resume before it)."""
        paused = False
        for k in self.control:
            if k["t_s"] <= t and k["key"] in ("pause", "resume"):
                paused = k["key"] == "pause"
        return paused

    def now(self):
        return time.monotonic() - self.start

    def bu_gbps(self, t):
        """Per-BU rate at time t: a slow wave per BU, BU 2 silent after it was lost."""
        out = []
        for b in range(self.nodes):
            if b == 2 and t >= 6.0:
                out.append(0.0)
                continue
            scale = 0.0 if self.paused_at(t) else 1.0
            out.append(scale * (9.0 + 2.0 * math.sin(t / 2.0 + b) + 0.5 * (b % 8)))
        return out

    def apply(self, request):
        """Check a control request like the real parser (all or nothing); (status, message)."""
        limits = {"parallel": (1, self.nodes), "credits": (1, self.params["credits_allocated"])}
        changes = []
        for key, value in request.items():
            if key in limits:
                low, high = limits[key]
                if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
                    return 400, "%s: must be an integer in %d..%d (got %s)" % (key, low, high,
                                                                                json.dumps(value))
                changes.append((key, value, str(value)))
            elif key == "fu.processing_time":
                seconds = parse_duration(value)
                if seconds is None or not 0 <= seconds <= 1.0:
                    return 400, "fu.processing_time: must be a duration in 0 s .. 1 s (got %s)" % json.dumps(value)
                changes.append((key, seconds, repr(seconds)))
            elif key in ("pause", "resume") and value is True:
                changes.append(("paused", key == "pause", ""))
            elif self.background and (checked := self.background.check(key, value)):
                if checked[0] == 400:
                    return checked
                changes.append(checked)
            else:
                return 400, "%s: not a key /control takes (parallel, credits, fu.processing_time, pause, resume)" % key
        if not changes:
            return 400, "empty request: give at least one of parallel, credits, fu.processing_time, pause, resume"
        with self.lock:
            t = self.now()
            for key, value, text in changes:
                if key.startswith("background."):
                    self.background.switch(key, value, t)
                else:
                    self.params[key] = value
                name = key if key != "paused" else ("pause" if value else "resume")
                self.control.append({"t_s": round(t, 3), "key": name, "value": text,
                                     "from_event": int(t * 1000), "source": "http"})
        return 202, "accepted: applied from the next event assigned"

    def state(self):
        if self.unreported:
            return self.state_at_start()
        with self.lock:
            t = self.now()
            n = self.nodes
            steps = int(t / self.interval_s)
            history = []
            first, stride = max(0, steps - 899), 1
            if self.background:
                self.background.control(t, self.control)
            if n > MATRIX_FULL_NODES:  # the real server's bound on the history
                first, stride = max(0, steps - 599), -(-600 // (HISTORY_UNIT_CELLS // n))
            for i in range(first, steps + 1):
                if (steps - i) % stride:
                    continue
                ti = i * self.interval_s
                bu = self.bu_gbps(ti)
                history.append({"t_s": ti, "rate_gbps": sum(bu), "events_per_s": sum(bu) * 1e9 / 8 / (64 * 1024 * n),
                                "bu_gbps": bu, "bu_carried": [b == 0 for b in range(n)]})
                if self.background:
                    history[-1]["background_gbps"] = self.background.history_point(ti)
            now_bu = self.bu_gbps(t)
            rate = sum(now_bu)
            eps = rate * 1e9 / 8 / (64 * 1024 * n)
            built = int(sum(h["events_per_s"] for h in history) * self.interval_s)
            bus = []
            for b in range(n):
                lost = b == 2 and t >= 6.0
                bus.append({"bu": b, "bytes": int(now_bu[b] * 1e9 / 8 * t), "fragments": (built // n) * n,
                            "events_built": built // n, "events_in_flight": 0 if lost else 1 + (b + steps) % 4,
                            "requests_in_flight": 0 if lost else (b * 3 + steps) % 7, "fu_queue": 0 if lost else b % 3,
                            "latency_p50_s": 0.0004 + 0.0001 * b, "latency_p90_s": 0.0009, "latency_p99_s": 0.002,
                            "integrity_errors": 3 if b == 1 else 0, "rate_bytes_per_s": now_bu[b] * 1e9 / 8,
                            "rate_interval_s": self.interval_s, "rate_carried": b == 0, "excluded": lost,
                            "reported": True, "gbps": now_bu[b]})
            rus = [{"ru": r, "bytes": int(rate / n * 1e9 / 8 * t), "fragments": built,
                    "rate_bytes_per_s": rate / n * 1e9 / 8, "rate_interval_s": self.interval_s,
                    "rate_carried": False, "rate_factor": 1.0, "masked": False, "lost": False, "reported": True,
                    "gbps": rate / n} for r in range(n)]
            gbps = [[now_bu[b] / n * (0.6 + 0.2 * ((r + b) % 3)) for b in range(n)] for r in range(n)]
            matrix = {"rows": "ru", "cols": "bu", "gbps": gbps}
            if n > MATRIX_FULL_NODES:
                matrix.update(group_size=-(-n // MATRIX_GROUPS), gbps=grouped(gbps, -(-n // MATRIX_GROUPS)))
            matrix["bytes"] = [[int(g * 1e9 / 8 * t) for g in row] for row in matrix["gbps"]]
            faults = []
            if t >= 7.0:
                faults.append({"unit": "BU 2", "cause": "peer lost", "action": "reassigned", "lost_at_s": 6.0,
                               "detected_at_s": 7.0, "recovered_at_s": None, "reassigned": 12})
            state = {"run": {"protocol": "pull", "variant": "tcp", "data_path": "send", "nodes": n,
                             "interval_s": self.interval_s, "t_s": t, "finished": self.finished},
                     "config_yaml": CONFIG_YAML.format(nodes=n), "params": dict(self.params),
                     "totals": {"events_assigned": built + 40, "events_built": built,
                                "events_in_flight": sum(x["events_in_flight"] for x in bus),
                                "rate_gbps": rate, "events_per_s": eps},
                     "history": history, "bus": bus, "rus": rus, "matrix": matrix, "faults": faults,
                     "control": list(self.control)}
            if self.background:
                state["background"] = self.background.state(t, steps, self.interval_s)
            return state

    def state_at_start(self):
        """The state before any unit has reported: no history, zeros, nothing flagged."""
        n = self.nodes
        size = -(-n // MATRIX_GROUPS) if n > MATRIX_FULL_NODES else 1
        zeros = [[0.0] * -(-n // size) for _ in range(-(-n // size))]
        return {"run": {"protocol": "pull", "variant": "tcp", "data_path": "send", "nodes": n,
                        "interval_s": self.interval_s, "t_s": 0.0, "finished": False},
                "config_yaml": CONFIG_YAML.format(nodes=n), "params": dict(self.params),
                "totals": {"events_assigned": 0, "events_built": 0, "events_in_flight": 0, "rate_gbps": 0.0,
                           "events_per_s": 0.0},
                "history": [],
                "bus": [{"bu": b, "bytes": 0, "fragments": 0, "events_built": 0, "events_in_flight": 0,
                         "requests_in_flight": 0, "fu_queue": 0, "latency_p50_s": 0.0, "latency_p90_s": 0.0,
                         "latency_p99_s": 0.0,
                         "integrity_errors": 0, "rate_bytes_per_s": 0.0, "rate_interval_s": 0.0,
                         "rate_carried": False, "excluded": False, "reported": False, "gbps": 0.0} for b in range(n)],
                "rus": [{"ru": r, "bytes": 0, "fragments": 0, "rate_bytes_per_s": 0.0, "rate_interval_s": 0.0,
                         "rate_carried": False, "rate_factor": 1.0, "masked": False, "lost": False,
                         "reported": False, "gbps": 0.0} for r in range(n)],
                "matrix": dict({"rows": "ru", "cols": "bu", "bytes": [[0] * len(zeros) for _ in zeros], "gbps": zeros},
                               **({"group_size": size} if size > 1 else {})),
                "faults": [], "control": []}


def grouped(cells, size):
    """The square matrix `cells` summed over groups of `size` consecutive rows and columns."""
    n, groups = len(cells), -(-len(cells) // size)
    out = [[0.0] * groups for _ in range(groups)]
    for r in range(n):
        row = out[r // size]
        for b in range(n):
            row[b // size] += cells[r][b]
    return out


def parse_duration(value):
    """Seconds of a number or "2ms"-style text; None when it is neither."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if not isinstance(value, str):
        return None
    for unit, factor in (("ns", 1e-9), ("us", 1e-6), ("ms", 1e-3), ("s", 1.0)):
        if value.endswith(unit):
            try:
                return float(value[:-len(unit)]) * factor
            except ValueError:
                return None
    return None


class Handler(BaseHTTPRequestHandler):
    """The real server's routes and token rule, over SyntheticRun."""

    def log_message(self, fmt, *args):  # quiet: the test output is the page's
        pass

    def authorised(self, query):
        token = self.server.token
        header = self.headers.get("Authorization", "")
        return header == "Bearer " + token or query.get("token", [None])[0] == token

    def reply(self, status, body, content_type="text/plain; charset=utf-8"):
        data = body.encode() if isinstance(body, str) else body
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("Content-Security-Policy", "default-src 'self'")
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        query = urllib.parse.parse_qs(url.query)
        public = PUBLIC + (("/",) if self.server.public_page else ())
        if url.path not in public and not self.authorised(query):
            return self.reply(401, "401: token missing or wrong\n")
        if url.path == "/probe.js":
            return self.reply(200, PROBE_JS, "text/javascript; charset=utf-8")
        if url.path in ASSETS:
            name, content_type = ASSETS[url.path]
            with open(os.path.join(PAGE_DIR, name), "rb") as f:
                body = f.read()
            if url.path == "/":  # the probe first, as its own file (the CSP refuses inline scripts)
                body = body.replace(b"<head>", b'<head><script src="probe.js"></script>', 1)
            return self.reply(200, body, content_type)
        if url.path == "/api/state":
            self.server.state_requests += 1
            if self.server.end_after is not None and self.server.state_requests > self.server.end_after:
                self.close_connection = True  # the run has ended: no answer at all
                return None
            return self.reply(200, json.dumps(self.server.run.state()), "application/json")
        return self.reply(404, "404: no such page\n")

    def do_POST(self):
        url = urllib.parse.urlsplit(self.path)
        if not self.authorised(urllib.parse.parse_qs(url.query)):
            return self.reply(401, "401: token missing or wrong\n")
        if url.path != "/control":
            return self.reply(404, "404: no such page\n")
        length = int(self.headers.get("Content-Length") or 0)
        if length > 4096:
            return self.reply(413, "413: body over 4096 bytes\n")
        try:
            request = json.loads(self.rfile.read(length).decode() or "null")
        except ValueError as e:
            return self.reply(400, "400: not JSON: %s\n" % e)
        if not isinstance(request, dict):
            return self.reply(400, "400: the body must be a mapping of keys\n")
        status, message = self.server.run.apply(request)
        self.reply(status, message + "\n")


class FixtureServer:
    """The fixture on its own thread; a context manager that always shuts it down."""

    def __init__(self, token="fixture-token", port=None, nodes=4, end_after=None, public_page=False,
                 unreported=False, t0_s=12.0, background=False):
        self.token = token
        self.httpd = None
        for candidate in ([port] if port else PORTS):
            try:
                self.httpd = ThreadingHTTPServer(("127.0.0.1", candidate), Handler)
                break
            except OSError:
                continue
        if self.httpd is None:
            raise OSError("no free port in %d-%d on 127.0.0.1" % (PORTS[0], PORTS[-1]))
        self.httpd.daemon_threads = True
        self.httpd.token = token
        self.httpd.run = SyntheticRun(nodes, t0_s=t0_s, unreported=unreported, background=background)
        self.httpd.end_after = end_after
        self.httpd.public_page = public_page
        self.httpd.state_requests = 0
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def url(self, token=None):
        return "http://127.0.0.1:%d/?token=%s" % (self.port, self.token if token is None else token)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--token", default="fixture-token")
    parser.add_argument("--port", type=int, default=None, help="in 18300-18399 (default: the first free)")
    parser.add_argument("--nodes", type=int, default=4)
    parser.add_argument("--t0", type=float, default=12.0, help="seconds of run already behind at start")
    parser.add_argument("--background", action="store_true", help="two background entries beside the run")
    args = parser.parse_args()
    with FixtureServer(args.token, args.port, args.nodes, t0_s=args.t0, background=args.background) as server:
        print("# monitor: %s" % server.url(), flush=True)
        try:
            server.thread.join()
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
