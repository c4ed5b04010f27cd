#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 35-zcache-service: zcache-swap and its systemd unit (zcache-utils), the
# way an admin uses them (README: copy swap.conf, systemctl enable --now).
#  1. without /etc/zcache/swap.conf the unit's condition keeps it from
#     running
#  2. bad settings: `zcache-swap check` and `systemctl start` refuse each
#     with a message naming it, and turn nothing on
#  3. an ext4 file system as BACKING: `zcache-swap check`, systemctl
#     start and `zcachectl add --backing` refuse it, naming the ext4
#     signature; the device's checksum and its file are unchanged
#  4. the same for an LVM physical volume (LVM2_member)
#  5. a device named in /etc/fstab (by UUID=) or /etc/crypttab is refused,
#     saying which line names it
#  6. `zcache-swap start --force`, once, erases the ext4 signature and
#     turns swap on over it; the unit's own start (no force) then works
#  7. a good configuration: systemctl start puts /dev/zcache0 over the
#     backing device in /proc/swaps at the configured priority
#  8. a verified workload swaps through it (memstress in a memory cgroup)
#  9. with zswap on, starting logs the double-compression warning
# 10. systemctl stop: swap off, device reset, module still loaded
# 11. systemctl enable/disable: the unit is wanted by swap.target
# 12. the unit runs sandboxed: systemd-analyze security rates it 4.0 or
#     less (tests 6-10 ran under that sandbox)
# 13. no oops/warning/lockup taint
# KTAP on stdout; commands and their output on stderr.
set -u
. "$ZC_TESTS/guest/ktap-lib.sh"
CONF=/etc/zcache/swap.conf
UNIT=zcache-swap.service
DEV=/dev/zcache0
S=/sys/block/zcache0/zcache
Z=/sys/module/zswap/parameters/enabled
W=$(mktemp -d /var/tmp/zc35.XXXXXX)
loopdev='' conf0='' zswap0='' extdev='' pvdev='' blankdev=''
cp /etc/fstab "$W/fstab.saved"
[ ! -e /etc/crypttab ] || cp /etc/crypttab "$W/crypttab.saved"

cleanup() {
	systemctl stop $UNIT 2>/dev/null
	systemctl disable $UNIT 2>/dev/null
	systemctl reset-failed $UNIT 2>/dev/null
	swapoff $DEV 2>/dev/null
	[ ! -e "$S/reset" ] || echo 1 >"$S/reset" 2>/dev/null
	[ -z "$zswap0" ] || echo "$zswap0" >$Z 2>/dev/null
	rm -f $CONF
	[ -z "$conf0" ] || mv "$conf0" $CONF
	[ -z "$loopdev" ] || { swapoff "$loopdev"; losetup -d "$loopdev"; } 2>/dev/null
	umount "$W/mnt" 2>/dev/null
	[ -z "$pvdev" ] || pvremove -q -y "$pvdev" >/dev/null 2>&1
	for d in "$extdev" "$pvdev" "$blankdev"; do
		[ -z "$d" ] || losetup -d "$d" 2>/dev/null
	done
	cp "$W/fstab.saved" /etc/fstab
	if [ -e "$W/crypttab.saved" ]; then cp "$W/crypttab.saved" /etc/crypttab; else rm -f /etc/crypttab; fi
	rm -rf "$W"
}
trap cleanup EXIT

tap_begin_package
if ! command -v zcache-swap >/dev/null || ! systemctl cat $UNIT >/dev/null 2>&1; then
	echo "1..0 # SKIP zcache-utils is not installed (zcache-swap, $UNIT)"
	exit 4
fi
echo "1..13"
taint_mark
if [ -e $CONF ]; then conf0=$W/swap.conf.saved; mv $CONF "$conf0"; fi
mkdir -p /etc/zcache

