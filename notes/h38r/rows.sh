#!/bin/bash
# The two rows this session's changes move, from an idle start, 5 rounds:
# libfabric/tcp send at parallel 1 ("1 slot" = the default now: one receive
# slot for sends by read rendezvous; "recv 2" = the two slots it held
# before), and ucx/tcp send at window 32 (eh none: tcp_poll_pause in effect
# at its default; "recv 1" = one receive slot, the bar's column there).
cd "$(dirname "$0")/../.."
echo "# $(date -u +%H:%M) UTC, $(git rev-parse --short HEAD), load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
WINDOW=1 ONLY="libfabric/tcp send" SWEEP=1 RSWEEP="1 2" EVBENCH=build/bin/evbench bash bench/drivers.sh 3 tools
echo "# $(date -u +%H:%M) UTC, load average: $(cut -d' ' -f1-3 /proc/loadavg)"
WINDOW=32 ONLY="ucx/tcp send (eh none)" SWEEP=1 RSWEEP="1" EVBENCH=build/bin/evbench bash bench/drivers.sh 3 tools
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
