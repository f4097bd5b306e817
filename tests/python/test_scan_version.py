"""`evbench-scan --version` prints evbench's version, taken from the one place
it is written (the project() line of the top-level CMakeLists.txt)."""
import os
import re
import subprocess
import sys

from conftest import CLI, REPO


def project_version():
    with open(os.path.join(REPO, "CMakeLists.txt")) as f:
        return re.search(r"^project\(evbench\s+VERSION\s+([0-9.]+)", f.read(), re.M).group(1)


def test_version_is_the_project_version():
    proc = subprocess.run([sys.executable, CLI, "--version"], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True, timeout=30)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "evbench-scan %s\n" % project_version()


def test_installed_package_reads_its_version_file(tmp_path):
    """An installed package has no CMakeLists.txt above it: the install writes
    _version.py, and that is what --version prints."""
    pkg = tmp_path / "python" / "evbench_scan"
    pkg.mkdir(parents=True)
    src = os.path.join(REPO, "scan", "evbench_scan")
    for name in ("__init__.py", "version.py"):
        with open(os.path.join(src, name)) as f:
            (pkg / name).write_text(f.read())
    (pkg / "_version.py").write_text('VERSION = "9.8.7"\n')
    code = "import evbench_scan.version as v; print(v.version())"
    proc = subprocess.run([sys.executable, "-c", code], cwd=str(tmp_path / "python"),
                          stdout=subprocess.PIPE, universal_newlines=True, timeout=30)
    assert proc.stdout == "9.8.7\n"
    (pkg / "_version.py").unlink()
    proc = subprocess.run([sys.executable, "-c", code], cwd=str(tmp_path / "python"),
                          stdout=subprocess.PIPE, universal_newlines=True, timeout=30)
    assert proc.stdout == "unknown\n"
