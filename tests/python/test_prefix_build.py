"""Building against libraries outside the system prefix (issue 26 item 2;
docs/INSTALL.md "Site libraries, modules and Spack").

A site module or Spack puts libfabric, UCX, ... under their own prefixes while
Debian's copies may still be in /usr. This test copies the system's libfabric
(headers, shared library, libfabric.pc with its prefix rewritten) and libpsm2
(headers and library; it has no .pc) into temporary prefixes, and shows that
CMake takes the copies, not /usr, when pointed at them:

- PKG_CONFIG_PATH: configures with only the libfabric driver, builds its
  module (lib/evbench/libevbench-libfabric.so) and checks that the compile
  commands name <prefix>/include, that the headers the compiler actually read
  (ninja's recorded dependencies) are the copy's, that the link line names
  <prefix>/lib/libfabric.so, and that the module's RUNPATH and ldd resolve
  libfabric.so.1 in <prefix>/lib;
- LIBFABRIC_ROOT / PSM2_ROOT and CMAKE_PREFIX_PATH: configure only, and the
  found paths in CMakeCache.txt are the copies';
- nothing set: the same configure finds /usr (so the copies won by the
  settings above, not by accident).
"""
import glob
import json
import os
import re
import shutil
import subprocess

import pytest

from conftest import REPO

DRIVERS = ["TCP", "MPI", "LIBFABRIC", "UCX", "VERBS", "PSM2"]


def run(args, env=None, timeout=600, cwd=None):
    """Run a command in its own process group; its output in the assertion on failure."""
    full_env = dict(os.environ)
    for k in ("PKG_CONFIG_PATH", "CMAKE_PREFIX_PATH", "LIBFABRIC_ROOT", "PSM2_ROOT"):
        full_env.pop(k, None)   # only what the test sets
    full_env.update(env or {})
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True,
                            env=full_env, cwd=cwd, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
    except BaseException:
        os.killpg(proc.pid, 9)
        proc.communicate()
        raise
    assert proc.returncode == 0, "%s: exit %d\n%s" % (" ".join(args), proc.returncode, out[-4000:])
    return out


def system_paths():
    """Where the system's libfabric and libpsm2 are (skip when absent)."""
    if not shutil.which("pkg-config") or subprocess.call(["pkg-config", "--exists", "libfabric"]) != 0:
        pytest.skip("no libfabric.pc on this system (libfabric-dev)")
    var = lambda name: subprocess.check_output(["pkg-config", "--variable=" + name, "libfabric"],
                                               universal_newlines=True).strip()
    libdir, includedir = var("libdir"), var("includedir")
    psm2_header = os.path.join(includedir, "psm2_mq.h")
    if not os.path.exists(psm2_header) or not glob.glob(os.path.join(libdir, "libpsm2.so*")):
        pytest.skip("no libpsm2-dev on this system")
    return libdir, includedir


def copy_libfabric(libdir, includedir, prefix):
    """libfabric's headers, shared library and .pc (prefix rewritten) under PREFIX."""
    os.makedirs(os.path.join(prefix, "lib", "pkgconfig"))
    shutil.copytree(os.path.join(includedir, "rdma"), os.path.join(prefix, "include", "rdma"), symlinks=True)
    for path in glob.glob(os.path.join(libdir, "libfabric.so*")):
        shutil.copy2(path, os.path.join(prefix, "lib"), follow_symlinks=False)
    pc_dir = subprocess.check_output(["pkg-config", "--variable=pcfiledir", "libfabric"],
                                     universal_newlines=True).strip()
    with open(os.path.join(pc_dir, "libfabric.pc")) as f:
        pc = f.read()
    pc = re.sub(r"(?m)^prefix=.*$", "prefix=" + prefix, pc)
    pc = re.sub(r"(?m)^libdir=.*$", "libdir=${prefix}/lib", pc)
    pc = re.sub(r"(?m)^includedir=.*$", "includedir=${prefix}/include", pc)
    with open(os.path.join(prefix, "lib", "pkgconfig", "libfabric.pc"), "w") as f:
        f.write(pc)


def copy_psm2(libdir, includedir, prefix):
    """libpsm2's headers and shared library under PREFIX (libpsm2 ships no .pc)."""
    os.makedirs(os.path.join(prefix, "include"))
    os.makedirs(os.path.join(prefix, "lib"))
    for name in ("psm2.h", "psm2_mq.h", "psm2_am.h"):
        shutil.copy2(os.path.join(includedir, name), os.path.join(prefix, "include"))
    for path in glob.glob(os.path.join(libdir, "libpsm2.so*")):
        shutil.copy2(path, os.path.join(prefix, "lib"), follow_symlinks=False)


def configure(build, drivers_on, env=None, defines=()):
    # Debug with no flags: -O0 and no debug info, the quickest build.
    args = ["cmake", "-S", REPO, "-B", build, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Debug", "-DCMAKE_CXX_FLAGS_DEBUG=",
            "-DEVBENCH_TESTS=OFF", "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON"]
    args += ["-DEVBENCH_WITH_%s=%s" % (d, "ON" if d in drivers_on else "OFF") for d in DRIVERS]
    args += list(defines)
    run(args, env=env)
    cache = {}
    with open(os.path.join(build, "CMakeCache.txt")) as f:
        for line in f:
            m = re.match(r"^([^#/][^:=]*):[A-Z]+=(.*)$", line.rstrip("\n"))
            if m:
                cache[m.group(1)] = m.group(2)
    return cache


