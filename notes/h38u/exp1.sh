#!/bin/bash
# exp1: send w32 and write w1, tool pinned/unpinned, evbench bind/wakeup/pages; interleaved rounds
E=${E:-/work/h38u/build/bin/evbench}
R=${1:-3}
echo "# exp1 start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq $R); do
  echo "round $r send-w32: tool $(notes/h38u/tool.sh tag_bw 32) toolpin $(notes/h38u/tool.sh tag_bw 32 1)" \
    "ev $(notes/h38u/run.sh $E 32 send) ev-nobind $(notes/h38u/run.sh $E 32 send --set bind=none)" \
    "ev-nowakeup $(H38U_OFF=wakeup LD_PRELOAD=notes/h38u/shim.so notes/h38u/run.sh $E 32 send)" \
    "ev-normalpages $(notes/h38u/run.sh $E 32 send --set page_size=normal)"
  echo "round $r write-w1: tool $(notes/h38u/tool.sh ucp_put_bw 1) toolpin $(notes/h38u/tool.sh ucp_put_bw 1 1)" \
    "ev $(notes/h38u/run.sh $E 1 write) ev-nobind $(notes/h38u/run.sh $E 1 write --set bind=none)" \
    "ev-nowakeup $(H38U_OFF=wakeup LD_PRELOAD=notes/h38u/shim.so notes/h38u/run.sh $E 1 write)"
done
echo "# exp1 end $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
