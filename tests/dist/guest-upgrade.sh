#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/dist/guest-upgrade.sh: a bookworm guest as a fleet machine sees a
# release (issue 21).  The signed repository of tests/dist/repo.sh in the
# package share (--apt-repo), a scratch disk as the backing device
# (--scratch).  Either a base image (--install none: step 1 installs
# 0.1.0 and DKMS builds it here, under TCG: tens of minutes) or the fast
# image of the 0.1.0 .debs (--install fast --pkg-dir <0.1.0 debs>: DKMS
# built it in the image chroot; step 1 then finds it installed):
#  1. `apt-get install zcache-dkms zcache-utils` by name from the 0.1.0
#     snapshot; apt's candidate comes from the signed repository; the
#     module loads and says 0.1.0
#  2. the admin's edits: max_pool_percent=15 in /etc/modprobe.d/zcache.conf
#     (a conffile), /etc/zcache/swap.conf from the example with BACKING by
#     its /dev/disk/by-id name and PRIORITY=77; zcache-swap.service enabled
#     and started: /dev/zcache0 is swap at priority 77, pool limit 15%
#  3. the repository moves to the current snapshot: `apt-get upgrade`;
#     DKMS has the new version only; swap stayed on through the upgrade
#  4. the running module is replaced after a reload (unit stop, modprobe
#     -r, unit start): /sys/module/zcache/version and modinfo say the new
#     version, swap is on again at priority 77
#  5. the admin's edits are intact, and in force (max_pool_percent 15)
# then the runner's suites of ZC_ONLY (e.g. '@(workloads-build|35*)').
. "$ZC_TESTS/dist/guest-lib.sh"
cur=$(cat "$REPO/current")
kver=$(uname -r)
MP=/etc/modprobe.d/zcache.conf
SC=/etc/zcache/swap.conf
SCR=/dev/disk/by-id/virtio-zcscratch
params=/sys/module/zcache/parameters
in_swaps() { awk -v p="$1" '$1 == "/dev/zcache0" && $5 == p { f = 1 } END { exit !f }' /proc/swaps; }

# 1. install by name
use_snapshot 0.1.0
# The fast image has 0.1.0 installed already (from the same .debs, by the
# image builder): apt then only confirms it against the snapshot.
how='installed now'
dpkg-query -W -f='${Status}' zcache-dkms 2>/dev/null | grep -q ' installed$' &&
	how='in the image already, apt: newest version in the snapshot'
t0=$(date +%s)
drun "${APT_Y[@]}" install zcache-dkms zcache-utils lvm2
t1=$(date +%s)
v_pkg=$(dpkg-query -W -f='${Version}' zcache-dkms 2>/dev/null)
origin=$(apt-cache policy zcache-dkms | grep -m1 -o "file:$REPO/0.1.0 bookworm/main")
drun apt-cache policy zcache-dkms zcache-utils
drun dkms status
drun modprobe zcache
v_mod=$(cat /sys/module/zcache/version 2>/dev/null)
if [ "$v_pkg" = 0.1.0 ] && [ "$v_mod" = 0.1.0 ] && [ -n "$origin" ] &&
	[ "$(dpkg-query -W -f='${Version}' zcache-utils)" = 0.1.0 ]; then
	dok "apt-get install zcache-dkms zcache-utils by name from the signed 0.1.0 snapshot ($how; $((t1 - t0)) s, ${ZC_INSTALL:-?} image); zcache loads, version $v_mod"
else
	dnok "apt-get install by name from the 0.1.0 snapshot # package '$v_pkg', module '$v_mod', origin '$origin'"
fi

# 2. the admin's edits and the service
sed -i 's/^#options zcache max_pool_percent=20$/options zcache max_pool_percent=15/' $MP
echo "# admin: pool limit lowered for this fleet (zc-dist)" >>$MP
mkdir -p /etc/zcache
sed -e "s|^#BACKING=/dev/disk/by-partuuid/.*|BACKING=$SCR|" -e 's/^PRIORITY=100$/PRIORITY=77/' \
	-e 's/^SIZE=2G$/SIZE=256M/' /usr/share/doc/zcache-utils/examples/swap.conf >$SC
