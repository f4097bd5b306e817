#!/bin/bash
# Where a change of the framework cost per fragment comes from: the
# functions whose instructions per fragment differ between two evbench
# builds (bench/overhead.sh says how much; this says which code). Runs one
# driver and protocol as overhead.sh does (4 nodes, EVM inside rank 0,
# 4 KiB fragments, tcp under the local bootstrap with poll_mode block)
# under callgrind at N1 and N2 events for each build, and prints each
# function's exclusive cost per extra fragment before and after
# (bench/callgrind_functions.py). Not a test.
#
#   bench/overhead_functions.sh BEFORE_EVBENCH [PROTOCOL [N1 N2 [TOP]]]
#   (after: $EVBENCH, default build/bin/evbench; protocol default pull)
set -euo pipefail
cd "$(dirname "$0")/.."
before=${1:?usage: bench/overhead_functions.sh BEFORE_EVBENCH [PROTOCOL [N1 N2 [TOP]]]}
protocol=${2:-pull}
n1=${3:-200}
n2=${4:-1200}
top=${5:-25}
after=${EVBENCH:-build/bin/evbench}
command -v valgrind >/dev/null || { echo "needs valgrind (apt-get install valgrind)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
nodes=4
run() {  # $1 binary, $2 events, $3 directory
  mkdir -p "$3"
  valgrind --tool=callgrind --quiet "--dump-after=evb::Engine::run()" \
    --callgrind-out-file="$3/cg.%p" "$1" run --quiet --set nodes=$nodes --set evm=with-rank0 \
    --set fragment.size=4KiB --set ru_buffer=1MiB --set warmup=0s --set peer_timeout=300s \
    --set driver=tcp --set protocol="$protocol" --set events="$2" --set poll_mode=block \
    >/dev/null 2>"$3/err" || { echo "failed: $(tail -1 "$3/err")" >&2; exit 1; }
}
echo "# overhead_functions.sh: tcp $protocol, $nodes nodes, 4 KiB fragments, events $n1 -> $n2"
echo "# before: $before ($("$before" --version | cut -d' ' -f2-))"
echo "# after:  $after ($("$after" --version | cut -d' ' -f2-))"
run "$before" "$n1" "$tmp/b1"
run "$before" "$n2" "$tmp/b2"
run "$after" "$n1" "$tmp/a1"
run "$after" "$n2" "$tmp/a2"
/usr/bin/python3 bench/callgrind_functions.py "$tmp/b1" "$tmp/b2" "$tmp/a1" "$tmp/a2" \
  $(( (n2 - n1) * nodes )) "$top"