def found(cache):
    """What the libfabric and psm2 finds picked."""
    return {"libfabric library": cache.get("pkgcfg_lib_LIBFABRIC_fabric", ""),
            "libfabric include": cache.get("LIBFABRIC_INCLUDE_DIRS", ""),
            "psm2 library": cache.get("PSM2_LIBRARY", ""),
            "psm2 include": cache.get("PSM2_INCLUDE_DIR", "")}


@pytest.mark.timeout(900)
def test_settings_pick_the_copies_and_nothing_set_picks_the_system(tmp_path):
    libdir, includedir = system_paths()
    lf, psm2 = str(tmp_path / "site" / "libfabric"), str(tmp_path / "site" / "psm2")
    copy_libfabric(libdir, includedir, lf)
    copy_psm2(libdir, includedir, psm2)
    both = ["LIBFABRIC", "PSM2"]
    copies = {"libfabric library": lf + "/lib/libfabric.so", "libfabric include": lf + "/include",
              "psm2 library": psm2 + "/lib/libpsm2.so", "psm2 include": psm2 + "/include"}

    system = found(configure(str(tmp_path / "b-none"), both))
    assert system["libfabric library"] == os.path.join(libdir, "libfabric.so"), system
    assert system["psm2 library"] == os.path.join(libdir, "libpsm2.so"), system
    assert not any(v.startswith(str(tmp_path)) for v in system.values()), system

    by_root = found(configure(str(tmp_path / "b-root"), both, defines=["-DLIBFABRIC_ROOT=" + lf,
                                                                      "-DPSM2_ROOT=" + psm2]))
    assert by_root == copies
    by_env_root = found(configure(str(tmp_path / "b-envroot"), both,
                                  env={"LIBFABRIC_ROOT": lf, "PSM2_ROOT": psm2}))
    assert by_env_root == copies
    by_prefix_path = found(configure(str(tmp_path / "b-prefix"), both,
                                     env={"CMAKE_PREFIX_PATH": lf + os.pathsep + psm2}))
    assert by_prefix_path == copies


@pytest.mark.timeout(900)
def test_libfabric_module_builds_and_links_against_the_copy(tmp_path):
    libdir, includedir = system_paths()
    prefix = str(tmp_path / "site" / "libfabric")
    copy_libfabric(libdir, includedir, prefix)
    build = str(tmp_path / "build")
    cache = configure(build, ["LIBFABRIC"], env={"PKG_CONFIG_PATH": prefix + "/lib/pkgconfig"})
    assert cache.get("pkgcfg_lib_LIBFABRIC_fabric") == prefix + "/lib/libfabric.so"
    if cache.get("EVBENCH_DRIVER_MODULES") not in ("ON", "TRUE", "1"):
        pytest.fail("EVBENCH_DRIVER_MODULES is off: no libfabric module to link")
    run(["cmake", "--build", build, "-j2", "--target", "evbench_module_libfabric"])

    # Compiled with the copy's include directory, and read the copy's headers.
    # One entry per source (src/ compiles in unity batches: per_source_db.py
    # gives each source its batch's command, and so its object).
    per_source = str(tmp_path / "db")
    run(["python3", os.path.join(REPO, "scripts", "per_source_db.py"),
         os.path.join(build, "compile_commands.json"), per_source, os.path.join(REPO, "src")])
    with open(os.path.join(per_source, "compile_commands.json")) as f:
        commands = [c for c in json.load(f) if "/src/drivers/libfabric/lf_" in c["file"]]
    assert commands
    for c in commands:
        assert re.search(r"(-I|-isystem )%s/include(\s|$)" % re.escape(prefix), c["command"]), c["command"]
        assert not re.search(r"(-I|-isystem )/usr/include(\s|$)", c["command"]), c["command"]
    driver_obj = [re.search(r" -o (\S+)", c["command"]).group(1) for c in commands if c["file"].endswith("lf_driver.cpp")]
    deps = run(["ninja", "-C", build, "-t", "deps"] + driver_obj)
    assert os.path.join(prefix, "include", "rdma", "fabric.h") in deps, deps[:3000]
    assert os.path.join(includedir, "rdma", "fabric.h") not in deps
    assert os.path.exists(os.path.join(includedir, "rdma", "fabric.h"))   # the system copy is there

    # Linked against the copy, and loads it.
    module = os.path.join(build, "lib", "evbench", "libevbench-libfabric.so")
    link = run(["ninja", "-C", build, "-t", "commands", "evbench_module_libfabric"]).splitlines()[-1]
    assert prefix + "/lib/libfabric.so" in link, link
    dynamic = run(["readelf", "-d", module])
    runpath = re.search(r"\((?:RUNPATH|RPATH)\).*\[(.*)\]", dynamic)
    assert runpath and prefix + "/lib" in runpath.group(1).split(":"), dynamic
    ldd = run(["ldd", module])
    resolved = re.search(r"libfabric\.so\.1 => (\S+)", ldd)
    assert resolved and resolved.group(1) == prefix + "/lib/libfabric.so.1", ldd
    assert os.path.exists(os.path.join(libdir, "libfabric.so.1"))   # the system copy is there
