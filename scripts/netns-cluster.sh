#!/bin/bash
# An emulated cluster on this one machine: N hosts as network namespaces, each
# with its own host name and address, wired through Linux bridges (one per leaf
# switch, each in a namespace of its own) and veth uplinks, every link shaped
# by a token bucket (tc tbf) in both directions. Nothing is configured in the
# root namespace: hosts, switches and links all live in namespaces this script
# creates, and the addresses (NET.x.y/16, NET = 10.200 by default) exist only
# inside them.
#
#   netns-cluster.sh up N [--leaves L] [--host-rate R] [--uplink-rate R] [--prefix P] [--net A.B]
#   netns-cluster.sh down [--prefix P]
#   netns-cluster.sh status [--prefix P]        # the shape, or exit 1 when not up
#   netns-cluster.sh run I [--prefix P] [--] COMMAND [ARG]...
#   netns-cluster.sh addr I [--prefix P]         # host I's address
#
# Topology: hosts 0..N-1 fill leaves in order, ceil(N/L) per leaf (host i on
# leaf i / ceil(N/L)). Each host link runs at --host-rate (default 1gbit). Two
# leaves are joined by one veth at --uplink-rate (default 1gbit: with 4 hosts
# per leaf a 4:1 oversubscribed uplink; 4gbit makes it 1:1); more than two
# leaves hang off a spine bridge, one uplink per leaf. Rates take tc's units
# (500mbit, 1gbit, 4gbit).
#
# Names (prefix P, default evb): host namespaces P-h0..P-h<N-1> with host
# names of the same spelling, switch namespaces P-sw0..P-sw<L-1> (and P-spine),
# per-host files /etc/netns/P-hI/{hosts,resolv.conf} (ip netns exec binds them
# over /etc, so every host name resolves to its address and no name lookup
# leaves the namespace) and the state file /run/evbench-netns/P.env.
#
# `up` refuses when any of these names exists with another shape, does nothing
# when the same cluster is already up, and removes everything it made if a
# step fails. `down` stops the processes left in the namespaces, then removes
# everything; it is safe to run twice. `run` executes COMMAND in host I's
# namespace with host I's name (a UTS namespace of its own), replacing itself
# with COMMAND (the caller's pid is the command's pid).
set -Eeuo pipefail

me=netns-cluster.sh
die() {
  echo "$me: $*" >&2
  exit 1
}

prefix=evb
net=10.200
leaves=2
host_rate=1gbit
uplink_rate=1gbit
state_dir=/run/evbench-netns

# ---- argument parsing ---------------------------------------------------------
cmd="${1:-}"
[[ -n "$cmd" ]] || die "usage: $me up N [--leaves L] [--host-rate R] [--uplink-rate R] [--prefix P] [--net A.B] | down | status | run I COMMAND... | addr I"
shift
number=""
command_args=()
while (($#)); do
  case "$1" in
    --leaves) leaves="${2:?--leaves needs a value}"; shift 2 ;;
    --host-rate) host_rate="${2:?--host-rate needs a value}"; shift 2 ;;
    --uplink-rate) uplink_rate="${2:?--uplink-rate needs a value}"; shift 2 ;;
    --prefix) prefix="${2:?--prefix needs a value}"; shift 2 ;;
    --net) net="${2:?--net needs a value}"; shift 2 ;;
    --) shift; command_args=("$@"); break ;;
    -*) die "unknown option '$1'" ;;
    *)
      if [[ -z "$number" ]]; then
        number="$1"
        shift
      elif [[ "$cmd" == run ]]; then
        command_args=("$@")
        break
      else
        die "unexpected argument '$1'"
      fi
      ;;
  esac
done

[[ "$prefix" =~ ^[a-z][a-z0-9]{0,7}$ ]] ||
  die "--prefix '$prefix': 1-8 lower-case letters or digits, starting with a letter"
[[ "$net" =~ ^10\.([0-9]{1,3})$ && ${BASH_REMATCH[1]} -le 255 ]] ||
  die "--net '$net': give the first two octets of a private 10.x.0.0/16 range, e.g. 10.200"
rate_re='^[0-9]+(\.[0-9]+)?(bit|kbit|mbit|gbit)$'
[[ "$host_rate" =~ $rate_re ]] || die "--host-rate '$host_rate': a tc rate such as 500mbit or 1gbit"
[[ "$uplink_rate" =~ $rate_re ]] || die "--uplink-rate '$uplink_rate': a tc rate such as 1gbit or 4gbit"

state_file="$state_dir/$prefix.env"

host_ns() { echo "$prefix-h$1"; }
switch_ns() { echo "$prefix-sw$1"; }
spine_ns() { echo "$prefix-spine"; }
# Host i's address: NET.(i / 250).(i % 250 + 1); at most 250 * 256 hosts.
host_addr() { echo "$net.$(($1 / 250)).$(($1 % 250 + 1))"; }

need_root() {
  [[ $(id -u) -eq 0 ]] || die "$1 needs root (network namespaces, bridges and tc)"
  command -v ip >/dev/null && command -v tc >/dev/null ||
    die "ip and tc not found: install iproute2 (scripts/install-deps.sh --test)"
}

