"""A run steered through POST /control shows its change (docs/METRICS.md,
"Phases of a steered run"): the results split the measured window at the
change, one phase with the knobs before and one with the knobs after, whose
events add up to the headline's; the configuration in the results is the one
the run ended with, the one it began with stays in results.control_initial;
the table prints one line per phase.
"""
import json
import re

from monitor_run import MonitorRun, real_evbench, require_monitor, wait_until

PHASE_LINE = re.compile(r"^  (\d+\.\d\d)-(\d+\.\d\d) s  parallel=(\d+)  ([\d.]+) Gb/s per node  "
                        r"([\d.]+) events/s  (\d+) events$", re.M)


def test_a_change_splits_the_window_into_phases(tmp_path):
    require_monitor(real_evbench())
    with MonitorRun(tmp_path, {"duration": "4s"}) as run:
        # The first snapshots come each report_interval (1 s); change after
        # the warm-up (1 s), so that both knobs have a stretch of the window.
        wait_until("a snapshot after the warm-up", lambda: run.state()["run"]["t_s"] >= 1.5, 30)
        status, _, body = run.request("POST", "/control", token=run.token, body={"parallel": 1})
        assert status == 202, body
        assert run.wait(60) == 0, run.err.text()[-2000:]
        stdout = run.out.text()
        with open(run.results_path) as f:
            doc = json.load(f)
    results = doc["results"]
    assert [c["key"] for c in results["control"]] == ["parallel"]
    changed_at = results["control"][0]["t_s"]

    phases = results["phases"]
    assert [p["settings"] for p in phases] == [{"parallel": 2}, {"parallel": 1}], phases
    start, window = results["warmup_s"], results["window_s"]
    assert abs(phases[0]["from_s"] - start) < 1e-5
    assert abs(phases[0]["to_s"] - changed_at) < 1e-5
    assert abs(phases[1]["from_s"] - changed_at) < 1e-5
    assert abs(phases[1]["to_s"] - (start + window)) < 1e-5
    assert all(p["events"] > 0 and p["rate_gbps"] > 0 and p["event_rate"] > 0 for p in phases)
    events = sum(p["events"] for p in phases)
    headline = results["events_per_second"] * window  # 6 significant digits in the JSON
    assert abs(events - headline) <= max(1.0, 1e-5 * events), (events, headline)
    for p in phases:
        assert abs(p["event_rate"] * (p["to_s"] - p["from_s"]) - p["events"]) <= max(1.0, 1e-5 * p["events"])

    # The knobs as the run ended; the ones it began with.
    assert doc["config"]["parallel"] == 1
    assert results["control_initial"]["parallel"] == 2
    assert results["control_initial"]["credits"] == doc["config"]["credits"]

    # One table line per phase, with the same figures.
    lines = PHASE_LINE.findall(stdout)
    assert [int(line[2]) for line in lines] == [2, 1], stdout
    assert [int(line[5]) for line in lines] == [p["events"] for p in phases]
    assert "# credits %d, parallel 1," % doc["config"]["credits"] in stdout
