#!/bin/bash
# Configures evbench into build/ (Release with debug info) and builds what
# `build/bin/evbench run` needs: the evbench executable, its driver modules
# (build/lib/evbench/) and its man page and bash completions (build/share/,
# what `cmake --install build` copies). The tests, tools and bench programs
# are left for `scripts/build.sh --all` or `cmake --build build` (scripts/test.sh).
#   scripts/build.sh [--all] [CMAKE_ARGS...]   e.g. -DEVBENCH_WITH_MPI=OFF
# Compiles through ccache when it is installed (install-deps.sh --test).
# Prints CMake's summary of the drivers built and not built (and why); on a
# configure error, CMake's whole output.
set -euo pipefail
cd "$(dirname "$0")/.."
targets=(--target evbench evbench_docs)
if [[ ${1:-} == --all ]]; then
  targets=()
  shift
fi
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}" "$@" >"$log" 2>&1; then
  cat "$log" >&2
  echo "build.sh: CMake configure failed (output above)" >&2
  exit 1
fi
# The "-- evbench ..." lines: drivers built, each one not built with its reason, bootstraps.
sed -n 's/^-- \(evbench .*\)/\1/p' "$log"
grep -i -A3 '^CMake Warning' "$log" >&2 || true
cmake --build build -j "$(nproc)" "${targets[@]}"
