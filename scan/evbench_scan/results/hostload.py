"""The host's load around each point, and which points ran under a load
unlike the campaign's (docs/SCANS.md, "Host load").

Two sources, the better one first:
- evbench's own `results.host_load` (per host: load average at the start and
  end of the data phase, the CPU share other processes used, steal, CPUs);
- what the runner read from /proc around the point: /proc/loadavg and the
  `cpu` line of /proc/stat before and after, less the CPU time its own
  children (the point's processes) used, from getrusage(RUSAGE_CHILDREN).
  Job scripts read the same files but cannot tell the point's ranks from
  other processes, so their figure includes the point's own CPU use on the
  batch host.

The runner also samples the run queue while the point runs (RunQueue):
how many tasks other than the point's own were runnable, on average — what
the load average counts, over the point alone and without the point. On a
saturated host (load 8-10 on 2 CPUs) the other processes' CPU share cannot
grow any more, but their number still does, and so does what they take from
the point.

Each point is reduced to one figure, in CPUs wanted or used by other work:
`runnable_others` where the runner sampled it, else `other_cpus` (CPUs'
worth of work other processes did: 0.0 on a quiet host, 1.0 when something
kept one CPU busy throughout), else the load average. A point is flagged
when its figure differs from the campaign's median by more than BOUND_CPUS
and by more than BOUND_SHARE of that median: on a quiet host, half a CPU;
on one where 8 other tasks compete, 2 more or fewer (a point's share of the
CPUs moves with the number of its competitors, not with their count alone).
"""
import os
import resource
import statistics
import threading
import time

BOUND_CPUS = 0.5   # half a CPU: enough to take a rank's core half of the time
BOUND_SHARE = 0.25  # ... and a quarter of the median's competitors
SAMPLE_S = 0.1     # run-queue sampling period


def _proc_stat_cpu(text):
    """(busy ticks, total ticks, steal ticks) from the `cpu` line of /proc/stat."""
    fields = [int(x) for x in text.split()[1:]]
    fields += [0] * (8 - len(fields))
    user, nice, system, idle, iowait, irq, softirq, steal = fields[:8]
    busy = user + nice + system + irq + softirq + steal
    return busy, busy + idle + iowait, steal


def read_now():
    """One reading of this host: {t, loadavg, cpu (the /proc/stat line), children_cpu_s}."""
    reading = {"t": time.monotonic(), "loadavg": None, "cpu": None}
    try:
        with open("/proc/loadavg") as f:
            reading["loadavg"] = float(f.read().split()[0])
        with open("/proc/stat") as f:
            reading["cpu"] = f.readline().strip()
    except (OSError, ValueError, IndexError):
        pass
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    reading["children_cpu_s"] = usage.ru_utime + usage.ru_stime
    return reading


def _procs_running():
    try:
        with open("/proc/stat") as f:
            for line in f:
                if line.startswith("procs_running "):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return None


def _running_in_session(session):
    """Runnable tasks (threads) of the processes in `session` (the point's)."""
    count = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            if int(fields[3]) != session:
                continue
            for tid in os.listdir("/proc/%s/task" % entry):
                with open("/proc/%s/task/%s/stat" % (entry, tid)) as f:
                    count += f.read().rsplit(")", 1)[1].split()[0] == "R"
        except (OSError, ValueError, IndexError):
            continue
    return count


class RunQueue:
    """Samples, every SAMPLE_S while a point runs, the runnable tasks of the
    host that are neither the point's (its session) nor this sampler."""

    def __init__(self, session):
        self.session, self.samples = session, []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="evbench-scan-runqueue", daemon=True)

    def start(self):
        self._thread.start()
        return self

    def stop(self):
        """The mean number of other runnable tasks (None without a sample)."""
        self._stop.set()
        self._thread.join()
        return round(statistics.mean(self.samples), 3) if self.samples else None

    def _loop(self):
        while not self._stop.wait(SAMPLE_S):
            total = _procs_running()
            if total is not None:
                self.samples.append(max(0, total - _running_in_session(self.session) - 1))


def window(before, after, cpus=None, own_known=True):
    """What happened on the host between two readings, as the status file
    keeps it: {source, window_s, loadavg_start, loadavg_end, cpus,
    other_cpu_fraction, steal_fraction, includes_own}."""
    cpus = cpus or os.cpu_count() or 1
    out = {"source": "runner" if own_known else "job", "window_s": round(after["t"] - before["t"], 3),
           "loadavg_start": before.get("loadavg"), "loadavg_end": after.get("loadavg"), "cpus": cpus,
           "other_cpu_fraction": None, "steal_fraction": None, "includes_own": not own_known}
    if before.get("cpu") and after.get("cpu"):
        b0, t0, s0 = _proc_stat_cpu(before["cpu"])
        b1, t1, s1 = _proc_stat_cpu(after["cpu"])
        if t1 > t0:
            busy_share = (b1 - b0) / float(t1 - t0)          # of all CPUs' time
            own = 0.0
            if own_known and out["window_s"] > 0:
                own = (after["children_cpu_s"] - before["children_cpu_s"]) / (out["window_s"] * cpus)
            out["other_cpu_fraction"] = round(min(1.0, max(0.0, busy_share - own)), 4)
            out["steal_fraction"] = round((s1 - s0) / float(t1 - t0), 4)
    return out


