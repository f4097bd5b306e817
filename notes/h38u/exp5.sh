#!/bin/bash
# exp5: as exp4, write at window 1
E=${E:-/work/h38u/build/bin/evbench}
L=notes/h38u/lazy.so
echo "# exp5 start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
for r in 1 2 3; do
  line="round $r write w1: tool $(notes/h38u/tool.sh ucp_put_bw 1) tool/2000 $(H38U_LAZY_TARGET=1 H38U_LAZY_NS=2000 LD_PRELOAD=$L notes/h38u/tool.sh ucp_put_bw 1)"
  for ns in 0 2000; do line+=" ev/$ns $(H38U_LAZY_TARGET=1 H38U_LAZY_NS=$ns LD_PRELOAD=$L notes/h38u/run.sh $E 1 write)"; done
  echo "$line"
done
echo "# exp5 end $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
