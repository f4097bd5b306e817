"""Every command block of README.md and docs/**/*.md runs here, or says why not
(issue 26 item 5).

Which blocks are commands. A fenced block whose info string is sh, bash,
shell or console; an unlabelled fenced block or a 4-space indented block whose
first line that is not a `#` comment starts (after `$ ` and VAR=value
prefixes) with a command: a word of COMMANDS, an executable on PATH, or an
executable path of this repository (scripts/..., build/bin/..., scan/...).
YAML, JSON, tables and program output are not commands. In a console block
(`$ ` prompts) only the prompted lines are commands.

A command block runs unless the line before it (blank lines allowed) is
`<!-- docs-test: not-run REASON -->`; REASON is "CATEGORY: detail", e.g.
"needs a cluster: Slurm", "needs hardware: an RDMA NIC", "installs packages:
...", "builds: ...", "takes minutes: ...", "synopsis: placeholders, not a
command"; the summary groups by CATEGORY (the words before the first ':', '(',
';' or ','). A marker that precedes no block is an error (a stale marker
hides nothing).

How a block runs: as written, as one `bash -e -o pipefail` script, with a
hard timeout (BLOCK_TIMEOUT_S) after which its process group is killed, from a
scratch copy of the repository root (every top-level entry symlinked except
scans/ and results/, so a block's outputs land in the scratch directory).
PATH starts with build/bin and scan/, so `evbench` and `evbench-scan` are
the build under test; with EVBENCH_TEST_BINARY=DIR/bin/evbench, build/ in the
scratch root is DIR. The
environment lets Open MPI run as root, on loopback, with more ranks than cores
(OMPI_ALLOW_RUN_AS_ROOT*, OMPI_MCA_{btl_tcp,oob_tcp}_if_include=lo,
OMPI_MCA_rmaps_base_oversubscribe=1): what a user on another machine would not
need is set here, not written into the docs. Nothing in the commands is
rewritten: a block too long to run here as written carries the marker.

One test per block (id FILE:LINE); the terminal summary lists how many ran and
the not-run blocks grouped by reason.
"""
import os
import re
import shlex
import shutil
import subprocess
import sys

import pytest

from conftest import REPO, default_signals, kill_group, real_evbench

BLOCK_TIMEOUT_S = 300
MARKER = re.compile(r"^\s*<!--\s*docs-test:\s*not-run\b\s*(.*?)\s*-->\s*$")
ANY_MARKER = re.compile(r"^\s*<!--\s*docs-test:")
FENCE = re.compile(r"^(\s*)(```+|~~~+)\s*([\w+-]*)")
SHELL_INFO = {"sh", "bash", "shell", "console"}
COMMANDS = {
    "evbench", "evbench-scan", "mpirun", "srun", "sbatch", "salloc", "qsub", "bash", "sh", "cmake",
    "ctest", "python3", "pytest", "cd", "export", "nohup", "nice", "spack", "module", "for", "time",
    "ulimit", "env", "source", ".", "cat", "ldd",
    # tools of a cluster's fabric, documented for compute nodes (absent here)
    "fi_info", "ucx_info", "ibv_devices", "ibv_devinfo", "show_gids", "ompi_info", "opainfo", "hfi1_control",
}
ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
NOT_MIRRORED = {"scans", "results", ".git"}


# --- finding the blocks -------------------------------------------------------------------------
# A Block is one fenced or indented block of a Markdown file: where it starts
# (1-based line of its first line, the fence for fenced blocks), its text as a
# shell would read it, whether it is a command block, and the not-run reason if
# a marker precedes it.

class Block:
    def __init__(self, path, line, lines, info, fenced, reason):
        self.path, self.line, self.lines, self.info, self.fenced = path, line, lines, info, fenced
        self.reason = reason
        self.console = any(l.lstrip().startswith("$ ") for l in lines)
        self.is_command = is_command_block(lines, info, fenced)

    @property
    def id(self):
        return "%s:%d" % (self.path, self.line)

    def script(self):
        """The shell text: console blocks keep only their prompted lines."""
        if self.console:
            return "\n".join(l.lstrip()[2:] for l in self.lines if l.lstrip().startswith("$ ")) + "\n"
        return "\n".join(self.lines) + "\n"


def first_word(lines):
    """The command word of the first line that is not blank or a comment."""
    for line in lines:
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        if text.startswith("$ "):
            text = text[2:]
        try:
            words = shlex.split(text, comments=True)
        except ValueError:   # an unbalanced quote continued on the next line
            words = text.split()
        while words and ASSIGNMENT.match(words[0]):
            words.pop(0)
        return words[0] if words else ""
    return ""