# Every namespace of this prefix that exists now, whatever shape made it.
our_namespaces() {
  ip netns list 2>/dev/null | awk '{print $1}' |
    grep -E "^$prefix-(h[0-9]+|sw[0-9]+|spine)\$" || true
}

load_state() {
  [[ -r "$state_file" ]] || return 1
  # The state file holds only the plain assignments written by `up`.
  local line key value
  while IFS= read -r line; do
    [[ "$line" =~ ^(hosts|leaves|host_rate|uplink_rate|net)=([A-Za-z0-9.]+)$ ]] || continue
    key=${BASH_REMATCH[1]} value=${BASH_REMATCH[2]}
    case "$key" in
      hosts) st_hosts=$value ;;
      leaves) st_leaves=$value ;;
      host_rate) st_host_rate=$value ;;
      uplink_rate) st_uplink_rate=$value ;;
      net) st_net=$value ;;
    esac
  done <"$state_file"
  [[ -n "${st_hosts:-}" ]]
}

# ---- down ---------------------------------------------------------------------
teardown() {
  local ns pids
  for ns in $(our_namespaces); do
    # Processes still inside (a launcher killed half-way): they were started
    # in this namespace by `run`, so they are ours to stop.
    pids=$(ip netns pids "$ns" 2>/dev/null || true)
    if [[ -n "$pids" ]]; then
      kill -TERM $pids 2>/dev/null || true
    fi
  done
  for ns in $(our_namespaces); do
    pids=$(ip netns pids "$ns" 2>/dev/null || true)
    if [[ -n "$pids" ]]; then
      sleep 1
      kill -KILL $pids 2>/dev/null || true
    fi
  done
  # Deleting a namespace destroys its veths (and their peers) and bridges.
  for ns in $(our_namespaces); do
    ip netns del "$ns" 2>/dev/null || echo "$me: could not delete namespace $ns" >&2
  done
  local d
  for d in /etc/netns/"$prefix"-h*; do
    [[ -d "$d" && "$(basename "$d")" =~ ^$prefix-h[0-9]+$ ]] || continue
    rm -f "$d/hosts" "$d/resolv.conf"
    rmdir "$d" 2>/dev/null || true
  done
  rm -f "$state_file"
  local left
  left=$(our_namespaces)
  [[ -z "$left" ]] || die "namespaces left after down: $left"
}

# ---- up -----------------------------------------------------------------------
# The bucket: 256 KiB or 2 ms at the rate, whichever is larger. veth hands tbf
# GSO packets of up to 64 KiB; a bucket of just one such packet held a single
# TCP stream to about half the rate (200mbit: 0.09 Gb/s with 64 KiB, 0.19 with
# 256 KiB, one-to-one shift 1 on 8 hosts), a few packets deep reaches it.
shape() {  # namespace device rate
  local bits
  bits=$(rate_bits "$3")
  local burst=$((bits / 8 / 500))
  if ((burst < 262144)); then burst=262144; fi
  tc -n "$1" qdisc replace dev "$2" root tbf rate "$3" burst "$burst" latency 20ms
}

rate_bits() {
  [[ "$1" =~ ^([0-9]+)(\.[0-9]+)?(bit|kbit|mbit|gbit)$ ]] || return 1
  local n=${BASH_REMATCH[1]}
  case "${BASH_REMATCH[3]}" in
    bit) echo "$n" ;;
    kbit) echo $((n * 1000)) ;;
    mbit) echo $((n * 1000000)) ;;
    gbit) echo $((n * 1000000000)) ;;
  esac
}

make_switch() {  # namespace
  ip netns add "$1"
  ip -n "$1" link set lo up
  ip -n "$1" link add name br0 type bridge stp_state 0 forward_delay 0
  ip -n "$1" link set br0 up
}

# A veth from switch namespace $1 (port $2) to namespace $3 (device $4), both
# ends shaped to $5; the switch end joins br0, the other end is left to the caller.
make_link() {
  ip -n "$1" link add name "$2" type veth peer name "$4" netns "$3"
  ip -n "$1" link set dev "$2" master br0 up
  ip -n "$3" link set dev "$4" up
  shape "$1" "$2" "$5"
  shape "$3" "$4" "$5"
}

