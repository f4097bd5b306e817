"""Scan grammar: expansion (matrix, zip, ranges, repeats) and rejection with line
numbers; keys, units and point validation as the real evbench has them."""
import os
import subprocess

import pytest
import yaml

from conftest import REPO, run_cli, write
from evbench_scan.spec import expand, grammar
from evbench_scan.spec.grammar import ScanError, parse_scan


@pytest.fixture
def points_of(schema):
    return lambda text, path="scan.yaml": expand.expand(parse_scan(text, path, schema))


def resolved(evbench, tmp_path, *sets):
    """The configuration evbench resolves from an empty file and `sets` (canonical units)."""
    cmd = [evbench, "config", "--resolved", write(tmp_path / "empty.yaml", "")]
    for s in sets:
        cmd += ["--set", s]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=30)
    assert proc.returncode == 0, proc.stderr
    return yaml.safe_load(proc.stdout)


def test_units_are_the_binarys(evbench, schema, tmp_path):
    # The scan tool reads sizes and durations as evbench does ...
    for text in ("512KiB", "1.5MiB", "2GB", "12kB", "4096", "8192B"):
        got = resolved(evbench, tmp_path, "fragment.size=1KiB", "ru_buffer=" + text)["ru_buffer"]
        assert schema.parse_size(text) == got, text
    for text in ("250ms", "2min", "1.5s", "400000us", "3"):
        got = resolved(evbench, tmp_path, "peer_timeout=" + text)["peer_timeout"]
        assert schema.parse_duration(text) == pytest.approx(got), text
    # ... rejects what it rejects (64K: K alone is ambiguous to evbench) ...
    for text in ("64K", "12 parsecs", "1.5B"):
        with pytest.raises(ValueError):
            schema.parse_size(text)
    with pytest.raises(ValueError):
        schema.parse_duration("5m")
    # ... and writes sizes and durations evbench reads back to the same value.
    for nbytes in (524288, 8000, 12288, 3 << 30):
        text = schema.format_size(nbytes)
        assert resolved(evbench, tmp_path, "fragment.size=1KiB", "ru_buffer=" + text)["ru_buffer"] == nbytes, text
    for seconds in (0.25, 1.5, 120, 7200):
        text = schema.format_duration(seconds)
        # (from 1000 s on --resolved writes "7200s": evbench refuses that bare)
        got = resolved(evbench, tmp_path, "peer_timeout=" + text)["peer_timeout"]
        assert schema.parse_duration(got) == pytest.approx(seconds), text
    assert [schema.format_size(n) for n in (524288, 1536, 2 * 10 ** 6)] == ["512KiB", "1536", "2MB"]
    assert [schema.format_duration(s) for s in (0.25, 1.5, 120, 0)] == ["250ms", "1.5s", "2min", "0s"]


def test_keys_and_defaults_are_the_binarys(evbench, schema, tmp_path):
    assert {"fu.processing_time", "ru_rate_factors", "peer_timeout", "fault.corrupt_every"} <= set(schema.keys)
    assert "verify.corrupt_every" not in schema.keys
    assert schema.type_of("driver_options.sndbuf") == "size"          # a tcp driver option
    defaults = resolved(evbench, tmp_path)
    assert schema.setting({}, "warmup") == defaults["warmup"]
    assert schema.setting({}, "fragment.size") == defaults["fragment"]["size"]
    assert schema.setting({"nodes": 8}, "nodes") == 8


def test_matrix_is_cartesian_product_last_axis_fastest(points_of):
    pts = points_of("axes:\n  credits: [1, 2]\n  parallel: [1, 2, 4]\n")
    assert [(p.values["credits"], p.values["parallel"]) for p in pts] == [
        (1, 1), (1, 2), (1, 4), (2, 1), (2, 2), (2, 4)]
    assert [p.id for p in pts][:2] == ["p0001", "p0002"]


def test_zip_is_lock_step_inside_matrix(points_of):
    pts = points_of("axes:\n  scheduling: [barrel, random]\n"
                    "  zip:\n    nodes: [2, 4, 8]\n    parallel: [2, 4, 8]\n")
    assert len(pts) == 6
    assert all(p.values["nodes"] == p.values["parallel"] for p in pts)
    assert pts[3].values == {"scheduling": "random", "nodes": 2, "parallel": 2}


