"""Campaign reports: exact arithmetic on hand-written result documents
(synthetic.py: medians, noise verdicts, the pair matrix, baseline matching,
fault counts), and real local campaigns whose tables must match their JSON."""
import json
import os
import subprocess
import sys

import pytest

import synthetic
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


def csv_rows(out):
    import csv
    with open(os.path.join(out, "index.csv")) as f:
        return list(csv.DictReader(f))


def no_repr(*texts):
    for text in texts:
        assert "{'" not in text and "': '" not in text and "[{" not in text, text[:2000]


def answer(md):
    return md.split("## Answer")[1].split("\n## ")[0]


def test_variants_ranked_by_median_and_leads_only_beyond_noise(tmp_path, schema):
    """Three variants, three repeats each: the ranking follows the medians,
    not the means; a lead is stated only where the repeat ranges do not
    overlap, and an overlapping pair is 'within noise'."""
    reps = {"ucx/sm write": [20.0, 21.0, 40.0],      # mean 27, median 21
            "libfabric/shm write": [22.0, 23.0, 24.0],  # median 23: the fastest
            "tcp": [10.0, 11.0, 12.0]}
    points = [({"variant": v}, synthetic.result(v, x, driver_options__tls="sm" if v.startswith("ucx") else None))
              for v, xs in reps.items() for x in xs]
    out = synthetic.campaign(tmp_path / "drivers", points, ["variant"], schema=schema, skipped=[
        {"variant": "verbs", "values": {"driver": "verbs"}, "reason": "no RDMA device found"}])
    rep, md = report(out)
    table = md_table(md, "Variants")
    assert [r["variant"] for r in table] == ["libfabric/shm write", "ucx/sm write", "tcp"]
    assert [r["Gb/s per node"] for r in table] == ["23.00", "21.00", "11.00"]
    assert [r["repeats min–max"] for r in table] == ["22.00–24.00", "20.00–40.00", "10.00–12.00"]
    assert table[0]["vs the fastest"] == "fastest"
    assert table[1]["vs the fastest"] == "-8.7 % (within noise, 3 runs each)"
    assert table[2]["vs the fastest"] == "-52.2 %"        # 12 < 22: no overlap
    first = answer(md).strip().splitlines()[0]
    assert "Fastest variant: libfabric/shm write, 23.00 Gb/s per node (median of 3 runs, 22.00–24.00)" in first
    assert "libfabric/shm write and ucx/sm write are within noise of each other" in first
    # a variant that could not run is listed with evbench's reason
    (skipped,) = md_table(md, "Not run")
    assert skipped == {"variant or point": "verbs", "status": "not run here", "reason": "no RDMA device found"}
    html = open(os.path.join(rep, "report.html")).read()
    no_repr(md, html, open(os.path.join(out, "index.csv")).read())
    assert sorted({r["variant"] for r in csv_rows(out)}) == sorted(reps)
    assert os.path.getsize(os.path.join(rep, "by_variant.png")) > 1000
    summary = json.load(open(os.path.join(rep, "summary.json")))
    assert summary["answer"][0] == first[2:]


def test_a_clear_lead_and_a_single_run(tmp_path):
    points = [({"variant": "mpi/vader"}, synthetic.result("mpi/vader", x)) for x in (30.0, 31.0)]
    points += [({"variant": "tcp"}, synthetic.result("tcp", x)) for x in (20.0, 21.0)]
    rep, md = report(synthetic.campaign(tmp_path / "a", points, ["variant"]))
    assert "mpi/vader beats tcp by 48.8 % (30.50 vs 20.50 Gb/s per node; their repeat ranges do not " \
           "overlap, 2 runs each)" in answer(md)
    one = [({"variant": "mpi/vader"}, synthetic.result("mpi/vader", 30.0)),
           ({"variant": "tcp"}, synthetic.result("tcp", 20.0))]
    rep, md = report(synthetic.campaign(tmp_path / "b", one, ["variant"]))
    assert "from a single run each: no spread measured" in answer(md)
    assert "beats" not in answer(md)
    assert md_table(md, "Variants")[1]["vs the fastest"] == "-33.3 % (1 run: no spread measured)"