grep -q "^BACKING=$SCR" $SC || echo "BACKING=$SCR" >>$SC
echo "# admin: swap.conf edited (zc-dist)" >>$SC
drun cat $MP $SC
drun modprobe -r zcache
drun systemctl enable --now zcache-swap.service
drun cat /proc/swaps
if in_swaps 77 && [ "$(cat $params/max_pool_percent)" = 15 ]; then
	dok "0.1.0: admin edits in force, zcache-swap.service puts /dev/zcache0 over $SCR at priority 77"
else
	dnok "0.1.0: zcache-swap.service with the admin's swap.conf # max_pool_percent $(cat $params/max_pool_percent 2>/dev/null); $(tr '\n' ' ' </proc/swaps)"
fi
sum_mp=$(grep -v '^#' $MP | grep . | sha256sum)
cp $SC /var/tmp/swap.conf.before

# 3. the upgrade
use_snapshot "$cur"
t0=$(date +%s)
drun "${APT_Y[@]}" upgrade
t1=$(date +%s)
drun dkms status
st=$(dkms status zcache 2>/dev/null)
if [ "$(dpkg-query -W -f='${Version}' zcache-dkms)" = "$cur" ] &&
	[ "$(dpkg-query -W -f='${Version}' zcache-utils)" = "$cur" ] &&
	printf '%s' "$st" | grep -q "zcache/$cur, $kver, .*installed" &&
	! printf '%s' "$st" | grep -q 'zcache/0.1.0' && in_swaps 77; then
	dok "apt-get upgrade 0.1.0 -> $cur ($((t1 - t0)) s): DKMS dropped 0.1.0 and installed $cur for $kver; swap stayed on"
else
	dnok "apt-get upgrade 0.1.0 -> $cur # dkms: $st; $(tr '\n' ' ' </proc/swaps)"
	drun tail -n 60 "/var/lib/dkms/zcache/$cur/build/make.log"
fi

# 4. reload
drun systemctl stop zcache-swap.service
drun modprobe -r zcache zcsmalloc
drun systemctl start zcache-swap.service
v_mod=$(cat /sys/module/zcache/version 2>/dev/null)
v_info=$(modinfo -F version zcache 2>/dev/null)
if [ "$v_mod" = "$cur" ] && [ "$v_info" = "$cur" ] && in_swaps 77 &&
	[ "$(systemctl show -p ActiveState --value zcache-swap.service)" = active ]; then
	dok "after a reload the running zcache is $v_mod (modinfo $v_info); zcache-swap.service active, /dev/zcache0 swap at priority 77"
else
	dnok "reload: the new module runs # sysfs '$v_mod', modinfo '$v_info', $(systemctl show -p ActiveState --value zcache-swap.service), $(tr '\n' ' ' </proc/swaps)"
fi

# 5. the edits
if [ "$(grep -v '^#' $MP | grep . | sha256sum)" = "$sum_mp" ] && grep -q 'zc-dist' $MP &&
	cmp -s $SC /var/tmp/swap.conf.before && [ "$(cat $params/max_pool_percent)" = 15 ]; then
	dok "the admin's /etc/modprobe.d/zcache.conf and /etc/zcache/swap.conf are intact and in force (max_pool_percent 15)"
else
	dnok "the admin's edits are intact # max_pool_percent $(cat $params/max_pool_percent 2>/dev/null); $(diff $SC /var/tmp/swap.conf.before | tr '\n' ' ')"
fi
drun systemctl disable --now zcache-swap.service
rm -f $SC
ZC_DIST_INSTALL=${ZC_INSTALL:-repo}
[ "$ZC_DIST_INSTALL" != none ] || ZC_DIST_INSTALL=repo
dist_finish
