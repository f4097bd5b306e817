"""Order and rounds (spec/, run/ and report/rounds.py): `order:` and
`repeats: auto` in the grammar with their errors, interleaved rounds (every configuration once per round,
shuffled by the campaign's seed), and the adaptive runner's decision between
rounds, driven by a stand-in for evbench whose figures the test chooses."""
import json
import os

import pytest

import synthetic
from evbench_scan.report import rounds as report_rounds
from evbench_scan.results import collect
from evbench_scan.run import rounds, runner
from evbench_scan.spec import expand, rounds as spec_rounds
from evbench_scan.spec.grammar import ScanError, parse_scan


def scan_of(schema, text):
    return parse_scan(text, "r.yaml", schema)


def test_repeats_and_order_forms(schema):
    s = scan_of(schema, "repeats: 3\n")
    assert (s.repeats, s.repeats_auto, s.order, s.order_seed) == (3, None, "interleaved", spec_rounds.DEFAULT_SEED)
    s = scan_of(schema, "repeats: auto\n")
    assert s.repeats == spec_rounds.AUTO_MAX and \
        s.repeats_auto == {"min": spec_rounds.AUTO_MIN, "max": spec_rounds.AUTO_MAX}
    s = scan_of(schema, "repeats: {auto: true, min: 2, max: 5}\norder: {mode: interleaved, seed: 42}\n")
    assert (s.repeats, s.repeats_auto, s.order_seed) == (5, {"min": 2, "max": 5}, 42)
    assert scan_of(schema, "order: sequential\nrepeats: 2\n").order == "sequential"


@pytest.mark.parametrize("text, line, fragment", [
    ("repeats: 0\n", 1, "repeats: must be a positive integer, auto or {auto: true"),
    ("repeats: sometimes\n", 1, "must be a positive integer, auto"),
    ("repeats: {auto: true, maximum: 5}\n", 1, "unknown key 'maximum' (known: auto, min, max)"),
    ("repeats: {auto: false, max: 5}\n", 1, "auto must be true (for a fixed count write repeats: N)"),
    ("repeats: {auto: true, min: 1}\n", 1, "min must be at least 2"),
    ("repeats: {auto: true, min: 5, max: 4}\n", 1, "max (4) must be at least min (5)"),
    ("name: x\norder: random\n", 2, "order: must be one of interleaved, sequential"),
    ("order: {mode: interleaved, seed: x}\n", 1, "seed must be an integer"),
    ("order: sequential\nrepeats: auto\n", 2, "repeats: auto runs rounds and decides after each: it needs "
                                              "order: interleaved"),
])
def test_bad_repeats_and_order_name_key_and_line(schema, text, line, fragment):
    with pytest.raises(ScanError) as err:
        parse_scan(text, "bad.yaml", schema)
    assert str(err.value).startswith("bad.yaml:%d:" % line), str(err.value)
    assert fragment in str(err.value)


SCAN = """config: {nodes: 2, duration: 300ms, warmup: 100ms}
repeats: 3
axes:
  variants:
    - {name: a, driver: tcp, credits: 1}
    - {name: b, driver: tcp, credits: 2}
    - {name: c, driver: tcp, credits: 4}
"""


def test_interleaved_rounds_hold_every_configuration_once_in_a_seeded_order(schema):
    points = expand.expand(scan_of(schema, SCAN))
    plan = rounds.plan(points, "interleaved", 1)
    assert len(plan) == 3
    for r, members in enumerate(plan):
        assert {p.repeat for p in members} == {r}
        assert sorted(p.values["label"] for p in members) == ["a", "b", "c"]
    orders = [[p.values["label"] for p in members] for members in plan]
    assert orders == [[p.values["label"] for p in members] for members in rounds.plan(points, "interleaved", 1)]
    seeds = [[[p.values["label"] for p in m] for m in rounds.plan(points, "interleaved", s)] for s in range(1, 9)]
    assert len({json.dumps(o) for o in seeds}) > 1        # the seed shuffles
    # sequential: the expansion order, a configuration's repeats back to back
    (seq,) = rounds.plan(points, "sequential", 1)
    assert [p.id for p in seq] == [p.id for p in points]
    assert [p.values["label"] for p in seq[:3]] == ["a", "a", "a"]


