#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 35-zcache-service: zcache-swap and its systemd unit (zcache-utils), the
# way an admin uses them (README: copy swap.conf, systemctl enable --now).
#  1. without /etc/zcache/swap.conf the unit's condition keeps it from
#     running
#  2. bad settings: `zcache-swap check` and `systemctl start` refuse each
#     with a message naming it, and turn nothing on
#  3. a good configuration: systemctl start puts /dev/zcache0 over the
#     backing device in /proc/swaps at the configured priority
#  4. a verified workload swaps through it (memstress in a memory cgroup)
#  5. with zswap on, starting logs the double-compression warning
#  6. systemctl stop: swap off, device reset, module still loaded
#  7. systemctl enable/disable: the unit is wanted by swap.target
#  8. no oops/warning/lockup taint
# KTAP on stdout; commands and their output on stderr.
set -u
. "$ZC_TESTS/guest/lib.sh"
CONF=/etc/zcache/swap.conf
UNIT=zcache-swap.service
DEV=/dev/zcache0
S=/sys/block/zcache0/zcache
Z=/sys/module/zswap/parameters/enabled
W=$(mktemp -d /var/tmp/zc35.XXXXXX)
loopdev='' conf0='' zswap0=''

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
	rm -rf "$W"
}
trap cleanup EXIT

tap_begin_package
if ! command -v zcache-swap >/dev/null || ! systemctl cat $UNIT >/dev/null 2>&1; then
	echo "1..0 # SKIP zcache-utils is not installed (zcache-swap, $UNIT)"
	exit 4
fi
echo "1..8"
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
SIZE=64M\nMAX_POOL_PERCENT=0|MAX_POOL_PERCENT=0 is not from 1 to 100
SIZE=64M\nMAX_POOL_PERCENT=101|MAX_POOL_PERCENT=101 is not from 1 to 100
SIZE=64M\nCOMPRESSOR=../lz4|COMPRESSOR=../lz4 is not a compressor name
SIZE=64M\nWRITEBACK=2|WRITEBACK=2 must be 0 or 1
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

# 3. a good configuration
cat >$CONF <<EOF
# written by 35-zcache-service
BACKING=$loopdev
PRIORITY=123
WRITEBACK=1
DISCARD=1
EOF
t0=$(date +%s)
run systemctl start $UNIT
prio=$(awk -v d=$DEV '$1 == d { print $5 }' /proc/swaps)
backing=$(cat "$S/backing_dev" 2>/dev/null)
unit_log "$t0" >&2
if [ "$prio" = 123 ] && [ "$backing" = "$loopdev" ] &&
	[ "$(systemctl show -p ActiveState --value $UNIT)" = active ]; then
	ok "systemctl start: $DEV is swap at priority 123 over $loopdev"
else
	nok "systemctl start: $DEV is swap at priority 123 over $loopdev # priority '${prio:-none}', backing '$backing'"
fi
run zcache-swap status

# 4. a verified workload through it
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

# 5. zswap on too
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

# 6. stop
run systemctl stop $UNIT
if ! in_swaps && [ "$(cat "$S/disksize" 2>/dev/null)" = 0 ] && [ -d /sys/module/zcache ]; then
	ok "systemctl stop: swap off, $DEV reset, the module stays loaded"
else
	nok "systemctl stop: swap off, $DEV reset # $(grep zcache /proc/swaps) disksize $(cat "$S/disksize" 2>/dev/null)"
fi

# 7. enable/disable
check "systemctl enable/disable: wanted by swap.target" sh -c \
	"systemctl enable $UNIT && test -L /etc/systemd/system/swap.target.wants/$UNIT && systemctl disable $UNIT && ! test -e /etc/systemd/system/swap.target.wants/$UNIT"

# 8. taint
check_taint
exit $failed
