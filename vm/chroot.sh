#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vm/chroot.sh [options] ROOTFS -- COMMAND...
#
# Run COMMAND inside a throw-away overlay of a cached root filesystem
# (vm/rootfs.sh), as a chroot with /proc, /sys and /dev.  Everything is
# mounted inside a private mount namespace, so that the mounts vanish with
# the process whatever happens and the host's /dev can never be deleted by
# a later cleanup.  The cached tree itself is never written.
#
# Options:
#   --bind HOSTDIR:DIR   bind HOSTDIR at DIR inside the chroot (repeatable)
#   --keep UPPER         keep the overlay's upper (changed files) in UPPER
#                        instead of a temporary directory
#   --host-hook CMD      after COMMAND succeeds, run CMD on the host with
#                        $ZC_ROOT set to the merged tree (still mounted),
#                        e.g. to pack the tree into a disk image
#
# COMMAND runs with a clean environment (PATH, HOME, LANG=C.UTF-8,
# DEBIAN_FRONTEND=noninteractive).  Exit status is COMMAND's (or the hook's).

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

usage() {
	echo "usage: $0 [--bind HOST:DIR]... [--keep UPPER] [--host-hook CMD] ROOTFS -- COMMAND..." >&2
	exit 2
}

binds=() keep= hook=
while [ $# -gt 0 ]; do
	case $1 in
	--bind) [ $# -ge 2 ] || usage; binds+=("$2"); shift 2 ;;
	--keep) [ $# -ge 2 ] || usage; keep=$2; shift 2 ;;
	--host-hook) [ $# -ge 2 ] || usage; hook=$2; shift 2 ;;
	--) usage ;;
	-*) usage ;;
	*) break ;;
	esac
done
[ $# -ge 3 ] && [ "$2" = "--" ] || usage
rootfs=$1
shift 2
[ -f "$rootfs/.zcache-rootfs-ok" ] || zc_die "$rootfs is not a finished rootfs (run vm/rootfs.sh)"

if [ "${ZC_IN_NS:-}" != 1 ]; then
	# Re-enter in a private mount namespace.
	exec env ZC_IN_NS=1 unshare --mount --propagation private -- \
		"$0" $(for b in "${binds[@]}"; do printf -- '--bind %q ' "$b"; done) \
		${keep:+--keep "$keep"} ${hook:+--host-hook "$hook"} \
		"$rootfs" -- "$@"
fi

mkdir -p "$ZC_CACHE/work"
work=$(mktemp -d "$ZC_CACHE/work/chroot.XXXXXX")
upper=${keep:-$work/upper}
mkdir -p "$upper" "$work/ovl" "$work/root"
# zc_kill_chroot_procs ROOT: end every process whose root is ROOT.
zc_kill_chroot_procs() {
	local p r pids=()
	for p in /proc/[0-9]*; do
		r=$(readlink "$p/root" 2>/dev/null) || continue
		[ "$r" = "$1" ] && pids+=("${p#/proc/}")
	done
	[ ${#pids[@]} -eq 0 ] && return 0
	echo "chroot: ending processes left in $1: ${pids[*]}" >&2
	kill -TERM "${pids[@]}" 2>/dev/null || true
	sleep 1
	kill -KILL "${pids[@]}" 2>/dev/null || true
}
cleanup() {
	zc_kill_chroot_procs "$work/root"
	umount -R "$work/root" 2>/dev/null || umount -R -l "$work/root" 2>/dev/null || true
	zc_rm_tree "$work" || true
}
trap cleanup EXIT

mount -t overlay overlay \
	-o "lowerdir=$rootfs,upperdir=$upper,workdir=$work/ovl" "$work/root"
root=$work/root
mount -t proc proc "$root/proc"
mount --rbind /sys "$root/sys"
mount --rbind /dev "$root/dev"
mount -t tmpfs tmpfs "$root/tmp"
mount -t tmpfs tmpfs "$root/run"
# Name resolution for apt (the Debian mirror).
cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
for b in "${binds[@]}"; do
	src=${b%%:*} dst=${b#*:}
	mkdir -p "$root$dst"
	mount --bind "$src" "$root$dst"
done

env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive \
	chroot "$root" "$@"

if [ -n "$hook" ]; then
	# The hook sees the tree without the API filesystems mounted in it.
	# Daemons that maintainer scripts started in the chroot (seen on
	# trixie: a process holding a pty) would keep the mounts busy.
	zc_kill_chroot_procs "$root"
	for b in "${binds[@]}"; do umount "$root${b#*:}"; done
	umount "$root/run" "$root/tmp" "$root/proc"
	# Still busy: detach lazily; this namespace dies with us anyway.
	umount -R "$root/dev" 2>/dev/null || umount -R -l "$root/dev"
	umount -R "$root/sys" 2>/dev/null || umount -R -l "$root/sys"
	ZC_ROOT=$root bash -c "$hook"
fi
