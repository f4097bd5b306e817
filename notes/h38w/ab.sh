#!/bin/bash
# Interleaved A/B of the ucx write rows of bench/drivers.sh tools at window 1
# (issue 38, the write path's flush per write): per round, for ucx/tcp write
# and ucx/sm write, drivers.sh with A's evbench then B's (B first in even
# rounds), each a one-round cell set (ucx_perftest put_bw, then evbench with
# one sender buffer, both error-handling modes), so both builds and the tool
# see the same load within a minute. drivers.sh prints the load average at
# the start and end of every call.
#   A=/work/main/build/bin/evbench B=$PWD/build/bin/evbench [VARIANTS="ucx/tcp write"] \
#     bash notes/h38w/ab.sh ROUNDS SECONDS
rounds=${1:-5} secs=${2:-3}
IFS=, read -ra variants <<<"${VARIANTS:-ucx/tcp write,ucx/sm write}"  # comma-separated labels
for ((r = 1; r <= rounds; ++r)); do
  order="A B"
  ((r % 2 == 0)) && order="B A"
  for v in "${variants[@]}"; do
    for side in $order; do
      bin=$A
      [[ $side == B ]] && bin=$B
      ONLY="$v" ROUNDS=1 SWEEP=1 RSWEEP="" WINDOW=1 EVBENCH=$bin bash bench/drivers.sh "$secs" tools |
        grep -E "^  ucx/|load average" | sed "s/^/$side r$r /"
    done
  done
done