def test_configuration_cells_show_only_varying_keys(tmp_path, schema):
    """driver x driver_options scan: variants stay apart (ucx/tcp is not folded
    into ucx), the options that only name the variant are not repeated, the
    keys that vary are shown as key=value with unit words."""
    points = []
    for v, opts in (("ucx/sm write", "sm"), ("ucx/tcp send", "tcp"), ("libfabric/tcp;ofi_rxm", None)):
        for size, x in ((65536, 5.0), (1048576, 9.0)):
            extra = {"driver_options__tls": opts, "driver_options__inject": "true"} if opts else \
                {"driver_options__provider": "tcp"}
            points.append(({"variant": v, "fragment.size": size},
                           synthetic.result(v, x + len(v) / 10.0, fragment__size=size, **extra)))
    out = synthetic.campaign(tmp_path / "opts", points, ["driver", "fragment.size"], schema=schema)
    rep, md = report(out)
    table = md_table(md, "Variants")
    assert sorted(r["variant"] for r in table) == ["libfabric/tcp;ofi_rxm", "ucx/sm write", "ucx/tcp send"]
    for r in table:
        assert r["best configuration"] == "fragment.size=1MiB"
    rows = md_table(md, "Configurations")
    assert set(rows[0]) >= {"variant", "fragment.size"}
    assert not any(k.startswith("driver") for k in rows[0])
    assert sorted({r["fragment.size"] for r in rows}) == ["1MiB", "64KiB"]
    no_repr(md, open(os.path.join(rep, "report.html")).read())
    assert os.path.getsize(os.path.join(rep, "by_fragment_size.png")) > 1000


def test_baseline_is_compared_point_by_point(tmp_path):
    """Baseline and campaign share one fragment size: only that point gets a
    change, and the best points of the two (at different sizes) are never
    set against each other."""
    now = [({"fragment.size": s}, synthetic.result("tcp", x, fragment__size=s))
           for s, x in ((65536, 10.0), (65536, 10.4), (1048576, 30.0), (1048576, 30.2))]
    before = [({"fragment.size": s}, synthetic.result("tcp", x, fragment__size=s))
              for s, x in ((16384, 4.0), (16384, 4.1), (65536, 8.0), (65536, 8.2))]
    out = synthetic.campaign(tmp_path / "now", now, ["fragment.size"])
    base = synthetic.campaign(tmp_path / "before", before, ["fragment.size"])
    rep, md = report(out, "--baseline", base)
    rows = dict((r["fragment.size"], r) for r in md_table(md, "Configurations"))
    assert rows["65536"]["baseline Gb/s"] == "8.10"
    assert rows["65536"]["change vs baseline"] == "+25.9 %"
    assert rows["1048576"]["baseline Gb/s"] == "-" and rows["1048576"]["change vs baseline"] == "-"
    assert "(1 of 2 matched)" in md


def test_fault_counts_are_per_run_never_averaged(tmp_path):
    def faults(reassigned, detect):
        return [{"kind": "peer_lost", "unit": "BU 1", "rank": 1, "lost_at_s": 1.0, "detected_at_s": 1.0 + detect,
                 "time_to_detect_s": detect, "events_reassigned": reassigned, "time_to_rebuild_s": 0.01,
                 "pre_fault_gbps": 10.0, "time_to_recover_s": 0.2}]
    points = [({}, synthetic.result("tcp", 10.0, faults=faults(77, 0.1))),
              ({}, synthetic.result("tcp", 10.0, faults=faults(78, 0.3)))]
    rep, md = report(synthetic.campaign(tmp_path / "f", points, []))
    (row,) = md_table(md, "Faults")
    assert row["reassigned"] == "77 / 78" and row["runs"] == "2" and row["recovered"] == "2/2"
    assert row["detect s"] == "0.200 (0.100–0.300)"
    assert row["peers lost"] == "1"


