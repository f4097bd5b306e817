#!/bin/bash
port=47991
UCX_TLS=tcp UCX_NET_DEVICES=lo timeout 60 strace -f -e trace=recvfrom -e raw=recvfrom -o notes/h38u/addr-tool.txt ucx_perftest -p $port >/dev/null 2>&1 &
sleep 0.5
UCX_TLS=tcp UCX_NET_DEVICES=lo timeout 60 strace -f -e trace=sendmsg,sendto -o notes/h38u/addr-tool-s.txt ucx_perftest 127.0.0.1 -p $port -t tag_bw -s 524288 -O 32 -n 300 -w 10 >/dev/null 2>&1
wait
