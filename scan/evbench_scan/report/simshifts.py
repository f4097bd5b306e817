"""The simulated series beside a measured shift scan.

The report's measured-vs-predicted figure sets a measured one-to-one shift
scan against `evbench topo`'s prediction and, as a second series, against a
simulation of the same scan. That simulation comes from the campaign when it
holds one (pair): a simulated shift scan whose axis values are the measured
one's apart from those that say how a point ran (sim.*, the variant's keys,
env.*, wrapper, label), with the same node count, on the measured scan's
platform (`report --platform`, else its topology.platform; with neither,
any). The credit model is taken first when several models simulated it.
Otherwise, when the report is given `--platform FILE`, the report runs
`evbench sim --model credit` itself (simulate) with the measured run's own
configuration, less what the model sets itself, on that platform.
"""
import json
import os
import re
import subprocess
import tempfile

import yaml

from ..results import collect
from ..spec import simspec
from ..spec.grammar import is_config_key
from . import analysis
from .shifts import ShiftScan, ShiftScanError


def _question(row):
    """The axis values of a row, without those that only say how it ran."""
    values = row.members[0].values
    return sorted((k, collect.cell(v)) for k, v in values.items()
                  if is_config_key(k) and not analysis.is_variant_key(k))


def platform_name(path):
    """'emulated-2x4' for .../emulated-2x4.yaml (how collect.simulation names it)."""
    return os.path.splitext(os.path.basename(path))[0]


def pair(scans, platform=None):
    """Set each measured scan's simulation from the campaign beside it; returns
    the measured scans left without one."""
    simulated = [s for s in scans if s.simulated]
    alone = []
    for scan in (s for s in scans if not s.simulated):
        where = platform or scan.row.value("topology.platform")
        want = platform_name(where) if where else None
        found = [s for s in simulated if s.nodes == scan.nodes and _question(s.row) == _question(scan.row)
                 and (want is None or s.simulated[1].split(" (order ")[0] == want)]
        found.sort(key=lambda s: s.simulated[0] != "credit")
        if found:
            scan.set_beside(found[0], "points " + " ".join(found[0].row.ids))
        else:
            alone.append(scan)
    return alone


def simulate(evbench, platform, scan):
    """`evbench sim --model credit` of a measured scan's configuration on
    `platform`: (ShiftScan of the simulation, its result document)."""
    config = simspec.credit_config(scan.row.members[0].doc["config"], os.path.abspath(platform))
    what = "evbench sim --model credit --platform %s (the configuration of points %s)" % (
        platform, " ".join(scan.row.ids))
    with tempfile.TemporaryDirectory(prefix="evbench-scan-sim-") as tmp:
        path, out = os.path.join(tmp, "config.yaml"), os.path.join(tmp, "result.json")
        with open(path, "w") as f:
            yaml.safe_dump(config, f, default_flow_style=False, sort_keys=False)
        cmd = [evbench, "sim", path, "--model", "credit", "--platform", platform, "--json", out, "--quiet"]
        try:
            proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                                  universal_newlines=True, timeout=simspec.TIMEOUT_S)
        except (OSError, subprocess.TimeoutExpired) as err:
            raise ShiftScanError("%s: %s" % (what, err))
        doc = collect.read_json(out) if os.path.exists(out) else None
    if proc.returncode != 0 or not doc or not isinstance(doc.get("results"), dict):
        # evbench names its (temporary) configuration file: the points are named instead
        errors = [re.sub(re.escape(path) + r":\d+:\d+: ", "", line) for line in proc.stderr.splitlines()
                  if "warning:" not in line]
        raise ShiftScanError("%s exited %d: %s" % (what, proc.returncode, " ".join(errors[-3:]).strip()
                                                   or "no result"))
    record = collect.Record("credit", {}, 0, doc["results"].get("status"), proc.returncode, doc)
    return ShiftScan(analysis.Row([record]), scan.nodes), doc


def write(outdir, name, doc):
    """Keep a simulation the report ran beside the report (name: credit_N.json)."""
    with open(os.path.join(outdir, name), "w") as f:
        json.dump(doc, f, indent=1)