def test_shift_scan_pair_matrix_and_shift0_apart(tmp_path):
    """At shift s node n receives from node n - s: one slow cell (node 1 -> 3
    at shift 2) must land in the matrix at row 1, column 3; shift 0 is a
    local copy and is neither in the answer's figures nor the headline."""
    rates = [[14.0, 14.0, 14.0, 14.0], [15.0, 15.0, 15.0, 6.0], [16.0, 16.0, 16.0, 16.0]]
    shifts = synthetic.shift_entries(rates, local=137.0)
    for s in shifts[1:]:
        s["predicted"] = {"per_node": {"min": 10.0, "avg": 12.0, "max": 12.0}, "per_node_values": [12.0] * 4,
                          "max_flows": 2 if s["shift"] == 2 else 1, "worst_links": ["leaf0->spine1"]}
    doc = synthetic.result("tcp", 14.125, protocol="one-to-one", shift="scan", shifts=shifts)
    rep, md = report(synthetic.campaign(tmp_path / "s", [({}, doc), ({}, doc)], []))
    summary = json.load(open(os.path.join(rep, "summary.json")))
    (scan,) = summary["shift_scans"]
    m = scan["pair_matrix_gbps"]
    assert m[1][3] == 6.0 and m[0][1] == 14.0 and m[3][0] == 14.0 and m[2][0] == 15.0
    assert [m[i][i] for i in range(4)] == [137.0] * 4
    text = answer(md)
    assert "Slowest pair: node 1 → node 3 at shift 2, 6.00 Gb/s" in text
    assert "shift 0, each node copying to itself (137.00 Gb/s), is a local copy and left out" in text
    assert "limited by leaf0->spine1 (2 flows on the busiest link)" in text
    assert "137" not in md.split("## Variants")[1].split("\n## Configurations")[0]
    for png in ("pairs_0.png", "shifts_0.png", "predicted_0.png"):
        assert os.path.getsize(os.path.join(rep, png)) > 1000


def test_an_empty_campaign_is_an_error(tmp_path):
    out = synthetic.campaign(tmp_path / "e", [({"credits": 1}, None), ({"credits": 2}, None)], ["credits"])
    proc = run_cli(["report", out, "-o", str(tmp_path / "rep")])
    assert proc.returncode == 1, proc.stderr
    assert "no point has a result to report (2 pending)" in proc.stderr and out in proc.stderr
    assert not os.path.exists(str(tmp_path / "rep"))


@pytest.mark.timeout(150)
def test_report_renders_in_a_browser(tmp_path, schema):
    browser = pytest.importorskip("browser")
    points = [({"variant": v}, synthetic.result(v, x)) for v, x in (("tcp", 10.0), ("tcp", 11.0),
                                                                    ("ucx/sm write", 20.0), ("ucx/sm write", 19.0))]
    rep, _ = report(synthetic.campaign(tmp_path / "r", points, ["variant"], schema=schema))
    browser.assert_renders(os.path.join(rep, "report.html"), screenshot=str(tmp_path / "shot.png"))


@pytest.mark.timeout(300)
def test_real_campaign_variants_and_surface(tmp_path, schema):
    """A real campaign over two drivers: the Variants table's figures are the
    medians of the result documents of its points."""
    import statistics
    other = second_driver(schema)
    out = campaign(tmp_path, "surface", """name: surface
config:
%srepeats: 2
axes:
  driver: [tcp, %s]
  credits: [1, 2]
  parallel: [1, 2]
""" % (quick_config(), other))
    rep, md = report(out)
    docs = results(out)
    assert len(docs) == 16
    table = md_table(md, "Variants")
    assert len(table) == 2
    for row in table:
        ids = row["points"].split()
        assert len(ids) == 2
        vals = [avg(docs[i]) for i in ids]
        assert {docs[i]["results"].get("variant", docs[i]["results"]["driver"]) for i in ids} == {row["variant"]}
        assert row["Gb/s per node"] == "%.2f" % statistics.median(vals)
        assert row["repeats min–max"] == "%.2f–%.2f" % (min(vals), max(vals))
    assert os.path.getsize(os.path.join(rep, "tuning_surface.png")) > 1000
    no_repr(md, open(os.path.join(out, "index.csv")).read())


