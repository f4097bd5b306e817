"""Expanding a scan's axes into points and checking every point.

A point is one evbench configuration: the base config with one value per
axis set. Points are numbered in expansion order (the last axis of a matrix
varies fastest); repeats of one combination are consecutive points. Every
point is checked by `evbench validate` itself: the scan tool has no rules of
its own about keys or values.
"""
import concurrent.futures
import copy
import os
import re
import shlex
import shutil
import subprocess
import tempfile
import time

import yaml

from . import simspec
from .scanfile import ENV_PREFIX, WRAPPER, Group, ScanError, Variants, is_config_key

class Point:
    """One configuration of a campaign."""

    def __init__(self, index, values, repeat, config, schema, env=None, wrapper=None, sim=None):
        self.index = index
        self.id = "p%04d" % index
        self.values = values          # flat axis key -> plain value (None: not set), in axis order
        self.repeat = repeat          # 0-based
        self.config = config          # nested dict, full point config
        self.schema = schema          # the evbench key table (defaults, units)
        self.env = env or {}          # environment for the point's process (scan env + env.* keys)
        self.wrapper = wrapper        # command (string) the point runs under, or None
        self.sim = sim                # {"model", "platform", "order"}: an `evbench sim` point; None: `run`

    def label(self):
        text = ", ".join("%s=%s" % (k, v) for k, v in self.values.items() if v is not None)
        return text + (" (repeat %d)" % (self.repeat + 1) if self.repeat else "")

    def get(self, dotted, default=None):
        return get_dotted(self.config, dotted, default)

    def setting(self, dotted):
        """The point's value of a key, else evbench's default for it."""
        return self.schema.setting(self.config, dotted)

    def seconds(self, dotted):
        """A duration key of the point in seconds (evbench's default when unset)."""
        return self.schema.parse_duration(self.setting(dotted))

    def yaml_text(self):
        # A simulated point says how it runs (a changed model or platform
        # makes it a changed point, whose old result is discarded).
        sim = "# simulated: evbench sim %s\n" % " ".join(simspec.arguments(self.sim)) if self.sim else ""
        return "# evbench point %s: %s\n%s%s" % (
            self.id, self.label() or "base config", sim,
            yaml.safe_dump(self.config, default_flow_style=False, sort_keys=False))


def set_dotted(config, dotted, value):
    parts = dotted.split(".")
    if parts[0] == "driver_options" and len(parts) > 2:
        parts = [parts[0], ".".join(parts[1:])]
    target = config
    for part in parts[:-1]:
        if not isinstance(target.get(part), dict):
            target[part] = {}
        target = target[part]
    target[parts[-1]] = value


def unset_dotted(config, dotted):
    """Remove a key (evbench's default applies); empty parent maps go too."""
    parts = dotted.split(".")
    if parts[0] == "driver_options" and len(parts) > 2:
        parts = [parts[0], ".".join(parts[1:])]
    chain, target = [], config
    for part in parts[:-1]:
        if not isinstance(target.get(part), dict):
            return
        chain.append((target, part))
        target = target[part]
    target.pop(parts[-1], None)
    for parent, part in reversed(chain):
        if parent[part]:
            break
        del parent[part]


def get_dotted(config, dotted, default=None):
    target = config
    parts = dotted.split(".")
    if parts[0] == "driver_options" and len(parts) > 2:
        parts = [parts[0], ".".join(parts[1:])]
    for part in parts:
        if not isinstance(target, dict) or part not in target:
            return default
        target = target[part]
    return target


def wrapper_command(text, scan_path):
    """A wrapper as written in the scan -> argv; a relative program path with
    a slash is taken relative to the scan file's directory."""
    argv = shlex.split(text)
    if argv and os.sep in argv[0] and not os.path.isabs(argv[0]):
        argv[0] = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(scan_path)), argv[0]))
    return argv


CWD_RELATIVE = "relative to the current directory"


def absolute_paths(config, schema):
    """File keys that evbench reads relative to its current directory (its key
    table says so, e.g. topology.platform) are made absolute, as seen from
    where evbench-scan runs: the points run in the campaign directory."""
    for key, spec in getattr(schema, "keys", {}).items():
        if spec.get("type") == "string" and CWD_RELATIVE in str(spec.get("doc", "")):
            value = get_dotted(config, key)
            if isinstance(value, str) and value and not os.path.isabs(value):
                set_dotted(config, key, os.path.abspath(value))


def expand(scan):
    """All points of a scan, in order (not yet validated)."""
    keys = scan.axis_keys()
    combos = scan.axes.combinations() if scan.axes.entries else [{}]
    points = []
    for combo in combos:
        ordered = dict((k, combo[k]) for k in keys if k in combo)
        for repeat in range(scan.repeats):
            config = copy.deepcopy(scan.config)
            env = dict(scan.env)
            wrapper = None
            for key, value in ordered.items():
                if key.startswith(ENV_PREFIX):
                    if value is not None:
                        env[key[len(ENV_PREFIX):]] = str(value)
                elif key == WRAPPER:
                    wrapper = wrapper_command(value, scan.path) if value is not None else None
                    if wrapper and not shutil.which(wrapper[0]):
                        _, line = scan.mark_of(WRAPPER)
                        raise ScanError("%s:%d" % (scan.path, line) if line else scan.path, None, WRAPPER,
                                        "%s: no such program (a relative path is taken from the scan "
                                        "file's directory)" % wrapper[0])
                elif not is_config_key(key):
                    continue   # label, sim.KEY (below)
                elif value is None:
                    unset_dotted(config, key)    # ~ / a variant without the key: not set
                else:
                    set_dotted(config, key, value)
            absolute_paths(config, scan.schema)
            sim = simspec.settings(scan.sim, ordered, scan.path)
            points.append(Point(len(points) + 1, ordered, repeat, config, scan.schema, env, wrapper, sim))
    return points


