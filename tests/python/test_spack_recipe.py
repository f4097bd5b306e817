"""The Spack recipe (packaging/spack/packages/evbench/package.py) is valid
Python and maps its variants onto CMake options that exist.

Spack is not installed here, so this is a syntax and mapping check ONLY: the
recipe is imported against a stub of the few `spack.package` names it uses
(directives record their arguments; `define` formats as Spack's does), and
cmake_args() is called with stub specs. It says nothing about whether Spack
concretizes or builds it (docs/INSTALL.md says the recipe is untested against
a real Spack).
"""
import glob
import importlib.util
import os
import re
import sys
import types

import pytest

from conftest import REPO

RECIPE = os.path.join(REPO, "packaging", "spack", "packages", "evbench", "package.py")


# --- the stub: directives record, CMakePackage.define formats ------------------------------------

class Recorded:
    def __init__(self):
        self.calls = []

    def directive(self, name):
        def record(*args, **kwargs):
            self.calls.append((name, args, kwargs))
            return lambda f: f   # also usable as a decorator (run_after)
        return record

    def of(self, name):
        return [(a, k) for n, a, k in self.calls if n == name]


class StubSpec:
    def __init__(self, variants):
        self.variants = set(variants)

    def satisfies(self, constraint):
        return constraint.startswith("+") and constraint[1:] in self.variants

    def __getitem__(self, name):
        return types.SimpleNamespace(mpicc="/spack/mpi/bin/mpicc", command=types.SimpleNamespace(path="/spack/py"))


class StubCMakePackage:
    run_tests = False

    def define(self, name, value):
        if isinstance(value, bool):
            return "-D%s:BOOL=%s" % (name, "ON" if value else "OFF")
        return "-D%s:STRING=%s" % (name, value)


def load_recipe():
    rec = Recorded()
    stub = types.ModuleType("spack.package")
    stub.CMakePackage = StubCMakePackage
    for name in ("version", "variant", "depends_on", "generator", "run_after", "conflicts", "maintainers",
                 "license"):
        setattr(stub, name, rec.directive(name))
    stub.join_path = os.path.join
    stub.__all__ = [n for n in dir(stub) if not n.startswith("_")]
    spack = types.ModuleType("spack")
    spack.package = stub
    saved = {k: sys.modules.get(k) for k in ("spack", "spack.package")}
    sys.modules.update({"spack": spack, "spack.package": stub})
    try:
        spec = importlib.util.spec_from_file_location("evbench_spack_recipe", RECIPE)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        for k, v in saved.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v
    return module, rec


def cmake_options():
    """The EVBENCH_* cache options the CMake sources define: option() in the
    top-level and src/ CMake files, EVBENCH_WITH_<D> per driver folder."""
    names = set()
    sources = [os.path.join(REPO, "CMakeLists.txt")] + glob.glob(os.path.join(REPO, "src", "**", "CMakeLists.txt"),
                                                                  recursive=True)
    for path in sources:
        with open(path) as f:
            text = f.read()
        names.update(re.findall(r"^\s*option\((EVBENCH_\w+)", text, re.M))
        names.update("EVBENCH_WITH_" + d.upper() for d in re.findall(r"^evbench_driver_option\((\w+)\)", text, re.M))
    return names


def args_for(module, variants, run_tests=False):
    package = module.Evbench()
    package.spec = StubSpec(variants)
    package.run_tests = run_tests
    return package.cmake_args()


# --- the checks ---------------------------------------------------------------------------------

def test_every_driver_variant_maps_to_an_existing_option():
    module, rec = load_recipe()
    options = cmake_options()
    variants = {a[0] for a, _ in rec.of("variant")}
    drivers = {"EVBENCH_WITH_" + v.upper() for v in variants if "EVBENCH_WITH_" + v.upper() in options}
    # every driver option except tcp (always built) has its variant, and nothing else is called a driver
    assert drivers == {o for o in options if o.startswith("EVBENCH_WITH_")} - {"EVBENCH_WITH_TCP"}
    assert set(module.Evbench.DRIVERS) == {d[len("EVBENCH_WITH_"):].lower() for d in drivers}
    assert {"sim", "scan"} <= variants
    assert "EVBENCH_SIM" in options and "EVBENCH_TESTS" in options


@pytest.mark.parametrize("variants", [set(), {"mpi"}, {"mpi", "libfabric", "ucx", "verbs", "psm2"},
                                      {"ucx", "psm2"}])
def test_cmake_args_follow_the_variants(variants):
    module, _ = load_recipe()
    args = args_for(module, variants)
    options = cmake_options()
    for arg in args:
        assert re.match(r"-D\w+:(STRING|BOOL)=", arg), arg
        name = arg[2:].split(":")[0]
        assert name in options or name == "MPI_C_COMPILER", arg
    assert "-DEVBENCH_WITH_TCP:STRING=ON" in args
    for driver in module.Evbench.DRIVERS:
        want = "ON" if driver in variants else "OFF"
        assert "-DEVBENCH_WITH_%s:STRING=%s" % (driver.upper(), want) in args
    assert ("-DMPI_C_COMPILER:STRING=/spack/mpi/bin/mpicc" in args) == ("mpi" in variants)
    assert "-DEVBENCH_TESTS:BOOL=OFF" in args
    assert "-DEVBENCH_TESTS:BOOL=ON" in args_for(module, variants, run_tests=True)


def test_dependencies_use_spack_names():
    _, rec = load_recipe()
    deps = {a[0].split("@")[0]: k for a, k in rec.of("depends_on")}
    for name, when in [("mpi", "+mpi"), ("libfabric", "+libfabric"), ("ucx", "+ucx"), ("rdma-core", "+verbs"),
                       ("opa-psm2", "+psm2"), ("simgrid", "+sim"), ("py-matplotlib", "+scan"),
                       ("py-jinja2", "+scan"), ("py-pyyaml", "+scan")]:
        assert deps[name].get("when") == when, name
    for name in ("yaml-cpp", "cmake", "ninja", "python", "googletest"):
        assert name in deps
    assert deps["googletest"].get("type") == "test"