bring_up() {
  local n=$1
  local per_leaf=$(((n + leaves - 1) / leaves))
  local l i ns leaf
  for ((l = 0; l < leaves; l++)); do make_switch "$(switch_ns $l)"; done
  if ((leaves == 2)); then
    make_link "$(switch_ns 0)" up1 "$(switch_ns 1)" up0 "$uplink_rate"
    ip -n "$(switch_ns 1)" link set dev up0 master br0
  elif ((leaves > 2)); then
    make_switch "$(spine_ns)"
    for ((l = 0; l < leaves; l++)); do
      make_link "$(spine_ns)" "leaf$l" "$(switch_ns $l)" uplink "$uplink_rate"
      ip -n "$(switch_ns $l)" link set dev uplink master br0
    done
  fi
  mkdir -p /etc/netns
  local hosts_text="127.0.0.1 localhost"$'\n'
  for ((i = 0; i < n; i++)); do hosts_text+="$(host_addr $i) $(host_ns $i)"$'\n'; done
  for ((i = 0; i < n; i++)); do
    ns=$(host_ns $i)
    leaf=$((i / per_leaf))
    ip netns add "$ns"
    ip -n "$ns" link set lo up
    make_link "$(switch_ns $leaf)" "p$i" "$ns" eth0 "$host_rate"
    ip -n "$ns" addr add "$(host_addr $i)/16" dev eth0
    mkdir -p "/etc/netns/$ns"
    printf '%s' "$hosts_text" >"/etc/netns/$ns/hosts"
    # No nameserver: lookups of unknown names go to 127.0.0.1 inside the namespace.
    printf '# evbench emulated cluster: no DNS inside the namespace\n' >"/etc/netns/$ns/resolv.conf"
  done
  mkdir -p "$state_dir"
  printf 'hosts=%s\nleaves=%s\nhost_rate=%s\nuplink_rate=%s\nnet=%s\n' \
    "$n" "$leaves" "$host_rate" "$uplink_rate" "$net" >"$state_file"
}

describe() {  # hosts leaves host_rate uplink_rate
  local per_leaf=$((($1 + $2 - 1) / $2))
  local ratio=""
  local hb ub
  hb=$(rate_bits "$3") ub=$(rate_bits "$4")
  if (($2 > 1 && ub > 0)); then
    ratio=" ($(awk -v a="$per_leaf" -v h="$hb" -v u="$ub" 'BEGIN { printf "%g", a * h / u }'):1 at the uplink)"
  fi
  if (($2 == 1)); then
    echo "$prefix: $1 hosts on 1 switch; host links $3"
  else
    echo "$prefix: $1 hosts on $2 leaf switches, $per_leaf per leaf; host links $3, uplinks $4$ratio"
  fi
}

case "$cmd" in
  up)
    need_root up
    [[ "$number" =~ ^[1-9][0-9]*$ ]] || die "up needs the number of hosts, e.g. '$me up 8'"
    [[ "$leaves" =~ ^[1-9][0-9]*$ ]] || die "--leaves '$leaves': a positive integer"
    ((leaves <= number)) || die "--leaves $leaves: more leaves than the $number hosts"
    ((number <= 1000)) || die "up $number: at most 1000 hosts"
    existing=$(our_namespaces | tr '\n' ' ')
    if [[ -n "$existing" ]]; then
      if load_state && [[ "$st_hosts" == "$number" && "$st_leaves" == "$leaves" &&
        "$st_host_rate" == "$host_rate" && "$st_uplink_rate" == "$uplink_rate" &&
        "$st_net" == "$net" ]] && (($(our_namespaces | wc -l) == number + leaves + (leaves > 2 ? 1 : 0))); then
        echo "$me: already up: $(describe "$number" "$leaves" "$host_rate" "$uplink_rate")"
        exit 0
      fi
      die "refusing: namespaces named '$prefix-*' already exist (${existing% }) with another shape or not made by this script; run '$me down --prefix $prefix' first, or choose another --prefix"
    fi
    [[ ! -e "$state_file" ]] || rm -f "$state_file"
    # Any failure from here on (a command, an unset variable, a signal)
    # removes what was made before exiting.
    up_done=0
    trap 'if ((!up_done)); then echo "$me: up failed; removing what was made" >&2; teardown; fi' EXIT
    trap 'exit 130' INT TERM
    bring_up "$number"
    up_done=1
    trap - EXIT INT TERM
    describe "$number" "$leaves" "$host_rate" "$uplink_rate"
    ;;
  down)
    need_root down
    [[ -z "$number" ]] || die "down takes no number (it removes every '$prefix-*' namespace)"
    teardown
    ;;
  status)
    load_state || { echo "$prefix: not up"; exit 1; }
    describe "$st_hosts" "$st_leaves" "$st_host_rate" "$st_uplink_rate"
    for ((i = 0; i < st_hosts; i++)); do echo "  $(host_ns $i) $(net=$st_net host_addr $i)"; done
    ;;
  addr)
    load_state || die "'$prefix' is not up"
    [[ "$number" =~ ^[0-9]+$ ]] && ((number < st_hosts)) || die "addr needs a host index 0..$((st_hosts - 1))"
    net=$st_net
    host_addr "$number"
    ;;
  run)
    load_state || die "'$prefix' is not up (run '$me up N' first)"
    [[ "$number" =~ ^[0-9]+$ ]] && ((number < st_hosts)) ||
      die "run needs a host index 0..$((st_hosts - 1)), then the command"
    ((${#command_args[@]})) || die "run $number: no command given"
    ns=$(host_ns "$number")
    # ip netns exec and unshare both exec; the shell sets the host name of the
    # new UTS namespace and execs the command, so no process stays in between.
    exec ip netns exec "$ns" unshare --uts -- /bin/sh -c \
      'printf "%s" "$1" > /proc/sys/kernel/hostname && shift && exec "$@"' sh "$ns" "${command_args[@]}"
    ;;
  *) die "unknown command '$cmd' (up, down, status, run, addr)" ;;
esac