def fake_runs(monkeypatch, rates):
    """runner._run_point writes a synthetic result: rates[label](repeat) Gb/s per node."""
    calls = []

    def run(campaign, point, evbench, extra_args):
        calls.append(point.id)
        doc = synthetic.result("tcp", rates[point.values["label"]](point.repeat), credits=point.values["credits"])
        with open(campaign.result_json(point.id), "w") as f:
            json.dump(doc, f)
        return "ok", 0, doc, 0.01, None
    monkeypatch.setattr(runner, "_run_point", run)
    return calls


def adaptive(tmp_path, schema, monkeypatch, rates, spec="{auto: true, min: 3, max: 6}"):
    scan = scan_of(schema, SCAN.replace("repeats: 3", "repeats: %s" % spec))
    points = expand.expand(scan)
    out = str(tmp_path / "out")
    calls = fake_runs(monkeypatch, rates)
    runner.run_campaign(scan, points, out, "/nonexistent/evbench", stream=open(os.devnull, "w"))
    meta = json.load(open(os.path.join(out, "campaign.json")))
    return out, meta, calls, points


def test_adaptive_repeats_stop_once_the_leader_is_clear(tmp_path, schema, monkeypatch):
    rates = {"a": lambda r: 10.0 + r * 0.1, "b": lambda r: 5.0 + r * 0.1, "c": lambda r: 4.0 + r * 0.1}
    out, meta, calls, points = adaptive(tmp_path, schema, monkeypatch, rates)
    assert meta["rounds"]["run"] == 3 and meta["rounds"]["decided"] is True
    assert meta["rounds"]["why"] == "a leads b beyond noise"
    assert len(calls) == 9 and {p.repeat for p in points if p.id in calls} == {0, 1, 2}
    # the rounds not needed are neither run nor pending
    recs = collect.records(out)
    assert len(recs) == 9 and {r.status for r in recs} == {"ok"}
    assert calls == meta["order"]["run_order"][:9]


def test_adaptive_repeats_run_to_the_cap_when_the_leaders_stay_within_noise(tmp_path, schema, monkeypatch):
    swing = lambda base: lambda r: base + (1.0 if r % 2 else -1.0)
    rates = {"a": swing(10.0), "b": swing(9.9), "c": lambda r: 1.0}
    out, meta, calls, _ = adaptive(tmp_path, schema, monkeypatch, rates)
    assert meta["rounds"]["run"] == 6 and meta["rounds"]["decided"] is False
    assert meta["rounds"]["why"].startswith("reached max 6 rounds with a and b: within noise")
    assert len(calls) == 18
    report = collect.records(out)
    assert {r.repeat for r in report} == set(range(6))
    assert report_rounds.sentences(meta)[0].startswith("repeats: auto ran 6 rounds (min 3, max 6): reached max")


def test_a_resumed_campaign_runs_only_what_is_missing(tmp_path, schema, monkeypatch):
    rates = {"a": lambda r: 10.0, "b": lambda r: 5.0, "c": lambda r: 4.0}
    scan = scan_of(schema, SCAN)
    points = expand.expand(scan)
    out = str(tmp_path / "out")
    calls = fake_runs(monkeypatch, rates)
    runner.run_campaign(scan, points, out, "/x", stream=open(os.devnull, "w"))
    assert sorted(calls) == sorted(p.id for p in points)
    os.remove(os.path.join(out, "results", "p0005.json"))
    del calls[:]
    runner.run_campaign(scan, points, out, "/x", stream=open(os.devnull, "w"))
    assert calls == ["p0005"]
    status = json.load(open(os.path.join(out, "status", "p0005.json")))
    assert status["round"] == 1 and status["load"]["source"] == "runner" and status["started"] > 0
