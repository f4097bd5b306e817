#!/bin/bash
# sw.sh NAME PAR PATH [sets]: context switches of all processes for 2 s mid-run (sched_switch with stacks)
N=$1; P=$2; D=$3; shift 3
E=${E:-/work/h38u/build/bin/evbench}
out=notes/h38u/sw-$N; rm -rf $out; mkdir -p $out
notes/h38u/run.sh $E $P $D --set duration=5s "$@" > $out/gbps.txt & sleep 3
ps -eLo pid,tid,psr,comm,args > $out/ps.txt
perf record -a -e sched:sched_switch --call-graph dwarf,16384 -o $out/sw.data -- sleep 2 2>$out/rec.err
wait
