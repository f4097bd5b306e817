#!/bin/bash
# libfabric/tcp send at parallel 1 (both halves of the table run the send
# rows at parallel 1): "1 slot" = the default now (one receive slot: ofi_rxm
# sends 512 KiB by a read rendezvous), "recv 2" = the two slots the default
# held before, with the same sender buffer, in the same interleaved rounds.
cd "$(dirname "$0")/../.."
echo "# $(date -u +%H:%M) UTC, $(git rev-parse --short HEAD), load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
WINDOW=1 ONLY="libfabric/tcp send" SWEEP=1 RSWEEP="2" EVBENCH=build/bin/evbench bash bench/drivers.sh 3 tools
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
