#!/bin/bash
# Configures and builds evbench into build/ (Release with debug info).
# Extra arguments go to CMake, e.g. -DEVBENCH_WITH_MPI=OFF.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
cmake --build build -j "$(nproc)"
