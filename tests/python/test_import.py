"""`evbench-scan import DIR RESULT.json...`: a campaign from loose `evbench run --json`
documents (runs made by hand under mpirun, srun or on the emulated cluster)."""
import csv
import json
import os
import subprocess

import pytest

from conftest import QUICK, run_cli, write


def hand_run(evbench, tmp_path, name, **sets):
    """One `evbench run --json` made by hand, as a user would."""
    config = write(tmp_path / ("%s.yaml" % name),
                   "".join("%s: %s\n" % kv for kv in dict(QUICK, **sets).items()))
    out = str(tmp_path / ("%s.json" % name))
    proc = subprocess.run([evbench, "run", config, "--json", out, "--quiet"], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return out


@pytest.mark.timeout(180)
def test_import_makes_a_campaign_report_reads(tmp_path, evbench):
    a = hand_run(evbench, tmp_path, "a", **{"fragment.size": "64KiB"})
    b = hand_run(evbench, tmp_path, "b", **{"fragment.size": "256KiB"})
    c = hand_run(evbench, tmp_path, "c", **{"fragment.size": "64KiB"})
    out = str(tmp_path / "camp")
    proc = run_cli(["import", out, a, b, c, "--name", "byhand"], env={"EVBENCH": evbench})
    assert proc.returncode == 0, proc.stderr
    meta = json.load(open(os.path.join(out, "campaign.json")))
    assert meta["scan"] == "byhand" and meta["mode"] == "import"
    # Only the key that differs is an axis; equal configurations are repeats.
    assert meta["axes"] == ["fragment.size"]
    assert [(p["id"], p["values"], p["repeat"]) for p in meta["points"]] == [
        ("p0001", {"fragment.size": "64KiB"}, 0), ("p0002", {"fragment.size": "256KiB"}, 0),
        ("p0003", {"fragment.size": "64KiB"}, 1)]
    assert meta["skipped"] == []
    assert [i["file"] for i in meta["imported"]] == [a, b, c]
    for pid, src in zip(("p0001", "p0002", "p0003"), (a, b, c)):
        assert open(os.path.join(out, "results", pid + ".json")).read() == open(src).read()
        assert json.load(open(os.path.join(out, "status", pid + ".json")))["status"] == "ok"
    rows = list(csv.DictReader(open(os.path.join(out, "index.csv"))))
    assert [(r["point"], r["fragment.size"], r["status"]) for r in rows] == [
        ("p0001", "64KiB", "ok"), ("p0002", "256KiB", "ok"), ("p0003", "64KiB", "ok")]
    # Extending: a document with another driver adds a point and the axes that now vary;
    # a file imported before is not imported twice.
    d = hand_run(evbench, tmp_path, "d", driver="ucx", **{"driver_options.tls": "tcp"})
    proc = run_cli(["import", out, d, a], env={"EVBENCH": evbench})
    assert proc.returncode == 0, proc.stderr
    assert "already imported" in proc.stderr
    meta = json.load(open(os.path.join(out, "campaign.json")))
    assert [p["id"] for p in meta["points"]] == ["p0001", "p0002", "p0003", "p0004"]
    assert meta["axes"][0] == "fragment.size" and "driver" in meta["axes"]
    # tcp's options (bind, ...) and ucx's (tls) are not axes merely because
    # the other driver lacks them: an option varies when it takes two values.
    assert "driver_options.bind" not in meta["axes"] and "driver_options.tls" not in meta["axes"]
    assert meta["points"][3]["values"]["driver"] == "ucx"
    e = hand_run(evbench, tmp_path, "e", driver="ucx", **{"driver_options.tls": "sm"})
    assert run_cli(["import", out, e], env={"EVBENCH": evbench}).returncode == 0
    meta = json.load(open(os.path.join(out, "campaign.json")))
    assert meta["points"][4]["values"]["driver_options.tls"] == "sm"
    assert meta["points"][3]["values"]["driver_options.tls"] == "tcp"
    assert meta["points"][0]["values"]["driver_options.tls"] is None
    for p in meta["points"]:
        assert all(not isinstance(v, (dict, list)) for v in p["values"].values())
    proc = run_cli(["report", out])
    assert proc.returncode == 0, proc.stderr
    assert os.path.isfile(os.path.join(out, "report", "report.html"))


def test_import_of_a_bad_file_names_it_and_writes_nothing(tmp_path, evbench):
    good = hand_run(evbench, tmp_path, "good")
    garbage = write(tmp_path / "garbage.json", "this is not json {")
    other = write(tmp_path / "other.json", json.dumps({"rows": []}))
    out = str(tmp_path / "camp")
    for bad, why in ((garbage, "not JSON"), (other, "no config object"),
                     (str(tmp_path / "missing.json"), "cannot read")):
        proc = run_cli(["import", out, good, bad])
        assert proc.returncode == 2, proc.stderr
        assert bad in proc.stderr and why in proc.stderr and "Traceback" not in proc.stderr
        assert not os.path.exists(out)
    truncated = write(tmp_path / "half.json", open(good).read()[:200])
    proc = run_cli(["import", out, truncated])
    assert proc.returncode == 2 and "half.json: not JSON" in proc.stderr


def test_a_steered_run_is_imported_under_the_settings_it_started_with(tmp_path, evbench):
    """results.config holds a steered run's knobs as they ended; the point it
    becomes (its YAML, its axis values) is the run as it started."""
    plain = json.load(open(hand_run(evbench, tmp_path, "plain")))
    steered = json.loads(json.dumps(plain))
    steered["config"]["parallel"] = 1  # as the run ended, after POST /control {"parallel": 1}
    steered["results"]["control_initial"] = dict(steered["results"]["control_initial"], parallel=3)
    steered["results"]["phases"] = [
        {"from_s": 0.2, "to_s": 0.5, "settings": {"parallel": 3}, "events": 10, "rate_gbps": 1.0,
         "event_rate": 20.0},
        {"from_s": 0.5, "to_s": 1.0, "settings": {"parallel": 1}, "events": 10, "rate_gbps": 0.5,
         "event_rate": 20.0}]
    path = write(tmp_path / "steered.json", json.dumps(steered))
    out = str(tmp_path / "camp")
    proc = run_cli(["import", out, str(path), str(tmp_path / "plain.json")], env={"EVBENCH": evbench})
    assert proc.returncode == 0, proc.stderr
    meta = json.load(open(os.path.join(out, "campaign.json")))
    assert meta["axes"] == ["parallel"]
    assert [p["values"]["parallel"] for p in meta["points"]] == [3, plain["config"]["parallel"]]
    assert "parallel: 3" in open(os.path.join(out, "points", "p0001.yaml")).read()