in_swaps() { grep -q "^$DEV " /proc/swaps; }
# unit_log SINCE: the unit's journal lines since SINCE (seconds since the
# epoch), waiting up to 10 s for journald to have them.
unit_log() {
	local try
	for try in 1 2 3 4 5 6 7 8 9 10; do
		journalctl -u $UNIT -o cat --no-pager --since "@$1" 2>/dev/null | grep -q . && break
		echo "# journal: no lines yet ($try)" >&2
		sleep 1
	done
	journalctl -u $UNIT -o cat --no-pager --since "@$1" 2>/dev/null
}

# 1. no configuration
systemctl start $UNIT
cond=$(systemctl show -p ConditionResult --value $UNIT)
if [ "$cond" = no ] && ! in_swaps; then
	ok "no $CONF: the unit's condition keeps it from running"
else
	nok "no $CONF: the unit's condition keeps it from running # ConditionResult=$cond"
fi

# A backing device: a 256 MiB loop device.
truncate -s 256M "$W/backing.img"
loopdev=$(losetup -f --show "$W/backing.img")

# 2. bad settings: CONFIG|WHAT THE MESSAGE NAMES
bad=0 bad_total=0 why=''
while IFS='|' read -r conf want; do
	bad_total=$((bad_total + 1))
	printf '%b\n' "$conf" >$CONF
	out=$(zcache-swap check 2>&1) && rc=0 || rc=$?
	echo "+ swap.conf: $conf -> check: rc=$rc $out" >&2
	if [ "$rc" = 0 ] || ! printf '%s' "$out" | grep -q -- "$want" || in_swaps; then
		bad=$((bad + 1)) why="$why [$conf: rc=$rc '$out']"
	fi
done <<EOF
SIZE=lots|SIZE=lots is not a size
PRIORITY=100|SIZE is required
BACKING=/dev/nonexistent|BACKING=/dev/nonexistent is not a block device
SIZE=64M\nPRIORITY=-1|PRIORITY=-1 is not a number
SIZE=64M\nPRIORITY=40000|PRIORITY=40000 is above 32767
SIZE=64M\nMAX_POOL_PERCENT=0|MAX_POOL_PERCENT=0 is not from 1 to 90
SIZE=64M\nMAX_POOL_PERCENT=91|MAX_POOL_PERCENT=91 is not from 1 to 90
SIZE=64M\nMAX_POOL_PERCENT=0090|MAX_POOL_PERCENT=0090 is not from 1 to 90
SIZE=64M\nCOMPRESSOR=../lz4|COMPRESSOR=../lz4 is not a compressor name
SIZE=64M\nWRITEBACK=2|WRITEBACK=2 must be 0 or 1
SIZE=64M\nKEEP_LOADED=yes|KEEP_LOADED=yes must be 0 or 1
SIZE=64M\nDISCARD=yes|DISCARD=yes must be 0 or 1
SIZE=64M\nSWAPPINESS=60|unknown setting 'SWAPPINESS'
SIZE=64M\nthis is not a setting|:2: expected KEY=VALUE
EOF
# What only start can find: the kernel's answer, a backing device that is
# swap already.  Through systemctl: the unit fails, the journal says why.
mkswap "$loopdev" >/dev/null && swapon "$loopdev"
while IFS='|' read -r conf want; do
	bad_total=$((bad_total + 1))
	printf '%b\n' "$conf" >$CONF
	t0=$(date +%s)
	systemctl start $UNIT && rc=0 || rc=$?
	state=$(systemctl show -p ActiveState --value $UNIT)
	log=$(unit_log "$t0")
	echo "+ swap.conf: $conf -> systemctl start: rc=$rc $state; journal: $log" >&2
	if [ "$rc" = 0 ] || [ "$state" != failed ] || ! printf '%s' "$log" | grep -q -- "$want" || in_swaps; then
		bad=$((bad + 1)) why="$why [$conf: rc=$rc $state '$log']"
	fi
	systemctl reset-failed $UNIT
done <<EOF
BACKING=$loopdev|is in use as swap itself
SIZE=64M\nCOMPRESSOR=nosuchzip|zcache refused compressor=nosuchzip
EOF
swapoff "$loopdev"
if [ "$bad" = 0 ]; then
	ok "bad settings: $bad_total refused with a message naming them, nothing turned on"
