#!/bin/bash
# Interleaved A/B of the ucx/tcp rows of bench/drivers.sh tools: per round and
# window, A (the build before, /tmp/h38-before) then B (this branch), each a
# whole one-round drivers.sh cell set (tool, evbench one buffer, recv 1), so
# both builds see the same load within minutes. Load average printed by
# drivers.sh at the start and end of every call.
#   bash notes/h38t/ab.sh ROUNDS SECONDS
rounds=${1:-3} secs=${2:-2}
for ((r = 1; r <= rounds; ++r)); do
  for w in 1 32; do
    for side in A B; do
      bin=/tmp/h38-before/bin/evbench
      [[ $side == B ]] && bin=$PWD/build/bin/evbench
      ONLY=ucx/tcp ROUNDS=1 SWEEP=1 RSWEEP=1 WINDOW=$w EVBENCH=$bin bash bench/drivers.sh "$secs" tools |
        grep -E "^  ucx/tcp|load average" | sed "s/^/$side w$w r$r /"
    done
  done
done
