#!/bin/bash
# Runs one evbench job over the emulated cluster of scripts/netns-cluster.sh:
# one `evbench run --set bootstrap=env` process per rank, rank r in host
# (r mod N)'s namespace under that host's name, the rendezvous on host 0's
# address, a fresh random run token. Rank 0's results table goes to stdout;
# every rank's output is kept in the log directory.
#
#   netns-run.sh [--prefix P] [--procs K] [--hosts LIST] [--json FILE] [--logs DIR] [--timeout SEC]
#                [--evbench PATH] [--port PORT] [--codes FILE] [--] [CONFIG] [evbench run options]...
#
#   --procs K     number of ranks (default: the number of hosts); the config must
#                 need exactly K processes (e.g. nodes=8 with evm=with-rank0, or
#                 nodes=8 + a dedicated EVM = 9 ranks, the EVM beside rank 0)
#   --hosts LIST  rank r runs in host LIST[r] instead (comma-separated host
#                 indices, one per rank; --procs defaults to their number): e.g.
#                 an event builder across two leaves and congestors in one
#   --json FILE   the results document (written by rank 0)
#   --logs DIR    keep rank-R.log here (default: a temporary directory, removed)
#   --timeout SEC every rank is stopped after this long (default 600); exit 124
#   --evbench P   the binary (default: build/bin/evbench of this checkout)
#   --port PORT   the rendezvous port on host 0 (default 7777; namespaces are private)
#   --codes FILE  each rank's exit status, one `RANK STATUS` line per rank (a rank
#                 killed by a signal: 128 + the signal, e.g. 137; still running
#                 at the timeout: 124); written on every exit path
#
# Exit status: 0 when every rank exited 0, else the largest rank status (124
# on timeout). On exit, by any path, every rank still running is stopped
# (SIGTERM, then SIGKILL after 2 s) by its process id.
set -euo pipefail

me=netns-run.sh
die() {
  echo "$me: $*" >&2
  exit 2
}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cluster="$here/netns-cluster.sh"

prefix=evb
procs=""
host_list=""
json=""
logs=""
timeout_s=600
evbench="$here/../build/bin/evbench"
port=7777
codes_file=""
while (($#)); do
  case "$1" in
    --prefix) prefix="${2:?}"; shift 2 ;;
    --procs) procs="${2:?}"; shift 2 ;;
    --hosts) host_list="${2:?}"; shift 2 ;;
    --json) json="${2:?}"; shift 2 ;;
    --logs) logs="${2:?}"; shift 2 ;;
    --timeout) timeout_s="${2:?}"; shift 2 ;;
    --evbench) evbench="${2:?}"; shift 2 ;;
    --port) port="${2:?}"; shift 2 ;;
    --codes) codes_file="${2:?}"; shift 2 ;;
    --) shift; break ;;
    *) break ;;
  esac
done
run_args=("$@")

[[ -x "$evbench" ]] || die "evbench binary '$evbench' not found (build first, or give --evbench)"
evbench=$(cd "$(dirname "$evbench")" && pwd)/$(basename "$evbench")
status=$("$cluster" status --prefix "$prefix") ||
  die "cluster '$prefix' is not up: run scripts/netns-cluster.sh up N first"