def test_nested_groups_and_list_of_zips(points_of):
    pts = points_of("axes:\n  zip:\n    - {credits: [1, 2], parallel: [1, 2]}\n"
                    "    - {nodes: [4, 8], fragment.size: [64KiB, 1MiB]}\n")
    assert len(pts) == 4
    assert pts[0].config["fragment"]["size"] == "64KiB"
    assert pts[-1].values == {"credits": 2, "parallel": 2, "nodes": 8, "fragment.size": "1MiB"}


def test_ranges_factor_step_and_durations(points_of):
    pts = points_of("axes:\n  fragment.size: {from: 64KiB, to: 4MiB, factor: 2}\n")
    assert [p.values["fragment.size"] for p in pts] == [
        "64KiB", "128KiB", "256KiB", "512KiB", "1MiB", "2MiB", "4MiB"]
    pts = points_of("axes:\n  credits: {from: 1, to: 8, step: 1}\n")
    assert [p.values["credits"] for p in pts] == list(range(1, 9))
    pts = points_of("axes:\n  duration: {from: 500ms, to: 2s, step: 500ms}\n")
    assert [p.values["duration"] for p in pts] == ["500ms", "1s", "1.5s", "2s"]
    # The key's type in evbench's table decides: bare numbers of a size or
    # duration key are bytes or seconds, decimal units stay decimal.
    pts = points_of("axes:\n  fragment.size: {from: 1KB, to: 3KB, step: 1KB}\n")
    assert [p.values["fragment.size"] for p in pts] == ["1KB", "2KB", "3KB"]
    pts = points_of("axes:\n  peer_timeout: {from: 1, to: 3, step: 1}\n")
    assert [p.values["peer_timeout"] for p in pts] == ["1s", "2s", "3s"]


def test_repeats_base_and_inline_config(tmp_path, schema):
    write(tmp_path / "base.yaml", "nodes: 4\nfragment:\n  size: 1MiB\ndriver: tcp\n")
    scan = grammar.load_scan(write(tmp_path / "s.yaml",
                                   "base: base.yaml\nconfig:\n  fragment.size: 256KiB\n  credits: 2\n"
                                   "repeats: 3\naxes:\n  driver: [tcp, mpi]\n  driver_options.eager: [1, 2]\n"),
                             schema)
    pts = expand.expand(scan)
    assert len(pts) == 12
    assert [p.repeat for p in pts[:4]] == [0, 1, 2, 0]
    assert pts[0].config["fragment"] == {"size": "256KiB"}
    assert pts[0].config["nodes"] == 4 and pts[0].config["credits"] == 2
    assert pts[-1].config["driver"] == "mpi" and pts[-1].config["driver_options"] == {"eager": 2}
    assert "(repeat 3)" in pts[2].label()


def test_no_axes_is_one_point(points_of):
    pts = points_of("config: {credits: 2}\n")
    assert len(pts) == 1 and pts[0].values == {}


@pytest.mark.parametrize("text, line, fragment", [
    ("config: {credits: 2}\naxis:\n  credits: [1]\n", 2, "unknown scan key 'axis'"),
    ("axes:\n  credits: [1, 2]\n  parallel: {from: 1, to: 8}\n", 3, "exactly one of factor or step"),
    ("axes:\n  fragment.size: {from: 1MiB, to: 64KiB, factor: 2}\n", 2, "larger than to"),
    ("axes:\n  fragment.size: {from: 64K, to: 1M, factor: 2}\n", 2, "ambiguous size unit 'K'"),
    ("axes:\n  credits: {from: 1, to: 8, factor: 1}\n", 2, "factor must be greater than 1"),
    ("axes:\n  matrix:\n    credits: [1]\n  zip:\n    nodes: [2, 4]\n    parallel: [2]\n", 4,
     "same number of values (nodes has 2, parallel has 1)"),
    ("axes:\n  credits: [1]\n  matrix:\n    credits: [2]\n", 4, "more than once (first at line 2"),
    ("axes:\n  credits: []\n", 2, "at least one value"),
    ("repeats: 0\n", 1, "positive integer"),
    ("axes:\n  credits: [1, 2\n", 3, "not valid YAML"),
    ("base: nowhere.yaml\n", 1, "no such file"),
    ("cluster:\n  launcher: ssh\n", 2, "must be one of"),
    ("cluster:\n  startup: 5m\n", 2, "unknown duration unit 'm'"),
    ("axes:\n  credits: [[1, 2]]\n", 2, "scalars"),
])
def test_bad_scans_name_key_and_line(schema, text, line, fragment):
    with pytest.raises(ScanError) as err:
        parse_scan(text, "bad.yaml", schema)
    assert err.value.line == line, str(err.value)
    assert fragment in str(err.value)
    assert str(err.value).startswith("bad.yaml:%d:" % line)


