#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 32-zcache-frontswap: zcache as the frontswap backend (only where the kernel
# exports frontswap: Debian 5.10; elsewhere the whole suite is a KTAP skip).
#  1. frontswap=1 registers the backend (the module pins itself)
#  2. swap on a disk (a swap file on the root fs, or the scratch disk)
#  3. a verified memory workload ($ZC_BIN/memstress, swapping in a memory
#     cgroup: ktap-lib.sh zc_pressure) passes
#  4. the stats show pages stored, loaded back, a compression ratio > 1
#  5. the pool stays within max_pool_percent (sampled during the run)
#  6. swapoff drops every page of the area (stored_pages back to 0)
#  7. no oops/warning/lockup taint
#  8. (first, where the kernel has fault injection: the debug test kernels)
#     loads of zcache in which the Nth allocation fails: first without
#     frontswap, to find the points that fail a load, then with
#     frontswap=1 at those points, earliest first: each failed load leaves
#     nothing behind, in particular no frontswap hook into the freed
#     module (a swapon after each failed load calls every hook's ->init;
#     the kernel-log check catches the oops)
# KTAP on stdout; commands and their output on stderr.
set -u
. "$ZC_TESTS/guest/ktap-lib.sh"
OUT=${ZC_OUT:-/tmp}
G=/sys/kernel/zcache
P=/sys/module/zcache/parameters
Z=/sys/module/zswap/parameters/enabled
W=$(mktemp -d /var/tmp/zc32.XXXXXX)
swapdev= loopdev= sampler= zswap0= fi0=

cleanup() {
	[ -z "$sampler" ] || kill "$sampler" 2>/dev/null
	[ -z "$swapdev" ] || swapoff "$swapdev" 2>/dev/null
	[ -z "$loopdev" ] || losetup -d "$loopdev" 2>/dev/null
	[ -z "$zswap0" ] || echo "$zswap0" >$Z 2>/dev/null
	[ -z "$fi0" ] || fi_restore
	rm -rf "$W"
	true
}
trap cleanup EXIT

tap_begin_package
modprobe zcache >&2
if [ ! -e $P/frontswap ]; then
	if [ "${ZC_SUITE:-}" = bullseye ]; then
		echo "1..1"
		nok "frontswap parameter present on 5.10 # $P/frontswap missing"
		exit 1
	fi
	echo "1..0 # SKIP frontswap is not available to modules on $(uname -r)"
	exit 4
fi
echo "1..8"
taint_mark
PAGE=$(getconf PAGESIZE)

