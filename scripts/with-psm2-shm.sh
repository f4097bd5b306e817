#!/bin/bash
# with-psm2-shm.sh COMMAND...: runs COMMAND where libpsm2 finds an hfi1
# device, so that its shared-memory device (PSM2_DEVICES=self,shm) runs on a
# machine without Omni-Path hardware.
#
# libpsm2 refuses to initialise unless /sys/class/infiniband/hfi1_0 and
# /dev/hfi1_0 exist, even when only its self and shm devices are enabled.
# In a private mount namespace (unshare) this script presents
#   /sys/class/infiniband/hfi1_0   an empty directory (the rest of /sys/class
#                                  bound back unchanged),
#   /dev/hfi1_0                    an empty regular file (the rest of /dev
#                                  bound back unchanged),
#   /dev/shm                       a private tmpfs, so nothing a killed run
#                                  leaves there outlives the namespace;
# and exports PSM2_DEVICES=self,shm. Nothing outside the namespace changes.
# Every process of the run must be a descendant of COMMAND (local bootstrap).
# Needs root or unprivileged user namespaces.
set -euo pipefail
if (($# == 0)); then
  echo "usage: with-psm2-shm.sh COMMAND [ARG...]" >&2
  exit 2
fi

if [[ "${EVBENCH_PSM2_SHM_INSIDE:-}" != 1 ]]; then
  keep=$(mktemp -d /tmp/evbench-psm2.XXXXXX)
  trap 'rmdir "$keep"/sys "$keep"/dev "$keep" 2>/dev/null || true' EXIT
  mkdir "$keep/sys" "$keep/dev"
  ns=(unshare --mount --propagation private)
  [[ $(id -u) -eq 0 ]] || ns=(unshare --user --map-root-user --mount --propagation private)
  set +e
  EVBENCH_PSM2_SHM_INSIDE=1 EVBENCH_PSM2_SHM_KEEP="$keep" "${ns[@]}" -- "$0" "$@"
  rc=$?
  set -e
  exit $rc
fi

keep=$EVBENCH_PSM2_SHM_KEEP
unset EVBENCH_PSM2_SHM_INSIDE EVBENCH_PSM2_SHM_KEEP

# overlay DIR SAVED: DIR becomes a tmpfs holding what it held before (each
# entry bound back from SAVED, a bind of the original).
overlay() {
  local dir=$1 saved=$2 e n
  mount --rbind "$dir" "$saved"
  mount -t tmpfs -o mode=755 evbench-psm2 "$dir"
  for e in "$saved"/* "$saved"/.[!.]*; do
    [[ -e "$e" || -L "$e" ]] || continue
    n=${e##*/}
    if [[ -L "$e" ]]; then
      cp -P "$e" "$dir/$n"
    elif [[ -d "$e" ]]; then
      mkdir "$dir/$n" && mount --rbind "$e" "$dir/$n"
    else
      touch "$dir/$n" && mount --bind "$e" "$dir/$n"
    fi
  done
}

overlay /sys/class "$keep/sys"
mkdir -p /sys/class/infiniband/hfi1_0
overlay /dev "$keep/dev"
: >/dev/hfi1_0
umount -l /dev/shm 2>/dev/null || true
mkdir -p /dev/shm
mount -t tmpfs -o mode=1777 evbench-psm2-shm /dev/shm

export PSM2_DEVICES=self,shm
exec "$@"