def validate_message(evbench, tmp_path, config):
    """evbench's own complaint about `config`, without the FILE:LINE:COLUMN prefix."""
    proc = subprocess.run([evbench, "validate", write(tmp_path / "direct.yaml", config)],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=30)
    assert proc.returncode == 2 and proc.stdout == "", (proc.stdout, proc.stderr)
    return proc.stderr.strip().split(": ", 2)[2]    # evbench: FILE:L:C: KEY: reason -> KEY: reason


def test_invalid_point_is_mapped_back_to_the_scan_line(tmp_path, evbench, schema):
    scan = grammar.load_scan(write(tmp_path / "s.yaml",
                                   "config:\n  nodes: 4\naxes:\n  parallel: [2]\n  credits: [0, 1]\n"), schema)
    with pytest.raises(ScanError) as err:
        expand.validated_points(scan, evbench)
    text = str(err.value)
    reason = validate_message(evbench, tmp_path, "nodes: 4\nparallel: 2\ncredits: 0\n")
    assert reason.startswith("credits: ")
    assert "s.yaml:5: %s [1 point: p0001 (parallel=2, credits=0)]" % reason in text
    assert "p0002" not in text


def test_contradictory_points_skipped_or_rejected(tmp_path, evbench, schema):
    body = "config:\n  nodes: 4\naxes:\n  nodes: [2, 4]\n  parallel: [2, 4]\n"
    scan = grammar.load_scan(write(tmp_path / "s.yaml", body), schema)
    with pytest.raises(ScanError) as err:
        expand.validated_points(scan, evbench)
    reason = validate_message(evbench, tmp_path, "nodes: 2\nparallel: 4\n")
    assert reason.startswith("parallel: ")
    assert "s.yaml:5: %s [1 point: p0002 (nodes=2, parallel=4)]" % reason in str(err.value)
    scan = grammar.load_scan(write(tmp_path / "t.yaml", "skip_invalid: true\n" + body), schema)
    kept = expand.validated_points(scan, evbench)
    assert [p.id for p in kept] == ["p0001", "p0003", "p0004"]


def test_default_warmup_is_checked_by_evbench(tmp_path, evbench, schema):
    # 100 ms is shorter than evbench's default warm-up: the point is invalid.
    scan = grammar.load_scan(write(tmp_path / "s.yaml", "config:\n  duration: 100ms\n"), schema)
    with pytest.raises(ScanError) as err:
        expand.validated_points(scan, evbench)
    # (reported at the key the scan set; the default warm-up is evbench's)
    assert "s.yaml:2: duration: warmup (" in str(err.value)
    assert "must be shorter than duration (100 ms) [1 point: p0001 (base config)]" in str(err.value)


def test_key_renamed_in_the_binary_is_an_error_at_its_line(tmp_path, evbench, schema):
    scan = grammar.load_scan(write(tmp_path / "s.yaml", "axes:\n  fault.corrupt_every: [0, 50]\n"), schema)
    assert len(expand.validated_points(scan, evbench)) == 2
    scan = grammar.load_scan(write(tmp_path / "t.yaml", "axes:\n  verify.corrupt_every: [0, 50]\n"), schema)
    with pytest.raises(ScanError) as err:
        expand.validated_points(scan, evbench)
    assert "t.yaml:2: verify.corrupt_every: unknown key" in str(err.value)