else
	nok "bad settings: $bad of $bad_total not refused as they should be #$why"
fi

# 3-6: devices that hold something.  refused_everywhere DEV WANT...: the
# three ways in refuse DEV, each message naming every WANT; nothing turned
# on, no zcache device left behind.  Sets why on failure.
refused_everywhere() {
	local dev=$1 out rc state log w t0 ndev
	shift
	why=''
	printf 'BACKING=%s\nSIZE=32M\n' "$dev" >$CONF
	out=$(zcache-swap check 2>&1) && rc=0 || rc=$?
	echo "+ zcache-swap check (BACKING=$dev): rc=$rc $out" >&2
	[ "$rc" != 0 ] || why="$why [check: rc=0]"
	for w in "$@"; do
		printf '%s' "$out" | grep -q -- "$w" || why="$why [check: no '$w']"
	done
	t0=$(date +%s)
	systemctl start $UNIT && rc=0 || rc=$?
	state=$(systemctl show -p ActiveState --value $UNIT)
	log=$(unit_log "$t0")
	echo "+ systemctl start (BACKING=$dev): rc=$rc $state; journal: $log" >&2
	[ "$rc" != 0 ] && [ "$state" = failed ] || why="$why [systemctl start: rc=$rc $state]"
	for w in "$@"; do
		printf '%s' "$log" | grep -q -- "$w" || why="$why [journal: no '$w']"
	done
	systemctl reset-failed $UNIT
	ndev=$(ls -d /sys/block/zcache* 2>/dev/null | wc -l)
	out=$(zcachectl add 32M --backing "$dev" 2>&1) && rc=0 || rc=$?
	echo "+ zcachectl add 32M --backing $dev: rc=$rc $out" >&2
	[ "$rc" != 0 ] || why="$why [zcachectl add: rc=0]"
	printf '%s' "$out" | grep -q "refusing $dev" || why="$why [zcachectl add: no 'refusing $dev']"
	[ "$(ls -d /sys/block/zcache* 2>/dev/null | wc -l)" = "$ndev" ] || why="$why [zcachectl add left a device]"
	! in_swaps || why="$why [$DEV is swap]"
	[ -z "$why" ]
}
# A file of random data, its checksum, and the device's.
rand_file() { head -c "$2" /dev/urandom >"$1"; }
dev_sum() { sha256sum <"$1" | cut -d' ' -f1; }

# 3. ext4 with a file on it
truncate -s 64M "$W/ext.img"
extdev=$(losetup -f --show "$W/ext.img")
mkdir -p "$W/mnt"
run mkfs.ext4 -q -L zc35ext "$extdev"
mount "$extdev" "$W/mnt" && rand_file "$W/mnt/data" 4M && sum_file=$(sha256sum <"$W/mnt/data") && umount "$W/mnt"
sum0=$(dev_sum "$extdev")
refused_everywhere "$extdev" "refusing $extdev" "ext4 signature"
ext_why=$why
sum1=$(dev_sum "$extdev")
mount -o ro "$extdev" "$W/mnt" && sum_file1=$(sha256sum <"$W/mnt/data"); umount "$W/mnt"
if [ -z "$ext_why" ] && [ "$sum0" = "$sum1" ] && [ -n "${sum_file:-}" ] && [ "$sum_file" = "${sum_file1:-}" ]; then
	ok "an ext4 file system as BACKING is refused (check, systemctl start, zcachectl add: 'ext4 signature'); device and file checksums unchanged"
else
	nok "an ext4 file system as BACKING is refused, its data intact #$ext_why device ${sum0:0:12} -> ${sum1:0:12}, file ${sum_file:0:12} -> ${sum_file1:-none}"
fi

