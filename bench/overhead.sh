#!/bin/bash
# Framework cost per fragment: instructions evbench spends per fragment
# outside the data copies and checksums, counted by valgrind's callgrind
# (instruction counts do not depend on the machine's load). For each driver
# (tcp under the local bootstrap, mpi under mpirun over vader) and protocol
# (pull, push, pull-noevm), 4 nodes with the EVM inside rank 0, 4 KiB
# fragments, two runs of N1 and N2 events; the difference removes set-up and
# teardown, so the figures are the steady-state cost of one more fragment,
# summed over every process of the run:
#   loop      all instructions minus memcpy/memmove/memset/CRC32C
#   dispatch  inclusive cost of Engine::dispatch: what a completion sets off
#             (protocol logic, bookkeeping, the driver calls it makes)
#   allocs    heap allocations (malloc/new calls) per fragment: 0 in steady
#             state is the goal
# Every figure stops at the end of the event loop (Engine::run): the results
# exchange and report after it cost in proportion to the run's duration (rank
# 0 parses every rank's samples), which under valgrind is long.
# `loop` also counts the driver's polling: with poll_mode block (tcp) an idle
# rank sleeps in the kernel, which callgrind does not count; the mpi driver
# cannot block, so its `loop` includes idle polling and depends on how long
# ranks wait for each other under valgrind — read its `dispatch` column.
# Not a test. With a second binary (an older build), every row is measured
# for both in the same run and printed side by side with the ratio.
#
#   bench/overhead.sh [N1 N2 [BEFORE_EVBENCH]]     (default 200 1200 events)
#   OVERHEAD_DRIVERS="tcp" bench/overhead.sh ...    only those drivers' rows
#                                                   (default "tcp mpi")
set -euo pipefail
cd "$(dirname "$0")/.."
n1=${1:-200}
n2=${2:-1200}
evbench=${EVBENCH:-build/bin/evbench}
before=${3:-}
[[ -x $evbench ]] || { echo "build evbench first (scripts/build.sh)" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "needs valgrind (apt-get install valgrind)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
nodes=4
common=(--quiet --set nodes=$nodes --set evm=with-rank0 --set fragment.size=4KiB
        --set ru_buffer=1MiB --set warmup=0s --set peer_timeout=300s)
# The event loop's end splits each profile: what follows it (the results
# exchange and report, which grow with the run's duration) is not counted.
cg=(valgrind --tool=callgrind --quiet "--dump-after=evb::Engine::run()")

measure() {  # $1 driver, $2 protocol, $3 events, $4 binary: prints "total copies dispatch allocs"
  local dir="$tmp/$1-$2-$3-$RANDOM"
  local evbench=$4
  mkdir -p "$dir"
  if [[ $1 == mpi ]]; then
    mpirun --oversubscribe -np $nodes --mca pml ob1 --mca btl self,vader \
      --mca oob_tcp_if_include lo "${cg[@]}" --callgrind-out-file="$dir/cg.%p" \
      "$evbench" run "${common[@]}" --set bootstrap=mpi --set driver=mpi --set protocol="$2" \
      --set events="$3" --set poll_mode=yield >/dev/null 2>"$dir/err" ||
      { echo "failed: $(tail -1 "$dir/err")" >&2; return 1; }
  else
    "${cg[@]}" --callgrind-out-file="$dir/cg.%p" "$evbench" run "${common[@]}" \
      --set driver="$1" --set protocol="$2" --set events="$3" --set poll_mode=block \
      >/dev/null 2>"$dir/err" || { echo "failed: $(tail -1 "$dir/err")" >&2; return 1; }
  fi
  /usr/bin/python3 bench/callgrind_cost.py "$dir"
}

row() {  # $1 driver, $2 protocol, $3 binary: prints "loop dispatch allocs" per fragment
  local t1 c1 d1 a1 t2 c2 d2 a2
  read -r t1 c1 d1 a1 < <(measure "$1" "$2" $n1 "$3") || { echo "n/a n/a n/a"; return; }
  read -r t2 c2 d2 a2 < <(measure "$1" "$2" $n2 "$3") || { echo "n/a n/a n/a"; return; }
  local frags=$(( (n2 - n1) * nodes ))
  local loop=$(( ((t2 - c2) - (t1 - c1)) / frags ))
  [[ $1 == mpi ]] && loop="-"  # idle polling included: not a cost
  echo "$loop $(( (d2 - d1) / frags )) $(/usr/bin/python3 -c "print('%.2f' % (($a2 - $a1) / $frags))")"
}

ratio() {
  /usr/bin/python3 -c "import sys
try: print('%.2f' % (float(sys.argv[1]) / float(sys.argv[2])))
except (ValueError, ZeroDivisionError): print('-')" "$1" "$2"
}

echo "# overhead.sh: instructions per fragment (callgrind), $nodes nodes, 4 KiB fragments,"
echo "# marginal over events $n1 -> $n2; evbench $("$evbench" --version | cut -d' ' -f2-)"
if [[ -n $before ]]; then
  echo "# before: $before ($("$before" --version | cut -d' ' -f2-))"
  printf "# %-6s %-11s %9s %9s %7s | %9s %9s %7s | %6s %6s\n" driver protocol \
    loop dispatch allocs "loop" dispatch allocs "loop" disp
  printf "# %-6s %-11s %27s | %27s | %13s\n" "" "" "before" "after" "before/after"
else
  printf "# %-6s %-11s %10s %10s %8s\n" driver protocol loop dispatch allocs
fi
for driver in ${OVERHEAD_DRIVERS:-tcp mpi}; do
  for protocol in pull push pull-noevm; do
    read -r l d a < <(row $driver $protocol "$evbench")
    if [[ -n $before ]]; then
      read -r bl bd ba < <(row $driver $protocol "$before")
      printf "  %-6s %-11s %9s %9s %7s | %9s %9s %7s | %6s %6s\n" $driver $protocol \
        "$bl" "$bd" "$ba" "$l" "$d" "$a" "$(ratio "$bl" "$l")" "$(ratio "$bd" "$d")"
    else
      printf "  %-6s %-11s %10s %10s %8s\n" $driver $protocol "$l" "$d" "$a"
    fi
  done
done
echo "# loop = (total - copies) per fragment (\"-\": the driver cannot block, idle polling would count);"
echo "# dispatch = Engine::dispatch inclusive per fragment; allocs = heap allocations per fragment."
