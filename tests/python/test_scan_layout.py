"""The scan package's shape (docs/ARCHITECTURE.md): sub-packages by job,
each importing only those below it (spec/ <- results/ <- report/ <- run/ <-
cli), no import cycle between modules (function-local imports counted), no
module over 400 lines, and every module importable on its own, in a fresh
interpreter, without another of the package's modules imported first."""
import ast
import os
import subprocess
import sys

import pytest

from conftest import SCAN_DIR

PACKAGE = os.path.join(SCAN_DIR, "evbench_scan")
MAX_LINES = 400
# Each sub-package may import from itself and those before it; "" is the
# package's top level (cli, version).
LAYERS = ("spec", "results", "report", "run", "")


def modules():
    """{dotted name: path} of every module of the package."""
    out = {}
    for folder, dirs, files in os.walk(PACKAGE):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                rel = os.path.relpath(os.path.join(folder, name), SCAN_DIR)[:-3].split(os.sep)
                if rel[-1] == "__init__":
                    rel = rel[:-1]
                out[".".join(rel)] = os.path.join(folder, name)
    return out


MODULES = modules()


def sub_package(module):
    """'evbench_scan.report.plots' -> 'report'; top-level modules -> ''."""
    parts = module.split(".")
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and parts[1] in LAYERS) else ""


def imports_of(module, modules=None):
    """The package's modules `module` imports anywhere in its text (function-local too)."""
    modules = modules or MODULES
    path = modules[module]
    package = module if path.endswith("__init__.py") else module.rsplit(".", 1)[0]
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package.split(".")
            base = base[:len(base) - node.level + 1]
            target = ".".join(base + ([node.module] if node.module else []))
            for alias in node.names:
                child = target + "." + alias.name
                out.add(child if child in modules else target)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            out.update(n for n in names if n.split(".")[0] == "evbench_scan")
    return {m for m in out if m in modules and m != module}


def test_the_walk_finds_every_sub_package():
    found = {sub_package(m) for m in MODULES}
    assert found == set(LAYERS)
    assert len(MODULES) > len(LAYERS)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_module_is_over_400_lines(module):
    with open(MODULES[module]) as f:
        lines = sum(1 for _ in f)
    assert lines <= MAX_LINES, "%s: %d lines" % (MODULES[module], lines)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_point_down_only(module):
    """A module imports its own sub-package and those below it, never one above."""
    mine = LAYERS.index(sub_package(module))
    upward = sorted(m for m in imports_of(module) if LAYERS.index(sub_package(m)) > mine)
    assert upward == [], "%s imports %s" % (module, upward)


def test_no_import_cycle():
    graph = {m: imports_of(m) for m in MODULES}
    state = {}

    def visit(m, path):
        if state.get(m) == "done":
            return
        assert state.get(m) != "open", "import cycle: %s" % " -> ".join(path[path.index(m):] + [m])
        state[m] = "open"
        for n in sorted(graph[m]):
            visit(n, path + [m])
        state[m] = "done"

    for m in sorted(graph):
        visit(m, [])


def test_imports_of_sees_function_local_and_relative_imports(tmp_path):
    """The checks above read imports inside functions too (where the old
    grammar <-> expand cycle hid) and resolve `..` against the module's package."""
    (tmp_path / "a.py").write_text("def f():\n    from ..spec import expand\n    from .b import g\n")
    (tmp_path / "b.py").write_text("import evbench_scan.spec.grammar\n")
    known = {"evbench_scan.run.a": str(tmp_path / "a.py"), "evbench_scan.run.b": str(tmp_path / "b.py"),
             "evbench_scan.spec.expand": "", "evbench_scan.spec.grammar": ""}
    assert imports_of("evbench_scan.run.a", known) == {"evbench_scan.spec.expand", "evbench_scan.run.b"}
    assert imports_of("evbench_scan.run.b", known) == {"evbench_scan.spec.grammar"}


@pytest.mark.parametrize("module", sorted(MODULES))
def test_each_module_imports_on_its_own(module):
    code = "import %s" % module
    proc = subprocess.run([sys.executable, "-c", code], cwd=SCAN_DIR, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True, timeout=120,
                          env=dict(os.environ, PYTHONPATH=SCAN_DIR, PYTHONDONTWRITEBYTECODE="1"))
    assert proc.returncode == 0, proc.stderr