def test_missing_evbench_is_named_with_how_to_point_at_one(tmp_path):
    scan = write(tmp_path / "s.yaml", "config: {credits: 2}\n")
    for command in (["check", scan], ["run", scan, "-o", str(tmp_path / "out")]):
        proc = run_cli(command, env={"EVBENCH": "/nonexistent/evbench"})
        assert proc.returncode == 2
        assert "/nonexistent/evbench" in proc.stderr and "--evbench PATH" in proc.stderr
        assert "EVBENCH=PATH" in proc.stderr and "Traceback" not in proc.stderr
    # A binary that cannot describe its keys (not evbench, or too old) is named too.
    proc = run_cli(["check", scan, "--evbench", "/bin/false"])
    assert proc.returncode == 2 and "/bin/false config --json failed" in proc.stderr
    assert not os.path.exists(str(tmp_path / "out"))


def test_examples_expand(evbench, schema):
    counts = {}
    for name in ("paper", "drivers", "scaling-slurm", "faults"):
        scan = grammar.load_scan(os.path.join(REPO, "scan", "examples", name + ".yaml"), schema)
        counts[name] = len(expand.validated_points(scan, evbench))
    # drivers.yaml: 18 variants (2 refused at check) x 2 sizes x 3 repeats (see test_examples.py)
    assert counts == {"paper": 27, "drivers": 96, "scaling-slurm": 12, "faults": 4}


# --- variants, driver_options maps, ~ for "not set", env and wrapper ---------

VARIANTS = """config: {nodes: 2}
env: {OMPI_MCA_btl_tcp_if_include: lo}
axes:
  variants:
    - {name: tcp, driver: tcp}
    - name: ucx-sm
      driver: ucx
      driver_options: {tls: sm}
      data_path: write
    - name: mpi-tcp-btl
      driver: mpi
      bootstrap: mpi
      env: {OMPI_MCA_pml: ob1, OMPI_MCA_btl: "self,tcp"}
  fragment.size: [64KiB, 1MiB]
"""


def test_variants_are_flat_plain_values_and_unset_keys(points_of):
    pts = points_of(VARIANTS)
    assert len(pts) == 6
    keys = ["label", "driver", "driver_options.tls", "data_path", "bootstrap",
            "env.OMPI_MCA_pml", "env.OMPI_MCA_btl", "fragment.size"]
    assert all(list(p.values) == keys for p in pts)
    tcp, ucx, mpi = pts[0], pts[2], pts[4]
    assert tcp.values == dict(dict.fromkeys(keys), label="tcp", driver="tcp", **{"fragment.size": "64KiB"})
    assert tcp.values["driver_options.tls"] is None and "driver_options" not in tcp.config
    assert "data_path" not in tcp.config and tcp.env == {"OMPI_MCA_btl_tcp_if_include": "lo"}
    assert ucx.config["driver_options"] == {"tls": "sm"} and ucx.config["data_path"] == "write"
    assert ucx.values["driver_options.tls"] == "sm"
    assert mpi.env == {"OMPI_MCA_btl_tcp_if_include": "lo", "OMPI_MCA_pml": "ob1", "OMPI_MCA_btl": "self,tcp"}
    assert "env" not in mpi.config and "label" not in mpi.config
    assert mpi.label() == ("label=mpi-tcp-btl, driver=mpi, bootstrap=mpi, env.OMPI_MCA_pml=ob1, "
                           "env.OMPI_MCA_btl=self,tcp, fragment.size=64KiB")
    assert all(not isinstance(v, (dict, list)) for p in pts for v in p.values.values())


