"""Shared helpers for the evbench-scan tests (run with /usr/bin/python3 -m pytest).

Every test that checks or runs a campaign uses the real evbench (build/bin/evbench,
or EVBENCH_TEST_BINARY); where a test needs a point that fails or hangs on
demand, INJECT wraps the real binary and adds only that (evbench_inject.py).
"""
import os
import signal
import subprocess
import sys

import pytest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCAN_DIR = os.path.join(REPO, "scan")
CLI = os.path.join(SCAN_DIR, "evbench-scan")
INJECT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "evbench_inject.py")
# The real binary: build/bin/evbench, or EVBENCH_TEST_BINARY for a build elsewhere.
REAL = os.environ.get("EVBENCH_TEST_BINARY") or os.path.join(REPO, "build", "bin", "evbench")
sys.path.insert(0, SCAN_DIR)

# Short real runs: 2 nodes on the local bootstrap over tcp, 64 KiB fragments,
# 300 ms of which 100 ms warm-up (evbench wants warmup < duration).
QUICK = {"nodes": 2, "parallel": 2, "driver": "tcp", "bootstrap": "local", "fragment.size": "64KiB",
         "duration": "300ms", "warmup": "100ms"}


def quick_config(indent="  ", **overrides):
    """QUICK (with overrides) as the lines of a scan's `config:` block."""
    merged = dict(QUICK, **overrides)
    return "".join("%s%s: %s\n" % (indent, k, v) for k, v in merged.items())

DEFAULT_TIMEOUT_S = 60


class RerunLog:
    """Writes each first attempt that failed (pytest-rerunfailures reruns it,
    scripts/test.sh) to a file: its name and its whole report, which pytest
    itself does not print once the second attempt has passed."""

    def __init__(self, path):
        self.path = path

    def pytest_runtest_logreport(self, report):
        if report.outcome == "rerun":
            with open(self.path, "a") as out:
                out.write("=== %s (%s, first attempt)\n%s\n" % (report.nodeid, report.when, report.longreprtext))


def pytest_configure(config):
    config.addinivalue_line("markers", "timeout(seconds): fail the test after this many seconds")
    # scripts/test.sh: where the first attempts of rerun tests go (on the
    # controller only: under xdist it receives every worker's reports).
    rerun_log = os.environ.get("EVB_PYTEST_RERUN_LOG")
    if rerun_log and not hasattr(config, "workerinput"):
        config.pluginmanager.register(RerunLog(rerun_log), "evb-rerun-log")
    # Under pytest-xdist (`-n`, scripts/test.sh) the tests run in worker
    # processes whose terminal summaries nobody sees: the docs blocks' summary
    # is then the controller's, from the reports the workers send back.
    if getattr(config.option, "numprocesses", None) and not hasattr(config, "workerinput"):
        import test_docs_commands
        config.pluginmanager.register(test_docs_commands.Summary(), "docs-commands-summary")


@pytest.fixture(autouse=True)
def _timeout(request):
    """Per-test wall-clock limit (SIGALRM; no plug-in needed)."""
    marker = request.node.get_closest_marker("timeout")
    seconds = marker.args[0] if marker else DEFAULT_TIMEOUT_S

    def expire(signum, frame):
        raise TimeoutError("test exceeded %d s" % seconds)
    old = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


def real_evbench():
    """Path of the built evbench, or skip the test."""
    if not os.access(REAL, os.X_OK):
        if os.environ.get("EVBENCH_TESTS_STRICT"):  # scripts/test.sh: nothing may skip
            pytest.fail("%s not built" % REAL)
        pytest.skip("%s not built (build the C++ tree into build/ first)" % os.path.relpath(REAL, REPO))
    return REAL


@pytest.fixture
def evbench():
    return real_evbench()


@pytest.fixture(scope="session")
def schema():
    """What the built evbench accepts (`evbench config --json`)."""
    from evbench_scan.spec import schema as schema_mod
    return schema_mod.load(real_evbench())


def inject_env(**settings):
    """Environment for a campaign run through INJECT (see evbench_inject.py)."""
    env = {"EVBENCH": INJECT, "EVBENCH_INJECT_REAL": real_evbench()}
    env.update(("EVBENCH_INJECT_" + k.upper(), v) for k, v in settings.items())
    return env


def default_signals():
    """preexec_fn for a child that must act on SIGINT: the test run may come from
    a non-interactive background shell (`nohup ... &`, some CI runners) where
    SIGINT is ignored and a child would inherit that (Python installs its
    KeyboardInterrupt handler only when SIGINT is not ignored at start)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)


def kill_group(proc, grace=5.0):
    """End `proc` (started with start_new_session=True) and its process group:
    SIGTERM first (evbench-scan then ends its points), SIGKILL after `grace` —
    the same ending evbench-scan gives its own points."""
    from evbench_scan.run.runner import kill_group as end_group
    end_group(proc, grace)


def processes_with(marker):
    """Live processes (not zombies, not us) whose command line contains `marker`."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open("/proc/%s/cmdline" % entry, "rb") as f:
                cmdline = f.read().decode(errors="replace")
            with open("/proc/%s/stat" % entry) as f:
                state = f.read().split(")")[-1].split()[0]
        except OSError:
            continue
        if marker in cmdline and state != "Z":
            pids.append(int(entry))
    return pids


def kill_processes_with(marker):
    """SIGKILL every process whose command line contains `marker`; their pids."""
    pids = processes_with(marker)
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return pids


@pytest.fixture(autouse=True)
def _no_process_left(request):
    """After every test that has a tmp_path: nothing started with a path under
    it may survive (a failed test must not leave a 1-hour evbench run behind)."""
    folder = str(request.getfixturevalue("tmp_path")) if "tmp_path" in request.fixturenames else None
    yield
    if folder:
        left = kill_processes_with(folder)
        if left:
            sys.stderr.write("\nkilled %d process(es) left by %s: %s\n"
                             % (len(left), request.node.nodeid, left))


def run_cli(args, env=None, timeout=120, cwd=None):
    """evbench-scan ARGS in its own session: on a timeout (or any error) its
    process group is ended before the exception goes on."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    proc = subprocess.Popen([CLI] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            universal_newlines=True, env=full_env, cwd=cwd or REPO,
                            start_new_session=True, preexec_fn=default_signals)
    try:
        out, err = proc.communicate(timeout=timeout)
    except BaseException:
        kill_group(proc)
        proc.communicate()
        raise
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    return str(path)
