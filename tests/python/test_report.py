"""Reports of real local campaigns: files, PNGs, table numbers against the JSON,
and changes against a baseline campaign that really differs."""
import json
import os
import subprocess
import sys

import pytest

from conftest import REPO, quick_config, real_evbench, run_cli, write


def second_driver(schema):
    """A driver besides tcp that runs under the local bootstrap (libfabric)."""
    if "libfabric" not in schema.keys["driver"]["choices"]:
        if os.environ.get("EVBENCH_TESTS_STRICT"):
            pytest.fail("the driver comparison needs the libfabric driver built")
        pytest.skip("libfabric driver not built: no second driver to compare with tcp")
    return "libfabric"


def campaign(tmp_path, name, text):
    scan = write(tmp_path / (name + ".yaml"), text)
    out = str(tmp_path / name)
    proc = run_cli(["run", scan, "-o", out], env={"EVBENCH": real_evbench()}, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return out


def results(out):
    docs = {}
    for name in os.listdir(os.path.join(out, "results")):
        docs[name[:-5]] = json.load(open(os.path.join(out, "results", name)))
    for doc in docs.values():
        assert doc["schema_version"] == 1 and doc["results"]["status"] == "ok"
        assert doc["results"]["events_built"] > 0 and doc["results"]["bandwidth_gbps"]["aggregate"] > 0
    return docs


def avg(doc):
    return doc["results"]["bandwidth_gbps"]["per_node"]["avg"]


def change(now, before):
    return "%+.1f%%" % (100.0 * (now - before) / before)


def md_table(md, title):
    block = md.split("## " + title)[1].split("\n## ")[0]
    lines = [line for line in block.splitlines() if line.startswith("|")]
    head = [c.strip() for c in lines[0].strip("|").split("|")]
    return [dict(zip(head, [c.strip() for c in line.strip("|").split("|")])) for line in lines[2:]]


def report(out, *extra):
    rep = out + "-report"
    proc = run_cli(["report", out, "-o", rep] + list(extra), env={"EVBENCH": "/nonexistent/evbench"})
    assert proc.returncode == 0, proc.stderr     # reports need no evbench binary
    return rep, open(os.path.join(rep, "report.md")).read()


@pytest.mark.timeout(240)
def test_report_surface_and_driver_table(tmp_path, schema):
    other = second_driver(schema)
    out = campaign(tmp_path, "surface", """name: surface
config:
%saxes:
  driver: [tcp, %s]
  credits: [1, 2]
  parallel: [1, 2]
  fragment.size: [64KiB, 256KiB]
""" % (quick_config(), other))
    rep, md = report(out)
    for name in ("report.html", "report.md", "summary.json", "bandwidth_vs_size.png", "tuning_surface.png"):
        assert os.path.getsize(os.path.join(rep, name)) > 1000 or name.endswith(("md", "json"))
    assert not os.path.exists(os.path.join(rep, "bandwidth_vs_nodes.png"))   # no nodes axis
    for png in ("bandwidth_vs_size.png", "tuning_surface.png"):
        assert open(os.path.join(rep, png), "rb").read(8) == b"\x89PNG\r\n\x1a\n"
    html = open(os.path.join(rep, "report.html")).read()
    assert html.count("data:image/png;base64,") == 2
    docs = results(out)
    assert len(docs) == 16
    best = dict((d, max(avg(doc) for doc in docs.values() if doc["config"]["driver"] == d)) for d in ("tcp", other))
    table = md_table(md, "Driver comparison")
    assert [row["driver"] for row in table] == sorted(best, key=lambda d: -best[d])
    for row in table:
        assert row["Gb/s per node"] == "%.2f" % best[row["driver"]]
        point = docs[row["points"]]
        assert point["config"]["driver"] == row["driver"] and avg(point) == best[row["driver"]]
        assert row["aggregate Gb/s"] == "%.2f" % point["results"]["bandwidth_gbps"]["aggregate"]
    assert table[0]["ratio to best"] == "1.00"
    ratio = float(table[1]["Gb/s per node"]) / float(table[0]["Gb/s per node"])
    assert float(table[1]["ratio to best"]) == pytest.approx(ratio, abs=0.01)
    summary = json.load(open(os.path.join(rep, "summary.json")))
    # one surface per driver and size, titled with evbench's unit words
    assert sorted(s["title"] for s in summary["surfaces"]) == sorted(
        "%s, fragment %s" % (d, size) for d in ("tcp", other) for size in ("64KiB", "256KiB"))
    for s in summary["surfaces"]:
        assert 0 < s["share_within_90pct"] <= 100
        driver, size = s["title"].split(", fragment ")
        cells = [avg(doc) for doc in docs.values() if doc["config"]["driver"] == driver and
                 doc["config"]["fragment"]["size"] == schema.parse_size(size)]
        assert s["best_gbps"] == max(cells)
        assert s["share_within_90pct"] == 100.0 * sum(c >= 0.9 * max(cells) for c in cells) / len(cells)
    assert "of the space within 90%" in md


@pytest.mark.timeout(120)
def test_report_scaling(tmp_path):
    out = campaign(tmp_path, "scaling", """name: scaling
config:
%saxes:
  scheduling: [barrel, random]
  nodes: [2, 3]
""" % quick_config(credits=2))
    rep, md = report(out)
    assert os.path.getsize(os.path.join(rep, "bandwidth_vs_nodes.png")) > 1000
    docs = results(out)
    rows = md_table(md, "Best points")
    assert sorted(row["points"] for row in rows) == sorted(docs)
    for row in rows:
        doc = docs[row["points"]]
        assert (row["scheduling"], row["nodes"]) == (doc["config"]["scheduling"], str(doc["config"]["nodes"]))
        per_node = doc["results"]["bandwidth_gbps"]["per_node"]
        assert row["Gb/s per node (min/avg/max)"] == "%.2f / %.2f / %.2f" % (
            per_node["min"], per_node["avg"], per_node["max"])


@pytest.mark.timeout(120)
def test_report_against_a_baseline_that_differs(tmp_path):
    # The campaigns share only the 64 KiB point, and under different ids
    # (p0001 now, p0002 before): matching by configuration must find it.
    scan = "name: %s\nconfig:\n" + quick_config() + "axes:\n  fragment.size: [%s]\n"
    out = campaign(tmp_path, "now", scan % ("now", "64KiB, 256KiB"))
    base = campaign(tmp_path, "before", scan % ("before", "16KiB, 64KiB"))
    rep, md = report(out, "--baseline", base)
    assert "Baseline: `%s`" % base in md
    assert os.path.getsize(os.path.join(rep, "bandwidth_vs_size.png")) > 1000
    now, before = results(out), results(base)
    by_size = dict((doc["config"]["fragment"]["size"], doc) for doc in before.values())
    rows = md_table(md, "Best points")
    assert sorted(row["fragment.size"] for row in rows) == ["256KiB", "64KiB"]
    for row in rows:
        doc = now[row["points"]]
        match = by_size.get(doc["config"]["fragment"]["size"])
        assert row["change vs baseline"] == (change(avg(doc), avg(match)) if match else "-"), row
    assert [row["points"] for row in rows if row["change vs baseline"] != "-"] == ["p0001"]
    # The driver comparison sets the best of each campaign against each other.
    best_now, best_before = max(map(avg, now.values())), max(map(avg, before.values()))
    (driver,) = md_table(md, "Driver comparison")
    assert driver["baseline Gb/s"] == "%.2f" % best_before
    assert driver["change"] == change(best_now, best_before)


@pytest.mark.timeout(120)
def test_report_shifts(tmp_path):
    out = campaign(tmp_path, "shifts", """name: shifts
config:
%s""" % quick_config(nodes=3, parallel=1, protocol="one-to-one", shift="scan"))
    (doc,) = results(out).values()
    assert [s["shift"] for s in doc["results"]["shifts"]] == [0, 1, 2]
    rep, _ = report(out)
    assert os.path.getsize(os.path.join(rep, "shifts.png")) > 1000


@pytest.mark.timeout(240)
def test_report_faults_barrel_vs_random(tmp_path):
    """The same injected faults under barrel and random scheduling: the Faults
    table has one row each, and its numbers are the result documents'."""
    out = campaign(tmp_path, "faults", """name: faults
config:
%s  on_failure: exclude
  layout: split
  ru_buffer: 4MiB
  peer_timeout: 20s
  faults: [{corrupt: 0.01}, {at: 1s, stall: bu1, for: 200ms}, {at: 1s, kill: bu1}]
axes:
  scheduling: [barrel, random]
""" % quick_config(duration="2s", warmup="200ms"))
    rep, md = report(out)
    docs = results(out)
    table = md_table(md, "Faults")
    assert len(table) == 2 and len(docs) == 2
    summary = json.load(open(os.path.join(rep, "summary.json")))
    assert len(summary["faults"]) == 2
    for row in table:
        doc = docs[row["points"]]
        assert row["scheduling"] == doc["config"]["scheduling"]
        peers = [f for f in doc["results"]["faults"] if f["kind"] == "peer_lost"]
        assert [f["unit"] for f in peers] == ["BU 1"]
        assert row["peers lost"] == "1"
        assert row["reassigned"] == "%g" % peers[0]["events_reassigned"]
        assert row["detect s"] == "%.3f" % peers[0]["time_to_detect_s"]
        assert row["lost"] == "0"
        corrupt = [f for f in doc["results"]["faults"] if f["kind"] == "corrupt"][0]
        assert corrupt["injected"] > 0
        assert row["corrupt injected/detected"] == "%g/%g" % (corrupt["injected"],
                                                              corrupt["detected"])
        recovered = peers[0]["time_to_recover_s"]
        assert row["recovered"] == ("1/1" if recovered is not None else "0/1")


def reference_json(tmp_path, samples):
    """A reference result made by the script bench/reference.sh uses
    (bench/reference_table.py) from these samples."""
    path = write(tmp_path / "samples", "".join("%s %d %s %s %r\n" % s for s in samples))
    out = str(tmp_path / "reference.json")
    proc = subprocess.run([sys.executable, os.path.join(REPO, "bench", "reference_table.py"), path, out,
                           "1", "3", "16", "huge", "evbench test", "mpirun test", "credits=2"],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    assert proc.returncode == 0, proc.stderr
    return out


@pytest.mark.timeout(120)
def test_report_against_the_references(tmp_path):
    out = campaign(tmp_path, "refs", "name: refs\nconfig:\n" + quick_config())
    samples = []
    for k, (e, r, b) in enumerate([(10.0, 8.0, 9.0), (12.0, 7.5, 9.5), (11.0, 9.0, 8.0)]):
        samples += [("pull/tcp", 4, "memory", "evbench", e), ("pull/tcp", 4, "memory", "reference", r),
                    ("pull/tcp", 4, "memory", "evbench_b", b)]
    samples += [("p2p/mpi", 4, "cache", "evbench", 3.0), ("p2p/mpi", 4, "cache", "reference", 6.0),
                ("p2p/mpi", 4, "cache", "evbench_b", 2.5)]
    ref = reference_json(tmp_path, samples)
    rep, md = report(out, "--reference", ref)
    rows = md_table(md, "Against the references")
    assert [(r["pair"], r["nodes"], r["policy"]) for r in rows] == [
        ("pull/tcp", "4", "memory"), ("p2p/mpi", "4", "cache")]
    doc = json.load(open(ref))
    for row, want in zip(rows, doc["rows"]):
        assert row["evbench Gb/s"] == "%.2f" % want["evbench_gbps"]
        assert row["reference Gb/s"] == "%.2f" % want["reference_gbps"]
        assert row["ratio"] == "%.2f" % (want["evbench_gbps"] / want["reference_gbps"])
        assert (row["variant"], row["variant Gb/s"]) == ("credits=2", "%.2f" % want["variant_gbps"])
        assert row["source"].startswith(ref)
    assert rows[0]["evbench Gb/s"] == "11.00" and rows[0]["ratio"] == "1.38"   # medians 11 / 8
    summary = json.load(open(os.path.join(rep, "summary.json")))
    assert [r["ratio"] for r in summary["references"]] == [r["ratio"] for r in doc["rows"]]
    assert "Against the references" in open(os.path.join(rep, "report.html")).read()

    # A file that is not a reference result, or a wrong field: exit 2 naming both.
    bad = write(tmp_path / "bad.json", json.dumps({"benchmark": "reference", "rows": [
        dict(doc["rows"][0], nodes="four")]}))
    proc = run_cli(["report", out, "-o", str(tmp_path / "r2"), "--reference", bad])
    assert proc.returncode == 2 and "bad.json: rows[0].nodes" in proc.stderr, proc.stderr
    other = write(tmp_path / "other.json", json.dumps({"results": {}}))
    proc = run_cli(["report", out, "-o", str(tmp_path / "r3"), "--reference", other])
    assert proc.returncode == 2 and "other.json: not a bench/reference.sh result" in proc.stderr
    assert not os.path.exists(str(tmp_path / "r3"))