@pytest.mark.timeout(120)
def test_real_shift_scan_keeps_shift0_out_of_the_headline(tmp_path):
    out = campaign(tmp_path, "shifts", """name: shifts
config:
%s""" % quick_config(nodes=3, parallel=1, protocol="one-to-one", shift="scan"))
    (doc,) = results(out).values()
    shifts = doc["results"]["shifts"]
    assert [s["shift"] for s in shifts] == [0, 1, 2]
    assert [s.get("local_copy") for s in shifts] == [True, False, False]
    net = [s["per_node"]["avg"] for s in shifts[1:]]
    assert doc["results"]["bandwidth_gbps"]["per_node"]["avg"] == pytest.approx(sum(net) / 2, rel=1e-3)
    rep, md = report(out)
    for png in ("pairs_0.png", "shifts_0.png"):
        assert os.path.getsize(os.path.join(rep, png)) > 1000
    (row,) = csv_rows(out)
    assert float(row["per_node_avg_gbps"]) == pytest.approx(sum(net) / 2, rel=1e-3)


@pytest.mark.timeout(240)
def test_real_faults_table(tmp_path):
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
    for row in table:
        doc = docs[row["points"]]
        assert row["scheduling"] == doc["config"]["scheduling"]
        peers = [f for f in doc["results"]["faults"] if f["kind"] == "peer_lost"]
        assert [f["unit"] for f in peers] == ["BU 1"]
        assert row["peers lost"] == "1"
        assert row["reassigned"] == "%d" % peers[0]["events_reassigned"]
        assert row["detect s"] == "%.3f" % peers[0]["time_to_detect_s"]
        assert row["lost"] == "0"
        corrupt = [f for f in doc["results"]["faults"] if f["kind"] == "corrupt"][0]
        assert corrupt["injected"] > 0
        assert row["corrupt injected/detected"] == "%d/%d" % (corrupt["injected"], corrupt["detected"])
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


NETNS_RESULT = os.path.join(REPO, "tests", "integration", "data", "netns-shift-scan-platform.json")


def test_emulated_cluster_shift_scan_measured_vs_predicted(tmp_path):
    """The shift scan the netns test ran on the emulated 2x4 cluster with
    topology.platform (tests/integration/netns.cmake): measured and predicted
    rates in one figure, the worst shifts explained by the uplink."""
    out = str(tmp_path / "netns")
    proc = run_cli(["import", out, NETNS_RESULT, "--name", "emulated-2x4"])
    assert proc.returncode == 0, proc.stderr
    rep, md = report(out)
    doc = json.load(open(NETNS_RESULT))
    net = [s for s in doc["results"]["shifts"] if not s["local_copy"]]
    worst = min(net, key=lambda s: s["per_node"]["avg"])
    text = answer(md)
    assert "Shift %d (%.2f Gb/s measured, %.2f predicted) is limited by %s" % (
        worst["shift"], worst["per_node"]["avg"], worst["predicted"]["per_node"]["avg"],
        ", ".join(worst["predicted"]["worst_links"][:3])) in text
    ratios = [s["per_node"]["avg"] / s["predicted"]["per_node"]["avg"] for s in net]
    assert "Measured / predicted per shift: %.2f–%.2f." % (min(ratios), max(ratios)) in text
    for png in ("pairs_0.png", "predicted_0.png"):
        assert os.path.getsize(os.path.join(rep, png)) > 1000