# 4. an LVM physical volume (lvm2 is in the image when the package
# directory brought it: vm/README.md)
if command -v pvcreate >/dev/null; then
	truncate -s 64M "$W/pv.img"
	pvdev=$(losetup -f --show "$W/pv.img")
	run pvcreate -q -y "$pvdev"
	dd if=/dev/urandom of="$pvdev" bs=1M seek=8 count=4 conv=notrunc status=none
	sum0=$(dev_sum "$pvdev")
	refused_everywhere "$pvdev" "refusing $pvdev" "LVM2_member signature"
	pv_why=$why
	sum1=$(dev_sum "$pvdev")
	if [ -z "$pv_why" ] && [ "$sum0" = "$sum1" ] && pvs "$pvdev" >/dev/null 2>&1; then
		ok "an LVM PV as BACKING is refused (check, systemctl start, zcachectl add: 'LVM2_member signature'); device checksum unchanged, pvs still sees it"
	else
		nok "an LVM PV as BACKING is refused, its data intact #$pv_why device ${sum0:0:12} -> ${sum1:0:12}"
	fi
else
	skip "an LVM PV as BACKING is refused" "no pvcreate (lvm2 not in this image)"
fi

# 5. fstab (by UUID=) and crypttab name devices
uuid=$(blkid -s UUID -o value "$extdev")
printf 'UUID=%s /srv/zc35 ext4 noauto 0 0\n' "$uuid" >>/etc/fstab
truncate -s 64M "$W/blank.img"
blankdev=$(losetup -f --show "$W/blank.img")
printf 'zc35crypt %s none luks,noauto\n' "$blankdev" >>/etc/crypttab
refused_everywhere "$extdev" "/etc/fstab names it: 'UUID=$uuid" && fs_why='' || fs_why=$why
refused_everywhere "$blankdev" "/etc/crypttab names it: 'zc35crypt $blankdev" && ct_why='' || ct_why=$why
cp "$W/fstab.saved" /etc/fstab
if [ -e "$W/crypttab.saved" ]; then cp "$W/crypttab.saved" /etc/crypttab; else rm -f /etc/crypttab; fi
if [ -z "$fs_why$ct_why" ]; then
	ok "devices named in /etc/fstab (UUID=) and /etc/crypttab are refused, naming the line"
else
	nok "devices named in /etc/fstab (UUID=) and /etc/crypttab are refused # fstab:$fs_why crypttab:$ct_why"
fi

# 6. force, once
printf 'BACKING=%s\nSIZE=32M\n' "$extdev" >$CONF
out=$(zcache-swap start --force 2>&1) && rc=0 || rc=$?
echo "+ zcache-swap start --force: rc=$rc $out" >&2
on1=no; in_swaps && on1=yes
sigs=$(wipefs --noheadings --output TYPE "$extdev" 2>&1 | tr '\n' ' ')
run zcache-swap stop
run systemctl start $UNIT
state=$(systemctl show -p ActiveState --value $UNIT)
on2=no; in_swaps && on2=yes
run systemctl stop $UNIT
if [ "$rc" = 0 ] && [ "$on1" = yes ] && printf '%s' "$out" | grep -q 'erasing the signatures.*ext4' &&
	! printf '%s' "$sigs" | grep -q ext4 && [ "$state" = active ] && [ "$on2" = yes ]; then
	ok "zcache-swap start --force erases the ext4 signature and turns swap on; the unit then starts without force"
else
	nok "zcache-swap start --force, then the unit # rc=$rc swap=$on1, signatures left '$sigs', unit $state swap=$on2"
fi

# 7. a good configuration
cat >$CONF <<EOF
# written by 35-zcache-service
BACKING=$loopdev
PRIORITY=123
WRITEBACK=1
KEEP_LOADED=1
DISCARD=1
EOF
t0=$(date +%s)
run systemctl start $UNIT
prio=$(awk -v d=$DEV '$1 == d { print $5 }' /proc/swaps)
backing=$(cat "$S/backing_dev" 2>/dev/null)
keep=$(cat "$S/keep_loaded" 2>/dev/null)
unit_log "$t0" >&2
if [ "$prio" = 123 ] && [ "$backing" = "$loopdev" ] && [ "$keep" = 1 ] &&
	[ "$(systemctl show -p ActiveState --value $UNIT)" = active ]; then
	ok "systemctl start: $DEV is swap at priority 123 over $loopdev, keep_loaded 1"