def from_job(raw):
    """A job script's readings ({loadavg_start, loadavg_end, cpu_start, cpu_end,
    cpus, seconds}) as a window; None when they are not there."""
    try:
        before = {"t": 0.0, "loadavg": float(raw["loadavg_start"]), "cpu": raw["cpu_start"]}
        after = {"t": float(raw.get("seconds") or 0), "loadavg": float(raw["loadavg_end"]), "cpu": raw["cpu_end"]}
        return window(before, after, int(raw.get("cpus") or 0) or None, own_known=False)
    except (KeyError, TypeError, ValueError, IndexError):
        return None


def of_point(doc, status):
    """The load of one point: evbench's results.host_load (the host whose
    other processes used the most) when the result has it, else the status
    file's reading. {source, host, other_cpus, other_cpu_fraction, cpus,
    loadavg_start, loadavg_end, steal_fraction, includes_own} or None."""
    hosts = ((doc or {}).get("results") or {}).get("host_load")
    if isinstance(hosts, dict):   # keyed by host name
        hosts = [dict(h, hostname=name) for name, h in hosts.items() if isinstance(h, dict)]
    if isinstance(hosts, list) and hosts:
        hosts = [h for h in hosts if isinstance(h, dict)]
        busiest = max(hosts, key=lambda h: _other_cpus(h) if _other_cpus(h) is not None else -1.0)
        runner = (status or {}).get("load") or {}
        return _normal(busiest, "evbench", busiest.get("hostname"), False, runner.get("runnable_others"))
    load = (status or {}).get("load")
    if isinstance(load, dict) and load.get("source") == "job-raw":
        load = from_job(load)
    if isinstance(load, dict):
        return _normal(load, load.get("source", "runner"), None, bool(load.get("includes_own")),
                       load.get("runnable_others"))
    return None


def _other_cpus(h):
    fraction, cpus = h.get("other_cpu_fraction"), h.get("cpus")
    if isinstance(fraction, (int, float)) and isinstance(cpus, (int, float)) and cpus > 0:
        return float(fraction) * cpus
    return None


def _normal(h, source, host, includes_own, runnable=None):
    return {"source": source, "host": host, "other_cpus": _other_cpus(h), "runnable_others": runnable,
            "other_cpu_fraction": h.get("other_cpu_fraction"), "cpus": h.get("cpus"),
            "loadavg_start": h.get("loadavg_start"), "loadavg_end": h.get("loadavg_end"),
            "steal_fraction": h.get("steal_fraction"), "includes_own": includes_own}


METRICS = ("runnable_others", "other_cpus", "loadavg")


def _loadavg(load):
    ends = [v for v in (load.get("loadavg_start"), load.get("loadavg_end")) if isinstance(v, (int, float))]
    return sum(ends) / len(ends) if ends else None


def metric(load, kind=None):
    """The figure points are compared by (`kind`, else the first of METRICS the load has)."""
    if not load:
        return None
    for name in ([kind] if kind else METRICS):
        value = _loadavg(load) if name == "loadavg" else load.get(name)
        if value is not None:
            return value
    return None


class LoadFlags:
    """Which points of a campaign ran under a load unlike the others': the
    median of every measured point's figure, and the points whose figure is
    more than `bound` CPUs and BOUND_SHARE of the median away from it."""

    def __init__(self, recs, bound=BOUND_CPUS):
        loads = [r.load for r in recs if r.load]
        # one figure for every point: the first kind all measured points have
        self.kind = next((k for k in METRICS if loads and all(metric(x, k) is not None for x in loads)), None)
        self.values = dict((r.id, metric(r.load, self.kind)) for r in recs if metric(r.load, self.kind) is not None)
        self.median = statistics.median(self.values.values()) if self.values else None
        self.bound_cpus = bound
        self.bound = max(bound, BOUND_SHARE * self.median) if self.values else bound   # the one applied
        self.flagged = dict((pid, v) for pid, v in self.values.items() if abs(v - self.median) > self.bound)
        self.sources = sorted({r.load["source"] for r in recs if r.load})

    def __contains__(self, pid):
        return pid in self.flagged

    def words(self):
        """What the figure is, for the report."""
        return {"runnable_others": "other runnable tasks (the run queue without the point's own)",
                "other_cpus": "CPUs' worth of work by other processes",
                "loadavg": "load average"}.get(self.kind, "-")

    def as_dict(self):
        return {"bound_cpus": self.bound_cpus, "bound_share": BOUND_SHARE, "bound": self.bound, "figure": self.kind, "median": self.median, "measured": len(self.values),
                "flagged": dict((pid, round(v, 3)) for pid, v in sorted(self.flagged.items())),
                "sources": self.sources}
