#!/bin/bash
# Builds evbench and runs every test: the unit and integration tests (CTest),
# the unit tests (and the runs labelled sanitize) again under AddressSanitizer + UBSan, the Python tests
# of the scan tooling (including a real single-node Slurm cluster), and a
# bounded run of the libFuzzer targets (20 s each, docs/FUZZING.md).
set -euo pipefail
cd "$(dirname "$0")/.."
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# One formatter config (.clang-format) for every C++ file.
git ls-files '*.cpp' '*.hpp' '*.c' | xargs clang-format --dry-run --Werror

# Every driver whose library install-deps.sh installs is required: a driver
# that silently failed to configure would take its tests with it.
required_drivers=(-DEVBENCH_WITH_TCP=ON -DEVBENCH_WITH_MPI=ON -DEVBENCH_WITH_LIBFABRIC=ON
                  -DEVBENCH_WITH_UCX=ON -DEVBENCH_WITH_VERBS=ON -DEVBENCH_WITH_PSM2=ON)
scripts/build.sh -DEVBENCH_REQUIRE_GTEST=ON "${required_drivers[@]}"
(cd build && ctest --output-on-failure -j 2 --timeout 300)

# Sanitizer build of the unit tests and the runs labelled sanitize (fragment
# layouts at the key limits) — MPI left out: Open MPI's own allocations are
# not ours to judge.
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DEVBENCH_SANITIZE=ON \
      -DEVBENCH_WITH_MPI=OFF -DEVBENCH_WITH_TCP=ON -DEVBENCH_WITH_LIBFABRIC=ON \
      -DEVBENCH_WITH_UCX=ON -DEVBENCH_WITH_VERBS=ON -DEVBENCH_WITH_PSM2=ON \
      -DEVBENCH_REQUIRE_GTEST=ON >/dev/null
cmake --build build-asan -j "$(nproc)"
(cd build-asan && ctest --output-on-failure -j 2 -L 'unit|sanitize' --timeout 300)

# The SMPI build (SimGrid, smpicxx) and the simulation tests: `evbench sim`
# of the ordinary build above driving build-sim's evbench-smpi.
cmake -S . -B build-sim -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEVBENCH_SIM=ON >/dev/null
cmake --build build-sim -j "$(nproc)"
(cd build-sim && ctest --output-on-failure -j 2 -L sim --timeout 300)

EVBENCH_TESTS_STRICT=1 /usr/bin/python3 -m pytest -q tests/python

# Each fuzz target for 20 s from its committed corpus (clang-14 build in build-fuzz/).
scripts/fuzz.sh 20