def test_driver_options_maps_and_tilde_are_flattened(points_of):
    # A map (or a list of maps) for driver_options becomes driver_options.KEY.
    pts = points_of("axes:\n  zip:\n    driver: [tcp, ucx, ucx]\n"
                    "    driver_options: [{}, {tls: sm}, {tls: tcp, devices: lo}]\n")
    assert [p.values for p in pts] == [
        {"driver": "tcp", "driver_options.tls": None, "driver_options.devices": None},
        {"driver": "ucx", "driver_options.tls": "sm", "driver_options.devices": None},
        {"driver": "ucx", "driver_options.tls": "tcp", "driver_options.devices": "lo"}]
    assert "driver_options" not in pts[0].config
    pts = points_of("config: {driver: ucx}\naxes:\n  driver_options: {tls: sm}\n")
    assert pts[0].values == {"driver_options.tls": "sm"} and pts[0].config["driver_options"] == {"tls": "sm"}
    # ~ (null) in a plain axis: the key is not set for that point.
    pts = points_of("config: {driver_options: {tls: sm}}\naxes:\n  zip:\n    driver: [tcp, ucx]\n"
                    "    driver_options.tls: [~, tcp]\n")
    assert "driver_options" not in pts[0].config and pts[0].label() == "driver=tcp"
    assert pts[1].config["driver_options"] == {"tls": "tcp"}


def test_variants_zip_with_an_axis_and_wrapper_is_resolved(tmp_path, schema):
    os.makedirs(str(tmp_path / "bin"))
    tool = write(tmp_path / "bin" / "wrap.sh", "#!/bin/sh\nexec \"$@\"\n")
    os.chmod(tool, 0o755)
    scan = grammar.load_scan(write(tmp_path / "s.yaml",
                                   "axes:\n  zip:\n    variants:\n      - {driver: tcp}\n"
                                   "      - {driver: psm2, wrapper: bin/wrap.sh -v}\n"
                                   "    credits: [1, 2]\n"), schema)
    pts = expand.expand(scan)
    assert pts[0].wrapper is None and pts[1].wrapper == [tool, "-v"]
    assert pts[1].values == {"driver": "psm2", "wrapper": "bin/wrap.sh -v", "credits": 2}
    scan = grammar.load_scan(write(tmp_path / "t.yaml",
                                   "axes:\n  variants:\n    - {driver: psm2, wrapper: nowhere/x.sh}\n"), schema)
    with pytest.raises(ScanError) as err:
        expand.expand(scan)
    assert "t.yaml:3" in str(err.value) and "no such program" in str(err.value)


@pytest.mark.parametrize("text, line, col, fragment", [
    ("axes:\n  variants: {driver: tcp}\n", 2, 13, "expected a list of partial configurations"),
    ("axes:\n  variants: []\n", 2, 3, "needs at least one variant"),
    ("axes:\n  variants:\n    - tcp\n", 3, 7, "axes.variants[0]: expected a map of config keys"),
    ("axes:\n  variants:\n    - {driver: tcp}\n    - {}\n", 4, 7, "an empty variant sets nothing"),
    ("axes:\n  variants:\n    - {driver: tcp, faults: [1]}\n", 3, 29, "values must be scalars or null"),
    ("axes:\n  variants:\n    - {driver: tcp}\n    - {driver: tcp}\n", 4, 7, "the same as variant 0"),
    ("axes:\n  variants:\n    - {name: a, driver: tcp}\n    - {name: a, driver: mpi}\n", 4, 7,
     "name 'a' is used by variant 0 too"),
    ("axes:\n  variants:\n    - {driver: tcp, env: [A]}\n", 3, 26, "expected a mapping"),
    ("axes:\n  variants:\n    - {driver: tcp, wrapper: {a: 1}}\n", 3, 30, "expected a command"),
    ("axes:\n  driver: [tcp]\n  variants:\n    - {driver: mpi}\n", 4, 8,
     "driver: axis appears more than once (first at line 2"),
    ("axes:\n  driver_options.tls: [sm]\n  variants:\n    - {driver_options: {tls: tcp}}\n", 4, 25,
     "axis appears more than once"),
    ("axes:\n  zip:\n    variants:\n      - {driver: tcp}\n    credits: [1, 2]\n", 2, 3,
     "same number of values (variants has 1, credits has 2)"),
    ("axes:\n  wrapper: [a.sh]\n", 2, 3, "set inside a variants entry"),
])
def test_bad_variants_name_key_line_and_column(schema, text, line, col, fragment):
    with pytest.raises(ScanError) as err:
        parse_scan(text, "bad.yaml", schema)
    assert (err.value.line, err.value.column) == (line, col), str(err.value)
    assert fragment in str(err.value)
