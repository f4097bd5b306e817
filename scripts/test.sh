#!/bin/bash
# Builds evbench and runs every test: the unit and integration tests (CTest),
# the unit tests (and the runs labelled sanitize) again under AddressSanitizer + UBSan, the Python tests
# of the scan tooling (including a real single-node Slurm cluster), and a
# bounded run of the libFuzzer targets (20 s each, docs/FUZZING.md).
#
# Every runner writes a JUnit report into build-test-results/; at the end
# (also after an error) scripts/test_accounting.py checks what did not run
# against tests/expected-not-run.txt (docs/TESTING.md) and prints, as the
# very last line, `N passed, N failed, N skipped`. The script fails when a
# test fails, a step fails, or a test did not run that is not on the list.
set -euo pipefail
cd "$(dirname "$0")/.."
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# The four builds compile through ccache (install-deps.sh --test) when it is
# there. Paths relative to the clone and the build directory left out of the
# hash: a fresh clone elsewhere reuses what an earlier run compiled (its debug
# information then names that run's directory; CI does not debug).
launcher=()
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
  # The test programs include a precompiled GoogleTest header (tests/CMakeLists.txt).
  export CCACHE_SLOPPINESS=${CCACHE_SLOPPINESS:-pch_defines,time_macros}
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi

results=$PWD/build-test-results
rm -rf "$results"
mkdir -p "$results"
step=start

# A test runner's failure is recorded and the next runner still runs (so the
# accounting covers all of them); a build or configure error ends the script
# at once (set -e). Either way finish() prints the accounting and the totals.
run_step() {  # run_step NAME COMMAND...
  local name=$1 rc=0
  shift
  step=$name
  "$@" || rc=$?
  printf '%s\t%s\n' "$name" "$rc" >> "$results/steps.tsv"
}
# Wall time of each step, printed at the end (docs/TESTING.md, "How long").
last_mark=$SECONDS
mark() {  # mark NAME: the time since the previous mark, as NAME's
  printf '%s\t%s\n' "$1" $((SECONDS - last_mark)) >> "$results/times.tsv"
  last_mark=$SECONDS
}
finish() {
  local rc=$? acct=0
  trap - EXIT INT TERM
  set +e
  if [ -n "${tidy_pid:-}" ]; then  # the script stopped while clang-tidy ran beside ctest
    kill -- "-$tidy_pid" 2>/dev/null
    wait "$tidy_pid" 2>/dev/null
  fi
  if [ -f "$results/times.tsv" ]; then
    printf 'test.sh: wall time per step (s):'
    while IFS=$'\t' read -r name secs; do printf ' %s %s,' "$name" "$secs"; done < "$results/times.tsv"
    printf ' total %s\n' "$SECONDS"
  fi
  if [ -s "$results/flaky.txt" ]; then
    printf 'test.sh: failed at the first attempt (ctest ran each once more; the totals below say whether the second passed):'
    while IFS=$'\t' read -r runner name; do printf ' %s:%s' "$runner" "$name"; done < "$results/flaky.txt"
    printf '\n'
  fi
  if [ "$rc" -ne 0 ]; then
    printf '%s\t%s\t%s\n' "$step" "$rc" "the script stopped here" >> "$results/steps.tsv"
  fi
  /usr/bin/python3 scripts/test_accounting.py --expected tests/expected-not-run.txt "$results"
  acct=$?
  if [ "$rc" -eq 0 ]; then rc=$acct; fi
  exit "$rc"
}
trap finish EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --no-tests=error: a build dir configured without tests must not pass.
# A test that fails is run once more (--repeat until-pass:2) and counts as
# passed only if that second attempt passes: known flakes of the libraries
# under load (docs/TESTING.md, "Second attempts") must not turn a run red,
# but every first failure keeps its output in the log and is named again
# in flaky.txt and at the very end, so none goes unseen.
# -j 4 on any number of cores: most tests block in poll and wait (timers,
# peers, loopback transfers), so four at a time fill two cores; the runs
# that take the whole machine say so (PROCESSORS or RUN_SERIAL,
# tests/integration/CMakeLists.txt). docs/TESTING.md "How long" has the
# times at -j 2 and -j 4.
ctest_run() {  # ctest_run RUNNER BUILD_DIR CTEST_ARGS...
  local runner=$1 dir=$2 rc=0
  shift 2
  ctest --test-dir "$dir" --output-on-failure --no-tests=error -j 4 --timeout 300 \
        --repeat until-pass:2 --output-junit "$results/$runner.xml" "$@" \
        2>&1 | tee "$results/$runner.log" || rc=$?
  sed -n 's/^.*Test *#[0-9]*: \([^ ]*\) \.*\*\*\*\(Failed\|Exception\|Timeout\).*$/\1/p' \
      "$results/$runner.log" | sort -u | sed "s/^/$runner\t/" >> "$results/flaky.txt"
  return "$rc"
}

# One formatter config (.clang-format) for every C++ file.
step=clang-format
run_step clang-format sh -c "git ls-files '*.cpp' '*.hpp' '*.c' | xargs clang-format --dry-run --Werror"
mark clang-format

