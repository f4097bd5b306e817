#!/bin/bash
E=${E:-/work/h38u/build/bin/evbench}
R=${1:-3}
S=notes/h38u/shim.so
echo "# exp2 start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq $R); do
  echo "round $r send-w32: tool $(notes/h38u/tool.sh tag_bw 32) ev $(notes/h38u/run.sh $E 32 send)" \
    "ev-nowakeup $(H38U_OFF=wakeup LD_PRELOAD=$S notes/h38u/run.sh $E 32 send 2>&1 | tail -1)" \
    "ev-nowakeup-norma $(H38U_OFF=wakeup,rma LD_PRELOAD=$S notes/h38u/run.sh $E 32 send 2>&1 | tail -1)" \
    "ev-norma $(H38U_OFF=rma LD_PRELOAD=$S notes/h38u/run.sh $E 32 send 2>&1 | tail -1)"
  echo "round $r write-w1: tool $(notes/h38u/tool.sh ucp_put_bw 1) ev $(notes/h38u/run.sh $E 1 write)" \
    "ev-nowakeup $(H38U_OFF=wakeup LD_PRELOAD=$S notes/h38u/run.sh $E 1 write 2>&1 | tail -1)"
done
echo "# exp2 end $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
