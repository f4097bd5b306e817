#!/bin/bash
# prof2.sh NAME ev|tool PAR PATH|TEST [args]: system-wide perf record for 2 s in the middle of a run
N=$1; K=$2; P=$3; D=$4; shift 4
E=${E:-/work/h38u/build/bin/evbench}
out=notes/h38u/prof-$N; rm -rf $out; mkdir -p $out
if [[ $K == ev ]]; then
  notes/h38u/run.sh $E $P $D --set duration=5s "$@" > $out/gbps.txt & sleep 3
else
  N=40000 notes/h38u/tool.sh $D $P > $out/gbps.txt & sleep 2
fi
perf record -a -F 1999 -g -o $out/all.data -- sleep 1.5 2>$out/rec.err
wait
ps -eo pid,comm > $out/ps.txt
