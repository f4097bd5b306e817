"""The shipped scans (scan/examples/*.yaml) and the scan-file example in
docs/SCANS.md pass `evbench-scan check` with the real evbench and expand to the
points they claim; drivers.yaml covers every variant `evbench drivers` says can
run on this machine."""
import glob
import json
import os
import re
import subprocess

import pytest
import yaml

from conftest import REPO, run_cli, write
from evbench_scan.run import runner
from evbench_scan.spec import expand, grammar

EXAMPLES = os.path.join(REPO, "scan", "examples")

# name -> points after checking (all these drivers are built here)
EXPECTED = {
    "drivers": 16 * 2 * 3,          # 18 variants, 2 refused at check (libfabric sockets, udp) x 2 sizes x 3 repeats
    "size": 3 * 5 * 2,              # 3 variants x 16KiB..4MiB (x4) x 2 repeats
    "credits-parallel": 4 * 3 * 3,  # credits x parallel x 3 repeats
    "nodes": 2 * 4 * 2,             # scheduling x (nodes, parallel) x 2 repeats
    "shift-scan": 2,                # one point (every shift inside it) x 2 repeats
    "shift-scan-credit": 2,         # the shift scan measured, and simulated by the credit model
    "paper": 27,
    "scaling-slurm": 12,
    "faults": 4,
}


def test_every_example_is_listed_here():
    names = sorted(os.path.splitext(os.path.basename(p))[0] for p in glob.glob(os.path.join(EXAMPLES, "*.yaml")))
    assert names == sorted(EXPECTED)


@pytest.mark.timeout(300)
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_example_checks_and_expands(name, evbench):
    path = os.path.join(EXAMPLES, name + ".yaml")
    proc = run_cli(["check", path, "--evbench", evbench])
    assert proc.returncode == 0, proc.stderr
    header, *lines = proc.stdout.splitlines()
    points = [l for l in lines if re.match(r"p\d{4}  ", l)]
    scan_name = yaml.safe_load(open(path)).get("name", name)
    assert header.startswith("# %s: %d point(s)" % (scan_name, EXPECTED[name])), header
    assert len(points) == EXPECTED[name]
    assert "{" not in proc.stdout, "a Python repr in the point labels"
    text = open(path).read()
    if name not in ("scaling-slurm", "faults", "paper"):
        # the header says which question it answers and how to run it
        assert text.startswith("# Question:") and "scan/evbench-scan run scan/examples/%s.yaml" % name in text


def drivers_here(evbench):
    """{driver: [usable variant names]} for the drivers `evbench drivers` says can run:
    from `drivers --json` when this evbench has it, else from its table."""
    doc = runner.drivers_json(evbench)
    if doc is not None:
        return dict((d["driver"], [str(v).split("/", 1)[-1] for v in d.get("variants_usable") or []])
                    for d in doc if d.get("can_run"))
    out = {}
    proc = subprocess.run([evbench, "drivers"], stdout=subprocess.PIPE, universal_newlines=True, timeout=60)
    for line in proc.stdout.splitlines():
        m = re.match(r"^\s+(\w+)\s+(yes|no)\s", line)
        if m and m.group(2) == "yes":
            usable = re.search(r"\[usable: (.*?)(; not here|\])", line)
            out[m.group(1)] = usable.group(1).split() if usable else []
    return out


def test_drivers_example_has_every_variant_that_runs_here(evbench, schema):
    scan = grammar.load_scan(os.path.join(EXAMPLES, "drivers.yaml"), schema)
    points = expand.expand(scan)
    assert scan.skip_invalid and scan.repeats == 3
    present = set()
    for p in points:
        for option in ("provider", "tls", "device"):
            value = p.get("driver_options.%s" % option)
            if value is not None:
                present.add((p.setting("driver"), str(value)))
        # Open MPI's transport is chosen by its MCA parameters (the point's env): pml ucx is
        # mpi/ucx, ob1 with the vader or tcp BTL is mpi/vader or mpi/tcp
        pml, btl = p.env.get("OMPI_MCA_pml"), p.env.get("OMPI_MCA_btl")
        if pml == "ucx":
            present.add(("mpi", "ucx"))
        for b in str(btl or "").split(","):
            if b not in ("", "self"):
                present.add(("mpi", b))
        present.add((p.setting("driver"), None))
    here = drivers_here(evbench)
    assert here, "evbench drivers lists no runnable driver"
    for driver, variants in here.items():
        assert (driver, None) in present, "driver %s runs here but is not in drivers.yaml" % driver
        for variant in variants:
            if driver == "ucx" and "/" in variant:
                continue   # an older table lists devices (tcp/lo, posix/memory): tls tcp and sm cover them
            assert (driver, variant) in present or (driver, variant.split(";")[0]) in present, \
                "%s variant %s runs here but is not in drivers.yaml" % (driver, variant)
    # the comparisons the issue names, each with send and write where the driver has both
    for driver, key, value in (("libfabric", "provider", "tcp;ofi_rxm"), ("libfabric", "provider", "shm"),
                               ("ucx", "tls", "tcp"), ("ucx", "tls", "sm")):
        paths = {p.get("data_path") for p in points
                 if p.setting("driver") == driver and p.get("driver_options.%s" % key) == value}
        assert paths == {"send", "write"}, (driver, value, paths)
    mpi = {(p.env.get("OMPI_MCA_pml"), p.env.get("OMPI_MCA_btl")) for p in points if p.setting("driver") == "mpi"}
    assert mpi == {("ob1", "self,vader"), ("ob1", "self,tcp"), ("ucx", None)}
    assert all(p.setting("bootstrap") == "mpi" for p in points if p.setting("driver") == "mpi")
    psm2 = [p for p in points if p.setting("driver") == "psm2"]
    assert psm2 and all(p.wrapper and p.wrapper[0] == os.path.join(REPO, "scripts", "with-psm2-shm.sh")
                        for p in psm2)
    # every point stays on this host
    assert all(p.env.get("UCX_NET_DEVICES") == "lo" and p.env.get("OMPI_MCA_btl_tcp_if_include") == "lo"
               for p in points)


def scans_md_example():
    """The YAML block under '## Scan files' in docs/SCANS.md."""
    text = open(os.path.join(REPO, "docs", "SCANS.md")).read()
    section = text.split("## Scan files", 1)[1]
    return re.search(r"```yaml\n(.*?)```", section, re.S).group(1)


@pytest.mark.timeout(300)
def test_the_scan_file_example_in_scans_md_is_valid(tmp_path, evbench):
    block = scans_md_example()
    doc = yaml.safe_load(block)
    # `base:` is relative to the scan file, which the example keeps in scan/examples/.
    os.makedirs(str(tmp_path / "scan" / "examples"))
    os.symlink(os.path.join(REPO, "configs"), str(tmp_path / "configs"))
    assert os.path.isfile(os.path.normpath(os.path.join(REPO, "scan", "examples", doc["base"])))
    path = write(tmp_path / "scan" / "examples" / "example.yaml", block)
    proc = run_cli(["check", path, "--evbench", evbench])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("# %s: " % doc["name"])
