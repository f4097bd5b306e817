#!/bin/bash
# The A/B at the committed default (tcp_poll_pause 5000 ns, from 16 large receives,
# error_handling none only): A = /work/main/build/bin/evbench (main at 78423f4), B =
# this worktree's build; each part under its own exclusive hold of the quiet lock.
cd "$(dirname "$0")/../.."
flock -x /tmp/evb-quiet.lock bash notes/h38p/windows.sh 2
flock -x /tmp/evb-quiet.lock bash notes/h38p/ab.sh 3 32 "ucx/tcp send (eh none)" "ucx/tcp send (eh peer)" \
  "ucx/tcp write (eh none)" "ucx/sm send (eh none)"
flock -x /tmp/evb-quiet.lock bash notes/h38p/ab.sh 3 1 "ucx/tcp send (eh none)" "ucx/tcp write (eh none)"
flock -x /tmp/evb-quiet.lock bash notes/h38p/ab.sh 3 8 "ucx/tcp send (eh none)" "ucx/tcp write (eh none)"
