#!/usr/bin/python3
"""Checks that drivers are modules evbench opens when used
(src/drivers/api/plugin_entry.hpp, docs/ARCHITECTURE.md "Plug-ins"):

1. `--version`, `validate` of a tcp config and `config --explain` load no
   network library (the dynamic loader's own trace, LD_DEBUG=libs, lists
   every library it opens), while `drivers` does load them (so the trace
   really sees them);
2. modules that cannot be found: `drivers --json` says so for every driver,
   naming where it looked, and `run` exits 2 with one line before any rank
   starts;
3. a module that cannot be loaded (not an ELF file): the loader's reason.

  check_modules.py EVBENCH CONFIG
"""
import json
import os
import subprocess
import sys
import tempfile

NETWORK_LIBRARIES = ("libucp", "libuct", "libfabric", "libmpi", "libpsm2", "libpsm_infinipath",
                     "libibverbs", "librdmacm", "libopen-pal")


def fail(msg):
    print("FAILED: " + msg)
    sys.exit(1)


def run(cmd, env=None, timeout=60):
    full = dict(os.environ)
    full.update(env or {})
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=full)


def loaded(cmd):
    """The network libraries the dynamic loader opened for cmd."""
    p = run(cmd, env={"LD_DEBUG": "libs"})
    opened = [line for line in p.stderr.splitlines() if "calling init:" in line]
    if not opened:
        fail(f"{' '.join(cmd)}: LD_DEBUG=libs printed no 'calling init' line:\n{p.stderr[:500]}")
    return sorted({lib for lib in NETWORK_LIBRARIES for line in opened if lib in line})


def main():
    evbench, config = sys.argv[1], sys.argv[2]
    for cmd in ([evbench, "--version"], [evbench, "validate", config],
                [evbench, "config", "--explain"]):
        libs = loaded(cmd)
        if libs:
            fail(f"{' '.join(cmd[1:])} loaded {', '.join(libs)}")
        print(f"ok: {' '.join(cmd[1:])} loads no network library")
    libs = loaded([evbench, "drivers"])
    if "libucp" not in libs or "libfabric" not in libs:
        fail(f"`drivers` should load the UCX and libfabric modules' libraries, saw {libs}")
    print(f"ok: drivers loads {', '.join(libs)}")

    with tempfile.TemporaryDirectory() as tmp:
        missing = os.path.join(tmp, "nowhere")
        p = run([evbench, "drivers", "--json"], env={"EVBENCH_PLUGIN_DIR": missing})
        if p.returncode != 0:
            fail(f"drivers --json without modules: exit {p.returncode}: {p.stderr}")
        for d in json.loads(p.stdout):
            want = f"module libevbench-{d['driver']}.so not found (looked in {missing}"
            if d["can_run"] or want not in d["reason"]:
                fail(f"{d['driver']} without its module: can_run {d['can_run']}, {d['reason']!r}")
        print("ok: every driver without its module says where it looked")
        p = run([evbench, "run", "--set", "duration=1s"], env={"EVBENCH_PLUGIN_DIR": missing})
        lines = p.stderr.strip().splitlines()
        if p.returncode != 2 or len(lines) != 1 or "driver 'tcp' cannot run here" not in lines[0]:
            fail(f"run without the tcp module: exit {p.returncode}, stderr:\n{p.stderr}")
        print(f"ok: run without its module: exit 2, {lines[0]}")

        broken = os.path.join(tmp, "broken")
        os.mkdir(broken)
        with open(os.path.join(broken, "libevbench-tcp.so"), "w") as f:
            f.write("not a shared object\n")
        p = run([evbench, "drivers", "--json"], env={"EVBENCH_PLUGIN_DIR": broken})
        tcp = next(d for d in json.loads(p.stdout) if d["driver"] == "tcp")
        if tcp["can_run"] or "cannot load " + broken + "/libevbench-tcp.so" not in tcp["reason"]:
            fail(f"a broken tcp module: {tcp}")
        print(f"ok: a broken module: {tcp['reason']}")


if __name__ == "__main__":
    main()