def check_simulated(scan, points):
    """A simulated point that sets what evbench sim sets itself, or has no
    platform, is a mistake in the scan (never a point to skip): a ScanError at
    the line that set the key, naming the points it hits."""
    hits = {}
    for point in points:
        for key, message in simspec.problems(point):
            hits.setdefault((key, message), []).append("%s (%s)" % (point.id, point.label() or "base config"))
    for (key, message), ids in hits.items():
        path, mark = scan.where(key)
        raise ScanError(path, mark, key, "%s [%d point%s: %s]" % (
            message, len(ids), "" if len(ids) == 1 else "s", ", ".join(ids[:3]) + (", ..." if len(ids) > 3 else "")))


VALIDATE_JOBS = 4
_MESSAGE = re.compile(r"^(?P<file>.*?):(?P<line>\d+):(?P<col>\d+): (?P<key>[A-Za-z0-9_.\-]+): (?P<msg>.*)$")


def check_point(point, evbench, workdir):
    """Problems `evbench validate` finds in one point, as (key, message) pairs ([] when valid)."""
    path = os.path.join(workdir, "%s.yaml" % point.id)
    with open(path, "w") as f:
        if point.sim:   # checked as evbench sim runs it (simspec.validation_config)
            f.write(yaml.safe_dump(simspec.validation_config(point), default_flow_style=False, sort_keys=False))
        else:
            f.write(point.yaml_text())
    for attempt in range(4):
        try:
            proc = subprocess.run([evbench, "validate", path], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  stdin=subprocess.DEVNULL, universal_newlines=True, timeout=60)
            break
        except subprocess.TimeoutExpired:
            return [("", "evbench validate timed out")]
        except OSError as err:
            # the binary may be briefly missing while it is rebuilt
            if attempt == 3:
                return [("", "cannot run %s validate: %s" % (evbench, err.strerror or err))]
            time.sleep(5)
    if proc.returncode == 0:
        return []
    problems = []
    for line in proc.stderr.splitlines():
        line = line.strip()
        if line.startswith("evbench: "):
            line = line[len("evbench: "):]
        if not line or line.startswith("warning: "):
            continue
        m = _MESSAGE.match(line)
        problems.append((m.group("key"), m.group("msg")) if m else ("", line))
    if not problems:
        problems.append(("", "evbench validate exited %d: %s" % (
            proc.returncode, (proc.stderr + proc.stdout).strip()[-300:])))
    return problems


def skipped_entry(point, reason, source):
    """How campaign.json lists a point that was not run."""
    return {"id": point.id, "values": point.values, "repeat": point.repeat,
            "reason": reason, "source": source}


def validated_points(scan, evbench, log=None, skipped=None):
    """Expand and check every point with `evbench validate`. Invalid points are
    dropped when the scan says skip_invalid: true (appended to `skipped`, a
    list, with evbench's reason), otherwise a ScanError names the first few."""
    points = expand(scan)
    check_simulated(scan, points)
    workdir = tempfile.mkdtemp(prefix="evbench-scan-validate-")
    kept = []
    # One line per distinct problem (a typo'd axis key fails every point the
    # same way), naming the points it hits.
    problems_seen = {}
    try:
        # evbench validate is quick but not instant; a few at a time, results in point order.
        with concurrent.futures.ThreadPoolExecutor(max_workers=VALIDATE_JOBS) as pool:
            checked = list(pool.map(lambda p: check_point(p, evbench, workdir), points))
        for point, problems in zip(points, checked):
            if not problems:
                kept.append(point)
                continue
            for key, message in problems:
                path, line = scan.mark_of(key) if key else (scan.path, 0)
                where = "%s:%d" % (path, line) if line else path
                text = "%s: %s%s" % (where, key + ": " if key else "", message)
                problems_seen.setdefault(text, []).append(
                    "%s (%s)" % (point.id, point.label() or "base config"))
            reason = "; ".join("%s%s" % (key + ": " if key else "", message) for key, message in problems)
            if scan.skip_invalid and skipped is not None:
                skipped.append(skipped_entry(point, reason, "validate"))
            if scan.skip_invalid and log:
                log("skipping invalid point %s (%s): %s" % (
                    point.id, point.label(), problems[0][1]))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    if problems_seen and not scan.skip_invalid:
        lines = []
        for text, hit in list(problems_seen.items())[:5]:
            shown = ", ".join(hit[:3]) + (", ..." if len(hit) > 3 else "")
            lines.append("%s [%d point%s: %s]" % (text, len(hit), "" if len(hit) == 1 else "s", shown))
        extra = len(problems_seen) - len(lines)
        more = "\n(and %d more problems)" % extra if extra > 0 else ""
        # skip_invalid only helps when it leaves something to run: a typo'd
        # key fails every point, and evbench's message names the key meant.
        if kept:
            advice = "\n(fix them, or add 'skip_invalid: true' to drop the %d invalid point%s " \
                     "and run the %d valid one%s)" % (
                         len(points) - len(kept), "" if len(points) - len(kept) == 1 else "s",
                         len(kept), "" if len(kept) == 1 else "s")
        else:
            advice = "\n(no point is valid: fix the scan file; skip_invalid would drop every point)"
        raise ScanError(scan.path, None, "", "invalid points:\n  " + "\n  ".join(lines) + more + advice)
    if not kept:
        raise ScanError(scan.path, None, "", "no valid point left")
    return kept
