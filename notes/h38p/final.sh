#!/bin/bash
# The final A/B: A = /work/main/build/bin/evbench (main at 78423f4, no pacing),
# B = this worktree's build (tcp_poll_pause default 5000 ns), interleaved per cell
# and pass (notes/h38p/ab.sh), each window under its own exclusive hold of the quiet lock.
cd "$(dirname "$0")/../.."
flock -x /tmp/evb-quiet.lock bash notes/h38p/ab.sh 3 32 "ucx/tcp send (eh none)" "ucx/tcp send (eh peer)" \
  "ucx/tcp write (eh none)" "ucx/sm send (eh none)"
flock -x /tmp/evb-quiet.lock bash notes/h38p/ab.sh 3 1 "ucx/tcp send (eh none)" "ucx/tcp write (eh none)"
flock -x /tmp/evb-quiet.lock bash notes/h38p/ab.sh 3 8 "ucx/tcp send (eh none)" "ucx/tcp write (eh none)"
