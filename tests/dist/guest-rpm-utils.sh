#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/dist/guest-rpm-utils.sh: the zcache-utils RPM on the rpm guest
# path (issue 21), without the DKMS build (that is `--install rpm`'s job,
# tens of minutes under TCG).  Base image (vm/run.sh --install none
# --apt-repo DIR: the .rpms are in DIR/rpm):
#  1. rpm -i zcache-utils (its %post runs %systemd_post): rpm -V (files:
#     the Debian rpm database has none of its dependencies) clean,
#     the unit is known to systemd (enabled or not as the distribution's
#     preset says), man pages there
#  2. zcachectl status runs (module absent: "not loaded")
#  3. zcachectl check-backing: a blank loop device passes, an ext4 one is
#     refused naming its signature
#  4. rpm -e (its %preun/%postun): files and unit gone
# then the runner's suites of ZC_ONLY (e.g. 00-harness).
. "$ZC_TESTS/dist/guest-lib.sh"
f=$(ls "$REPO"/rpm/zcache-utils-*.noarch.rpm 2>/dev/null | head -n 1)
W=$(mktemp -d /var/tmp/zcrpm.XXXXXX)

drun rpm -qlp "$f"
if drun rpm -i --nodeps -vh "$f" && drun rpm -V --nodeps zcache-utils &&
	systemctl cat zcache-swap.service >&3 2>&1 &&
	{ [ -f /usr/share/man/man8/zcachectl.8 ] || [ -f /usr/share/man/man8/zcachectl.8.gz ]; } &&
	[ -f /usr/share/doc/zcache-utils/examples/swap.conf ]; then
	dok "rpm -i $(basename "$f"): rpm -V clean, zcache-swap.service known ($(systemctl is-enabled zcache-swap.service 2>&1) by preset), man pages and example installed"
else
	dnok "rpm -i $(basename "$f") # is-enabled: $(systemctl is-enabled zcache-swap.service 2>&1)"
fi

out=$(zcachectl status 2>&1); rc=$?
dsay "$out"
if [ "$rc" = 0 ] && printf '%s' "$out" | grep -q 'zcache: *not loaded'; then
	dok "zcachectl status from the rpm runs: zcache not loaded"
else
	dnok "zcachectl status # rc=$rc $out"
fi

truncate -s 64M "$W/blank.img" "$W/ext.img"
mkfs.ext4 -q "$W/ext.img"
b=$(losetup -f --show "$W/blank.img"); e=$(losetup -f --show "$W/ext.img")
zcachectl check-backing "$b" >&3 2>&1; rb=$?
oe=$(zcachectl check-backing "$e" 2>&1); re=$?
dsay "$oe"
losetup -d "$b" "$e"
if [ "$rb" = 0 ] && [ "$re" = 1 ] && printf '%s' "$oe" | grep -q 'ext4 signature'; then
	dok "zcachectl check-backing: a blank device passes, an ext4 one is refused ('ext4 signature')"
else
	dnok "zcachectl check-backing # blank rc=$rb, ext4 rc=$re: $oe"
fi

if drun rpm -e zcache-utils && [ ! -e /usr/sbin/zcachectl ] && ! systemctl cat zcache-swap.service >/dev/null 2>&1; then
	dok "rpm -e zcache-utils: tools and unit gone"
else
	dnok "rpm -e zcache-utils"
fi
rm -rf "$W"
ZC_DIST_INSTALL=rpm-utils
dist_finish
