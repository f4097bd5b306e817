#!/usr/bin/python3
"""The install as a user meets it (cmake/EvbenchInstall.cmake, docs/INSTALL.md).

  check_install.py --cmake CMAKE --build BUILD_DIR --version VERSION

Installs BUILD_DIR into a temporary prefix T/p, then from T (an unrelated
directory, no PYTHONPATH, no EVBENCH* variables) runs the installed evbench
(--version, a short run, sim's search for the SMPI build), evbench-scan
(--version, checking a shipped example scan with the evbench beside it),
`man -M T/p/share/man evbench` and the bash completions; then moves
the prefix to T/q and does it all again: nothing may depend on where the tree
was installed. Text files of the tree must not name the source or build dir.
Every command runs in its own process group, killed when it ends or times
out; T is removed at the end.
"""
import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile

RUN_SECONDS = 60


def fail(msg):
    print("FAILED: " + msg)
    sys.exit(1)


def clean_env():
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("EVBENCH") and k not in ("PYTHONPATH", "MANPATH")}
    env.update({"MANPAGER": "cat", "PAGER": "cat", "MANWIDTH": "100", "LC_ALL": "C.UTF-8"})
    return env


def run(argv, cwd, expect=0, timeout=RUN_SECONDS, env=None):
    """Runs argv; fails unless it exits `expect`. Returns (stdout, stderr)."""
    proc = subprocess.Popen(argv, cwd=cwd, env=env or clean_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, universal_newlines=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        fail("%s: no exit within %d s" % (" ".join(argv), timeout))
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # ranks left behind, if any
        except ProcessLookupError:
            pass
    if proc.returncode != expect:
        fail("%s: exit %d, expected %d\nstdout:\n%s\nstderr:\n%s"
             % (" ".join(argv), proc.returncode, expect, out, err))
    return out, err


def completion(script, words, wordbreaks=None):
    """COMPREPLY of the completion function in `script` for COMP_WORDS=words,
    the cursor on the last word, as bash sets them up on <TAB>."""
    quoted = " ".join("'%s'" % w.replace("'", "'\\''") for w in words)
    func = "_evbench_scan" if words[0] == "evbench-scan" else "_evbench"
    code = ("source '%s'\n" % script
            + ("COMP_WORDBREAKS=%s\n" % wordbreaks if wordbreaks else "unset COMP_WORDBREAKS\n")
            + "COMP_WORDS=(%s)\nCOMP_CWORD=%d\n%s\nprintf '%%s\\n' \"${COMPREPLY[@]}\"\n"
            % (quoted, len(words) - 1, func))
    out, _ = run(["bash", "--norc", "-c", code], cwd=os.path.dirname(script))
    return out.split()


def check_text_files(prefix, forbidden):
    """No installed text file names the tree it was built from."""
    for root, dirs, files in os.walk(prefix):
        if "__pycache__" in dirs:
            dirs.remove("__pycache__")  # Python's caches of the run above, not installed
        for name in files:
            path = os.path.join(root, name)
            with open(path, "rb") as f:
                data = f.read()
            if data.startswith(b"\x7fELF"):
                continue  # binaries carry source paths in their debug information only
            for path_text in forbidden:
                if path_text.encode() in data:
                    fail("%s names %s" % (path, path_text))


def check_prefix(prefix, cwd, version, forbidden):
    evbench = os.path.join(prefix, "bin", "evbench")
    out, _ = run([evbench, "--version"], cwd)
    if not out.startswith("evbench %s " % version):
        fail("evbench --version printed %r, expected evbench %s" % (out, version))

    out, _ = run([evbench, "run", "--set", "duration=0.5s", "--set", "warmup=100ms"], cwd)
    if "# OK" not in out:
        fail("evbench run: no '# OK' line in:\n" + out)

    out, _ = run([os.path.join(prefix, "bin", "evbench-scan"), "--version"], cwd)
    if out != "evbench-scan %s\n" % version:
        fail("evbench-scan --version printed %r" % out)

    # The installed package checks a shipped example with the evbench beside
    # it (not one on PATH: PATH holds only the system's directories here).
    env = dict(clean_env(), PATH="/usr/bin:/bin")
    example = os.path.join(prefix, "share", "evbench", "examples", "size.yaml")
    out, _ = run([os.path.join(prefix, "bin", "evbench-scan"), "check", example], cwd, env=env)
    if "p0001" not in out:
        fail("evbench-scan check %s listed no points:\n%s" % (example, out))

    # sim looks for the SMPI build relative to the installed evbench first.
    platform = os.path.join(prefix, "share", "evbench", "configs", "platforms", "fat-tree-64.yaml")
    _, err = run([evbench, "sim", "--platform", platform, "--set", "nodes=4"], cwd, expect=2)
    libexec = os.path.join(os.path.realpath(prefix), "libexec", "evbench")
    if libexec not in err:
        fail("evbench sim without an SMPI build does not name %s:\n%s" % (libexec, err))

    out, err = run(["man", "--warnings", "-M", os.path.join(prefix, "share", "man"), "evbench"], cwd)
    for text in ("EXIT STATUS", "ENVIRONMENT", "EVBENCH_SMPI_BUILD", "driver_options.", "fragment.size"):
        if text not in out:
            fail("man evbench: no %r in the page:\n%s" % (text, out[:2000]))
    if err.strip():
        fail("man evbench: groff warnings:\n" + err)

    comp = os.path.join(prefix, "share", "bash-completion", "completions")
    keys = completion(os.path.join(comp, "evbench"), ["evbench", "run", "--set", "dri"])
    if "driver=" not in keys or not any(k.startswith("driver_options.") for k in keys):
        fail("completion of `evbench run --set dri`: %s" % keys)
    # As bash splits `--set driver=t` at '=' (COMP_WORDBREAKS): the reply is
    # what follows the '='.
    values = completion(os.path.join(comp, "evbench"), ["evbench", "run", "--set", "driver", "=", "t"],
                        wordbreaks="$' \\t\\n\"\\'><=;|&(:'")
    if "tcp" not in values:
        fail("completion of `evbench run --set driver=t`: %s" % values)
    subs = completion(os.path.join(comp, "evbench-scan"), ["evbench-scan", "ch"])
    if subs != ["check"]:
        fail("completion of `evbench-scan ch`: %s" % subs)
    check_text_files(prefix, forbidden)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cmake", required=True)
    ap.add_argument("--build", required=True)
    ap.add_argument("--version", required=True)
    args = ap.parse_args()
    build = os.path.realpath(args.build)
    source = os.path.realpath(os.path.join(os.path.dirname(__file__), "..", ".."))
    top = tempfile.mkdtemp(prefix="evbench-install-")
    try:
        first = os.path.join(top, "p")
        run([args.cmake, "--install", build, "--prefix", first], top, timeout=120)
        check_prefix(first, top, args.version, [build, source])
        moved = os.path.join(top, "q")
        os.rename(first, moved)
        check_prefix(moved, top, args.version, [build, source, first])
    finally:
        shutil.rmtree(top, ignore_errors=True)
    print("install: evbench, evbench-scan, man page and completions work from %s and after a move"
          % top)


if __name__ == "__main__":
    main()
