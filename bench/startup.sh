#!/bin/bash
# Start-up and teardown against the number of ranks, per driver variant: one
# event-count run (PULL, 1 KiB fragments, 4 MiB RU ring, 4 events per node)
# for every variant and size, each figure from its results (docs/BOOTSTRAP.md,
# "Start-up and teardown"):
#   start-up   the slowest rank's launch -> set-up barrier, split into
#              join (rendezvous), connect (driver), set-up (protocol)
#   teardown   the longest driver shutdown after the data phase
#   wall       the whole command, launch to exit
# Variants: tcp (local and env bootstrap), ucx tcp and sm, libfabric tcp and
# shm, psm2's shared-memory device (scripts/with-psm2-shm.sh), mpi over
# Open MPI's vader and tcp BTLs (mpirun). A variant that fails prints n/a
# and its last line of stderr. Not a test: on a host with fewer cores than
# ranks the processes share them, and every figure grows with that.
#
#   bench/startup.sh [RANKS...]        (default 16 64 128 256)
#   VARIANTS="tcp ucx/sm" bench/startup.sh 64
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("$@")
((${#sizes[@]})) || sizes=(16 64 128 256)
evbench=${EVBENCH:-build/bin/evbench}
[[ -x $evbench ]] || { echo "build evbench first (scripts/build.sh)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 UCX_NET_DEVICES=lo FI_TCP_IFACE=lo
all="tcp tcp/env ucx/tcp ucx/sm libfabric/tcp libfabric/shm psm2/shm mpi/vader mpi/tcp"
variants=(${VARIANTS:-$all})

fields='import json,sys
r = json.load(open(sys.argv[1]))["results"]
s, t = r["startup"], r["teardown"]
print("%.2f %.2f %.2f %.2f %.2f %.2f" % (s["ready_s"], s["join_s"], s["connect_s"], s["setup_s"],
                                         t["seconds"], float(sys.argv[3]) - float(sys.argv[2])))'

# run NAME RANKS WRAPPER... -- EVBENCH_ARGS...: one row.
run() {
  local name=$1 ranks=$2 nodes=$(($2 - 1))
  shift 2
  local wrap=()
  while [[ $1 != -- ]]; do wrap+=("$1"); shift; done
  shift
  local args=(run --quiet --set nodes=$nodes --set evm=dedicated --set fragment.size=1KiB
    --set ru_buffer=4MiB --set warmup=0s --set events=$((nodes * 4)) --set peer_timeout=60s "$@")
  local t0 t1 figures
  rm -f "$tmp/r.json"
  t0=$(date +%s.%N)
  if "${wrap[@]}" "$evbench" "${args[@]}" --json "$tmp/r.json" >"$tmp/out" 2>"$tmp/err" &&
    [[ -s $tmp/r.json ]]; then
    t1=$(date +%s.%N)
    figures=$(/usr/bin/python3 -c "$fields" "$tmp/r.json" "$t0" "$t1")
    # shellcheck disable=SC2086
    printf "  %-15s %6d %8s %6s %8s %7s %9s %7s\n" "$name" "$ranks" $figures
  else
    printf "  %-15s %6d %8s %6s %8s %7s %9s %7s   %s\n" "$name" "$ranks" n/a n/a n/a n/a n/a n/a \
      "$(tail -n 1 "$tmp/err")"
  fi
}

# The env bootstrap: every rank started by hand on loopback, as srun would.
env_run() {
  local ranks=$1 port
  shift
  port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  cat >"$tmp/env.sh" <<EOF
#!/bin/bash
export EVBENCH_SIZE=$ranks EVBENCH_RENDEZVOUS=127.0.0.1:$port
export EVBENCH_RUN_ID=\$(od -An -N16 -tx1 /dev/urandom | tr -d ' \\n')
pids=()
for ((r = 1; r < $ranks; r++)); do
  EVBENCH_RANK=\$r "\$@" >/dev/null 2>&1 &
  pids+=(\$!)
done
EVBENCH_RANK=0 "\$@"
rc=\$?
wait "\${pids[@]}" || rc=1
exit \$rc
EOF
  chmod +x "$tmp/env.sh"
  run tcp/env "$ranks" "$tmp/env.sh" -- --set bootstrap=env "$@"
}

mpi_wrap() {  # BTL RANKS
  echo mpirun --oversubscribe -np "$2" --mca pml ob1 --mca btl "self,$1" \
    --mca btl_tcp_if_include lo --mca oob_tcp_if_include lo
}

echo "# startup.sh: PULL, 1 KiB fragments, 4 events per node, $(nproc) cores, $(date -u +%F)"
echo "# seconds; start-up = join + connect + set-up (slowest rank); wall = launch to exit"
printf "# %-15s %6s %8s %6s %8s %7s %9s %7s\n" variant ranks start-up join connect set-up \
  teardown wall
for ranks in "${sizes[@]}"; do
  for v in "${variants[@]}"; do
    case $v in
      tcp) run tcp "$ranks" env -- --set driver=tcp ;;
      tcp/env) env_run "$ranks" --set driver=tcp ;;
      ucx/tcp | ucx/sm)
        run "$v" "$ranks" env -- --set driver=ucx --set driver_options.tls=${v#ucx/} ;;
      libfabric/tcp | libfabric/shm)
        run "$v" "$ranks" env -- --set driver=libfabric --set driver_options.provider=${v#libfabric/} ;;
      psm2/shm) run psm2/shm "$ranks" scripts/with-psm2-shm.sh -- --set driver=psm2 ;;
      mpi/vader | mpi/tcp)
        # shellcheck disable=SC2046
        run "$v" "$ranks" $(mpi_wrap "${v#mpi/}" "$ranks") -- --set bootstrap=mpi --set driver=mpi ;;
      *) echo "unknown variant $v" >&2; exit 2 ;;
    esac
  done
done
