"""Scan grammar: expansion (matrix, zip, ranges, repeats) and rejection with line numbers."""
import pytest

from conftest import FAKE, write
from evbench_scan import expand, grammar, units
from evbench_scan.grammar import ScanError, parse_scan


def points_of(text, path="scan.yaml"):
    return expand.expand(parse_scan(text, path))


def test_units_round_trip():
    assert units.parse_size("512KiB") == 524288
    assert units.parse_size("1.5MiB") == 1572864
    assert units.parse_size("2GB") == 2 * 10 ** 9
    assert units.parse_size(4096) == 4096
    assert units.format_size(524288) == "512KiB"
    assert units.format_size(1000) == "1000"
    assert units.parse_duration("250ms") == 0.25
    assert units.parse_duration("2min") == 120
    assert units.format_hms(3725) == "01:02:05"
    with pytest.raises(ValueError):
        units.parse_size("12 parsecs")


def test_matrix_is_cartesian_product_last_axis_fastest():
    pts = points_of("axes:\n  credits: [1, 2]\n  parallel: [1, 2, 4]\n")
    assert [(p.values["credits"], p.values["parallel"]) for p in pts] == [
        (1, 1), (1, 2), (1, 4), (2, 1), (2, 2), (2, 4)]
    assert [p.id for p in pts][:2] == ["p0001", "p0002"]


def test_zip_is_lock_step_inside_matrix():
    pts = points_of("axes:\n  scheduling: [barrel, random]\n"
                    "  zip:\n    nodes: [2, 4, 8]\n    parallel: [2, 4, 8]\n")
    assert len(pts) == 6
    assert all(p.values["nodes"] == p.values["parallel"] for p in pts)
    assert pts[3].values == {"scheduling": "random", "nodes": 2, "parallel": 2}


def test_nested_groups_and_list_of_zips():
    pts = points_of("axes:\n  zip:\n    - {credits: [1, 2], parallel: [1, 2]}\n"
                    "    - {nodes: [4, 8], fragment.size: [64KiB, 1MiB]}\n")
    assert len(pts) == 4
    assert pts[0].config["fragment"]["size"] == "64KiB"
    assert pts[-1].values == {"credits": 2, "parallel": 2, "nodes": 8, "fragment.size": "1MiB"}


def test_ranges_factor_step_and_durations():
    pts = points_of("axes:\n  fragment.size: {from: 64KiB, to: 4MiB, factor: 2}\n")
    assert [p.values["fragment.size"] for p in pts] == [
        "64KiB", "128KiB", "256KiB", "512KiB", "1MiB", "2MiB", "4MiB"]
    pts = points_of("axes:\n  credits: {from: 1, to: 8, step: 1}\n")
    assert [p.values["credits"] for p in pts] == list(range(1, 9))
    pts = points_of("axes:\n  duration: {from: 500ms, to: 2s, step: 500ms}\n")
    assert [p.values["duration"] for p in pts] == ["500ms", "1s", "1.5s", "2s"]


def test_repeats_base_and_inline_config(tmp_path):
    write(tmp_path / "base.yaml", "nodes: 4\nfragment:\n  size: 1MiB\ndriver: tcp\n")
    scan = grammar.load_scan(write(tmp_path / "s.yaml",
                                   "base: base.yaml\nconfig:\n  fragment.size: 256KiB\n  credits: 2\n"
                                   "repeats: 3\naxes:\n  driver: [tcp, mpi]\n  driver_options.eager: [1, 2]\n"))
    pts = expand.expand(scan)
    assert len(pts) == 12
    assert [p.repeat for p in pts[:4]] == [0, 1, 2, 0]
    assert pts[0].config["fragment"] == {"size": "256KiB"}
    assert pts[0].config["nodes"] == 4 and pts[0].config["credits"] == 2
    assert pts[-1].config["driver"] == "mpi" and pts[-1].config["driver_options"] == {"eager": 2}
    assert "(repeat 3)" in pts[2].label()


