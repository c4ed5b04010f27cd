# SPDX-License-Identifier: GPL-2.0
#
# tests/dist/guest-lib.sh: what the distribution guest scripts share
# (guest-upgrade.sh, guest-prebuilt.sh, guest-rpm-utils.sh, guest-extra.sh).  They run in a
# harness guest instead of the runner (vm/run.sh --script dist/NAME.sh),
# with the repository of tests/dist/repo.sh in the package share
# (vm/run.sh --apt-repo DIR: /mnt/zc/pkg/repo).  Each step is one KTAP
# line in $ZC_RESULTS/dist.ktap, commands and their output go to
# $ZC_RESULTS/dist.log; at the end dist_finish hands over to the guest
# runner (tests/guest/run.sh) for the suites of ZC_ONLY, with a failing
# test injected (ZC_FORCE_FAIL) when a step failed, so the harness's
# verdict, token and power-off apply unchanged.
set -u
REPO=${ZC_PKG:-/mnt/zc/pkg}/repo
KTAP=$ZC_RESULTS/dist.ktap
LOG=$ZC_RESULTS/dist.log
KEYRING=/usr/share/keyrings/zcache-archive-keyring.gpg
# Once per boot: a script chained by ZC_DIST_THEN (dist_finish) sources
# this again and its steps carry on the numbering.
if [ -z "${ZC_DIST_STARTED:-}" ]; then
	ZC_DIST_STARTED=1 dn=0 dfailed=''
	: >"$KTAP"
	exec 3>>"$LOG"
fi
export DEBIAN_FRONTEND=noninteractive
# The guest boots with the host's -kernel/-initrd and its disk is a
# snapshot: regenerating the initramfs (lvm2's trigger) costs minutes
# under TCG for nothing.
[ ! -f /etc/initramfs-tools/update-initramfs.conf ] ||
	sed -i 's/^update_initramfs=.*/update_initramfs=no/' /etc/initramfs-tools/update-initramfs.conf
dsay() { echo "$*" >&3; echo "zc-dist: $*" >/dev/console 2>/dev/null || true; }
dok() { dn=$((dn + 1)); echo "ok $dn $*" >>"$KTAP"; dsay "ok $dn $*"; }
dnok() {
	dn=$((dn + 1)); echo "not ok $dn $*" >>"$KTAP"; dsay "not ok $dn $*"
	dfailed="$dfailed${dfailed:+:}dist-step-$dn"
}
# drun COMMAND...: echo it and run it, output to the log.
drun() { dsay "+ $*"; "$@" >&3 2>&1; }
# dcheck DESCRIPTION COMMAND...
dcheck() { local d=$1; shift; if drun "$@"; then dok "$d"; else dnok "$d"; fi; }

# use_snapshot VERSION: apt's only source is that snapshot of the
# repository (the image's Debian mirror is unreachable from the guest).
use_snapshot() {
	install -D -m 644 "$REPO/zcache-archive-keyring.gpg" "$KEYRING"
	[ ! -f /etc/apt/sources.list ] || mv /etc/apt/sources.list /etc/apt/sources.list.zc-saved
	rm -f /etc/apt/sources.list.d/debian.sources
	echo "deb [signed-by=$KEYRING] file:$REPO/$1 bookworm main" >/etc/apt/sources.list.d/zcache.list
	drun apt-get update
}
APT_Y=(apt-get -y -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold)

# dist_finish: with ZC_DIST_THEN=NAME.sh, go on with tests/dist/NAME.sh in
# the same boot (it ends in dist_finish itself); else hand over to the
# runner.
dist_finish() {
	if [ -n "${ZC_DIST_THEN:-}" ]; then
		set -- "$ZC_TESTS/dist/$ZC_DIST_THEN"
		ZC_DIST_THEN=
		dsay "next: ${1##*/}"
		# shellcheck source=/dev/null
		. "$1"
		exit 1	# not reached
	fi
	echo "1..$dn" >>"$KTAP"
	dsay "dist steps: $dn, failed: ${dfailed:-none}"
	export ZC_INSTALL=${ZC_DIST_INSTALL:-repo}
	[ -z "$dfailed" ] || export ZC_FORCE_FAIL="$dfailed"
	sync
	exec bash "$ZC_TESTS/guest/run.sh"
}
