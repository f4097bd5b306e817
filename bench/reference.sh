#!/bin/bash
# Every evbench-vs-reference pair of issue 10 in one run, at 4 and 8
# processes, 512 KiB blocks; each pair measured REPEAT times interleaved
# (evbench, reference, evbench, reference, ...) and the medians compared:
#
#   pull/mpi   evbench PULL, MPI driver   vs MPI_Alltoall loop (bench/alltoall_loop.c), vader
#   pull/tcp   evbench PULL, TCP driver   vs MPI_Alltoall loop, Open MPI TCP BTL on lo
#   p2p/mpi    evbench one-to-one (shift 1), MPI driver vs bench/p2p_loop.c (osu_bibw's
#              window of isend/irecv, shift 1 on N ranks), vader
#   p2p/tcp    evbench one-to-one, TCP driver vs p2p_loop over the TCP BTL
#
# Buffer policies, equal footprint on both sides:
#   cache   PULL: RU ring = N x 512 KiB and BU windows = N x 512 KiB (credits 1),
#           parallel N, vs all-to-all send + receive buffers of N x 512 KiB, reused.
#           one-to-one: a 512 KiB send buffer reused (as OSU), `parallel` = window
#           receive slots, vs p2p_loop reusing one send and one receive buffer.
#   memory  256 MiB RU ring vs all-to-all / p2p send and receive pools of 256 MiB.
#           PULL keeps credits 1 (BU windows N x 512 KiB) here too: the two
#           policies differ only in where the sent data comes from; -b credits=2
#           shows the default beside it.
# Aggregate Gb/s = sum over ranks of bytes received per second (docs/METRICS.md);
# PULL and the all-to-all count a node's own fragment/block, the p2p pair has none.
# Not a test: numbers depend on the machine and its load (compare ratios).
#
# -p huge: huge pages on both sides (evbench page_size: huge; the loops' buffers
# 2 MiB-aligned with MADV_HUGEPAGE, bench/ref_alloc.h), the default; -p normal: 4 KiB pages.
# -b KEY=VALUE: before/after in the same run: every evbench measurement is
# also made with --set KEY=VALUE (interleaved: A, B, reference, A, B, ...),
# printed as a second evbench column "B" with its own ratio, and B/A.
#
# -B BINARY: the same, but B is another evbench binary (a build of another
# commit) run with the same options: before/after of a change in one run.
#
# -P "pull/mpi pull/tcp": only these pairs (default: all four).
#
#   bench/reference.sh [-s SECONDS] [-r REPEAT] [-n "4 8"] [-w WINDOW] [-p normal|huge]
#                      [-b KEY=VALUE | -B BINARY] [-P PAIRS] [-j FILE.json]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=3 repeat=3 procs="4 8" window=16 json="" pages=huge variant="" binary_b="" pairs="pull/mpi pull/tcp p2p/mpi p2p/tcp"
while getopts "s:r:n:w:p:j:b:B:P:" o; do
  case $o in
    s) secs=$OPTARG ;;
    r) repeat=$OPTARG ;;
    n) procs=$OPTARG ;;
    w) window=$OPTARG ;;
    j) json=$OPTARG ;;
    p) pages=$OPTARG ;;
    b) variant=$OPTARG ;;
    B) binary_b=$OPTARG ;;
    P) pairs=$OPTARG ;;
    *) sed -n '2,34p' "$0" >&2; exit 2 ;;
  esac
done
evbench=${EVBENCH:-build/bin/evbench}
[[ -x $evbench ]] || { echo "build evbench first (scripts/build.sh)" >&2; exit 1; }
if [[ -n $binary_b ]]; then
  [[ -z $variant ]] || { echo "-b and -B: one B at a time" >&2; exit 2; }
  [[ -x $binary_b ]] || { echo "-B $binary_b: not an executable" >&2; exit 2; }
  variant="binary $binary_b ($("$binary_b" --version))"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
[[ $pages == normal || $pages == huge ]] || { echo "-p: normal or huge" >&2; exit 2; }
export EVB_REF_PAGES=$pages
mpicc -O2 -o "$tmp/alltoall_loop" bench/alltoall_loop.c
mpicc -O2 -o "$tmp/p2p_loop" bench/p2p_loop.c
block=524288
memory=$((256 * 1024 * 1024))
vader=(--mca pml ob1 --mca btl self,vader)
tcpbtl=(--mca pml ob1 --mca btl tcp,self --mca btl_tcp_if_include lo)
aggregate='import json,sys; print("%.3f" % json.load(open(sys.argv[1]))["results"]["bandwidth_gbps"]["aggregate"])'

