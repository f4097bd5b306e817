"""The scan tool's share of the command-line traps (issue 37 item 8): sizes are
refused with evbench's own reason, and a Python module this Python lacks is
named with the package to install instead of a traceback."""
import subprocess
import sys

import pytest

import synthetic
from conftest import CLI, REPO


def evbench_reason(evbench, text):
    """evbench's reason for refusing `fragment.size=TEXT` (after 'fragment.size: ')."""
    proc = subprocess.run([evbench, "validate", "--set", "fragment.size=" + text], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True, timeout=30)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    return proc.stderr.strip().split("fragment.size: ", 2)[-1]


def test_size_units_are_refused_as_evbench_refuses_them(evbench, schema):
    # 64K: evbench says "ambiguous" (KiB or KB?); the scan tool said "unknown".
    for text in ("64K", "64k", "1M", "2G", "1T"):
        with pytest.raises(ValueError) as err:
            schema.parse_size(text)
        assert str(err.value) == evbench_reason(evbench, text), text
        assert str(err.value).startswith("ambiguous size unit"), text
    for text in ("12 parsecs", "4m", "1PiB"):
        with pytest.raises(ValueError) as err:
            schema.parse_size(text)
        assert str(err.value).startswith("unknown size unit"), text
        assert evbench_reason(evbench, text).startswith(str(err.value).split(" (use ")[0]), text


def run_without(module, args):
    """evbench-scan ARGS under this Python with `module` made unimportable."""
    code = ("import runpy, sys; sys.modules[%r] = None; sys.argv = %r; "
            "runpy.run_path(%r, run_name='__main__')" % (module, [CLI] + list(args), CLI))
    return subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=60, cwd=REPO)


def test_report_without_matplotlib_names_the_package(tmp_path):
    points = [({"credits": c}, synthetic.result("tcp", x, credits=c)) for c, x in ((1, 20.0), (2, 30.0))]
    out = synthetic.campaign(tmp_path / "camp", points, ["credits"])
    proc = run_without("matplotlib", ["report", out, "-o", str(tmp_path / "rep")])
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.startswith("evbench-scan: the Python module matplotlib is missing"), proc.stderr
    assert "apt-get install python3-matplotlib" in proc.stderr, proc.stderr


def test_missing_yaml_names_the_package(tmp_path):
    proc = run_without("yaml", ["--help"])
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    assert "the Python module yaml is missing" in proc.stderr, proc.stderr
    assert "apt-get install python3-yaml" in proc.stderr and "pip install PyYAML" in proc.stderr, proc.stderr