def is_command_word(word):
    if word in COMMANDS or shutil.which(word):
        return True
    path = os.path.join(REPO, word)
    if "/" in word and (word.startswith(("scripts/", "build", "scan/", "bench/", "./"))
                        or (os.path.isfile(path) and os.access(path, os.X_OK))):
        return True
    return False


def is_command_block(lines, info, fenced):
    if fenced and info:
        return info in SHELL_INFO
    return is_command_word(first_word(lines))


def marker_reason(lines, index):
    """The not-run reason of the block starting at lines[index], or None."""
    k = index - 1
    while k >= 0 and not lines[k].strip():
        k -= 1
    if k >= 0:
        m = MARKER.match(lines[k])
        if m:
            return m.group(1) or ""
    return None


def blocks_of(relpath):
    """Every fenced and indented block of one Markdown file, and the line
    numbers of markers that precede no block."""
    with open(os.path.join(REPO, relpath)) as f:
        lines = f.read().split("\n")
    blocks, used_markers = [], set()
    i, previous_blank = 0, True
    while i < len(lines):
        m = FENCE.match(lines[i])
        if m:
            indent, fence, info = m.group(1), m.group(2), m.group(3).lower()
            j = i + 1
            while j < len(lines) and not lines[j].strip().startswith(fence):
                j += 1
            body = [l[len(indent):] if l.startswith(indent) else l.lstrip() for l in lines[i + 1:j]]
            blocks.append(Block(relpath, i + 1, body, info, True, marker_reason(lines, i)))
            i, previous_blank = j + 1, False
            continue
        if lines[i].startswith("    ") and lines[i].strip() and previous_blank and not in_list(lines, i):
            j = i
            while j < len(lines) and (lines[j].startswith("    ") or not lines[j].strip()):
                j += 1
            body = [l[4:] for l in lines[i:j]]
            while body and not body[-1].strip():
                body.pop()
            blocks.append(Block(relpath, i + 1, body, "", False, marker_reason(lines, i)))
            i, previous_blank = j, False
            continue
        previous_blank = not lines[i].strip()
        i += 1
    starts = {b.line - 1 for b in blocks}
    stale = []
    for n, line in enumerate(lines):
        if ANY_MARKER.match(line):
            k = n + 1
            while k < len(lines) and not lines[k].strip():
                k += 1
            if not MARKER.match(line) or k not in starts:
                stale.append(n + 1)
    return blocks, stale


def in_list(lines, index):
    """An indented paragraph that continues a list item is not a code block:
    the last non-blank line before it at indent < 4 is a list item or text
    that belongs to one (Markdown: lazy continuation)."""
    k = index - 1
    while k >= 0 and (not lines[k].strip() or lines[k].startswith("    ")):
        k -= 1
    if k < 0:
        return False
    return bool(re.match(r"^\s{0,3}([-*+]|\d+[.)])\s", lines[k])) or lines[k].startswith(("  ", "   "))


def doc_files():
    files = ["README.md"]
    for root, _, names in os.walk(os.path.join(REPO, "docs")):
        files += [os.path.relpath(os.path.join(root, n), REPO) for n in names if n.endswith(".md")]
    return sorted(files)


def all_blocks():
    return [b for path in doc_files() for b in blocks_of(path)[0]]


COMMAND_BLOCKS = [b for b in all_blocks() if b.is_command]
TO_RUN = [b for b in COMMAND_BLOCKS if b.reason is None]
NOT_RUN = [b for b in COMMAND_BLOCKS if b.reason is not None]


# --- the summary --------------------------------------------------------------------------------
# Printed at the end of the pytest run (terminal summary): blocks run, passed,
# failed, and the not-run ones grouped by the category of their reason (the
# words before its first ':', '(', ';' or ',': "needs a cluster: Slurm" -> "needs a cluster").

def reason_category(reason):
    return re.split(r"[:(;,]", reason, 1)[0].strip() or "(no reason given)"


class Summary:
    def __init__(self):
        self.outcomes = {}

    def pytest_runtest_logreport(self, report):
        if "test_docs_commands.py::test_block[" in report.nodeid and (report.when == "call" or report.failed):
            self.outcomes[report.nodeid] = report.outcome

    def pytest_terminal_summary(self, terminalreporter):
        if not self.outcomes:
            return  # no block ran in this session (a selection without them)
        tr = terminalreporter
        tr.section("docs command blocks (tests/python/test_docs_commands.py)")
        count = lambda outcome: sum(1 for o in self.outcomes.values() if o == outcome)
        groups = {}
        for b in NOT_RUN:
            groups.setdefault(reason_category(b.reason), []).append(b)
        tr.write_line("%d command blocks in README.md and docs/: %d to run here (%d passed, %d failed, %d skipped),"
                      " %d not run (marked)" % (len(COMMAND_BLOCKS), len(TO_RUN), count("passed"), count("failed"),
                                                count("skipped"), len(NOT_RUN)))
        for category, blocks in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            tr.write_line("  not run, %s (%d): %s" % (category, len(blocks), " ".join(b.id for b in blocks)))