# 8 (run first: it needs zcache unloaded, and a load with frontswap=1 pins
# it).  /proc/thread-self/fail-nth fails the Nth fault-injection point of
# one thread; failslab and fail_page_alloc must not skip GFP_KERNEL or
# order-0 allocations for the points to be module loading's.  A clean load
# without frontswap counts the points; then the two phases below.
FI=/sys/kernel/debug
mountpoint -q $FI || mount -t debugfs none $FI 2>/dev/null
# Every load here is num_devices=0: no /dev/zcache0 is added, so (a) the
# points are zcache's own and the module loader's, not those inside
# add_disk(), where 5.10 (add_disk void before 5.15) cannot fail cleanly
# and WARNs in its own __device_add_disk (block/genhd.c, after
# bdi_register) - seen on 2026-12-05 - and (b) udev does not open a new
# disk and hold the module while the test unloads it.  The set-up after
# the front ends (bioset, workqueue, class, major) still runs and fails.
fi_load() { # N PARAMS: one load; prints failnth_load's line
	"$ZC_BIN/failnth_load" "$W/zcache.ko" "num_devices=0${2:+ $2}" "$1"
}
# udev opens a new zcache0 to probe it (blkid), which holds a module
# reference for a moment: an rmmod right after a load can find the module
# in use.  Let udev finish, and try a few times; prints rmmod's last error.
rmmod_settled() {
	local i msg
	for i in 1 2 3 4 5; do
		udevadm settle --timeout=30 2>/dev/null
		msg=$(rmmod zcache 2>&1) && return 0
		sleep "$i"
	done
	echo "$msg"
	return 1
}
if [ -e /proc/thread-self/fail-nth ] && [ -d $FI/failslab ] && [ -d $FI/fail_page_alloc ] &&
   [ -x "$ZC_BIN/failnth_load" ] && modprobe -r zcache 2>/dev/null && [ ! -d /sys/module/zcache ]; then
	ko=$(modinfo -n zcache)
	case $ko in
	*.xz) xz -dc "$ko" >"$W/zcache.ko" ;;
	*.zst) zstd -dcq "$ko" >"$W/zcache.ko" ;;
	*) cp "$ko" "$W/zcache.ko" ;;
	esac
	modprobe zcsmalloc
	# verbose 0: no "FAULT_INJECTION: forcing a failure" stack dump per
	# injection.  The kernel's own allocation-failure reports (the module
	# loader's vmalloc, percpu) still dump the stack: the window tells the
	# splat checks so (fault-window.awk); any other report still fails.
	# panic_on_warn off inside the window, so that a WARNING there (none
	# is expected now that no disk is added) fails the run with its report
	# instead of rebooting the guest (docs/results/debug-5.10-2026-12-05.md).
	fi0="$(cat $FI/failslab/ignore-gfp-wait) $(cat $FI/fail_page_alloc/ignore-gfp-wait) $(cat $FI/fail_page_alloc/min-order) $(cat $FI/failslab/verbose) $(cat $FI/fail_page_alloc/verbose) $(cat /proc/sys/kernel/panic_on_warn 2>/dev/null || echo 0)"
	fi_restore() {
		read -r a b c v1 v2 pw <<<"$fi0"
		echo "$pw" >/proc/sys/kernel/panic_on_warn 2>/dev/null
		echo "$a" >$FI/failslab/ignore-gfp-wait
		echo "$b" >$FI/fail_page_alloc/ignore-gfp-wait
		echo "$c" >$FI/fail_page_alloc/min-order
		echo "$v1" >$FI/failslab/verbose
		echo "$v2" >$FI/fail_page_alloc/verbose
		fi0=
		fi_window_end
	}
	echo N >$FI/failslab/ignore-gfp-wait
	echo N >$FI/fail_page_alloc/ignore-gfp-wait
	echo 0 >$FI/fail_page_alloc/min-order
	echo 0 >$FI/failslab/verbose
	echo 0 >$FI/fail_page_alloc/verbose
	echo 0 >/proc/sys/kernel/panic_on_warn 2>/dev/null
	fi_window_begin "32-zcache-frontswap: module loads with fail-nth"
	big=1000000
	left=$(fi_load $big "" | sed -n 's/.* left=//p')
	points=$((big - ${left:-$big}))
	step=$((points / 150 + 1)) failing='' residue='' p1=0
	msg=$(rmmod_settled) || residue="the counting load cannot be unloaded: $msg"
	# Phase 1, frontswap=0 (nothing pins the module, so a load that
	# succeeds is unloaded again): loads failing at points spread over the
	# count, to learn which points fail a load.  Many injected failures are
	# tolerated (the load succeeds), so a sweep that stops at the first
	# successful load never reaches zcache's own init (it stopped at point
	# 10 of 1265 on 2026-12-05).
	echo "+ $points fault points in a load; phase 1: every ${step}th with frontswap=0" >&2
	for ((nth = 1; nth <= points; nth += step)); do
		[ -z "$residue" ] || break
		line=$(fi_load $nth ""); rc=$?
		p1=$((p1 + 1))
		[ $rc -eq 2 ] && { residue="failnth_load: setup error"; break; }
		if [ $rc -eq 0 ]; then
			if ! msg=$(rmmod_settled); then
				residue="point $nth: loaded ($line) and cannot be unloaded: $msg (refcnt $(cat /sys/module/zcache/refcnt 2>/dev/null), holders: $(ls /sys/module/zcache/holders 2>/dev/null | tr '\n' ' '))"
				dmesg | tail -n 20 >&2
				break
			fi
			continue
		fi
		failing="$failing $nth"
		[ ! -d /sys/module/zcache ] || { residue="point $nth: /sys/module/zcache left after a failed load"; break; }
	done
	# Phase 2, frontswap=1, at the failing points, earliest first: a load
	# that registers its hook early and fails after it (in the block
	# device's set-up, say) leaves the hook pointing into freed module
	# text.  swapon calls every registered hook's ->init, so a swapon and
	# swapoff after each failed load catch it at once (an oops inside the
	# window still fails the run, fault-window.awk).  A load that succeeds
	# pins the module and ends the phase, so the points go earliest first:
	# the allocations of a load are not numbered alike from boot to boot
	# or with frontswap=1 (750 points in one boot, 770 in another), least
	# of all near the end of the init, and on 2026-12-06 the latest point
	# of phase 1 loaded at once with frontswap=1, leaving the phase with
	# no failed load to check; the early points fail the same way.
	poke=$W/poke.swap
	fallocate -l 16M "$poke" && chmod 600 "$poke" && mkswap "$poke" >/dev/null 2>&1 || poke=
	failed_loads=0 errs='' end='' pokes=0 tried=0
	for nth in $failing; do
		[ -z "$residue" ] && [ $tried -lt 60 ] || break
		tried=$((tried + 1))
		line=$(fi_load $nth "frontswap=1"); rc=$?
		[ $rc -eq 2 ] && { residue="failnth_load: setup error"; break; }
		if [ $rc -eq 0 ]; then end="point $nth: loaded ($line)"; break; fi
		failed_loads=$((failed_loads + 1))
		errs="$errs $(echo "$line" | sed -n 's/.*errno=\([0-9]*\).*/\1/p')"
		[ ! -d /sys/module/zcache ] || { residue="point $nth: /sys/module/zcache left after a failed load"; break; }
		if [ -n "$poke" ]; then
			swapon "$poke" && swapoff "$poke" || { residue="point $nth: swapon/swapoff failed after a failed load"; break; }
			pokes=$((pokes + 1))
		fi
	done
	if [ -z "$end" ] && [ -z "$residue" ]; then
		line=$(fi_load 0 "frontswap=1") && end="a load without injection: loaded ($line)" ||
			residue="a load without injection failed: $line"
	fi
	fi_restore
	errs=$(echo $errs | tr ' ' '\n' | sort -n | uniq -c | awk '{printf "%s%sx errno %s", s, $1, $2; s=", "}')
	nfail=$(echo $failing | wc -w)
	echo "# fault-injected loads: phase 1 $p1 loads, $nfail failed; phase 2 $failed_loads failed ($errs), $pokes swapon/swapoff after them; ${end:-no load succeeded}" >&2
	if [ "$points" -gt 0 ] && [ $failed_loads -gt 0 ] && [ -n "$poke" ] && [ -z "$residue" ] && [ -n "$end" ]; then
		ok "fault-injected loads: $nfail of $p1 points failed a load without frontswap; with frontswap=1 $failed_loads failed at those points, earliest first, each leaving nothing loaded and no hook that swapon calls ($errs); then $end"
	else
		nok "fault-injected loads with frontswap=1 # points=$points phase1=$p1 failing=$nfail phase2-failed=$failed_loads ${residue:-} ${end:-no successful load}$([ -n "$poke" ] || echo " (no swap file for the swapon check)")"
	fi
	[ -d /sys/module/zcache ] || modprobe zcache >&2