else
	nok "systemctl start: $DEV is swap at priority 123 over $loopdev, keep_loaded 1 # priority '${prio:-none}', backing '$backing', keep_loaded '$keep'"
fi
run zcache-swap status

# 8. a verified workload through it
zc_pressure $((MEM_MB * 3 / 10)) $((MEM_MB * 15 / 100))
w0=$(cat "$S/writes" 2>/dev/null || echo 0)
echo "+ ${ZC_PRESSURE[*]} $ZC_BIN/memstress --size-mb $ZC_PRESSURE_MB --passes 1" >&2
"${ZC_PRESSURE[@]}" "$ZC_BIN/memstress" --size-mb "$ZC_PRESSURE_MB" --passes 1 >"$W/ms.out" 2>&1
rc=$?
cat "$W/ms.out" >&2
writes=$(( $(cat "$S/writes" 2>/dev/null || echo 0) - w0 ))
echo "# zcache0 after the workload: writes +$writes, summary $(cat "$S/summary" 2>/dev/null)" >&2
if [ "$rc" = 0 ] && [ "$writes" -gt 0 ]; then
	ok "memstress --size-mb $ZC_PRESSURE_MB through the service's swap: $writes pages written to $DEV, every page verified ($(grep -o 'mib_verified=[0-9.]*' "$W/ms.out" | cut -d= -f2) MiB)"
else
	nok "memstress --size-mb $ZC_PRESSURE_MB through the service's swap: every page verified # rc=$rc, $writes pages written to $DEV: $(tail -n 2 "$W/ms.out" | tr '\n' ' ')"
fi

# 9. zswap on too
if [ -w $Z ]; then
	zswap0=$(cat $Z)
	echo Y >$Z
	t0=$(date +%s)
	run systemctl restart $UNIT
	log=$(unit_log "$t0")
	echo "$log" >&2
	if printf '%s' "$log" | grep -q 'zswap is enabled too' && in_swaps; then
		ok "zswap on: starting logs the double-compression warning"
	else
		nok "zswap on: starting logs the double-compression warning # journal: $log"
	fi
	echo "$zswap0" >$Z
	zswap0=''
else
	skip "zswap on: starting logs the double-compression warning" "no writable $Z"
fi

# 10. stop
run systemctl stop $UNIT
if ! in_swaps && [ "$(cat "$S/disksize" 2>/dev/null)" = 0 ] && [ -d /sys/module/zcache ]; then
	ok "systemctl stop: swap off, $DEV reset, the module stays loaded"
else
	nok "systemctl stop: swap off, $DEV reset # $(grep zcache /proc/swaps) disksize $(cat "$S/disksize" 2>/dev/null)"
fi

# 11. enable/disable
check "systemctl enable/disable: wanted by swap.target" sh -c \
	"systemctl enable $UNIT && test -L /etc/systemd/system/swap.target.wants/$UNIT && systemctl disable $UNIT && ! test -e /etc/systemd/system/swap.target.wants/$UNIT"

# 12. the sandbox (exposure 9.5 without it, 3.9 with it: systemd 252, --offline;
#     no private mount namespace: see the unit)
expo=$(systemd-analyze security --no-pager $UNIT 2>/dev/null | sed -n 's/.*exposure level for [^:]*: \([0-9.]*\).*/\1/p')
echo "# systemd-analyze security $UNIT: ${expo:-none}; $(systemctl show -p ProtectSystem -p CapabilityBoundingSet $UNIT | tr '\n' ' ')" >&2
if [ -n "$expo" ] && awk -v e="$expo" 'BEGIN { exit !(e <= 4.0) }'; then
	ok "the unit runs sandboxed: systemd-analyze security exposure $expo (at most 4.0)"
else
	nok "the unit runs sandboxed: systemd-analyze security exposure at most 4.0 # ${expo:-no figure}"
fi

# 13. taint
check_taint
exit $failed
