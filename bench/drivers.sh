#!/bin/bash
# One table of every driver on this machine: evbench PULL aggregate Gb/s at
# 4 nodes, 512 KiB fragments (EVM inside rank 0, parallel 4), for both buffer
# policies — cache (a 2 MiB RU ring, as large as the all-to-all's reused
# send buffer) and memory (256 MiB ring / all-to-all rotating over 256 MiB) —
# each next to a reference measured in the same run over the same library:
#   tcp             MPI_Alltoall loop (bench/alltoall_loop.c), Open MPI TCP BTL on lo
#   mpi             MPI_Alltoall loop, Open MPI shared-memory BTL (vader)
#   libfabric/tcp   MPI_Alltoall loop, Open MPI over libfabric (pml cm, mtl ofi,
#                   provider tcp;ofi_rxm on lo)
#   libfabric/shm   fi_pingpong -p shm -e rdm -S 512k (libfabric-bin): one pair,
#                   one direction (Open MPI's OFI MTL does not select shm here)
#   ucx/tcp, ucx/sm ucx_perftest (ucx-utils) at 512 KiB over the same UCX_TLS on lo:
#                   tag_bw next to the send path, ucp_put_bw next to the write
#                   path; one pair, one direction
#   psm2/shm        no reference: libpsm2's shared-memory device under
#                   scripts/with-psm2-shm.sh; Debian ships no PSM2 benchmark and
#                   Open MPI's psm2 MTL does not start under the harness
# A second table (section "tools") puts the micro-benchmark one-to-one beside
# each library's own benchmark at equal conditions: 2 nodes, one direction
# (senders 1: RU 0 -> BU 1), 512 KiB messages, busy polling, the same number
# in flight (WINDOW), the receiver holding WINDOW slots (at least 2). Each cell runs ROUNDS
# rounds, interleaved: the tool, then evbench with a sender ring of each
# SWEEP size (ru_buffer = 1, 4, 16, 256 messages: one reused buffer, then
# rings past the caches), then with one sender buffer and a receiver ring of
# each RSWEEP size (receive_slots = 1, 4, 16, 256: one buffer as the tools
# receive into, then rings past the caches); it prints the medians and
# max/min over the rounds:
#   ucx/sm, ucx/tcp  send: ucx_perftest -t tag_bw -O WINDOW; write: -t ucp_put_bw;
#                   evbench with driver_options.error_handling none (no peer
#                   failure handling, as the tool) and peer (its default)
#   libfabric/shm, libfabric/tcp  send: fi_pingpong (one message at a time,
#                   so evbench runs with parallel 1 there); write: bench/fi_rma_bw.c
#                   (built here: fi_write with remote CQ data from one buffer into
#                   one window, WINDOW in flight; also with -c N, a message back per N
#                   writes as evbench's credits, and with -d, delivery complete)
#   mpi/vader, mpi/tcp  bench/p2p_loop.c one way (MPI_Isend/MPI_Irecv, WINDOW per
#                   round), Open MPI ob1 over vader or the TCP BTL on lo
# Not a test: numbers depend on the machine and its load (2 cores here: 4
# processes share them, so compare ratios, not absolute figures).
#
#   bench/drivers.sh [SECONDS] [all|pull|tools]   (default 5 s per measurement, all)
#   WINDOW=4 bench/drivers.sh 5 tools             (messages in flight; default 1)
#   POLL=yield bench/drivers.sh 5 tools           (evbench's poll_mode there; default busy)
#   ROUNDS=3 SWEEP="1 256" bench/drivers.sh 5 tools  (rounds per cell, default 5; sender
#                                                  rings in messages, default "1 4 16 256")
#   RSWEEP="1 256" bench/drivers.sh 5 tools       (receiver rings in slots, default
#                                                  "1 4 16 256"; "" for none)
#   ONLY=ucx/sm bench/drivers.sh 5 tools          (only the cells whose label starts so)
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-5}
section=${2:-all}
window=${WINDOW:-1}
poll=${POLL:-busy}  # evbench's poll_mode in the tools section (the tools busy-poll)
rounds=${ROUNDS:-5}
sweep=${SWEEP:-1 4 16 256}
rsweep=${RSWEEP-1 4 16 256}  # receive_slots of the receiver sweep ("": none)
recv_slots=0                 # receive_slots of the next one-to-one run (0: not set)
only=${ONLY:-}
evbench=${EVBENCH:-build/bin/evbench}
[[ -x $evbench ]] || { echo "build evbench first (scripts/build.sh)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; kill $(jobs -p) 2>/dev/null || true' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
[[ $section == tools ]] || mpicc -O2 -o "$tmp/alltoall_loop" bench/alltoall_loop.c
block=524288
wrap=(env)  # what evbench runs under (scripts/with-psm2-shm.sh for psm2)
cache=$((4 * block))
memory=$((256 * 1024 * 1024))
json_gbps='import json,sys; print("%.2f" % json.load(open(sys.argv[1]))["results"]["bandwidth_gbps"]["aggregate"])'

evbench_gbps() {  # $1 = ru_buffer, rest = --set options; prints aggregate Gb/s
  local ring=$1
  shift
  "${wrap[@]}" "$evbench" run --quiet --set nodes=4 --set evm=with-rank0 --set protocol=pull \
    --set fragment.size=$block --set ru_buffer="$ring" --set duration=${secs}s \
    --set warmup=1s "$@" --json "$tmp/e.json" >/dev/null 2>"$tmp/e.err" ||
    { echo "failed: $(tail -1 "$tmp/e.err")" >&2; echo "n/a"; return; }
  /usr/bin/python3 -c "$json_gbps" "$tmp/e.json"
}

evbench_mpi_gbps() {  # $1 = ru_buffer: the mpi driver under mpirun over vader
  mpirun --oversubscribe -np 4 --mca pml ob1 --mca btl self,vader --mca oob_tcp_if_include lo \
    "$evbench" run --quiet --set bootstrap=mpi --set driver=mpi --set nodes=4 \
    --set evm=with-rank0 --set protocol=pull --set fragment.size=$block --set ru_buffer="$1" \
    --set duration=${secs}s --set warmup=1s --json "$tmp/m.json" >/dev/null 2>"$tmp/m.err" ||
    { echo "n/a"; return; }
  /usr/bin/python3 -c "$json_gbps" "$tmp/m.json"
}

alltoall_gbps() {  # $1 = pool bytes, rest = mpirun transport options
  local pool=$1
  shift
  mpirun --oversubscribe -np 4 --mca oob_tcp_if_include lo "$@" \
    "$tmp/alltoall_loop" $block "$secs" "$pool" 2>/dev/null |
    sed -n 's/.*aggregate_gbps=\([0-9.]*\).*/\1/p' | grep . || echo "n/a"
}

pingpong_gbps() {  # $1 = provider: fi_pingpong bandwidth of one pair at 512 KiB
  local port=$((47000 + RANDOM % 1000))
  timeout 60 fi_pingpong -p "$1" -e rdm -S $block -I 4000 -B $port >/dev/null 2>&1 &
  sleep 0.5
  timeout 60 fi_pingpong -p "$1" -e rdm -S $block -I 4000 -P $port 127.0.0.1 2>/dev/null |
    awk '$1 == "512k" {printf "%.2f\n", $6 * 8 / 1000}' | grep . || echo "n/a"
  wait
}

perftest_gbps() {  # $1 = UCX_TLS, $2 = test: ucx_perftest bandwidth of one pair at 512 KiB
  local port=$((48000 + RANDOM % 1000))
  UCX_TLS=$1 UCX_NET_DEVICES=lo timeout 60 ucx_perftest -p $port >/dev/null 2>&1 &
  sleep 0.5
  # The last line's 6th field: overall bandwidth in MB/s (2^20 bytes).
  UCX_TLS=$1 UCX_NET_DEVICES=lo timeout 60 ucx_perftest 127.0.0.1 -p $port -t "$2" -s $block \
    -n 4000 -w 100 -f 2>/dev/null | awk 'NF == 8 {v = $6} END {if (v) printf "%.2f\n", v * 1048576 * 8 / 1e9}' |
    grep . || echo "n/a"
  wait
}

ratio() {
  /usr/bin/python3 -c "import sys
try: print('%.2f' % (float(sys.argv[1].rstrip('*')) / float(sys.argv[2].rstrip('*'))))
except (ValueError, ZeroDivisionError): print('n/a')" "$1" "$2"
}

row() {  # driver path policy evbench reference-name reference
  printf "  %-15s %-6s %-7s %10s   %-28s %10s %7s\n" "$1" "$2" "$3" "$4" "$5" "$6" "$(ratio "$4" "$6")"
}

pull_table() {
echo "# drivers.sh: evbench PULL, 4 nodes, 512 KiB, ${secs} s each, $(nproc) cores"
echo "# evbench $("$evbench" --version | cut -d' ' -f2-); $(mpirun --version | head -1); $(fi_info --version | head -1); ucx $(ucx_info -v | sed -n 's/^# Version //p')"
printf "# %-15s %-6s %-7s %10s   %-28s %10s %7s\n" driver path policy "Gb/s" reference "ref Gb/s" ratio
lf_tcp=(--mca pml cm --mca mtl ofi --mca mtl_ofi_provider_include tcp -x FI_PROVIDER=tcp -x FI_TCP_IFACE=lo)
for policy in cache memory; do
  if [[ $policy == cache ]]; then ring=$cache pool=$cache; else ring=$memory pool=$memory; fi
  row tcp send $policy "$(evbench_gbps $ring --set driver=tcp)" \
    "alltoall, ompi tcp btl" "$(alltoall_gbps $pool --mca pml ob1 --mca btl tcp,self --mca btl_tcp_if_include lo)"
  row mpi send $policy "$(evbench_mpi_gbps $ring)" \
    "alltoall, ompi vader" "$(alltoall_gbps $pool --mca pml ob1 --mca btl self,vader)"
  ref=$(alltoall_gbps $pool "${lf_tcp[@]}")
  for path in send write; do
    row libfabric/tcp $path $policy \
      "$(evbench_gbps $ring --set driver=libfabric --set driver_options.provider=tcp --set data_path=$path)" \
      "alltoall, ompi mtl ofi tcp" "$ref"
  done
  ref=$(pingpong_gbps shm)
  for path in send write; do
    row libfabric/shm $path $policy \
      "$(evbench_gbps $ring --set driver=libfabric --set driver_options.provider=shm --set data_path=$path)" \
      "fi_pingpong shm (1 pair)" "$ref"
  done
  for tls in tcp sm; do
    row ucx/$tls send $policy \
      "$(evbench_gbps $ring --set driver=ucx --set driver_options.tls=$tls --set data_path=send)" \
      "ucx_perftest tag_bw (1 pair)" "$(perftest_gbps $tls tag_bw)"
    row ucx/$tls write $policy \
      "$(evbench_gbps $ring --set driver=ucx --set driver_options.tls=$tls --set data_path=write)" \
      "ucx_perftest ucp_put_bw" "$(perftest_gbps $tls ucp_put_bw)"
  done
  wrap=(scripts/with-psm2-shm.sh)
  row psm2/shm send $policy "$(evbench_gbps $ring --set driver=psm2)" "none (see above)" "n/a"
  wrap=(env)
done
echo "# Gb/s = aggregate over BUs of bytes received per second, own fragment included (docs/METRICS.md);"
echo "# alltoall references: the same aggregate; fi_pingpong: its MB/sec (bytes both ways / time, 10^6 B) x 8;"
echo "# ucx_perftest: its overall MB/s (2^20 B) x 8, one sender."
}

# --set receive_slots when the sweep asks for it (an older EVBENCH has no such key).
slots_opt() { ((recv_slots > 0)) && echo "--set receive_slots=$recv_slots"; true; }

one_way_gbps() {  # $1 = parallel, $2 = ru_buffer, rest = --set options: one-to-one RU 0 -> BU 1
  local par=$1 ring=$2
  shift 2
  # shellcheck disable=SC2046
  "$evbench" run $(slots_opt) --quiet --set protocol=one-to-one --set nodes=2 --set senders=1 \
    --set parallel="$par" --set fragment.size=$block --set ru_buffer="$ring" \
    --set poll_mode="$poll" --set duration=$((secs + 1))s --set warmup=1s "$@" --json "$tmp/o.json" \
    >/dev/null 2>"$tmp/o.err" || { echo "failed: $(tail -1 "$tmp/o.err")" >&2; echo "n/a"; return; }
  /usr/bin/python3 -c "$json_gbps" "$tmp/o.json"
}

one_way_mpi_gbps() {  # $1 = parallel, $2 = ru_buffer, rest = mpirun transport options
  local par=$1 ring=$2
  shift 2
  mpirun --oversubscribe -np 2 --mca oob_tcp_if_include lo "$@" \
    "$evbench" run $(slots_opt) --quiet --set bootstrap=mpi --set driver=mpi --set protocol=one-to-one \
    --set nodes=2 --set senders=1 --set parallel="$par" --set fragment.size=$block \
    --set ru_buffer="$ring" --set poll_mode="$poll" --set duration=$((secs + 1))s --set warmup=1s \
    --json "$tmp/om.json" >/dev/null 2>"$tmp/om.err" ||
    { echo "failed: $(tail -1 "$tmp/om.err")" >&2; echo "n/a"; return; }
  /usr/bin/python3 -c "$json_gbps" "$tmp/om.json"
}

perftest_window_gbps() {  # $1 = UCX_TLS, $2 = test, $3 = outstanding: ucx_perftest, one pair
  local port=47910
  UCX_TLS=$1 UCX_NET_DEVICES=lo timeout 120 ucx_perftest -p $port >/dev/null 2>&1 &
  sleep 0.5
  UCX_TLS=$1 UCX_NET_DEVICES=lo timeout 120 ucx_perftest 127.0.0.1 -p $port -t "$2" -s $block \
    -O "$3" -n $((secs * 2000)) -w 500 -f 2>/dev/null |
    awk 'NF == 8 {v = $6} END {if (v) printf "%.2f\n", v * 1048576 * 8 / 1e9}' | grep . || echo "n/a"
  wait
}

pingpong_window_gbps() {  # $1 = provider: fi_pingpong over lo, one message at a time
  local port=47911
  FI_TCP_IFACE=lo timeout 120 fi_pingpong -p "$1" -e rdm -S $block -I $((secs * 400)) -B $port >/dev/null 2>&1 &
  sleep 0.5
  FI_TCP_IFACE=lo timeout 120 fi_pingpong -p "$1" -e rdm -S $block -I $((secs * 400)) -P $port 127.0.0.1 \
    2>/dev/null | awk '$1 == "512k" {printf "%.2f\n", $6 * 8 / 1000}' | grep . || echo "n/a"
  wait
}

rma_bw_gbps() {  # $1 = provider, $2 = writes in flight, rest = flags: bench/fi_rma_bw.c, one pair
  local port=47912 prov=$1 win=$2
  shift 2
  FI_TCP_IFACE=lo timeout 120 "$tmp/fi_rma_bw" -p "$prov" -s $block -t "$secs" -W "$win" -P $port \
    "$@" >/dev/null 2>&1 &
  FI_TCP_IFACE=lo timeout 120 "$tmp/fi_rma_bw" -p "$prov" -s $block -t "$secs" -W "$win" -P $port \
    "$@" 127.0.0.1 2>/dev/null | sed -n 's/.*gbps=\([0-9.]*\).*/\1/p' | grep . || echo "n/a"
  wait
}

p2p_loop_gbps() {  # $1 = window, rest = mpirun transport options: bench/p2p_loop.c one way
  local win=$1
  shift
  mpirun --oversubscribe -np 2 --mca oob_tcp_if_include lo "$@" \
    "$tmp/p2p_loop" $block "$secs" 0 "$win" 1 1 2>/dev/null |
    sed -n 's/.*aggregate_gbps=\([0-9.]*\).*/\1/p' | grep . || echo "n/a"
}

# "median spread" of the figures given (spread = max/min) over the rounds that
# gave one; a failed round (n/a) is left out and marks the median with '*'.
med() {
  /usr/bin/python3 -c "import statistics, sys
v = []
for x in sys.argv[1:]:
    try: v.append(float(x))
    except ValueError: pass
mark = '*' if len(v) < len(sys.argv) - 1 else ''
if v and min(v) > 0: print('%.2f%s %.2f' % (statistics.median(v), mark, max(v) / min(v)))
else: print('n/a n/a')" "$@"
}

# One cell: ROUNDS rounds, each running the tool, then evbench at each ring
# of the sweep (the first, one slot, is the one-buffer figure), then with one
# sender buffer at each receiver ring of RSWEEP. $1 = label,
# $2 = tool name, $3 = the tool's command, $4 = evbench's command (a function
# call taking the ring in bytes as its last argument), all as strings.
cell() {
  local label=$1 name=$2 tool=$3 ours=$4 r n
  [[ $label == "$only"* ]] || return 0
  local -a t=()
  local -A e=() q=()
  for ((r = 0; r < rounds; ++r)); do
    t+=("$(eval "$tool")")
    for n in $sweep; do e[$n]+=" $(eval "${ours//RING/$((n * block))}")"; done
    for n in $rsweep; do
      recv_slots=$n
      q[$n]+=" $(eval "${ours//RING/$block}")"
      recv_slots=0
    done
  done
  read -r tm ts <<<"$(med "${t[@]}")"
  local line
  line=$(printf "  %-26s %-22s %7s %5s" "$label" "$name" "$tm" "$ts")
  line+=$(sweep_columns "$tm" e $sweep)
  line+=$(sweep_columns "$tm" q $rsweep)
  echo "$line"
}

# The columns of one sweep: the first size's median, spread and ratio to the
# tool's median $1, then the other sizes' medians. $2 = the name of the
# cell's array of figures by size, rest = the sizes.
sweep_columns() {
  local tool=$1 n em es first=1
  local -n figures=$2
  shift 2
  for n in "$@"; do
    read -r em es <<<"$(med ${figures[$n]})"
    if ((first)); then
      printf "   %7s %5s %6s" "$em" "$es" "$(ratio "$em" "$tool")"
      first=0
    else
      printf "  %7s" "$em"
    fi
  done
}

# One direction: one-to-one beside each library's tool, interleaved in rounds.
tools_table() {
  cc -O2 -o "$tmp/fi_rma_bw" bench/fi_rma_bw.c -lfabric
  mpicc -O2 -o "$tmp/p2p_loop" bench/p2p_loop.c
  # The tools built here take huge pages as evbench's default page_size does
  # (bench/ref_alloc.h): 512 KiB of 4 KiB pages is 128 pages to pin per CMA copy.
  export EVB_REF_PAGES=${EVB_REF_PAGES:-huge}
  local w=$window n head=""
  for n in ${sweep#* }; do [[ $n == "$sweep" ]] || head+=$(printf "  %7s" "ring $n"); done
  if [[ -n $rsweep ]]; then
    head+=$(printf "   %7s %5s %6s" "recv ${rsweep%% *}" "max/m" ratio)
    for n in ${rsweep#* }; do [[ $n == "$rsweep" ]] || head+=$(printf "  %7s" "recv $n"); done
  fi
  echo "# drivers.sh tools: one-to-one, 2 nodes, senders 1, 512 KiB, window $w, evbench poll_mode $poll,"
  echo "# ${secs} s each, $rounds rounds (tool, then evbench at sender rings of $sweep slots, then"
  echo "# at receiver rings of ${rsweep:-no} slots with one sender buffer, per round),"
  echo "# $(nproc) cores; ucx $(ucx_info -v | sed -n 's/^# Version //p'); $(fi_info --version | head -1);"
  echo "# $(mpirun --version | head -1); fi_rma_bw and p2p_loop pages: $EVB_REF_PAGES;"
  echo "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
  printf "# %-26s %-22s %7s %5s   %7s %5s %6s%s\n" variant tool "Gb/s" "max/m" "1 slot" "max/m" \
    ratio "$head"
  local tls eh
  for tls in sm tcp; do
    for eh in none peer; do
      local ucx="--set driver=ucx --set driver_options.tls=$tls --set driver_options.error_handling=$eh"
      cell "ucx/$tls send (eh $eh)" "ucx_perftest tag_bw" "perftest_window_gbps $tls tag_bw $w" \
        "one_way_gbps $w RING $ucx --set data_path=send"
      cell "ucx/$tls write (eh $eh)" "ucx_perftest put_bw" "perftest_window_gbps $tls ucp_put_bw $w" \
        "one_way_gbps $w RING $ucx --set data_path=write"
    done
  done
  # evbench's receiver returns a credit per `back` freed slots at this window
  # (microbench_detail.hpp, credit_batch_of, receive slots unset): fi_rma_bw -c
  # sends its writer as many messages back (docs/drivers/libfabric.md).
  local prov extra=$(((w + 1) / 2)) back
  back=$(((extra + 1) / 2))
  ((back < 1)) && back=1
  for prov in shm tcp; do
    local lf="--set driver=libfabric --set driver_options.provider=$prov"
    cell "libfabric/$prov send" "fi_pingpong (window 1)" "pingpong_window_gbps $prov" \
      "one_way_gbps 1 RING $lf --set data_path=send"
    cell "libfabric/$prov write" "fi_rma_bw" "rma_bw_gbps $prov $w" \
      "one_way_gbps $w RING $lf --set data_path=write"
    cell "libfabric/$prov write" "fi_rma_bw -c $back (back)" "rma_bw_gbps $prov $w -c $back" \
      "one_way_gbps $w RING $lf --set data_path=write"
    cell "libfabric/$prov write" "fi_rma_bw -d (delivery)" "rma_bw_gbps $prov $w -d" \
      "one_way_gbps $w RING $lf --set data_path=write"
  done
  local vader="--mca pml ob1 --mca btl self,vader"
  local btl_tcp="--mca pml ob1 --mca btl tcp,self --mca btl_tcp_if_include lo"
  cell "mpi/vader send" "p2p_loop (one way)" "p2p_loop_gbps $w $vader" \
    "one_way_mpi_gbps $w RING $vader"
  cell "mpi/tcp send" "p2p_loop (one way)" "p2p_loop_gbps $w $btl_tcp" \
    "one_way_mpi_gbps $w RING $btl_tcp"
  echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "# Gb/s: medians of the rounds (* = some rounds failed, left out: their reason went to stderr);"
  echo "# max/m = max/min over the rounds. evbench = bytes BU 1 received"
  echo "# per second of its window (results aggregate), with ru_buffer = ring slots x 512 KiB (the"
  echo "# sender's ring; the receiver holds 'window' slots and half as many more, returned several"
  echo "# to a credit from window 8 on; one at window 1 over shared memory: sm, shm, vader);"
  echo "# ratio = evbench 1 slot / tool. recv N:"
  echo "# one sender buffer, receive_slots N (fewer than the window share a slot: those headers"
  echo "# are not checked, as the tools check none); its ratio = recv ${rsweep%% *} / tool."
  echo "# ucx rows: driver_options.error_handling none = no peer-failure handling, as ucx_perftest"
  echo "# (which checks nothing of the kind); peer = evbench's default. ucx_perftest: overall MB/s"
  echo "# (2^20 B) x 8; fi_pingpong: MB/sec (10^6 B) x 8; fi_rma_bw: bytes written x 8 / 10^9 per s"
  echo "# (transmit completion + remote CQ data as evbench; -c N: and a 16-byte message back every"
  echo "# N writes, as evbench's credits; -d: delivery completion); p2p_loop: the"
  echo "# receiver's bytes x 8 / 10^9 per s."
}

[[ $section == tools ]] || pull_table
[[ $section == pull ]] || tools_table