# Every driver whose library install-deps.sh installs is required: a driver
# that silently failed to configure would take its tests with it.
required_drivers=(-DEVBENCH_WITH_TCP=ON -DEVBENCH_WITH_MPI=ON -DEVBENCH_WITH_LIBFABRIC=ON
                  -DEVBENCH_WITH_UCX=ON -DEVBENCH_WITH_VERBS=ON -DEVBENCH_WITH_PSM2=ON)
step=build
scripts/build.sh --all -DEVBENCH_REQUIRE_GTEST=ON "${required_drivers[@]}"
mark build

# clang-tidy (.clang-tidy) on the sources the last 20 commits changed
# (scripts/tidy.sh; clang-tidy compiles every file again, so not the whole
# tree), while ctest runs: at idle priority (SCHED_IDLE), so it takes only the
# CPU time the tests leave unused (much of ctest waits: timeouts, killed
# ranks, loopback transfers; docs/TESTING.md "How long"). It reads build/'s
# compile commands and the sources, which ctest does not change. Its output
# is printed after ctest's; `clang-tidy` in times.tsv is the wait after ctest.
tidy_pid=
setsid chrt --idle 0 scripts/tidy.sh > "$results/clang-tidy.log" 2>&1 &
tidy_pid=$!  # its own process group (setsid): finish() ends clang-tidy with it
run_step ctest ctest_run ctest build
mark ctest
step=clang-tidy
tidy_rc=0
wait "$tidy_pid" || tidy_rc=$?
tidy_pid=
cat "$results/clang-tidy.log"
printf '%s\t%s\n' clang-tidy "$tidy_rc" >> "$results/steps.tsv"
mark clang-tidy

# Sanitizer build of the unit tests and the runs labelled sanitize (fragment
# layouts at the key limits, the failure paths, one short event-building run
# per driver that runs here) — MPI left out: Open MPI's own allocations are
# not ours to judge. Line tables only (-g1): what ASan's reports need, in
# less compile time than full debug information. Only what those tests run
# is built: evbench (with its modules) and the GoogleTest programs, not the
# man page generator or the bench programs.
step=build-asan
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DEVBENCH_SANITIZE=ON "${launcher[@]}" \
      -DCMAKE_CXX_FLAGS_DEBUG=-g1 -DCMAKE_C_FLAGS_DEBUG=-g1 -DEVBENCH_WITH_MPI=OFF -DEVBENCH_WITH_TCP=ON -DEVBENCH_WITH_LIBFABRIC=ON \
      -DEVBENCH_WITH_UCX=ON -DEVBENCH_WITH_VERBS=ON -DEVBENCH_WITH_PSM2=ON \
      -DEVBENCH_REQUIRE_GTEST=ON >/dev/null
cmake --build build-asan -j "$(nproc)" --target evbench evbench_modules evbench_unit_tests
mark build-asan
run_step ctest-asan ctest_run ctest-asan build-asan -L 'unit|sanitize'
mark ctest-asan

# The SMPI build (SimGrid, smpicxx) and the simulation tests: `evbench sim`
# of the ordinary build above driving build-sim's evbench-smpi (optimised,
# line tables only: nobody steps through it in a debugger in CI).
step=build-sim
cmake -S . -B build-sim -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEVBENCH_SIM=ON "${launcher[@]}" \
      "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" \
      "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" >/dev/null
cmake --build build-sim -j "$(nproc)"
mark build-sim
run_step ctest-sim ctest_run ctest-sim build-sim -L sim
mark ctest-sim

# The Python tests, one worker per CPU (pytest-xdist, install-deps.sh --test)
# and each test file in one worker (--dist loadfile: the module-wide Slurm
# cluster and docs scratch copy start once): most of them wait on real runs,
# a 20 s steady monitor run or a Slurm job (docs/TESTING.md "How long").
xdist=()
if /usr/bin/python3 -c 'import xdist' 2>/dev/null; then
  xdist=(-n "$(nproc)" --dist loadfile)
fi
# A failed test runs once more (pytest-rerunfailures), as ctest's do above:
# it passes only if that attempt passes; every first attempt that failed is
# written whole to pytest-reruns.txt (tests/python/conftest.py), printed
# here and named in flaky.txt.
reruns=()
if /usr/bin/python3 -c 'import pytest_rerunfailures' 2>/dev/null; then
  reruns=(--reruns 1 -rR)
fi
run_step pytest env EVBENCH_TESTS_STRICT=1 EVB_PYTEST_RERUN_LOG="$results/pytest-reruns.txt" \
    /usr/bin/python3 -m pytest -q tests/python "${xdist[@]}" "${reruns[@]}" \
    --junitxml="$results/pytest.xml" -o junit_family=xunit1
if [ -s "$results/pytest-reruns.txt" ]; then
  echo "test.sh: pytest tests that failed at the first attempt (each ran once more):"
  cat "$results/pytest-reruns.txt"
  sed -n 's/^=== \([^ ]*\) .*first attempt)$/pytest\t\1/p' "$results/pytest-reruns.txt" | sort -u >> "$results/flaky.txt"
fi
mark pytest

# Each fuzz target for 20 s from its committed corpus (clang-14 build in build-fuzz/).
run_step fuzz scripts/fuzz.sh 20
mark fuzz
