"""Simulated points (docs/SCANS.md, "Simulated points"): the `sim:` section and
sim.* axes are read into points that run `evbench sim`, and every mistake is
refused before anything runs, naming the scan's file, line and key."""
import os

import pytest

from conftest import REPO, run_cli, write
from evbench_scan.run import runner
from evbench_scan.spec import expand, grammar
from evbench_scan.spec.grammar import ScanError, parse_scan

PLATFORM = os.path.join(REPO, "configs", "platforms", "emulated-2x4.yaml")


def points(tmp_path, schema, text, name="s.yaml"):
    return expand.expand(grammar.load_scan(write(tmp_path / name, text), schema))


def test_sim_section_makes_every_point_an_evbench_sim_run(tmp_path, schema):
    os.makedirs(str(tmp_path / "platforms"))
    write(tmp_path / "platforms" / "p.yaml", open(PLATFORM).read())
    write(tmp_path / "platforms" / "order.txt", "evh1\nevh2\n")
    pts = points(tmp_path, schema, "sim:\n  model: credit\n  platform: platforms/p.yaml\n"
                 "  order: platforms/order.txt\naxes:\n  nodes: [2, 4]\n")
    platform, order = str(tmp_path / "platforms" / "p.yaml"), str(tmp_path / "platforms" / "order.txt")
    assert [p.sim for p in pts] == [{"model": "credit", "platform": platform, "order": order}] * 2
    assert [p.values for p in pts] == [{"nodes": 2}, {"nodes": 4}]   # sim: is not an axis
    assert "driver" not in pts[0].config and "sim" not in pts[0].config
    # The point file says how it runs, so a changed model or platform is a changed point.
    assert "# simulated: evbench sim --model credit --platform %s --order %s\n" % (platform, order) \
        in pts[0].yaml_text()
    cmd = runner.point_command(pts[0], "/x/evbench", "pt.yaml", "r.json")
    assert cmd == ["/x/evbench", "sim", "pt.yaml", "--model", "credit", "--platform", platform,
                   "--order", order, "--json", "r.json", "--quiet"]


def test_sim_axes_mix_measured_and_simulated_points(tmp_path, schema):
    pts = points(tmp_path, schema, "sim: {platform: %s}\naxes:\n  sim.model: [~, credit]\n"
                 "  fragment.size: [64KiB, 1MiB]\n" % PLATFORM)
    assert [p.values for p in pts][:2] == [{"sim.model": None, "fragment.size": "64KiB"},
                                           {"sim.model": None, "fragment.size": "1MiB"}]
    assert [p.sim and p.sim["model"] for p in pts] == [None, None, "credit", "credit"]
    cmd = runner.point_command(pts[0], "/x/evbench", "pt.yaml", "r.json")
    assert cmd[:2] == ["/x/evbench", "run"] and "sim" not in pts[0].yaml_text().split("\n", 1)[1]
    assert "sim.model" not in str(pts[2].config)
    # Maps on an axis and variants entries take sim keys too.
    pts = points(tmp_path, schema, "axes:\n  sim: [{model: credit, platform: %s}]\n" % PLATFORM, "m.yaml")
    assert pts[0].values == {"sim.model": "credit", "sim.platform": PLATFORM}
    assert pts[0].sim["platform"] == PLATFORM
    pts = points(tmp_path, schema, "sim: {platform: %s}\naxes:\n  variants:\n    - {name: measured, driver: tcp}\n"
                 "    - {name: credit, sim: {model: credit}}\n" % PLATFORM, "v.yaml")
    assert [p.values for p in pts] == [{"label": "measured", "driver": "tcp", "sim.model": None},
                                       {"label": "credit", "driver": None, "sim.model": "credit"}]
    assert pts[0].sim is None and pts[1].sim["model"] == "credit" and "driver" not in pts[1].config


@pytest.mark.parametrize("text, line, key, fragment", [
    ("sim:\n  modle: credit\n", 2, "sim.modle", "unknown sim key (did you mean 'model'?)"),
    ("sim:\n  model: packet\n", 2, "sim.model", "must be one of credit, fluid, got 'packet'"),
    ("sim:\n  model: credit\n  platform: nowhere.yaml\n", 3, "sim.platform", "no such file: "),
    ("sim: credit\n", 1, "sim", "expected a mapping"),
    ("axes:\n  credits: [1]\n  sim.model: [credit, lossy]\n", 3, "sim.model", "got 'lossy'"),
    ("axes:\n  sim.platfrom: [a.yaml]\n", 2, "sim.platfrom", "unknown sim key 'platfrom'"),
    ("axes:\n  sim: credit\n", 2, "sim", "expected sim.model, sim.platform or sim.order"),
    ("axes:\n  variants:\n    - {driver: tcp}\n    - {sim: {model: credit, order: no.txt}}\n", 4,
     "sim.order", "no such file: "),
    ("cluster:\n  account: a\nsim:\n  model: credit\n", 3, "sim", "never submitted to Slurm or PBS "
     "(drop the cluster: section at line 1)"),
    ("cluster: {account: a}\naxes:\n  sim.model: [~, credit]\n", 3, "sim.model", "never submitted"),
])
def test_bad_sim_settings_name_file_line_and_key(schema, text, line, key, fragment):
    with pytest.raises(ScanError) as err:
        parse_scan(text, "bad.yaml", schema)
    assert err.value.line == line, str(err.value)
    assert str(err.value).startswith("bad.yaml:%d:" % line) and err.value.key == key, str(err.value)
    assert fragment in str(err.value)