else
	skip "fault-injected loads with frontswap=1" "no fault injection (fail-nth, failslab, fail_page_alloc: the debug test kernels have them)"
fi

# zswap is a frontswap backend too: keep it out of the measurement.
if [ -w $Z ]; then
	zswap0=$(cat $Z)
	echo N >$Z
fi
echo Y >$P/enabled

# 1. register
echo "+ echo 1 >$P/frontswap" >&2
if echo 1 >$P/frontswap && [ "$(cat $G/frontswap_active)" = 1 ]; then
	ok "frontswap=1: backend registered"
else
	nok "frontswap=1: backend registered"
fi
dmesg | grep -E 'zcache: frontswap' >&2

# 2. swap on a disk
if [ -n "${ZC_SCRATCH_DEV:-}" ] && [ -b "${ZC_SCRATCH_DEV:-}" ]; then
	swapdev=$(readlink -f "$ZC_SCRATCH_DEV")
else
	# A swap file, not a loop device: loop writes through the page cache
	# of its backing file and can stall under the very pressure tested.
	swapdev=$W/swapfile
	fallocate -l 1536M "$swapdev" && chmod 600 "$swapdev"
fi
for s in $(awk 'NR > 1 { print $1 }' /proc/swaps); do swapoff "$s"; done
echo "+ mkswap $swapdev; swapon $swapdev" >&2
if mkswap "$swapdev" >&2 && swapon "$swapdev" && grep -q "^$swapdev " /proc/swaps; then
	ok "swap on $swapdev"
