#!/bin/bash
# Configures and builds evbench into build/ (Release with debug info).
# Extra arguments go to CMake, e.g. -DEVBENCH_WITH_MPI=OFF.
# Prints CMake's summary of the drivers built and not built (and why); on a
# configure error, CMake's whole output.
set -euo pipefail
cd "$(dirname "$0")/.."
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >"$log" 2>&1; then
  cat "$log" >&2
  echo "build.sh: CMake configure failed (output above)" >&2
  exit 1
fi
# The "-- evbench ..." lines: drivers built, each one not built with its reason, bootstraps.
sed -n 's/^-- \(evbench .*\)/\1/p' "$log"
grep -i -A3 '^CMake Warning' "$log" >&2 || true
cmake --build build -j "$(nproc)"
