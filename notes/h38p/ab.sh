#!/bin/bash
# Interleaved A/B over bench/drivers.sh's tools cells: for each pass, for each
# cell, each variant runs ROUNDS=1 (tool, evbench 1 slot, evbench recv 1) in turn.
#   ab.sh PASSES WINDOW "CELL" ["CELL"...]        (CELL = drivers.sh ONLY label)
# Variants (VARIANTS env, ';'-separated "name=ENV=VAL,ENV=VAL" with EVBENCH=path among them),
# default: A = /work/main/build/bin/evbench, B = this worktree's with its defaults.
cd "$(dirname "$0")/../.."
passes=$1 w=$2; shift 2
variants=${VARIANTS:-"A=EVBENCH=/work/main/build/bin/evbench;B=EVBENCH=$PWD/build/bin/evbench"}
echo "# ab.sh start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg) window $w passes $passes"
echo "# columns: variant cell tool Gb/s, evbench 1-slot Gb/s, ratio, evbench recv-1 Gb/s, ratio"
for pass in $(seq "$passes"); do
  for cell in "$@"; do
    IFS=';' read -ra vs <<<"$variants"
    for v in "${vs[@]}"; do
      name=${v%%=*} envs=${v#*=}
      IFS=',' read -ra kv <<<"$envs"
      row=$(env "${kv[@]}" ROUNDS=1 WINDOW=$w ONLY="$cell" SWEEP=1 RSWEEP=1 \
        bash bench/drivers.sh 3 tools 2>/dev/null | grep "^  ucx" | sed 's/  */ /g')
      echo "p$pass w$w $name |$row"
    done
  done
done
echo "# ab.sh end $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