def test_no_axes_is_one_point():
    pts = points_of("config: {credits: 2}\n")
    assert len(pts) == 1 and pts[0].values == {}


@pytest.mark.parametrize("text, line, fragment", [
    ("config: {credits: 2}\naxis:\n  credits: [1]\n", 2, "unknown scan key 'axis'"),
    ("axes:\n  credits: [1, 2]\n  parallel: {from: 1, to: 8}\n", 3, "exactly one of factor or step"),
    ("axes:\n  fragment.size: {from: 1MiB, to: 64KiB, factor: 2}\n", 2, "larger than to"),
    ("axes:\n  credits: {from: 1, to: 8, factor: 1}\n", 2, "factor must be greater than 1"),
    ("axes:\n  matrix:\n    credits: [1]\n  zip:\n    nodes: [2, 4]\n    parallel: [2]\n", 4,
     "same number of values (nodes has 2, parallel has 1)"),
    ("axes:\n  credits: [1]\n  matrix:\n    credits: [2]\n", 2, "more than once"),
    ("axes:\n  credits: []\n", 2, "at least one value"),
    ("repeats: 0\n", 1, "positive integer"),
    ("axes:\n  credits: [1, 2\n", 3, "not valid YAML"),
    ("base: nowhere.yaml\n", 1, "no such file"),
    ("cluster:\n  launcher: ssh\n", 2, "must be one of"),
    ("axes:\n  credits: [[1, 2]]\n", 2, "scalars"),
])
def test_bad_scans_name_key_and_line(text, line, fragment):
    with pytest.raises(ScanError) as err:
        parse_scan(text, "bad.yaml")
    assert err.value.line == line, str(err.value)
    assert fragment in str(err.value)
    assert str(err.value).startswith("bad.yaml:%d:" % line)


def test_invalid_point_is_mapped_back_to_the_scan_line(tmp_path):
    scan = grammar.load_scan(write(tmp_path / "s.yaml",
                                   "config:\n  nodes: 4\naxes:\n  parallel: [2]\n  credits: [0, 1]\n"))
    with pytest.raises(ScanError) as err:
        expand.validated_points(scan, FAKE)
    text = str(err.value)
    assert "s.yaml:5: credits: must be between 1 and 1024" in text
    assert "[1 point: p0001 (parallel=2, credits=0)]" in text
    assert "p0002" not in text


def test_contradictory_points_skipped_or_rejected(tmp_path):
    body = "config:\n  nodes: 4\naxes:\n  nodes: [2, 4]\n  parallel: [2, 4]\n"
    scan = grammar.load_scan(write(tmp_path / "s.yaml", body))
    with pytest.raises(ScanError) as err:
        expand.validated_points(scan, FAKE)
    assert "s.yaml:5: parallel: must be <= nodes" in str(err.value)
    assert "[1 point: p0002 (nodes=2, parallel=4)]" in str(err.value)
    scan = grammar.load_scan(write(tmp_path / "t.yaml", "skip_invalid: true\n" + body))
    kept = expand.validated_points(scan, FAKE)
    assert [p.id for p in kept] == ["p0001", "p0003", "p0004"]


def test_builtin_checks_without_evbench(tmp_path):
    scan = grammar.load_scan(write(tmp_path / "s.yaml", "config:\n  credts: 2\n"))
    with pytest.raises(ScanError) as err:
        expand.validated_points(scan, None)
    assert "s.yaml:2: credts: unknown key" in str(err.value)
    assert "p0001 (base config)" in str(err.value)


def test_examples_expand(tmp_path):
    import os
    from conftest import REPO
    counts = {}
    for name in ("paper", "drivers", "scaling-slurm"):
        scan = grammar.load_scan(os.path.join(REPO, "scan", "examples", name + ".yaml"))
        counts[name] = len(expand.validated_points(scan, FAKE))
    assert counts == {"paper": 27, "drivers": 12, "scaling-slurm": 12}
