"""`evbench-scan check` on invalid points: skip_invalid is suggested only when
it leaves points to run (a typo'd key fails every point: the message names the
key meant instead)."""
import os
import subprocess

from conftest import CLI


def check(tmp_path, evbench, axes):
    path = tmp_path / "scan.yaml"
    path.write_text("name: advice\nconfig:\n  duration: 1s\naxes:\n" + axes)
    env = dict(os.environ, EVBENCH=evbench)
    return subprocess.run([CLI, "check", str(path)], capture_output=True, text=True, env=env,
                          timeout=60)


def test_typo_in_every_point_suggests_the_key_not_skip_invalid(tmp_path, evbench):
    proc = check(tmp_path, evbench, "  credit: [2, 4]\n")
    assert proc.returncode == 2, proc.stderr
    assert "did you mean 'credits'?" in proc.stderr
    assert "add 'skip_invalid: true'" not in proc.stderr
    assert "no point is valid" in proc.stderr


def test_some_valid_points_suggest_skip_invalid_with_the_counts(tmp_path, evbench):
    proc = check(tmp_path, evbench, "  nodes: [2, 3]\n  credits: [2, 4000000]\n")
    assert proc.returncode == 2, proc.stderr
    assert "drop the 2 invalid points and run the 2 valid ones" in proc.stderr
    assert "got 4000000" in proc.stderr or "got 4e+06" in proc.stderr


def test_typo_in_a_scan_key_names_the_key_meant(tmp_path, evbench):
    path = tmp_path / "scan.yaml"
    path.write_text("name: advice\nconfig:\n  duration: 1s\naxs:\n  credits: [2, 4]\n")
    proc = subprocess.run([CLI, "check", str(path)], capture_output=True, text=True,
                          env=dict(os.environ, EVBENCH=evbench), timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert "unknown scan key 'axs' (did you mean 'axes'?)" in proc.stderr
    assert "skip_invalid: true" not in proc.stderr
