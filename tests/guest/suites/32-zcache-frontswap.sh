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
#     loads of zcache with frontswap=1 in which every slab allocation
#     fails once a budget of bytes is spent, budgets in order until one
#     loads: each failed load leaves nothing behind, in particular no
#     frontswap hook into the freed module (a swapon after each failed
#     load calls every hook's ->init; the kernel-log check catches the
#     oops)
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
# it).  Loads of zcache with frontswap=1 in which every slab allocation
# fails from a point on: failslab's task filter marks only the loading
# thread (failnth_load budget: /proc/thread-self/make-it-fail), and its
# space budget lets that many bytes of allocations through first.  A
# load that registers its hook and fails after it (in the block device's
# set-up, say) leaves the hook pointing into freed module text; swapon
# calls every registered hook's ->init, so a swapon and swapoff after
# each failed load catch it at once (an oops inside the window still
# fails the run, fault-window.awk).
#
# Why a budget and not the Nth allocation (/proc/thread-self/fail-nth,
# this test until 2026-12-07): many failures of a load are tolerated
# (debugfs, uevents), and one tolerated failure with frontswap=1 loads
# the module, which pins it and ends the test.  The Nth points that fail
# a load without frontswap are not numbered alike with frontswap=1, so
# tried latest first the first one loaded (s18: point 703 of 770,
# nothing checked), and tried earliest first a tolerated one came before
# the block device's set-up: on the package from before the hooks were
# registered last, the defect this test exists for, it passed (s19,
# point 121 loaded).  With every allocation failing from the budget on,
# a load succeeds only once the budget is past its last needed
# allocation, so the budgets can go in order, every part of the init
# gets its failure, and the one load that succeeds is the last.
FI=/sys/kernel/debug
FS=$FI/failslab
mountpoint -q $FI || mount -t debugfs none $FI 2>/dev/null
# Every load here is num_devices=0: no /dev/zcache0 is added, so (a) the
# points are zcache's own and the module loader's, not those inside
# add_disk(), where 5.10 (add_disk void before 5.15) cannot fail cleanly
# and WARNs in its own __device_add_disk (block/genhd.c, after
# bdi_register) - seen on 2026-12-05 - and (b) udev does not open a new
# disk and hold the module while the test unloads it.  The set-up after
# the front ends (bioset, workqueue, class, major) still runs and fails.
fi_load() { # budget|0 PARAMS: one load; prints failnth_load's line
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
if [ -e /proc/thread-self/make-it-fail ] && [ -w $FS/space ] && [ -w $FS/task-filter ] &&
   [ -x "$ZC_BIN/failnth_load" ] && modprobe -r zcache 2>/dev/null && [ ! -d /sys/module/zcache ]; then
	ko=$(modinfo -n zcache)
	case $ko in
	*.xz) xz -dc "$ko" >"$W/zcache.ko" ;;
	*.zst) zstd -dcq "$ko" >"$W/zcache.ko" ;;
	*) cp "$ko" "$W/zcache.ko" ;;
	esac
	modprobe zcsmalloc
	# verbose 0: no "FAULT_INJECTION: forcing a failure" stack dump per
	# injection.  The kernel's own allocation-failure reports still dump
	# the stack: the window tells the splat checks so (fault-window.awk);
	# any other report still fails.  panic_on_warn off inside the window,
	# so that a WARNING there fails the run with its report instead of
	# rebooting the guest (docs/results/debug-5.10-2026-12-05.md).
	# probability first: with it 0 nothing else matters (task-filter N
	# and probability 100 would fail every task's allocations)
	fi_keys="probability ignore-gfp-wait verbose task-filter interval times space"
	fi0="$(for k in $fi_keys; do cat $FS/$k; done | paste -sd ' ') $(cat /proc/sys/kernel/panic_on_warn 2>/dev/null || echo 0)"
	fi_restore() {
		local k v
		set -- $fi0
		for k in $fi_keys; do
			v=$1
			shift
			echo "$v" >$FS/$k
		done
		echo "$1" >/proc/sys/kernel/panic_on_warn 2>/dev/null
		fi0=
		fi_window_end
	}
	echo 0 >$FS/probability
	echo N >$FS/ignore-gfp-wait
	echo 0 >$FS/verbose
	echo Y >$FS/task-filter
	echo 1 >$FS/interval
	echo -1 >$FS/times
	echo 0 >/proc/sys/kernel/panic_on_warn 2>/dev/null
	fi_window_begin "32-zcache-frontswap: module loads with a failslab budget"
	# the bytes a load without frontswap asks of slab: a budget never
	# spent, probability 100 (nothing fails while the budget lasts)
	big=2000000000 residue='' bytes=0
	echo $big >$FS/space
	echo 100 >$FS/probability
	line=$(fi_load budget "") || residue="the counting load failed: $line"
	bytes=$((big - $(cat $FS/space)))
	[ -n "$residue" ] || msg=$(rmmod_settled) || residue="the counting load cannot be unloaded: $msg"
	[ "$bytes" -gt 0 ] || residue="${residue:-the counting load spent no budget (task filter?)}"
	# budgets from 0 (the first allocation fails) in ~150 steps, on past
	# the count (frontswap=1 asks a little more), until a load succeeds
	step=$((bytes / 150 + 1))
	poke=$W/poke.swap
	fallocate -l 16M "$poke" && chmod 600 "$poke" && mkswap "$poke" >/dev/null 2>&1 || poke=
	echo "+ slab bytes of a load: $bytes; frontswap=1 loads with budgets 0, $step, ... until one loads" >&2
	failed_loads=0 errs='' end='' pokes=0 last_failed=-1
	for ((budget = 0; budget <= bytes * 2; budget += step)); do
		[ -z "$residue" ] || break
		echo $budget >$FS/space
		line=$(fi_load budget "frontswap=1"); rc=$?
		[ $rc -eq 2 ] && { residue="failnth_load: setup error: $line"; break; }
		if [ $rc -eq 0 ]; then end="budget $budget of $bytes bytes: loaded"; break; fi
		failed_loads=$((failed_loads + 1)) last_failed=$budget
		errs="$errs $(echo "$line" | sed -n 's/.*errno=\([0-9]*\).*/\1/p')"
		[ ! -d /sys/module/zcache ] || { residue="budget $budget: /sys/module/zcache left after a failed load"; break; }
		if [ -n "$poke" ]; then
			swapon "$poke" && swapoff "$poke" || { residue="budget $budget: swapon/swapoff failed after a failed load"; break; }
			pokes=$((pokes + 1))
		fi
	done
	echo 0 >$FS/probability
	if [ -z "$end" ] && [ -z "$residue" ]; then
		line=$(fi_load 0 "frontswap=1") && end="a load without injection: loaded ($line)" ||
			residue="a load without injection failed: $line"
	fi
	fi_restore
	errs=$(echo $errs | tr ' ' '\n' | sort -n | uniq -c | awk '{printf "%s%sx errno %s", s, $1, $2; s=", "}')
	echo "# fault-injected loads: $bytes slab bytes in a load; $failed_loads frontswap=1 loads failed ($errs), the last at budget $last_failed; $pokes swapon/swapoff after them; ${end:-no load succeeded}" >&2
	# the budgets go in order: the load that succeeded (pinned) came one
	# step after the last that failed, so every part of the init failed
	if [ "$bytes" -gt 0 ] && [ $failed_loads -gt 0 ] && [ -n "$poke" ] && [ -z "$residue" ] &&
	   [ -n "$end" ] && [ "${end#budget }" != "$end" ]; then
		ok "fault-injected loads: $failed_loads loads with frontswap=1 failed, every slab allocation failing from budgets 0 to $last_failed of $bytes bytes, each leaving nothing loaded and no hook that swapon calls ($errs); then $end"
	else
		nok "fault-injected loads with frontswap=1 # bytes=$bytes failed=$failed_loads last=$last_failed ${residue:-} ${end:-no successful load}$([ -n "$poke" ] || echo " (no swap file for the swapon check)")"
	fi
	[ -d /sys/module/zcache ] || modprobe zcache >&2
else
	skip "fault-injected loads with frontswap=1" "no fault injection (failslab with make-it-fail: the debug test kernels have it)"
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