@pytest.fixture(scope="module", autouse=True)
def _summary(request):
    manager = request.config.pluginmanager
    if not manager.has_plugin("docs-commands-summary"):
        manager.register(Summary(), "docs-commands-summary")


# --- running a block ----------------------------------------------------------------------------
# `evbench sim` needs the SMPI build (build-sim/, or EVBENCH_SMPI_BUILD), which
# scripts/test.sh builds before pytest; without it such a block is skipped
# (failed under EVBENCH_TESTS_STRICT, as conftest does for build/bin/evbench).

SIM = re.compile(r"\bevbench\s+sim\b")


def need_smpi_build():
    smpi = os.environ.get("EVBENCH_SMPI_BUILD") or os.path.join(REPO, "build-sim")
    if not os.access(os.path.join(smpi, "bin", "evbench-smpi"), os.X_OK):
        why = "no SMPI build in %s (docs/SCALE.md: cmake -S . -B build-sim -DEVBENCH_SIM=ON)" % smpi
        if os.environ.get("EVBENCH_TESTS_STRICT"):
            pytest.fail(why)
        pytest.skip(why)


def scratch_root(tmp_path, evbench):
    """A directory that reads like the repository root (symlinks) but keeps
    what a block writes (scans/, r.json, ...) to itself."""
    root = tmp_path / "repo"
    root.mkdir()
    for name in os.listdir(REPO):
        if name not in NOT_MIRRORED:
            os.symlink(os.path.join(REPO, name), str(root / name))
    # build/ is the build under test: EVBENCH_TEST_BINARY's build directory
    # when that is set (its bin/evbench, lib/evbench/, share/, CMakeCache.txt).
    build = os.path.dirname(os.path.dirname(os.path.realpath(evbench)))
    if build != os.path.realpath(os.path.join(REPO, "build")):
        if os.path.lexists(str(root / "build")):
            os.unlink(str(root / "build"))
        os.symlink(build, str(root / "build"))
    return str(root)


def block_env(root, evbench):
    env = dict(os.environ)
    env.update({
        "PATH": os.pathsep.join([os.path.dirname(evbench), os.path.join(root, "scan"), env.get("PATH", "")]),
        "EVBENCH": evbench,
        "OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
        "OMPI_MCA_btl_tcp_if_include": "lo", "OMPI_MCA_oob_tcp_if_include": "lo",
        "OMPI_MCA_rmaps_base_oversubscribe": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
    })
    return env


def test_markers_precede_blocks():
    """A not-run marker with no block after it (or misspelt) hides nothing and
    is an error; every marker gives a reason."""
    problems = []
    for path in doc_files():
        blocks, stale = blocks_of(path)
        problems += ["%s:%d: docs-test marker without a block after it (or not `not-run REASON`)" % (path, n)
                     for n in stale]
        problems += ["%s: not-run marker without a reason" % b.id for b in blocks if b.reason == ""]
    assert not problems, "\n".join(problems)


def test_some_blocks_are_found():
    """The extraction itself works: the README's two commands are command blocks."""
    readme = [b for b in COMMAND_BLOCKS if b.path == "README.md"]
    assert any("scripts/build.sh" in b.script() for b in readme)
    assert len(TO_RUN) >= 10


@pytest.mark.timeout(BLOCK_TIMEOUT_S + 30)
@pytest.mark.parametrize("block", TO_RUN, ids=[b.id for b in TO_RUN])
def test_block(block, tmp_path):
    evbench = real_evbench()
    if SIM.search(block.script()):
        need_smpi_build()
    root = scratch_root(tmp_path, evbench)
    proc = subprocess.Popen(["bash", "-e", "-o", "pipefail", "-c", block.script()], cwd=root,
                            env=block_env(root, evbench), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, universal_newlines=True, start_new_session=True,
                            preexec_fn=default_signals)
    try:
        out, _ = proc.communicate(timeout=BLOCK_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        kill_group(proc)
        out, _ = proc.communicate()
        pytest.fail("%s: still running after %d s (killed); mark it `<!-- docs-test: not-run takes N minutes -->`"
                    " or make it shorter\n%s\n--- output (tail) ---\n%s"
                    % (block.id, BLOCK_TIMEOUT_S, block.script(), out[-3000:]))
    finally:
        kill_group(proc)   # stray children of a finished block (a `&` without `wait`)
    sys.stdout.write(out[-2000:])
    assert proc.returncode == 0, "%s: exit %d\n%s\n--- output (tail) ---\n%s" % (
        block.id, proc.returncode, block.script(), out[-3000:])
