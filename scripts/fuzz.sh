#!/bin/bash
# Builds the libFuzzer targets (fuzz/, -DEVBENCH_FUZZ=ON, clang-14 with
# libFuzzer + ASan + UBSan) in build-fuzz/ and runs each one, starting from a
# copy of its committed seed corpus (fuzz/corpus/<target>/; what the run finds
# stays in build-fuzz/). Exits non-zero when any target crashes, leaks, times
# out or breaks one of its invariants; the input is saved in
# build-fuzz/artifacts/<target>/ (replay: build-fuzz/fuzz/fuzz_<target> FILE).
#
#   scripts/fuzz.sh [SECONDS]   each target for SECONDS (default 20: CI, from scripts/test.sh)
#   scripts/fuzz.sh --runs N    each target for N inputs (docs/FUZZING.md: N = 1000000)
#   scripts/fuzz.sh --seeds     regenerates fuzz/corpus/ from the project's encoders
#
# FUZZ_TARGETS="config rendezvous" limits the run to some targets.
set -euo pipefail
cd "$(dirname "$0")/.."
targets=(${FUZZ_TARGETS:-config command command_batch fragment_header tcp_framing rendezvous control monitor_stats})
limit=(-max_total_time="${1:-20}")
mode=run
case "${1:-}" in
  --runs) limit=(-runs="${2:?--runs needs a number}") ;;
  --seeds) mode=seeds ;;
esac

cxx=$(command -v clang++-14 || true)
[[ -n $cxx ]] || { echo "fuzz.sh: needs clang-14 and libclang-rt-14-dev (scripts/install-deps.sh --test)" >&2; exit 1; }
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
# Only the tcp driver: the targets need no other, and the build stays short.
cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 "${launcher[@]}" \
      -DEVBENCH_FUZZ=ON -DEVBENCH_TESTS=OFF -DEVBENCH_WITH_TCP=ON -DEVBENCH_WITH_MPI=OFF \
      -DEVBENCH_WITH_LIBFABRIC=OFF -DEVBENCH_WITH_UCX=OFF -DEVBENCH_WITH_VERBS=OFF \
      -DEVBENCH_WITH_PSM2=OFF >/dev/null
cmake --build build-fuzz -j "$(nproc)" --target evbench_fuzz_seeds \
      "${targets[@]/#/fuzz_}"

if [[ $mode == seeds ]]; then
  rm -rf fuzz/corpus
  build-fuzz/fuzz/evbench_fuzz_seeds fuzz/corpus
  cp configs/*.yaml fuzz/corpus/config/
  find fuzz/corpus -type f | sort
  exit 0
fi

# One target per CPU at a time (each libFuzzer run is one process on one
# core): on 2 cores the 8 targets take 4 x 20 s, not 8 x 20 s.
run_target() {  # run_target TARGET: the fuzzer's exit status into build-fuzz/TARGET.rc
  local t=$1 work=build-fuzz/corpus/$1 artifacts=build-fuzz/artifacts/$1
  mkdir -p "$work" "$artifacts"
  for f in fuzz/corpus/"$t"/*; do [[ -e $work/${f##*/} ]] || cp "$f" "$work"/; done
  # -timeout: one input taking 10 s is a hang; the outer timeout is a guard.
  local rc=0
  timeout 2h build-fuzz/fuzz/fuzz_"$t" "${limit[@]}" -timeout=10 -rss_limit_mb=2048 \
      -print_final_stats=1 -artifact_prefix="$artifacts/" "$work" >"build-fuzz/$t.log" 2>&1 ||
    rc=$?
  echo "$rc" >"build-fuzz/$t.rc"
}
jobs_max=$(nproc)
for t in "${targets[@]}"; do
  while (($(jobs -rp | wc -l) >= jobs_max)); do wait -n || true; done
  echo "fuzz.sh: $t (${limit[*]})"
  rm -f "build-fuzz/$t.rc"
  run_target "$t" &
done
wait
failed=()
for t in "${targets[@]}"; do
  if [[ $(cat "build-fuzz/$t.rc" 2>/dev/null) != 0 ]]; then
    failed+=("$t")
    tail -n 40 "build-fuzz/$t.log" >&2
  fi
  grep -E '^(#[0-9]+.*DONE|stat::number_of_executed_units|stat::peak_rss_mb|Done )' \
       "build-fuzz/$t.log" || true
done
if ((${#failed[@]})); then
  echo "fuzz.sh: FAILED: ${failed[*]} (inputs in build-fuzz/artifacts/)" >&2
  exit 1
fi
echo "fuzz.sh: all targets passed"
