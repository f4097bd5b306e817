"""A driver scan on a machine whose load rises halfway (docs/SCANS.md,
"Order and rounds", "Host load"): the real evbench, two local variants,
three interleaved rounds of ~1 s runs, and CPU-bound children the test
starts once two rounds are done and kills at the end. Nothing here is a
timing threshold: the test checks the order the campaign ran in, that the
load recorded while the children ran is what they made it, that the
flags follow the stated rule, and that no winner rests on flagged runs."""
import json
import os
import signal
import subprocess
import time

import pytest

from conftest import CLI, default_signals, kill_group, quick_config, real_evbench, run_cli, write


def second_variant(schema):
    """A local variant besides tcp: ucx over shared memory, else libfabric's shm."""
    drivers = schema.keys["driver"]["choices"]
    if "ucx" in drivers:
        return "{name: ucx/sm, driver: ucx, driver_options.tls: sm}"
    if "libfabric" in drivers:
        return "{name: libfabric/shm, driver: libfabric, driver_options.provider: shm}"
    if os.environ.get("EVBENCH_TESTS_STRICT"):
        pytest.fail("the driver scan needs the ucx or libfabric driver built")
    pytest.skip("no second local driver (ucx, libfabric) built")


def start_busy(count):
    """`count` CPU-bound shell loops in a session of their own."""
    return subprocess.Popen(["sh", "-c", "for i in $(seq %d); do (while :; do :; done) & done; wait" % count],
                            start_new_session=True, preexec_fn=default_signals)


def statuses(out):
    folder = os.path.join(out, "status")
    docs = {}
    for name in os.listdir(folder) if os.path.isdir(folder) else ():
        if name.endswith(".json"):
            try:
                docs[name[:-5]] = json.load(open(os.path.join(folder, name)))
            except ValueError:
                pass
    return docs


@pytest.mark.timeout(420)
def test_loaded_rounds_are_flagged_and_decide_no_winner(tmp_path, schema):
    scan = write(tmp_path / "drivers.yaml", """name: drivers-under-load
config:
%srepeats: 3
axes:
  variants:
    - {name: tcp, driver: tcp}
    - %s
""" % (quick_config(driver="~", duration="1s", warmup="200ms"), second_variant(schema)))
    out = str(tmp_path / "out")
    env = dict(os.environ, EVBENCH=real_evbench())
    proc = subprocess.Popen([CLI, "run", scan, "-o", out], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, universal_newlines=True, start_new_session=True,
                            preexec_fn=default_signals)
    busy, busy_from = None, None
    try:
        deadline = time.monotonic() + 300
        while proc.poll() is None and time.monotonic() < deadline:
            if busy is None and len(statuses(out)) >= 4:      # two rounds of two variants done
                busy_from = time.time()
                busy = start_busy(2 * (os.cpu_count() or 1))
            time.sleep(0.02)
        _, err = proc.communicate(timeout=max(1, deadline - time.monotonic()))
    finally:
        if proc.poll() is None:
            kill_group(proc)
        if busy is not None:
            os.killpg(busy.pid, signal.SIGKILL)
            busy.wait()
    assert proc.returncode == 0, err[-2000:]
    assert busy is not None, "the campaign never finished two rounds"

    # Interleaved rounds: each round runs both variants before the next round starts.
    meta = json.load(open(os.path.join(out, "campaign.json")))
    assert meta["order"]["mode"] == "interleaved"
    order = meta["order"]["run_order"]
    repeat = dict((p["id"], p["repeat"]) for p in meta["points"])
    label = dict((p["id"], p["values"]["label"]) for p in meta["points"])
    assert [repeat[pid] for pid in order] == [0, 0, 1, 1, 2, 2]
    assert [sorted(label[pid] for pid in order[i:i + 2]) for i in (0, 2, 4)] == [sorted(set(label.values()))] * 3
    done = statuses(out)
    assert sorted(done, key=lambda pid: done[pid]["started"]) == order

    # The load recorded: the points that ran beside the children for most of
    # their time (the children start as the fifth point does).
    loaded = [pid for pid in order if done[pid]["started"] + done[pid]["seconds"] / 2 > busy_from]
    assert loaded == order[4:]
    for pid in loaded:
        load = done[pid]["load"]
        assert load["other_cpu_fraction"] > 0 and load["runnable_others"] > 0, (pid, load)

    # The report flags by its stated rule, the loaded round among them, and
    # no winner stands on flagged runs alone.
    proc = run_cli(["report", out], env={"EVBENCH": "/nonexistent/evbench"})
    assert proc.returncode == 0, proc.stderr
    summary = json.load(open(os.path.join(out, "report", "summary.json")))
    flags = summary["load"]
    values = dict((pid, done[pid]["load"][flags["figure"]]) for pid in order)
    assert flags["figure"] == "runnable_others" and flags["measured"] == 6
    assert sorted(flags["flagged"]) == sorted(pid for pid, v in values.items()
                                              if abs(v - flags["median"]) > flags["bound"])
    assert flags["bound"] == max(flags["bound_cpus"], flags["bound_share"] * flags["median"])
    assert set(loaded) <= set(flags["flagged"]), (values, flags)
    head = summary["answers"][0]
    assert head["question"] == "fastest variant"
    if head.get("load_flagged"):
        assert head["verdict"] in ("beyond noise", "load may have decided", "within noise", "one run")
        if head["verdict"] == "beyond noise":        # only when the lead holds on the quiet runs
            assert head["verdict_without_load_flagged"] == "beyond noise"
    if head["verdict"] != "beyond noise":
        assert " beats " not in head["text"]
    md = open(os.path.join(out, "report", "report.md")).read()
    table = md.split("## Host load")[1].split("\n## ")[0]
    assert all("| %s |" % pid in table for pid in flags["flagged"])
