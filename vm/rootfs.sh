#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vm/rootfs.sh SUITE: build (or reuse) the cached root filesystem of one
# Debian suite.  The same tree serves as the build chroot of the package
# matrix (DKMS runs in it at native speed) and as the base of the test VM
# image (vm/image.sh).  It holds Debian packages only: harness files are
# added later, so changing them does not force a new mmdebstrap run.
#
# The tree lives under $ZC_CACHE/rootfs/SUITE-HASH, where HASH covers this
# recipe; an older tree of the same suite is removed once a new one is ready.
# Prints the path of the tree on stdout (progress goes to stderr).

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

usage() { echo "usage: $0 {bullseye|bookworm|trixie|sid}" >&2; exit 2; }
[ $# -eq 1 ] || usage
suite=$1
zc_check_suite "$suite" || usage

# What every suite gets: the kernel and its headers (so DKMS has a target),
# DKMS and the compiler, an init system, cloud-init (the images are
# cloud-style), and what the guest suites and workloads use.
packages=(
	linux-image-amd64 linux-headers-amd64 dkms gcc make libc6-dev
	systemd-sysv udev kmod procps util-linux e2fsprogs dmsetup
	cloud-init cloud-guest-utils iproute2 ifupdown isc-dhcp-client
	sparse rpm fakeroot zstd xz-utils python3 ca-certificates less
	bsdextrautils
)
# sid (and trixie, where it is on its way out) lack isc-dhcp-client: use dhcpcd-base there (the other suites'
# recipes, and so their cached trees, stay as they were).
case $suite in
trixie|sid) packages=("${packages[@]/#isc-dhcp-client/dhcpcd-base}") ;;
esac
# The fields of the recipe that define the tree.
recipe="v3 $suite ${packages[*]} $(zc_mirror)"
hash=$(printf '%s' "$recipe" | sha256sum | cut -c1-12)
dest="$ZC_CACHE/rootfs/$suite-$hash"

# One builder per suite at a time; a second caller waits and reuses.
mkdir -p "$ZC_CACHE/rootfs"
exec 9>"$ZC_CACHE/rootfs/.lock-$suite"
flock 9

if [ -f "$dest/.zcache-rootfs-ok" ]; then
	zc_log "rootfs $suite: cached at $dest"
	echo "$dest"
	exit 0
fi

zc_need_cmd mmdebstrap mmdebstrap
mkdir -p "$ZC_CACHE/rootfs" "$ZC_CACHE/logs"
log="$ZC_CACHE/logs/rootfs-$suite.log"
tmp="$dest.tmp.$$"
zc_log "rootfs $suite: building with mmdebstrap (1-2 min), log $log"

aptopt=$(mktemp)
trap 'rm -f "$aptopt"; zc_rm_tree "$tmp"' EXIT
# sid's Release may be past Valid-Until by the machine's clock.
echo 'Acquire::Check-Valid-Until "false";' >"$aptopt"

include=$(IFS=,; echo "${packages[*]}")
start=$SECONDS
if ! mmdebstrap --mode=root --variant=minbase --format=directory \
	--aptopt="$aptopt" --include="$include" \
	--customize-hook='echo zcache-vm >"$1/etc/hostname"' \
	--customize-hook='chroot "$1" passwd -d root' \
	--customize-hook='printf "/dev/vda / ext4 rw,errors=remount-ro 0 1\n" >"$1/etc/fstab"' \
	"$suite" "$tmp" "$(zc_mirror)" >"$log" 2>&1; then
	tail -n 30 "$log" >&2
	zc_die "mmdebstrap failed for $suite (full log: $log)"
fi
touch "$tmp/.zcache-rootfs-ok"
echo "$recipe" >"$tmp/.zcache-rootfs-recipe"

# Replace older trees of this suite.
for old in "$ZC_CACHE/rootfs/$suite"-*; do
	case $old in "$dest"|"$tmp") continue ;; esac
	[ -d "$old" ] && zc_rm_tree "$old"
done
mv "$tmp" "$dest"
zc_log "rootfs $suite: ready in $((SECONDS - start)) s: $dest"
echo "$dest"
