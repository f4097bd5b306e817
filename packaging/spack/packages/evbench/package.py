# Spack recipe for evbench (docs/INSTALL.md "Site libraries, modules and
# Spack"). Untested against a real Spack: this project's machines have none.
# tests/python/test_spack_recipe.py checks only that it is valid Python and
# that its variants map onto CMake options that exist.

import os

from spack.package import *


class Evbench(CMakePackage):
    """Protocol-independent event-building evaluator for particle-physics
    data acquisition: credit-based PULL and PUSH event building over
    interchangeable network libraries (TCP, MPI, libfabric, UCX, PSM2, verbs),
    with evbench-scan for parameter scans and reports."""

    # The clone this recipe came from (packaging/spack/packages/evbench/ is
    # four levels below its root); point `git` at your site's copy of the
    # repository instead if you copy the recipe elsewhere, or build a working
    # tree with `spack develop` (docs/INSTALL.md).
    homepage = "file://" + os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
    git = homepage

    version("main", branch="main")

    # One variant per driver whose library is optional; tcp is always built.
    variant("mpi", default=True, description="mpi driver and bootstrap (any MPI; Open MPI tested)")
    variant("libfabric", default=True, description="libfabric driver (verbs, psm2/3, efa, cxi, tcp, shm providers)")
    variant("ucx", default=True, description="UCX driver (rc, ud, dc, tcp, shared memory)")
    variant("verbs", default=False, description="native verbs driver (rdma-core: libibverbs, librdmacm)")
    variant("psm2", default=False, description="PSM2 driver (Omni-Path)")
    variant("sim", default=False, description="evbench sim: the SimGrid/SMPI build, installed under libexec/evbench")
    variant("scan", default=True, description="the Python run-time dependencies of evbench-scan (reports: matplotlib, Jinja2)")

    generator("ninja")

    depends_on("cmake@3.22:", type="build")
    depends_on("ninja", type="build")
    depends_on("pkgconfig", type="build")
    depends_on("yaml-cpp")
    depends_on("mpi", when="+mpi")
    depends_on("libfabric", when="+libfabric")
    depends_on("ucx", when="+ucx")
    depends_on("rdma-core", when="+verbs")
    depends_on("opa-psm2", when="+psm2")
    depends_on("simgrid", when="+sim")
    depends_on("googletest", type="test")
    depends_on("python@3.9:", type=("build", "run"))
    depends_on("py-pyyaml", type="run", when="+scan")
    depends_on("py-jinja2", type="run", when="+scan")
    depends_on("py-matplotlib", type="run", when="+scan")

    # variant -> EVBENCH_WITH_<DRIVER> (src/drivers/<driver>/CMakeLists.txt).
    # ON, not AUTO: a library Spack provided but CMake cannot find is an
    # error, not a driver silently left out.
    DRIVERS = ("mpi", "libfabric", "ucx", "verbs", "psm2")

    def cmake_args(self):
        args = [self.define("EVBENCH_WITH_TCP", "ON"), self.define("EVBENCH_TESTS", self.run_tests)]
        for driver in self.DRIVERS:
            on = self.spec.satisfies("+" + driver)
            args.append(self.define("EVBENCH_WITH_" + driver.upper(), "ON" if on else "OFF"))
        if self.spec.satisfies("+mpi"):
            args.append(self.define("MPI_C_COMPILER", self.spec["mpi"].mpicc))
        return args

    @run_after("install")
    def use_spack_python(self):
        """evbench-scan's shebang names /usr/bin/python3; use Spack's python."""
        launcher = join_path(self.prefix.bin, "evbench-scan")
        if os.path.exists(launcher):
            filter_file(r"^#!.*python3?\s*$", "#!" + self.spec["python"].command.path, launcher)

    @run_after("install")
    def install_sim(self):
        """The SMPI build is a second CMake tree (compiled with smpicxx,
        EVBENCH_SIM=ON) installed into the same prefix, where the installed
        evbench finds it (libexec/evbench)."""
        if not self.spec.satisfies("+sim"):
            return
        cmake = which("cmake")
        sim_build = join_path(self.stage.path, "build-sim")
        cmake("-S", self.stage.source_path, "-B", sim_build, "-G", "Ninja",
              "-DCMAKE_BUILD_TYPE=RelWithDebInfo", "-DEVBENCH_SIM=ON", "-DEVBENCH_TESTS=OFF",
              "-DCMAKE_INSTALL_PREFIX=" + self.prefix)
        cmake("--build", sim_build, "-j", str(make_jobs))
        cmake("--install", sim_build)