@pytest.mark.timeout(120)
def test_platform_prediction_asked_of_evbench_topo(tmp_path):
    """--platform FILE: the same scan without predictions in its results gets
    them from `evbench topo`, equal to what the run itself computed."""
    doc = json.load(open(NETNS_RESULT))
    stripped = json.loads(json.dumps(doc))
    for s in stripped["results"]["shifts"]:
        s.pop("predicted", None)
    src = write(tmp_path / "bare.json", json.dumps(stripped))
    out = str(tmp_path / "bare")
    assert run_cli(["import", out, src]).returncode == 0
    rep, md = report(out)
    assert not os.path.exists(os.path.join(rep, "predicted_0.png"))
    platform = os.path.join(REPO, "configs", "platforms", "emulated-2x4.yaml")
    rep2 = str(tmp_path / "with-platform")
    proc = run_cli(["report", out, "-o", rep2, "--platform", platform], env={"EVBENCH": real_evbench()})
    assert proc.returncode == 0, proc.stderr
    assert os.path.getsize(os.path.join(rep2, "predicted_0.png")) > 1000
    md2 = open(os.path.join(rep2, "report.md")).read()
    assert "Measured / predicted per shift" in answer(md2) and "Measured / predicted" not in answer(md)
    # the prediction is the run's own
    with_pred = str(tmp_path / "pred")
    assert run_cli(["import", with_pred, NETNS_RESULT]).returncode == 0
    _, md3 = report(with_pred)
    assert [line for line in answer(md2).splitlines() if "predicted" in line] == \
        [line for line in answer(md3).splitlines() if "predicted" in line]
    # a campaign without a shift scan, or a missing file: clear errors, nothing written
    proc = run_cli(["report", out, "-o", str(tmp_path / "r4"), "--platform", "/nonexistent.yaml"])
    assert proc.returncode == 2 and "/nonexistent.yaml: no such file" in proc.stderr
    plain = synthetic.campaign(tmp_path / "plain", [({}, synthetic.result("tcp", 10.0))], [])
    proc = run_cli(["report", plain, "-o", str(tmp_path / "r5"), "--platform", platform],
                   env={"EVBENCH": real_evbench()})
    assert proc.returncode == 1 and "the campaign has no one-to-one shift scan to predict" in proc.stderr
    assert not os.path.exists(str(tmp_path / "r4")) and not os.path.exists(str(tmp_path / "r5"))


def test_failed_points_are_named_with_evbench_words(tmp_path):
    """A variant whose points failed is one Not-run row naming its points and
    the first `evbench:` line of the log, and the answer says it was not compared."""
    points = [({"label": "tcp"}, synthetic.result("tcp", 10.0)),
              ({"label": "libfabric/sockets send"}, None), ({"label": "libfabric/sockets send"}, None)]
    out = synthetic.campaign(tmp_path / "f", points, ["label"])
    for pid in ("p0002", "p0003"):
        write(os.path.join(out, "status", pid + ".json"), json.dumps({"status": "failed", "exit_code": 1}))
        write(os.path.join(out, "logs", pid + ".log"), "# evbench 0.1\nevbench: rank 3: fi_tsend: No such file\n"
              "evbench: rank 0 (pid 1) died: exited with status 1\n")
    rep, md = report(out)
    (row,) = md_table(md, "Not run")
    assert row == {"variant or point": "libfabric/sockets send (p0002 p0003)", "status": "failed",
                   "reason": "evbench: rank 3: fi_tsend: No such file"}
    assert "failed: libfabric/sockets send (reasons under Not run)" in answer(md)


def test_a_lost_data_source_is_in_the_faults_table_not_the_comparison(tmp_path):
    lost = synthetic.result("tcp", 3.0, faults=[
        {"kind": "peer_lost", "unit": "RU 3", "rank": 3, "lost_at_s": 2.0, "detected_at_s": 2.01,
         "time_to_detect_s": 0.01, "events_reassigned": 0, "time_to_rebuild_s": None}],
        integrity={"lost": 0, "incomplete_lost_peer": 8, "late_discarded": 0}, on_failure="exclude")
    lost["results"]["status"] = "data_source_lost"
    points = [({"on_failure": "abort"}, synthetic.result("tcp", 10.0, on_failure="abort")),
              ({"on_failure": "exclude"}, lost)]
    out = synthetic.campaign(tmp_path / "l", points, ["on_failure"])
    write(os.path.join(out, "logs", "p0002.log"),
          "# FAILED: data source lost: RU 3 (rank 3) at 2.00 s, 8 events incomplete\n"
          "evbench: data source lost: RU 3 (rank 3) at 2.00 s, 8 events incomplete\n")
    rep, md = report(out)
    (row,) = md_table(md, "Faults")
    assert row["status"] == "data_source_lost" and row["incomplete (lost RU)"] == "8" and row["points"] == "p0002"
    assert [r["points"] for r in md_table(md, "Configurations")] == ["p0001"]
    (missing,) = md_table(md, "Not run")
    assert missing["status"] == "data_source_lost" and "RU 3" in missing["reason"]
