#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vm/image.sh [--debs DIR [--test-src SRC]] [--kernel-flavour FLAVOUR | --kernel-debs KDIR] SUITE
#
# Build (or reuse) a bootable test image of SUITE and print its directory:
#   disk.qcow2            ext4 root file system (boot: root=/dev/vda)
#   vmlinuz-*, initrd.img-*, config-*   kernels to pass to -kernel/-initrd
#   kernels.txt           the kernel versions in the image
#   build.log             what the chroot did
# Variants:
#   (no option)           base: the suite's cached rootfs (vm/rootfs.sh) plus
#                         the guest harness (vm/guest/); cloud and rpm runs
#   --debs DIR            fast: base + the .debs of DIR installed with apt in
#                         the chroot (DKMS builds there, at native speed)
#   --test-src SRC        with --debs: also build the test modules (make
#                         ZC_TESTS=1) from SRC, a copy of src/ with its
#                         .zc-src-hash (vm/run.sh), for every kernel of the
#                         image, into /lib/modules/KVER/extra/zcache-tests
#   --kernel-flavour F    + a second kernel (e.g. cloud), installed after the
#                         package: the kernel-upgrade scenario
#   --kernel-debs KDIR    the same with the linux-image + linux-headers .debs
#                         of KDIR (a test kernel of vm/testkernel.sh) as the
#                         second kernel; variant kernel-RELEASE
# An image is cached under $ZC_CACHE/images/SUITE-VARIANT-HASH; HASH covers
# the rootfs tree, the harness files and the packages, so an image is
# rebuilt only when one of them changes.  The newest 3 per suite and
# variant are kept.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

usage() { echo "usage: $0 [--debs DIR [--test-src SRC]] [--kernel-flavour FLAVOUR | --kernel-debs KDIR] SUITE" >&2; exit 2; }
debdir= flavour= kdebdir= testsrc=
while [ $# -gt 0 ]; do
	case $1 in
	--debs) [ $# -ge 2 ] || usage; debdir=$2; shift 2 ;;
	--kernel-flavour) [ $# -ge 2 ] || usage; flavour=$2; shift 2 ;;
	--kernel-debs) [ $# -ge 2 ] || usage; kdebdir=$2; shift 2 ;;
	--test-src) [ $# -ge 2 ] || usage; testsrc=$2; shift 2 ;;
	-*) usage ;;
	*) break ;;
	esac
done
[ $# -eq 1 ] || usage
suite=$1
zc_check_suite "$suite" || usage
[ -z "$flavour" ] || [ -n "$debdir" ] || zc_die "--kernel-flavour needs --debs"
[ -z "$kdebdir" ] || [ -n "$debdir" ] || zc_die "--kernel-debs needs --debs"
[ -z "$kdebdir" ] || [ -z "$flavour" ] || zc_die "--kernel-flavour or --kernel-debs, not both"
[ -z "$testsrc" ] || [ -n "$debdir" ] || zc_die "--test-src needs --debs"
[ -z "$testsrc" ] || [ -f "$testsrc/.zc-src-hash" ] || zc_die "--test-src $testsrc: no .zc-src-hash (vm/run.sh writes it)"

zc_need_cmd mkfs.ext4 e2fsprogs
zc_need_cmd qemu-img qemu-utils

rootfs=$("$here/rootfs.sh" "$suite")

variant=base prep_args=()
if [ -n "$debdir" ]; then
	variant=fast; prep_args+=(--debs)
	ls "$debdir"/*.deb >/dev/null 2>&1 || zc_die "no .deb in $debdir"
fi
[ -z "$flavour" ] || { variant=upgrade-$flavour; prep_args+=(--kernel-flavour "$flavour"); }
if [ -n "$kdebdir" ]; then
	kimg=$(ls "$kdebdir"/linux-image-*.deb 2>/dev/null | grep -v -- '-dbg_' | head -n 1 || true)
	[ -n "$kimg" ] || zc_die "no linux-image-*.deb in $kdebdir"
	krel=${kimg##*/linux-image-}; krel=${krel%%_*}
	ls "$kdebdir/linux-headers-${krel}_"*.deb >/dev/null 2>&1 ||
		zc_die "no linux-headers-${krel}_*.deb in $kdebdir"
	variant=kernel-$krel; prep_args+=(--kernel-debs)
fi

# The recipe: the rootfs tree (its name carries its own recipe hash), the
# harness files that go into the image, and the packages.
recipe=$( {
	echo "v1 $suite $variant $(basename "$rootfs")"
	cd "$here" && sha256sum image.sh pack-image.sh guest/*
	[ -z "$debdir" ] || (cd "$debdir" && sha256sum ./*.deb)
	[ -z "$kdebdir" ] || (cd "$kdebdir" && sha256sum ./linux-image-*.deb ./linux-headers-*.deb)
	[ -z "$testsrc" ] || echo "test modules $(cat "$testsrc/.zc-src-hash")"
} )
hash=$(printf '%s' "$recipe" | sha256sum | cut -c1-12)
dest="$ZC_CACHE/images/$suite-$variant-$hash"

mkdir -p "$ZC_CACHE/images" "$ZC_CACHE/logs"
exec 8>"$ZC_CACHE/images/.lock-$suite-$variant"
flock 8
if [ -f "$dest/.ok" ]; then
	zc_log "image $suite/$variant: cached at $dest"
	echo "$dest"
	exit 0
fi

tmp="$dest.tmp.$$"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp"
start=$SECONDS
zc_log "image $suite/$variant: building (log $tmp/build.log)"
binds=(--bind "$here/guest:/mnt/zc-harness")
[ -z "$debdir" ] || binds+=(--bind "$(realpath "$debdir"):/mnt/zc-pkg")
[ -z "$kdebdir" ] || binds+=(--bind "$(realpath "$kdebdir"):/mnt/zc-kdebs")
if [ -n "$testsrc" ]; then
	binds+=(--bind "$(realpath "$testsrc"):/mnt/zc-src")
	prep_args+=(--test-modules)
fi
if ! "$here/chroot.sh" "${binds[@]}" --host-hook "$here/pack-image.sh $tmp" \
	"$rootfs" -- /bin/bash /mnt/zc-harness/prepare-image.sh "${prep_args[@]}" \
	>"$tmp/build.log" 2>&1; then
	cp "$tmp/build.log" "$ZC_CACHE/logs/image-$suite-$variant.failed.log"
	tail -n 80 "$tmp/build.log" >&2
	zc_die "image $suite/$variant failed (log $ZC_CACHE/logs/image-$suite-$variant.failed.log)"
fi
echo "$recipe" >"$tmp/recipe"
touch "$tmp/.ok"
mv "$tmp" "$dest"
trap - EXIT
zc_log "image $suite/$variant: ready in $((SECONDS - start)) s ($(du -sh "$dest/disk.qcow2" | cut -f1)): $dest"
# Keep the newest three of this suite and variant (runs hard-link what they
# boot, so removing an image under a waiting run is harmless).
ls -dt "$ZC_CACHE/images/$suite-$variant"-* 2>/dev/null | grep -v '\.tmp\.' |
	tail -n +4 | while read -r old; do rm -rf "$old"; done
echo "$dest"