hosts=$(sed -n 's/^[a-z0-9]*: \([0-9]*\) hosts.*/\1/p' <<<"$status" | head -1)
[[ "$hosts" =~ ^[0-9]+$ ]] || die "cannot read the host count from: $status"
rank_host=()
if [[ -n "$host_list" ]]; then
  IFS=, read -r -a rank_host <<<"$host_list"
  for h in "${rank_host[@]}"; do
    [[ "$h" =~ ^[0-9]+$ ]] && ((h < hosts)) || die "--hosts: '$h' is not a host of 0..$((hosts - 1))"
  done
  procs=${procs:-${#rank_host[@]}}
  ((procs == ${#rank_host[@]})) || die "--hosts names ${#rank_host[@]} hosts for $procs ranks"
fi
procs=${procs:-$hosts}
[[ "$procs" =~ ^[1-9][0-9]*$ ]] || die "--procs '$procs': a positive integer"
[[ "$timeout_s" =~ ^[1-9][0-9]*$ ]] || die "--timeout '$timeout_s': whole seconds"
[[ "$port" =~ ^[1-9][0-9]*$ ]] && ((port < 65536)) || die "--port '$port': 1..65535"

tmp_logs=""
if [[ -z "$logs" ]]; then
  logs=$(mktemp -d /tmp/netns-run.XXXXXX)
  tmp_logs=$logs
fi
mkdir -p "$logs"
if [[ -n "$json" ]]; then
  json=$(cd "$(dirname "$json")" && pwd)/$(basename "$json")
  rm -f "$json"
fi
if [[ -n "$codes_file" ]]; then
  codes_file=$(cd "$(dirname "$codes_file")" && pwd)/$(basename "$codes_file")
  rm -f "$codes_file"
fi

pids=()
codes=()
write_codes() {
  [[ -n "$codes_file" ]] || return 0
  local r
  for ((r = 0; r < ${#pids[@]}; r++)); do echo "$r ${codes[r]:-124}"; done >"$codes_file"
}
cleanup() {
  local pid alive=()
  write_codes
  for pid in "${pids[@]}"; do
    if kill -0 "$pid" 2>/dev/null; then alive+=("$pid"); fi
  done
  if ((${#alive[@]})); then
    kill -TERM "${alive[@]}" 2>/dev/null || true
    for _ in 1 2 3 4 5 6 7 8 9 10; do
      sleep 0.2
      local still=()
      for pid in "${alive[@]}"; do
        if kill -0 "$pid" 2>/dev/null; then still+=("$pid"); fi
      done
      alive=("${still[@]+"${still[@]}"}")
      ((${#alive[@]})) || break
    done
    if ((${#alive[@]})); then kill -KILL "${alive[@]}" 2>/dev/null || true; fi
    wait 2>/dev/null || true
  fi
  if [[ -n "$tmp_logs" ]]; then rm -rf "$tmp_logs"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

host_of() { if ((${#rank_host[@]})); then echo "${rank_host[$1]}"; else echo $(($1 % hosts)); fi; }
rendezvous="$("$cluster" addr "$(host_of 0)" --prefix "$prefix"):$port"
token=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
json_args=()
[[ -n "$json" ]] && json_args=(--json "$json")
for ((r = 0; r < procs; r++)); do
  host=$(host_of "$r")
  EVBENCH_RANK=$r EVBENCH_SIZE=$procs EVBENCH_RENDEZVOUS=$rendezvous EVBENCH_RUN_ID=$token \
    "$cluster" run "$host" --prefix "$prefix" -- \
    "$evbench" run "${run_args[@]}" --set bootstrap=env "${json_args[@]}" \
    >"$logs/rank-$r.log" 2>&1 &
  pids+=($!)
done

# Wait for every rank, or the deadline.
deadline=$((SECONDS + timeout_s))
for ((r = 0; r < procs; r++)); do codes+=(""); done
remaining=$procs
while ((remaining > 0)); do
  if ((SECONDS >= deadline)); then
    echo "$me: timed out after ${timeout_s} s; stopping the ranks still running" >&2
    cat "$logs/rank-0.log"
    exit 124
  fi
  for ((r = 0; r < procs; r++)); do
    [[ -z "${codes[r]}" ]] || continue
    if ! kill -0 "${pids[r]}" 2>/dev/null; then
      rc=0
      wait "${pids[r]}" || rc=$?
      codes[r]=$rc
      remaining=$((remaining - 1))
    fi
  done
  sleep 0.2
done

cat "$logs/rank-0.log"
worst=0
for ((r = 0; r < procs; r++)); do
  if ((codes[r] != 0)); then
    echo "$me: rank $r (host $(host_of "$r")) exited ${codes[r]}; its log:" >&2
    if ((r != 0)); then tail -n 20 "$logs/rank-$r.log" >&2; fi
    ((codes[r] > worst)) && worst=${codes[r]}
  fi
done
exit "$worst"
