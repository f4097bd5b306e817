#!/bin/bash
# exp4: evbench's receiver made lazier (H38U_LAZY_NS ns of spin before each ucp_worker_progress), send at window 32, write at window 1
E=${E:-/work/h38u/build/bin/evbench}
L=notes/h38u/lazy.so
echo "# exp4 start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
for r in 1 2 3 4; do
  line="round $r send w32: tool $(notes/h38u/tool.sh tag_bw 32)"
  for ns in 0 1000 2000 5000; do line+=" ev/$ns $(H38U_LAZY_NS=$ns LD_PRELOAD=$L notes/h38u/run.sh $E 32 send)"; done
  echo "$line"
done
echo "# exp4 end $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
