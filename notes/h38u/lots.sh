#!/bin/bash
# lots.sh ev|tool PAR PATH|TEST : lo Gb/s every 0.25 s over the run
K=$1; P=$2; D=$3; shift 3
E=${E:-/work/h38u/build/bin/evbench}
if [[ $K == ev ]]; then notes/h38u/run.sh $E $P $D --set duration=4s "$@" > notes/h38u/lots-g.txt &
else N=${TN:-40000} notes/h38u/tool.sh $D $P > notes/h38u/lots-g.txt & fi
pid=$!
python3 - $pid <<'PY'
import time,os,sys
pid=int(sys.argv[1])
def lo():
    for l in open('/proc/net/dev'):
        if 'lo:' in l: return int(l.split(':')[1].split()[0])
prev=lo(); t=time.time(); out=[]
while True:
    time.sleep(0.25)
    b=lo(); n=time.time(); out.append((b-prev)*8/1e9/(n-t)); prev=b; t=n
    try: os.kill(pid,0)
    except OSError: break
    if len(out)>60: break
print(' '.join('%.0f'%x for x in out))
PY
wait; echo "reported $(cat notes/h38u/lots-g.txt)"