evbench_tcp() {  # $1 = nodes, rest = --set options: the TCP driver, local bootstrap
  local np=$1
  shift
  "$evbench" run --quiet --set driver=tcp --set nodes="$np" --set fragment.size=$block \
    --set duration=$((secs + 1))s --set warmup=1s --set page_size=$pages "$@" --json "$tmp/e.json" >/dev/null 2>"$tmp/e.err" ||
    { echo "evbench failed: $(tail -1 "$tmp/e.err")" >&2; echo nan; return; }
  /usr/bin/python3 -c "$aggregate" "$tmp/e.json"
}

evbench_mpi() {  # $1 = nodes, rest = --set options: the MPI driver under mpirun over vader
  local np=$1
  shift
  mpirun --oversubscribe -np "$np" "${vader[@]}" --mca oob_tcp_if_include lo \
    "$evbench" run --quiet --set bootstrap=mpi --set driver=mpi --set nodes="$np" \
    --set fragment.size=$block --set duration=$((secs + 1))s --set warmup=1s \
    --set page_size=$pages "$@" \
    --json "$tmp/m.json" >/dev/null 2>"$tmp/m.err" ||
    { echo "evbench (mpi) failed: $(tail -1 "$tmp/m.err")" >&2; echo nan; return; }
  /usr/bin/python3 -c "$aggregate" "$tmp/m.json"
}

loop() {  # $1 = nodes, $2 = transport (vader|tcp), rest = program and its arguments
  local np=$1 transport=$2
  shift 2
  local mca=("${vader[@]}")
  [[ $transport == tcp ]] && mca=("${tcpbtl[@]}")
  mpirun --oversubscribe -np "$np" "${mca[@]}" --mca oob_tcp_if_include lo -x EVB_REF_PAGES "$@" 2>"$tmp/l.err" |
    sed -n 's/.*aggregate_gbps=\([0-9.]*\).*/\1/p' | grep . ||
    { echo "reference failed: $(tail -1 "$tmp/l.err")" >&2; echo nan; }
}

measure_b() {  # $1 = row, $2 = nodes, rest = options: the B side (-b or -B)
  local row=$1 np=$2
  shift 2
  local bin=$evbench extra=(--set "$variant")
  [[ -n $binary_b ]] && bin=$binary_b extra=()
  if [[ $row == */mpi ]]; then evbench=$bin evbench_mpi "$np" "$@" "${extra[@]}"
  else evbench=$bin evbench_tcp "$np" "$@" "${extra[@]}"; fi
}

measure() {  # $1 = row, $2 = nodes, $3 = policy; appends "row nodes policy side value"
  local row=$1 np=$2 policy=$3 ring pool ev ref evb=""
  if [[ $policy == cache ]]; then ring=$((np * block)) pool=0; else ring=$memory pool=$memory; fi
  case $row in
    pull/mpi | pull/tcp)
      local opts=(--set protocol=pull --set evm=with-rank0 --set parallel="$np"
                  --set ru_buffer="$ring" --set credits=1)
      if [[ $row == pull/mpi ]]; then ev=$(evbench_mpi "$np" "${opts[@]}")
      else ev=$(evbench_tcp "$np" "${opts[@]}"); fi
      [[ -n $variant ]] && evb=$(measure_b $row "$np" "${opts[@]}")
      local transport=vader
      [[ $row == pull/tcp ]] && transport=tcp
      ref=$(loop "$np" $transport "$tmp/alltoall_loop" $block "$secs" $pool) ;;
    p2p/mpi | p2p/tcp)
      [[ $policy == cache ]] && ring=$block
      local opts=(--set protocol=one-to-one --set shift=1 --set parallel="$window"
                  --set ru_buffer="$ring")
      if [[ $row == p2p/mpi ]]; then ev=$(evbench_mpi "$np" "${opts[@]}")
      else ev=$(evbench_tcp "$np" "${opts[@]}"); fi
      [[ -n $variant ]] && evb=$(measure_b $row "$np" "${opts[@]}")
      local transport=vader
      [[ $row == p2p/tcp ]] && transport=tcp
      ref=$(loop "$np" $transport "$tmp/p2p_loop" $block "$secs" $pool "$window" 1) ;;
  esac
  echo "$row $np $policy evbench $ev" >>"$tmp/samples"
  echo "$row $np $policy reference $ref" >>"$tmp/samples"
  [[ -n $variant ]] && echo "$row $np $policy evbench_b $evb" >>"$tmp/samples"
  echo "  $row n=$np $policy: evbench $ev${variant:+, B ($variant) $evb}, reference $ref" >&2
}

: >"$tmp/samples"
echo "# reference.sh: 512 KiB, ${secs} s per measurement, ${repeat} interleaved repeats, $pages pages, $(nproc) cores" >&2
for np in $procs; do
  for row in $pairs; do
    for policy in cache memory; do
      for ((k = 0; k < repeat; ++k)); do measure $row "$np" $policy; done
    done
  done
done

/usr/bin/python3 bench/reference_table.py "$tmp/samples" "$json" "$secs" "$repeat" "$window" "$pages" \
  "$("$evbench" --version)" "$(mpirun --version | head -1)" "$variant"
