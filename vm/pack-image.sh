#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vm/pack-image.sh OUTDIR: vm/chroot.sh's --host-hook of vm/image.sh.
# Packs the merged tree $ZC_ROOT into OUTDIR/disk.qcow2 (mkfs.ext4 -d, then
# qemu-img convert) and copies its kernels, initrds and configs beside it
# (the guests boot with -kernel/-initrd: no bootloader in the image).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
out=$1
[ -n "${ZC_ROOT:-}" ] && [ -d "$ZC_ROOT/boot" ] || zc_die "ZC_ROOT is not a tree"
mkdir -p "$out"
cp -L "$ZC_ROOT"/boot/vmlinuz-* "$ZC_ROOT"/boot/initrd.img-* "$ZC_ROOT"/boot/config-* "$out/"
ls "$ZC_ROOT/lib/modules" >"$out/kernels.txt"
# Headroom for what the guest installs and builds (cloud and rpm paths).
used=$(du -sxm "$ZC_ROOT" | cut -f1)
size=$((used + 2048))
zc_log "packing ${used} MiB into an ext4 image of ${size} MiB"
truncate -s "${size}M" "$out/disk.raw"
mkfs.ext4 -q -F -L zcroot -d "$ZC_ROOT" "$out/disk.raw"
qemu-img convert -O qcow2 "$out/disk.raw" "$out/disk.qcow2"
rm -f "$out/disk.raw"