else
	nok "swap on $swapdev"
	swapdev=
fi

# 3. verified workload, stats sampled meanwhile
if [ -z "${ZC_QUICK:-}" ]; then
	zc_pressure $((MEM_MB * 8 / 10)) $((MEM_MB * 3 / 10)); passes=2
else
	zc_pressure $((MEM_MB * 6 / 10)) $((MEM_MB * 25 / 100)); passes=1
fi
size_mb=$ZC_PRESSURE_MB
s0=$(cat $G/stores) l0=$(cat $G/loads)
: >"$W/samples"
(while :; do
	echo "$(cat $G/stored_pages) $(cat $G/pool_pages) $(cat $G/pool_limit_pages) $(cat $G/compression_ratio)"
	sleep 0.5
done >>"$W/samples" 2>/dev/null) &
sampler=$!
echo "+ ${ZC_PRESSURE[*]} $ZC_BIN/memstress --size-mb $size_mb --passes $passes" >&2
if [ -z "$swapdev" ]; then
	nok "memstress: no swap"
elif "${ZC_PRESSURE[@]}" "$ZC_BIN/memstress" --size-mb "$size_mb" --passes "$passes" >"$W/memstress.out" 2>&1; then
	ok "memstress --size-mb $size_mb --passes $passes: every page verified"
else
	nok "memstress --size-mb $size_mb --passes $passes # $(tail -n 3 "$W/memstress.out" | tr '\n' ' ')"
fi
cat "$W/memstress.out" >&2
kill "$sampler" 2>/dev/null
wait "$sampler" 2>/dev/null
sampler=

# 4. stats
stores=$(( $(cat $G/stores) - s0 )) loads=$(( $(cat $G/loads) - l0 ))
max_stored=$(awk '$1 > m { m = $1 } END { print m + 0 }' "$W/samples")
best_ratio=$(awk '$4 + 0 > m { m = $4 + 0 } END { print m + 0 }' "$W/samples")
for f in $G/*; do echo "$f: $(cat "$f")"; done >&2
{
	echo "suite ${ZC_SUITE:-?} kernel $(uname -r) size_mb=$size_mb passes=$passes"
	echo "stores=$stores loads=$loads max_stored_pages=$max_stored best_ratio=$best_ratio"
	grep . $G/* 2>/dev/null
} >"$OUT/frontswap-stats.txt"
if [ "$stores" -gt 0 ] && [ "$loads" -gt 0 ] && [ "$max_stored" -gt 0 ] &&
	awk -v r="$best_ratio" 'BEGIN { exit !(r > 1.0) }'; then
	ok "stats: $stores stores, $loads loads, up to $max_stored pages held, ratio up to $best_ratio"
else
	nok "stats: $stores stores, $loads loads, up to $max_stored pages held, ratio up to $best_ratio"
fi

# 5. pool limit (a few pages of slack: stores in flight)
check_pool_limit "$W/samples" "$(cat $G/pool_limit_pages)"

# 6. swapoff drops the area's pages
echo "+ swapoff $swapdev" >&2
if [ -n "$swapdev" ] && swapoff "$swapdev"; then
	swapdev=
	left=$(cat $G/stored_pages)
	if [ "$left" = 0 ]; then
		ok "swapoff: every page dropped"
	else
		nok "swapoff: $left pages left"
	fi
else
	nok "swapoff"
fi

# 7. taint
check_taint
exit $failed