@pytest.mark.parametrize("body, line, key, hit, fragment", [
    # what the credit model sets itself, set by the scan
    ("config:\n  driver: tcp\naxes:\n  sim.model: [~, credit]\n", 3, "driver",
     "[1 point: p0002 (sim.model=credit)]", "runs its own network (driver credit"),
    ("config:\n  nodes: 2\naxes:\n  zip:\n    sim.model: [credit, credit]\n    driver_options.nodelay: [true, false]\n",
     7, "driver_options.nodelay", "[2 points: p0001", "drop the key"),
    ("config:\n  poll_mode: busy\n", 3, "poll_mode", "[1 point: p0001 (base config)]",
     "drop the key or set it block"),
    ("config:\n  monitor.port: 9100\n", 3, "monitor.port", "[1 point", "no live monitor"),
])
def test_keys_the_model_sets_itself_are_refused_where_the_scan_sets_them(tmp_path, evbench, schema, body,
                                                                         line, key, hit, fragment):
    scan = grammar.load_scan(write(tmp_path / "s.yaml", "sim: {model: credit, platform: %s}\n%s" % (
        PLATFORM, body)), schema)
    with pytest.raises(ScanError) as err:
        expand.validated_points(scan, evbench)
    text = str(err.value)
    assert text.startswith("%s:%d:" % (scan.path, line)) and err.value.key == key, text
    assert hit in text and fragment in text
    # skip_invalid does not hide a mistake in the scan: it is not a point to skip.
    scan.skip_invalid = True
    with pytest.raises(ScanError):
        expand.validated_points(scan, evbench, skipped=[])


def test_a_simulated_point_needs_a_platform(tmp_path, evbench, schema):
    scan = grammar.load_scan(write(tmp_path / "s.yaml", "config: {nodes: 2}\nsim:\n  model: credit\n"), schema)
    with pytest.raises(ScanError) as err:
        expand.validated_points(scan, evbench)
    # (at the sim: section, which lacks the key)
    assert str(err.value).startswith("%s:2:" % scan.path) and err.value.key == "sim.platform"
    assert "needs a platform file" in str(err.value)


def test_check_lists_simulated_points_and_submit_refuses_them(tmp_path, evbench):
    scan = write(tmp_path / "s.yaml", "config: {nodes: 2, duration: 30ms, warmup: 10ms}\n"
                 "sim: {platform: %s}\naxes:\n  sim.model: [~, credit]\n" % PLATFORM)
    proc = run_cli(["check", scan], env={"EVBENCH": evbench})
    assert proc.returncode == 0, proc.stderr
    lines = [l for l in proc.stdout.splitlines() if l.startswith("p0")]
    assert lines[0] == "p0001  base config"   # sim.model ~: measured
    assert lines[1].endswith("[simulated: credit model on emulated-2x4.yaml]"), lines
    out = str(tmp_path / "jobs")
    proc = run_cli(["submit", scan, "--scheduler", "slurm", "--dry-run", "-o", out], env={"EVBENCH": evbench})
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.startswith("%s:4:3: sim.model: " % scan), proc.stderr
    assert "never submitted to Slurm or PBS (simulated points: p0002)" in proc.stderr
    assert not os.path.exists(out)   # refused before anything was written


def test_the_example_simulates_on_the_platform_it_measures_against(schema):
    """scan/examples/shift-scan-credit.yaml: the simulated point runs on the
    platform file the measured point's topology.platform names, so the report
    draws the one beside the other (simshifts.pair)."""
    from evbench_scan.report import simshifts
    scan = grammar.load_scan(os.path.join(REPO, "scan", "examples", "shift-scan-credit.yaml"), schema)
    measured, simulated = expand.expand(scan)
    assert measured.sim is None and simulated.sim == {"model": "credit", "platform": PLATFORM, "order": None}
    assert simshifts.platform_name(measured.get("topology.platform")) == simshifts.platform_name(PLATFORM)
    # (made absolute from where evbench-scan runs: the repository root for the example's commands)
    assert measured.get("topology.platform").endswith(os.path.join("", "configs", "platforms", "emulated-2x4.yaml"))
    assert [p.values for p in (measured, simulated)] == [{"sim.model": None}, {"sim.model": "credit"}]
