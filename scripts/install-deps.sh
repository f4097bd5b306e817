#!/bin/bash
# Installs the Debian 12 packages evbench needs (run as root).
#   install-deps.sh          build + run: compiler, CMake, Ninja, yaml-cpp, Open MPI, libfabric, UCX,
#                            rdma-core (libibverbs, librdmacm), libpsm2
#   install-deps.sh --test   also: ccache (the four builds of scripts/test.sh), GoogleTest, clang-format and clang-tidy (scripts/tidy.sh), pytest (and pytest-xdist: test.sh runs the Python tests one worker per CPU), matplotlib, Jinja2 (reports), Chromium (report render test), iperf3, Slurm + munge,
#                            iproute2 (ip netns, bridges, tc: the emulated cluster of
#                            scripts/netns-cluster.sh; unshare comes with util-linux),
#                            clang-14 + libclang-rt-14-dev (libFuzzer targets, scripts/fuzz.sh),
#                            SimGrid (libsimgrid-dev: smpicxx/smpirun for the EVBENCH_SIM build)
#                            man-db (the install test reads the generated man page),
#                            ibsim-utils + opensm + infiniband-diags (scripts/opensm-routes.sh:
#                            OpenSM's routing tables for a platform, on the ibsim fabric simulator)
# Packages already present are left alone; apt-get update runs only when
# something is missing.
set -euo pipefail

packages=(build-essential cmake ninja-build pkg-config git libyaml-cpp-dev
          libopenmpi-dev openmpi-bin libfabric-dev libfabric-bin libucx-dev ucx-utils
          libibverbs-dev librdmacm-dev libpsm2-dev libmicrohttpd-dev util-linux
          python3 python3-yaml)
if [[ "${1:-}" == "--test" ]]; then
  packages+=(ccache libgtest-dev clang-format clang-tidy python3-pytest python3-pytest-xdist python3-matplotlib python3-jinja2 chromium iperf3 procps iproute2
             slurm-wlm slurm-wlm-torque munge clang-14 libclang-rt-14-dev libsimgrid-dev
             prometheus)  # tests/python/test_monitor*.py: a real Prometheus scrapes a run
  packages+=(man-db)  # ctest install_relocatable renders the installed man page
  packages+=(python3-pytest-rerunfailures)  # scripts/test.sh: a failed pytest test runs once more
  packages+=(ibsim-utils opensm infiniband-diags)  # scripts/opensm-routes.sh, tests/python/test_opensm_routes.py
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if ((${#missing[@]})); then
  if [[ $(id -u) -ne 0 ]]; then
    echo "install-deps.sh: missing packages (${missing[*]}); run as root" >&2
    exit 1
  fi
  echo "install-deps.sh: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
