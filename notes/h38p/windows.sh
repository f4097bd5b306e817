#!/bin/bash
# ucx/tcp send (error_handling none, one sender buffer, receive slots by default) at
# windows 4, 8, 16, 32: the tool (ucx_perftest tag_bw), A = main's evbench, B = this
# branch at tcp_poll_pause 5000 (its default), 2000 and 0, interleaved per pass
# (runs of notes/h38u/run.sh: 4 s + 1 s warm-up).
cd "$(dirname "$0")/../.."
A=/work/main/build/bin/evbench B=build/bin/evbench
echo "# windows.sh start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# window pass: tool A B5000 B2000 B0 (Gb/s)"
for pass in $(seq ${1:-2}); do
  for w in 4 8 16 32; do
    echo "w$w p$pass: $(N=4000 bash /work/main/notes/h38u/tool.sh tag_bw $w) $(bash notes/h38u/run.sh $A $w send)" \
      "$(bash notes/h38u/run.sh $B $w send) $(bash notes/h38u/run.sh $B $w send --set driver_options.tcp_poll_pause=2000)" \
      "$(bash notes/h38u/run.sh $B $w send --set driver_options.tcp_poll_pause=0)"
  done
done
echo "# windows.sh end $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
