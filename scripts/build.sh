#!/bin/bash
# Configures evbench into build/ (Release with debug info) and builds:
#   scripts/build.sh [CMAKE_ARGS...]            what `build/bin/evbench run` needs:
#                                               the evbench executable and the
#                                               module of the default config's
#                                               driver (configs/default.yaml)
#   scripts/build.sh --install [CMAKE_ARGS...]  what `cmake --install build` copies:
#                                               also every driver module
#                                               (build/lib/evbench/), the man page
#                                               and the bash completions (build/share/)
#   scripts/build.sh --all [CMAKE_ARGS...]      everything: also the tests, tools
#                                               and bench programs (scripts/test.sh)
# e.g. -DEVBENCH_WITH_MPI=OFF. Compiles through ccache when it is installed
# (install-deps.sh --test). Prints CMake's summary of the drivers built and
# not built (and why); on a configure error, CMake's whole output.
set -euo pipefail
cd "$(dirname "$0")/.."
what=run
case ${1:-} in
  --all) what=all; shift ;;
  --install) what=install; shift ;;
esac
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
case $what in
  all) targets=() ;;
  install) targets=(--target evbench evbench_modules evbench_docs) ;;
  run)
    # The default run's driver, from the embedded default config, as a module
    # when drivers are modules (-DEVBENCH_DRIVER_MODULES=OFF links them in).
    driver=$(sed -n 's/^driver: *\([a-z0-9_]*\).*/\1/p' configs/default.yaml)
    targets=(--target evbench)
    all_targets=$(ninja -C build -t targets all 2>/dev/null || true)  # not piped: grep -q would end ninja early (pipefail)
    if grep -q "^evbench_module_$driver:" <<<"$all_targets"; then
      targets+=("evbench_module_$driver")
    fi ;;
esac
cmake --build build -j "$(nproc)" "${targets[@]}"
if [[ $what == run ]]; then
  echo "build.sh: built what \`build/bin/evbench run\` needs (evbench, the $driver driver);" \
    "the other drivers' modules, the man page and completions: scripts/build.sh --install;" \
    "with the tests: scripts/build.sh --all"
fi
