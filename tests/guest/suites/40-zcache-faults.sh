#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 40-zcache-faults: faults from below, bad input from above, and the
# module's lifecycle (issue 7).
#   a) backing-device I/O errors: /dev/zcache0's backing device is a
#      device-mapper device over $ZC_SCRATCH_DEV (else a loop device) whose
#      table is switched at run time (dmsetup suspend/load/resume) between
#      'linear' (good), 'error' (every I/O fails) and a table with an error
#      region.  A write that must reach the backing device fails with EIO
#      to the writer and is counted (io_errors); the page then reads as an
#      error, never as the stale data under it, until it is rewritten;
#      reads of pages on the backing device fail with EIO while the target
#      errors; pages in the pool still read back; after the good table is
#      back, rewritten pages verify.  Then swap on /dev/zcache0 over the dm
#      device under memstress: the table goes bad mid-run, and the error
#      must reach the process (SIGBUS on the page it cannot get back),
#      never wrong data.
#   b) allocation failures: zcsmalloc's fail_alloc_every during a verified
#      swap workload: every page verifies, every injected failure is a
#      counted refusal (reject_nomem); refused pages are stored on the
#      kernel's bio retry or written to the backing device.
#   b2) the kernel's own fault injection where it is built (the debug test
#      kernel: FAILSLAB, FAIL_PAGE_ALLOC): non-sleeping slab and page
#      allocations of the workload's task (task-filter; zcache stores from
#      the reclaiming task's context) fail at random during the same
#      verified swap workload; every page verifies, the refused stores are
#      counted.
#   c) a full pool without a backing device is suite 30's (block level);
#      the swap-level version is not done: a swap write error keeps the
#      page in RAM, so under a memory limit it ends in the OOM killer,
#      whose report (a Call Trace) the runner counts as a splat.
#   d) lifecycle: unload refused while /dev/zcache0 is swapped on or open;
#      N load/configure/unload cycles of zcache and zcsmalloc without a
#      leak (zcsmalloc pools and leaked objects; slab, or kmemleak where it
#      runs); swapoff under load.
#   e) bad input that 31-zcache-input does not try: backing devices that
#      are mounted, active swap, held by device-mapper, a zcache device,
#      read-only, smaller than a page, gone (a detached loop device);
#      settings, reset and remove of a device that is swapped on.
#   f) 5.10 only, last (it pins the module): the frontswap backend in
#      front of swap on /dev/zcache0 under the same memory-cgroup pressure;
#      then in front of swap on the dm device and on zram0 (no zcache0),
#      which tells whose problem a failure is.
# Memory pressure comes from a memory cgroup (memory.max below the
# workload's size), so the workloads swap without pushing the whole guest
# into the OOM killer; the limit is lifted before anything that needs the
# pages back in RAM (errors, swapoff).
# ZC_QUICK=1: smaller workloads, 20 load/unload cycles instead of 100.
# KTAP on stdout; commands and their output on stderr.
set -u
. "$ZC_TESTS/guest/ktap-lib.sh"
say() { echo "# $*" >&2; }
note() { echo "# $*"; echo "# $*" >&2; }

DEV=/dev/zcache0
S=/sys/block/zcache0/zcache
S1=/sys/block/zcache1/zcache
P=/sys/module/zcache/parameters
ZP=/sys/module/zcsmalloc/parameters
C=/sys/class/zcache-control
DM=zc40fault
CG=/sys/fs/cgroup/zc40
W=$(mktemp -d /var/tmp/zc40.XXXXXX)
loops=() mnt='' bg='' dmdev='' loopswap=''
QUICK=${ZC_QUICK:-}

mem_kb=$(awk '/^MemTotal:/ {print $2}' /proc/meminfo)
mem_mb=$((mem_kb / 1024))

st() { cat "$S/$1" 2>/dev/null || echo 0; }
log_stats() { say "$1: $(cat "$S/summary" 2>/dev/null)"; }
DMSETUP=$(command -v dmsetup || true)
dmsetup() { [ -n "$DMSETUP" ] && timeout 60 "$DMSETUP" --noudevsync "$@"; }

cleanup() {
	exec 7>&- 2>/dev/null
	[ -z "$bg" ] || kill -9 "$bg" 2>/dev/null
	echo 0 >"$ZP/fail_alloc_every" 2>/dev/null
	swapoff "$DEV" 2>/dev/null
	[ -z "$loopswap" ] || swapoff "$loopswap" 2>/dev/null
	[ -z "$mnt" ] || umount "$mnt" 2>/dev/null
	for r in /sys/block/zcache*/zcache/reset; do
		[ -e "$r" ] && echo 1 >"$r" 2>/dev/null
	done
	[ -z "${old_pool_percent:-}" ] || echo "$old_pool_percent" >"$P/max_pool_percent" 2>/dev/null
	[ -z "${old_enabled:-}" ] || echo "$old_enabled" >"$P/enabled" 2>/dev/null
	[ -d "$CG" ] && rmdir "$CG" 2>/dev/null
	modprobe -r zcache 2>/dev/null
	[ -z "$dmdev" ] || dmsetup remove "$DM" 2>/dev/null
	for l in "${loops[@]}"; do losetup -d "$l" 2>/dev/null; done
	rm -rf "$W"
}
trap cleanup EXIT

# eio CMD...: CMD fails, and with "Input/output error".
eio() {
	local err
	if err=$("$@" 2>&1); then echo "  succeeded: $*" >&2; return 1; fi
	echo "  $err" >&2
	case $err in *"Input/output error"*) return 0 ;; esac
	return 1
}
# The page I/O functions of ktap-lib.sh and eio, for sh -c.
zc_io_fn eio
# dm_load TABLE: replace the dm device's table at run time.
dm_load() {
	say "dm table: $(echo "$1" | tr '\n' ';')"
	dmsetup suspend "$DM" && printf '%s\n' "$1" | dmsetup load "$DM" && dmsetup resume "$DM"
}
dm_good() { dm_load "0 $bsec linear $backing 0"; }
dm_bad() { dm_load "0 $bsec error"; }
# dm_region FIRST NR: pages [FIRST, FIRST + NR) of zcache0 fail, the rest is good.
dm_region() {
	local a=$(($1 * 8)) b=$((($1 + $2) * 8))
	dm_load "0 $a linear $backing 0
$a $((b - a)) error
$b $((bsec - b)) linear $backing $b"
}
swap_used_kb() { awk '/^SwapTotal:/ {t=$2} /^SwapFree:/ {f=$2} END {print t - f}' /proc/meminfo; }
slab_kb() { sync; echo 3 >/proc/sys/vm/drop_caches; sleep 1; awk '/^SUnreclaim:/ {print $2}' /proc/meminfo; }
zcs_stat() { awk -v k="$1" '$1 == k {print $2}' /sys/kernel/debug/zcsmalloc/stats 2>/dev/null; }
# Pools of zcsmalloc: its debugfs directories (one per pool) besides 'stats'.
zcs_pools() { find /sys/kernel/debug/zcsmalloc -mindepth 1 -maxdepth 1 -type d 2>/dev/null | wc -l; }
dmesg_lines() { dmesg | wc -l; }

# The memory cgroup that makes workloads swap: cg_limit BYTES|max.
have_cg=''
if grep -qw memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
	echo +memory >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
	mkdir -p "$CG" 2>/dev/null && [ -e "$CG/memory.max" ] && have_cg=1
fi
cg_limit() { echo "$1" >"$CG/memory.max"; }
# cg_run CMD...: CMD in the cgroup.
cg_run() { sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$CG" "$@"; }
# memstress_ok OUTFILE: no page mismatched (a kill by a signal is judged by the caller).
mismatch() { grep -q MISMATCH "$1"; }
# ms_run NAME SECS MB [ARGS...]: memstress --size-mb MB ARGS, in the cgroup
# limited to MB/2 when there is one (else as it is); with MS_FAIL=1 its
# make-it-fail is set (the kernel's fault injection, task-filter).  Output
# in $W/NAME.out, also on stderr and in $ZC_OUT.  Sets ms_rc, ms_mib
# (mib_verified) and ms_out.  SECS is multiplied by ZC_TIME_SCALE (slow
# test kernels).
ms_run() {
	local name=$1 secs=$(($2 * ${ZC_TIME_SCALE:-1})) mb=$3 lim='' mif=''
	shift 3
	ms_out=$W/$name.out
	[ -z "$have_cg" ] || lim=$((mb / 2))
	[ "${MS_FAIL:-0}" = 0 ] || mif='echo 1 >/proc/self/make-it-fail && '
	echo "+ memstress --size-mb $mb $* (memory.max ${lim:-none}${lim:+M}${mif:+, make-it-fail})" >&2
	if [ -n "$lim" ]; then
		cg_limit $((lim * 1048576))
		timeout "$secs" sh -c "echo \$\$ >\"\$0/cgroup.procs\" && ${mif}exec \"\$@\"" \
			"$CG" "$ZC_BIN/memstress" --size-mb "$mb" "$@" >"$ms_out" 2>&1
	else
		timeout "$secs" sh -c "${mif}exec \"\$@\"" \
			sh "$ZC_BIN/memstress" --size-mb "$mb" "$@" >"$ms_out" 2>&1
	fi
	ms_rc=$?
	[ -z "$lim" ] || cg_limit max
	cat "$ms_out" >&2; cp "$ms_out" "$ZC_OUT/" 2>/dev/null
	ms_mib=$(grep -o 'mib_verified=[0-9.]*' "$ms_out" | cut -d= -f2)
	return "$ms_rc"
}
# ms_verdict WHAT: ok or nok on the last ms_run.
ms_verdict() {
	if [ "$ms_rc" = 0 ]; then
		ok "$1: every page verified (${ms_mib:-?} MiB)"
	else
		nok "$1: every page verified # rc=$ms_rc $(grep -m1 MISMATCH "$ms_out" || tail -n 2 "$ms_out" | tr '\n' ' ')"
	fi
}

# skip_n N WHAT [REASON]: N skipped tests, for a section that cannot run:
# every section emits the same number of results whether it runs or not.
skip_n() {
	local i
	for i in $(seq "$1"); do skip "$2 ($i/$1)" "${3:-}"; done
}

tap_begin_package
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug 2>/dev/null
# The plan comes first, so that the runner notices a test that never ran.
# Per section: setup 2, a) 13, a) swap 3, b) 5, b2) 5, d) lifecycle 7,
# d) swapoff 3, e) 13, the end 1; f) 5 where zcache has the frontswap
# front end (5.10), else 1 skip.
plan=52
if modinfo -p zcache 2>/dev/null | grep -q '^frontswap:'; then plan=$((plan + 5)); else plan=$((plan + 1)); fi
echo "1..$plan"
say "guest: $(uname -r), ${mem_mb} MiB, quick=${QUICK:-0}, memory cgroup: ${have_cg:-no}"

# On 5.10, suite 32 registers the frontswap backend, which pins zcache
# until reboot: then the module stays loaded (the unload tests skip; run
# this suite alone, --only '[w4]*', for them), and frontswap takes swapped
# pages before /dev/zcache0 sees them, so its intake is turned off
# (enabled=N) for the device's tests; section f) tests the two together.
modprobe -r zcache 2>/dev/null
pinned=''
if [ -d /sys/module/zcache ]; then
	pinned=1
	note "zcache cannot be unloaded (frontswap_active=$(cat /sys/kernel/zcache/frontswap_active 2>/dev/null)): unload tests skip"
	[ -b /dev/zcache1 ] || cat "$C/add" >/dev/null
	old_enabled=$(cat "$P/enabled")
	echo N >"$P/enabled"
	check "zcache already loaded (pinned): zcache0 and zcache1 exist, frontswap/cleancache intake off" \
		sh -c "udevadm settle; test -b /dev/zcache0 && test -b /dev/zcache1 && grep -qx N $P/enabled"
else
	check "modprobe zcache num_devices=2" \
		sh -c 'modprobe zcache num_devices=2 && udevadm settle; test -b /dev/zcache0 && test -b /dev/zcache1'
fi

# The backing device and the dm device over it.
if [ -n "${ZC_SCRATCH_DEV:-}" ] && [ -b "$ZC_SCRATCH_DEV" ]; then
	backing=$(readlink -f "$ZC_SCRATCH_DEV")
	wipefs -a "$backing" >/dev/null 2>&1
else
	truncate -s 1G "$W/backing.img"
	backing=$(losetup -f --show "$W/backing.img") && loops+=("$backing")
fi
bsec=$(blockdev --getsz "$backing")
[ "$bsec" -le $((2 << 21)) ] || bsec=$((2 << 21))	# at most 2 GiB
if [ -n "$DMSETUP" ] && modprobe dm-mod 2>/dev/null &&
	printf '0 %s linear %s 0\n' "$bsec" "$backing" | dmsetup create "$DM"; then
	minor=$(dmsetup info -c --noheadings -o minor "$DM" | tr -d ' ')
	dmdev=/dev/dm-$minor
	[ -b "$dmdev" ] || { sleep 1; [ -b "$dmdev" ] || dmdev=''; }
fi
if [ -n "$dmdev" ]; then
	ok "dm device $DM ($dmdev) over $backing, $((bsec / 2048)) MiB"
else
	nok "dm device $DM over $backing # dmsetup missing or create failed"
fi

###############################################################################
# a) backing-device I/O errors
###############################################################################
head -c $((64 * PAGE)) /dev/urandom >"$W/r1"
head -c $((8 * PAGE)) /dev/urandom >"$W/old"
head -c $((8 * PAGE)) /dev/urandom >"$W/r2"
head -c $((128 * PAGE)) /dev/urandom >"$W/r3"
text_file 64 "$W/text"

if [ -n "$dmdev" ]; then
	check "zcache0 over $dmdev (64M): incompressible pages reach the backing device and read back" \
		sh -c "$ZC_IO_FN; setup 64M $dmdev 1 && $ZC_IO_FN; wpages $W/r1 0 && wpages $W/old 1024 && verify $W/r1 0 && verify $W/old 1024 && test \$(cat $S/backing_writes_incompressible) -ge 72"
	check "compressible pages are held in the pool" \
		sh -c "$ZC_IO_FN; wpages $W/text 256 && verify $W/text 256 && test \$(cat $S/stored_pages) -ge 64"
	log_stats "good table"

	dm_bad
	e0=$(st io_errors)
	check "table 'error': reads of pages on the backing device fail with EIO" \
		sh -c "$ZC_IO_FN; eio rpages 0 64 $W/x && test \$(cat $S/io_errors) -gt $e0"
	check "table 'error': pages in the pool still read back" \
		sh -c "$ZC_IO_FN; verify $W/text 256"
	e0=$(st io_errors); d0=$(dmesg_lines)
	check "table 'error': a write that must go to the backing device fails with EIO, io_errors counts it" \
		sh -c "$ZC_IO_FN; eio wpages $W/r2 1024 && test \$(cat $S/io_errors) -gt $e0"
	say "dmesg: $(dmesg | tail -n +$((d0 + 1)) | grep zcache | head -n 2 | tr '\n' ' ')"
	check "the page whose write failed reads as an error while the target errors" \
		sh -c "$ZC_IO_FN; eio rpages 1024 1 $W/x"
	# A write-back that fails must leave the page in the pool, readable.
	wbf0=$(st writeback_failed) wb0=$(st written_back_pages)
	echo "+ echo 64 > $S/writeback_pages (the target errors)" >&2
	echo 64 >"$S/writeback_pages" || say "writeback_pages refused: as expected"
	say "writeback_failed $wbf0 -> $(st writeback_failed), written_back_pages $wb0 -> $(st written_back_pages)"
	check "a failed write-back keeps the pages in the pool: they still read back" \
		sh -c "$ZC_IO_FN; verify $W/text 256 && test \$(cat $S/written_back_pages) = $wb0"
	log_stats "error table"

	dm_good
	check "good table again: the page whose write failed still reads as an error, not the stale data under it" \
		sh -c "$ZC_IO_FN; eio rpages 1024 1 $W/x"
	check "good table again: pages on the backing device read back intact" \
		sh -c "$ZC_IO_FN; verify $W/r1 0"
	check "good table again: the failed pages, rewritten, verify" \
		sh -c "$ZC_IO_FN; wpages $W/r2 1024 && wpages $W/text 256 && verify $W/r2 1024 && verify $W/text 256"

	# An error region: one 128-page write across it; the pages outside
	# the region are written, those inside fail one by one.
	dm_region 2112 32
	e0=$(st io_errors)
	check "error region (pages 2112-2143): a 128-page write across it fails with EIO" \
		sh -c "$ZC_IO_FN; eio dd if=$W/r3 of=$DEV bs=$((128 * PAGE)) seek=$((2048 * PAGE)) oflag=direct,seek_bytes conv=notrunc status=none"
	bad=''
	for p in 2048 2111 2112 2143 2144 2175; do
		if [ "$p" -ge 2112 ] && [ "$p" -le 2143 ]; then
			rpages "$p" 1 "$W/x" 2>/dev/null && bad="$bad $p(read)"
		else
			rpages "$p" 1 "$W/x" && cmp -s "$W/x" <(dd if="$W/r3" bs="$PAGE" skip=$((p - 2048)) count=1 status=none) || bad="$bad $p(data)"
		fi
	done
	if [ -z "$bad" ]; then
		ok "error region: pages outside it verify, pages inside read as errors ($(( $(st io_errors) - e0 )) I/O errors counted)"
	else
		nok "error region: pages outside it verify, pages inside read as errors # wrong:$bad"
	fi
	dm_good
	check "good table: the region rewritten verifies" \
		sh -c "$ZC_IO_FN; dd if=$W/r3 of=$DEV bs=$((128 * PAGE)) seek=$((2048 * PAGE)) oflag=direct,seek_bytes conv=notrunc status=none && verify $W/r3 2048"
	log_stats "after the region"
	note "a) io_errors $(st io_errors), backing_reads $(st backing_reads), backing_writes_incompressible $(st backing_writes_incompressible), writeback_failed $(st writeback_failed)"
else
	skip_n 13 "a) backing-device I/O errors (block level)" "no dm device"
fi

# --- a) swap on zcache0 over the dm device; the table goes bad mid-run ----
# memstress (30% incompressible pages: those go to the backing device) in a
# memory cgroup half its size swaps; once pages are on the backing device,
# the limit is lifted (nothing more needs to go out) and the table turns to
# 'error'.  A page memstress then touches that is on the backing device
# cannot be read: the kernel logs the swap read error and the process gets
# SIGBUS.  Expected: memstress killed by SIGBUS with io_errors counted; a
# MISMATCH (wrong data, silently) fails, and so does a clean exit (it read
# no page from the failing device: the test did not test it).
if [ -n "$dmdev" ] && [ -n "$have_cg" ] && [ -x "$ZC_BIN/memstress" ]; then
	ms_mb=$((mem_mb / 5)); [ -z "$QUICK" ] || ms_mb=$((mem_mb / 8))
	check "swap on zcache0 (512M) over $dmdev" \
		sh -c "$ZC_IO_FN; setup 512M $dmdev && mkswap $DEV >/dev/null && swapon -p 100 $DEV"
	cg_limit $((ms_mb / 2 * 1048576))
	d0=$(dmesg_lines)
	echo "+ memstress --size-mb $ms_mb --passes 50 --incompressible-pct 30 (memory.max $((ms_mb / 2))M)" >&2
	cg_run "$ZC_BIN/memstress" --size-mb "$ms_mb" --passes 50 --incompressible-pct 30 >"$W/ms-a.out" 2>&1 &
	bg=$!
	# At least 10 s in: pages written out just now are still in the swap
	# cache (the backing write is asynchronous) and would be found there.
	t=0
	while [ $t -lt 300 ] && kill -0 "$bg" 2>/dev/null; do
		[ $t -lt 10 ] || [ "$(st backing_writes_incompressible)" -lt 2000 ] || [ "$(swap_used_kb)" -lt $((ms_mb * 256)) ] || break
		sleep 1; t=$((t + 1))
	done
	say "after ${t}s: swap used $(swap_used_kb) KiB; $(cat "$S/summary")"
	cg_limit max
	e0=$(st io_errors)
	dm_bad
	t=0
	while [ $t -lt 240 ] && kill -0 "$bg" 2>/dev/null; do sleep 1; t=$((t + 1)); done
	if kill -0 "$bg" 2>/dev/null; then
		kill -9 "$bg"; wait "$bg" 2>/dev/null; rc=killed
	else
		wait "$bg"; rc=$?
	fi
	bg=''
	cat "$W/ms-a.out" >&2; cp "$W/ms-a.out" "$ZC_OUT/" 2>/dev/null
	ioe=$(( $(st io_errors) - e0 ))
	rerr=$(dmesg | tail -n +$((d0 + 1)) | grep -c -i 'error on swap-device')
	say "memstress rc=$rc after ${t}s of errors; io_errors +$ioe; kernel swap I/O error lines: $rerr"
	if mismatch "$W/ms-a.out"; then
		nok "swap over a failing backing device: no wrong data # memstress found a MISMATCH"
	elif [ "$rc" = 0 ]; then
		# 50 passes touch every page: a clean exit means no page was
		# on the backing device when it failed, so nothing was tested.
		nok "swap over a failing backing device: no wrong data # memstress read no page from the failing device (io_errors +$ioe): the failure was never exercised"
	elif grep -q -E 'killed by signal (7|9) ' "$W/ms-a.out" && [ "$ioe" -gt 0 ]; then
		ok "swap over a failing backing device: the error reached the process ($(grep -o 'killed by signal [0-9]* ([^)]*)' "$W/ms-a.out" | head -n 1)), no wrong data; io_errors +$ioe, $rerr swap I/O error lines"
	else
		nok "swap over a failing backing device: no wrong data # rc=$rc io_errors +$ioe: $(tail -n 2 "$W/ms-a.out" | tr '\n' ' ')"
	fi
	dm_good
	check "good table: swapoff (the dead process's slots freed), reset" \
		sh -c "swapoff $DEV && udevadm settle; sleep 0.2; echo 1 >$S/reset"
else
	skip_n 3 "a) swap over a failing backing device" "needs the dm device, a memory cgroup and memstress"
fi

###############################################################################
# b) allocation failures: zcsmalloc's fail_alloc_every
###############################################################################
every=5
if [ -n "$dmdev" ] && [ -w "$ZP/fail_alloc_every" ] && [ -x "$ZC_BIN/memstress" ]; then
	dm_good >/dev/null 2>&1
	if [ -n "$have_cg" ]; then
		ms_mb=$((mem_mb * 6 / 10)); [ -z "$QUICK" ] || ms_mb=$((mem_mb * 3 / 10))
		passes=2; [ -z "$QUICK" ] || passes=1
	else
		ms_mb=$((mem_mb * 11 / 10)) passes=1
	fi
	check "swap on zcache0 (1G) over $dmdev" \
		sh -c "$ZC_IO_FN; setup 1G $dmdev && mkswap $DEV >/dev/null && swapon -p 100 $DEV"
	inj0=$(zcs_stat injected_failures)
	check "zcsmalloc fail_alloc_every=$every" sh -c "echo $every >$ZP/fail_alloc_every && grep -qx $every $ZP/fail_alloc_every"
	ms_run ms-b 1200 "$ms_mb" --passes "$passes"
	echo 0 >"$ZP/fail_alloc_every"
	inj=$(( $(zcs_stat injected_failures || echo 0) - ${inj0:-0} ))
	ms_verdict "memstress --size-mb $ms_mb --passes $passes under injected allocation failures"
	log_stats "after fail_alloc_every"
	note "b) faults injected (zcsmalloc injected_failures): $inj; reject_nomem $(st reject_nomem); backing_writes_pool_full $(st backing_writes_pool_full); reject_alloc_fail (global) $(cat /sys/kernel/zcache/reject_alloc_fail 2>/dev/null); verified ${ms_mib:-?} MiB"
	# A refused ->rw_page store comes back as a bio and is stored again
	# or, refused again, written to the backing device: how many take
	# which way depends on timing (6.1-rt: all 40862 stored on the retry,
	# 6.1: 8118 to the backing device).  What must hold: every injected
	# failure was a counted refusal, and the data verified (above).
	if [ "${inj:-0}" -gt 0 ] && [ "$(st reject_nomem)" -eq "$inj" ]; then
		ok "every injected failure was a counted refused store: $inj injected, reject_nomem $(st reject_nomem), of which backing_writes_pool_full $(st backing_writes_pool_full) (the rest stored on the bio retry)"
	else
		nok "every injected failure was a counted refused store # $inj injected, reject_nomem $(st reject_nomem), backing_writes_pool_full $(st backing_writes_pool_full)"
	fi
	check "swapoff, reset" sh -c "swapoff $DEV && udevadm settle; sleep 0.2; echo 1 >$S/reset"
else
	skip_n 5 "b) fail_alloc_every" "needs the dm device, zcsmalloc's parameter and memstress"
fi

###############################################################################
# b2) the kernel's fault injection (FAILSLAB, FAIL_PAGE_ALLOC: the debug
# test kernel).  task-filter: only tasks with /proc/PID/make-it-fail set
# see failures, here memstress, in whose context the memory cgroup's
# reclaim swaps out and zcache stores.  ignore-gfp-wait stays Y: only
# non-sleeping allocations fail (zcache's stores allocate with
# GFP_NOWAIT), so the workload's own page faults are not refused.
# verbose 0: no stack dump per injected failure.  Injections are counted
# through 'times' (decremented on each one).
###############################################################################
FI=/sys/kernel/debug
fi_attrs() { echo "$FI/failslab $FI/fail_page_alloc"; }
fi_set() {	# fi_set PROBABILITY: both fault attributes
	local a
	for a in $(fi_attrs); do
		echo "$1" >"$a/probability" && echo 1 >"$a/interval" &&
			echo 1000000 >"$a/times" && echo 0 >"$a/verbose" &&
			echo Y >"$a/task-filter" && echo Y >"$a/ignore-gfp-wait" || return 1
	done
	echo N >"$FI/failslab/cache-filter" 2>/dev/null
	return 0
}
fi_reset() {
	local a
	for a in $(fi_attrs); do
		echo 0 >"$a/probability"; echo N >"$a/task-filter"; echo 1 >"$a/times"
	done 2>/dev/null
}
fi_left() { echo $(( $(cat "$FI/failslab/times") + $(cat "$FI/fail_page_alloc/times") )); }
if [ -d "$FI/failslab" ] && [ -d "$FI/fail_page_alloc" ] && [ -n "$dmdev" ] && [ -n "$have_cg" ] && [ -x "$ZC_BIN/memstress" ]; then
	dm_good >/dev/null 2>&1
	ms_mb=$((mem_mb * 3 / 10)); [ -z "$QUICK" ] || ms_mb=$((mem_mb * 2 / 10))
	check "swap on zcache0 (1G) over $dmdev" \
		sh -c "$ZC_IO_FN; setup 1G $dmdev && mkswap $DEV >/dev/null && swapon -p 100 $DEV"
	rn0=$(st reject_nomem) pf0=$(st backing_writes_pool_full)
	check "failslab and fail_page_alloc: probability 10%, task-filter, non-sleeping allocations" fi_set 10
	MS_FAIL=1 ms_run ms-b2 1200 "$ms_mb" --passes 2
	left=$(fi_left)
	fi_reset
	inj=$((2000000 - left))
	rn=$(( $(st reject_nomem) - rn0 )) pf=$(( $(st backing_writes_pool_full) - pf0 ))
	ms_verdict "memstress --size-mb $ms_mb --passes 2 under the kernel's fault injection"
	note "b2) kernel faults injected into memstress's allocations (failslab + fail_page_alloc): $inj; zcache reject_nomem +$rn, backing_writes_pool_full +$pf; verified ${ms_mib:-?} MiB"
	# As in b): refused pages are stored on the bio retry or written to
	# the backing device; the data verified above.
	if [ "$inj" -gt 0 ] && [ "$rn" -gt 0 ]; then
		ok "injected failures hit zcache's stores, each a counted refusal: $inj injected, reject_nomem +$rn, backing_writes_pool_full +$pf"
	else
		nok "injected failures hit zcache's stores, each a counted refusal # $inj injected, reject_nomem +$rn, backing_writes_pool_full +$pf"
	fi
	check "swapoff, reset" sh -c "swapoff $DEV && udevadm settle; sleep 0.2; echo 1 >$S/reset"
else
	skip_n 5 "b2) the kernel's fault injection" "no failslab/fail_page_alloc in debugfs (the debug test kernel has them), or no dm device, cgroup or memstress"
fi

###############################################################################
# d) lifecycle
###############################################################################
check "swap on zcache0 (RAM only, 32M)" \
	sh -c "$ZC_IO_FN; setup 32M && mkswap $DEV >/dev/null && swapon $DEV"
if [ -n "$pinned" ]; then
	skip "unload refused while /dev/zcache0 is swapped on: zcache is pinned (frontswap)"
else
check "unload refused while /dev/zcache0 is swapped on: modprobe -r and rmmod fail, zcache and zcsmalloc stay" \
	sh -c "! modprobe -r zcache && ! rmmod zcache && ! modprobe -r zcsmalloc && test -d /sys/module/zcache && test -d /sys/module/zcsmalloc && test -b $DEV"
fi
check "swapoff" sh -c "swapoff $DEV"
settle
if [ -z "$pinned" ]; then
exec 7<>"$DEV"
check "unload refused while /dev/zcache0 is open" \
	sh -c "! modprobe -r zcache && test -d /sys/module/zcache"
exec 7>&-
settle
else
	skip "unload refused while /dev/zcache0 is open" "zcache is pinned (frontswap)"
fi

# Load/unload cycles.  Each: load (zcache pulls zcsmalloc in), create a
# pool (disksize), reset it, then unload both.  Leak checks: zcsmalloc's
# own accounting (pools left and leaked objects, read before it unloads),
# and unreclaimable slab before and after.
cycles=100; [ -z "$QUICK" ] || cycles=20
unload() {	# both modules, retrying while udev still has a device open
	local i
	for i in 1 2 3 4 5; do
		settle
		modprobe -r zcache 2>/dev/null && break
	done
	[ ! -d /sys/module/zcsmalloc ] || modprobe -r zcsmalloc
	[ ! -d /sys/module/zcache ] && [ ! -d /sys/module/zcsmalloc ]
}
cycle() {
	modprobe zcache || return 1
	udevadm settle 2>/dev/null
	echo 8M >"$S/disksize" || return 1
	echo 1 >"$S/reset" || return 1
	# rmmod, not modprobe -r: zcsmalloc stays, to be asked what is left.
	settle
	rmmod zcache 2>/dev/null || { unload; return; }
	pools=$(zcs_pools) leaked=$(zcs_stat leaked_objects)
	[ "${pools:-0}" = 0 ] && [ "${leaked:-0}" = 0 ] || { echo "  pools $pools leaked $leaked" >&2; return 1; }
	unload
}
if [ -n "$pinned" ]; then
	skip_n 3 "$cycles load/unload cycles, their leak check, reload" "zcache is pinned (frontswap)"
else
unload >&2
cycle >&2; cycle >&2	# warm-up: module loader, udev and sysfs caches
s0=$(slab_kb)
bad=0 t0=$SECONDS
echo "+ $cycles x (modprobe zcache; disksize 8M; reset; modprobe -r zcache zcsmalloc)" >&2
for i in $(seq "$cycles"); do cycle >&2 || { bad=$((bad + 1)); say "cycle $i failed"; }; done
s1=$(slab_kb)
grow=$((s1 - s0))
note "d) $cycles load/unload cycles in $((SECONDS - t0))s: SUnreclaim ${s0} -> ${s1} KiB ($grow KiB)"
if [ "$bad" = 0 ]; then
	ok "$cycles load/configure/unload cycles of zcache and zcsmalloc: no pool or object left in zcsmalloc"
else
	nok "$cycles load/configure/unload cycles of zcache and zcsmalloc # $bad cycles failed"
fi
# A leak of a device's structures (gendisk, queue, pool) would be some
# KiB per cycle; slab moves by a few hundred KiB on its own.  Not on a
# debug kernel: KASAN's quarantine holds freed objects in slab and
# kmemleak keeps its own per-object records (the debug kernel grew 3964
# KiB over 20 cycles with nothing unreferenced); where kmemleak runs, it
# decides: nothing unreferenced after the cycles.
if leaks=$(kmemleak_scan "$W/kmemleak.txt"); then
	if [ "$leaks" = 0 ]; then
		ok "kmemleak after the $cycles cycles: no unreferenced object (slab ${grow} KiB, no measure here)"
	else
		cat "$W/kmemleak.txt" >&2
		nok "kmemleak after the $cycles cycles # $leaks unreferenced objects"
	fi
elif [ "$grow" -le $((512 + 4 * cycles)) ]; then
	ok "no slab growth over the $cycles cycles: ${grow} KiB (allowed $((512 + 4 * cycles)))"
else
	nok "no slab growth over the $cycles cycles # ${grow} KiB (allowed $((512 + 4 * cycles)))"
fi
check "modprobe zcache num_devices=2 again" \
	sh -c 'modprobe zcache num_devices=2 && udevadm settle; test -b /dev/zcache0 && test -b /dev/zcache1'
fi

# swapoff under load: memstress in the cgroup swaps to zcache0 (over the
# dm device); once a good share is on swap, the limit is lifted and
# swapoff runs while memstress keeps touching its pages.  The sizes leave
# RAM for everything, so swapoff must succeed; ENOMEM would be a clean
# failure too, an OOM kill would show in dmesg.  memstress must verify.
if [ -n "$dmdev" ] && [ -n "$have_cg" ] && [ -x "$ZC_BIN/memstress" ]; then
	ms_mb=$((mem_mb * 6 / 10)); [ -z "$QUICK" ] || ms_mb=$((mem_mb * 4 / 10))
	check "swap on zcache0 (1G) over $dmdev" \
		sh -c "$ZC_IO_FN; setup 1G $dmdev && mkswap $DEV >/dev/null && swapon -p 100 $DEV"
	cg_limit $((ms_mb / 2 * 1048576))
	echo "+ memstress --size-mb $ms_mb --passes 2 (memory.max $((ms_mb / 2))M)" >&2
	cg_run "$ZC_BIN/memstress" --size-mb "$ms_mb" --passes 2 >"$W/ms-d.out" 2>&1 &
	bg=$!
	t=0
	while [ $t -lt 300 ] && kill -0 "$bg" 2>/dev/null && [ "$(swap_used_kb)" -lt $((ms_mb * 1024 / 3)) ]; do
		sleep 1; t=$((t + 1))
	done
	used=$(swap_used_kb)
	running=no; kill -0 "$bg" 2>/dev/null && running=yes
	say "after ${t}s: swap used $used KiB, memstress running: $running; $(cat "$S/summary")"
	cg_limit max
	t0=$SECONDS
	echo "+ swapoff $DEV (memstress running: $running)" >&2
	if swapoff "$DEV" 2>"$W/swapoff.err"; then so=ok; else so="failed: $(cat "$W/swapoff.err")"; fi
	so_s=$((SECONDS - t0))
	wait "$bg"; rc=$?; bg=''
	cat "$W/ms-d.out" >&2; cp "$W/ms-d.out" "$ZC_OUT/" 2>/dev/null
	note "d) swapoff with $((used / 1024)) MiB on swap, memstress running: $running: $so in ${so_s}s"
	case $so in
	ok) ok "swapoff under load succeeds (${so_s}s, $((used / 1024)) MiB were on swap, memstress running: $running)" ;;
	*"Cannot allocate memory"*) ok "swapoff under load fails cleanly with ENOMEM" ;;
	*) nok "swapoff under load # $so" ;;
	esac
	mib=$(grep -o 'mib_verified=[0-9.]*' "$W/ms-d.out" | cut -d= -f2)
	if [ "$rc" = 0 ]; then
		ok "memstress across swapoff: every page verified (${mib:-?} MiB)"
	elif mismatch "$W/ms-d.out"; then
		nok "memstress across swapoff: every page verified # MISMATCH"
	else
		nok "memstress across swapoff: every page verified # rc=$rc $(tail -n 2 "$W/ms-d.out" | tr '\n' ' ')"
	fi
	swapoff "$DEV" 2>/dev/null; settle; echo 1 >"$S/reset"
else
	skip_n 3 "d) swapoff under load" "needs the dm device, a memory cgroup and memstress"
fi

###############################################################################
# e) bad input not tried by 31-zcache-input
###############################################################################
# refuse DESCRIPTION ERRNO_TEXT FILE VALUE: refused with ERRNO_TEXT, a
# kernel log line naming zcache, the file's value unchanged.
refuse() {
	local d=$1 want=$2 f=$3 v=$4 before after err mark
	settle
	before=$(cat "$f" 2>/dev/null)
	mark=$(kmsg_mark)
	echo "+ echo '$v' > $f" >&2
	if err=$( (printf '%s' "$v" >"$f") 2>&1); then
		nok "$d # accepted"
		return
	fi
	after=$(cat "$f" 2>/dev/null)
	echo "  $err; dmesg: $(dmesg | tail -n 1)" >&2
	case $err in
	*"$want"*) ;;
	*) nok "$d # got '${err##*: }', want '$want'"; return ;;
	esac
	if ! zcache_said "$mark"; then nok "$d # no zcache line in dmesg"; return; fi
	if [ "$before" != "$after" ]; then nok "$d # value changed: '$before' -> '$after'"; return; fi
	ok "$d: $want, $(dmesg | tail -n 1 | sed 's/^\[[ 0-9.]*\] //' | cut -c1-100)"
}
newloop() {	# newloop SIZE [losetup options]: a loop device over a new file
	local f
	f=$(mktemp "$W/loop.XXXXXX")
	truncate -s "$1" "$f"; shift
	losetup -f --show "$@" "$f"
}

settle; echo 1 >"$S/reset"; echo 1 >"$S1/reset" 2>/dev/null
lm=$(newloop 64M) && loops+=("$lm")
if mkfs.ext4 -q "$lm" 2>/dev/null && mkdir -p "$W/mnt" && mount "$lm" "$W/mnt"; then
	mnt=$W/mnt
	refuse "backing_dev: a mounted file system's device" "Device or resource busy" "$S/backing_dev" "$lm"
	umount "$mnt"; mnt=''
else
	nok "backing_dev: a mounted file system's device # could not mount ext4 on $lm"
fi
ls=$(newloop 64M) && loops+=("$ls")
if mkswap "$ls" >/dev/null && swapon "$ls"; then
	loopswap=$ls
	refuse "backing_dev: an active swap device" "Device or resource busy" "$S/backing_dev" "$ls"
	swapoff "$ls"; loopswap=''
else
	nok "backing_dev: an active swap device # swapon $ls failed"
fi
if [ -n "$dmdev" ]; then
	refuse "backing_dev: a device held by device-mapper ($backing under $DM)" "Device or resource busy" "$S/backing_dev" "$backing"
else
	skip "backing_dev: a device held by device-mapper: no dm device"
fi
refuse "backing_dev: another zcache device (/dev/zcache1)" "Invalid argument" "$S/backing_dev" /dev/zcache1
lr=$(newloop 64M -r) && loops+=("$lr")
refuse "backing_dev: a read-only device" "Invalid argument" "$S/backing_dev" "$lr"
lt=$(newloop 2K) && loops+=("$lt")
refuse "backing_dev: a device smaller than a page" "Invalid argument" "$S/backing_dev" "$lt"
lg=$(newloop 64M) && losetup -d "$lg"
refuse "backing_dev: a device that is gone (detached $lg)" "Invalid argument" "$S/backing_dev" "$lg"

# Settings, reset and remove of a device that is swapped on.
lb=$(newloop 64M) && loops+=("$lb")
check "zcache0 over $lb, 32M, swapped on" \
	sh -c "$ZC_IO_FN; setup 32M $lb && mkswap $DEV >/dev/null && swapon $DEV"
refuse "disksize of a device swapped on" "Device or resource busy" "$S/disksize" 16M
refuse "backing_dev of a device swapped on" "Device or resource busy" "$S/backing_dev" none
refuse "reset of a device swapped on" "Device or resource busy" "$S/reset" 1
refuse "control/remove of a device swapped on" "Device or resource busy" "$C/remove" 0
check "swapoff, reset, zcache0 is usable again (RAM only)" \
	sh -c "swapoff $DEV && udevadm settle; sleep 0.2; echo 1 >$S/reset && echo 16M >$S/disksize && $ZC_IO_FN; wpages $W/text 0 && verify $W/text 0"

settle

###############################################################################
# f) 5.10: the frontswap backend in front of swap on /dev/zcache0, under a
# memory cgroup limit (the pressure that sections a, b and d use).  Each
# swapped page lands in frontswap's pool, or, refused, in zcache0's; it
# must come back intact from one of them.  Registering frontswap pins the
# module until reboot, so this runs last.
###############################################################################
# fs_memstress NAME WHAT: memstress (ms_mb, 30% incompressible, 2 passes)
# in the cgroup at half its size, with frontswap in front of the swap on
# WHAT; one test: every page verified.  Output in $W/NAME.out.
fs_memstress() {
	say "swap on $2"
	ms_run "$1" 900 "$ms_mb" --passes 2 --incompressible-pct 30
	say "frontswap: $(for f in stores loads load_misses reject_poor_compression reject_pool_limit stored_pages; do printf '%s=%s ' $f "$(cat /sys/kernel/zcache/$f 2>/dev/null)"; done)"
	ms_verdict "frontswap + swap on $2 under a memory cgroup limit"
}
if [ -e "$P/frontswap" ] && [ -n "$dmdev" ] && [ -n "$have_cg" ] && [ -x "$ZC_BIN/memstress" ]; then
	[ -z "${old_enabled:-}" ] || { echo "$old_enabled" >"$P/enabled"; old_enabled=''; }
	echo Y >"$P/enabled"
	echo 1 >"$P/frontswap" 2>/dev/null
	ms_mb=$((mem_mb / 8))
	check "frontswap registered (pins zcache), swap on zcache0 (512M) over $dmdev" \
		sh -c "$ZC_IO_FN; grep -qx 1 /sys/kernel/zcache/frontswap_active && setup 512M $dmdev && mkswap $DEV >/dev/null && swapon -p 100 $DEV"
	fs_memstress ms-f zcache0
	log_stats "zcache0 behind frontswap"
	check "swapoff, reset" sh -c "swapoff $DEV && udevadm settle; sleep 0.2; echo 1 >$S/reset"
	# The same with swap on the dm device itself (no zcache0): tells
	# frontswap's part from zcache0's.
	settle
	if mkswap "$dmdev" >/dev/null && swapon -p 100 "$dmdev"; then
		fs_memstress ms-f2 "$dmdev (no zcache0)"
		swapoff "$dmdev"
	else
		nok "frontswap + swap on $dmdev: mkswap/swapon failed"
	fi
	# And with swap on zram, the kernel's own synchronous swap device
	# (no zcache0): tells a problem of frontswap with synchronous devices
	# in the kernel from one of zcache0's.
	if modprobe zram num_devices=1 2>/dev/null && udevadm settle && echo 512M >/sys/block/zram0/disksize &&
		mkswap /dev/zram0 >/dev/null && swapon -p 100 /dev/zram0; then
		fs_memstress ms-f3 "zram0 (no zcache0)"
		say "zram0 mm_stat: $(cat /sys/block/zram0/mm_stat 2>/dev/null)"
		swapoff /dev/zram0; udevadm settle; echo 1 >/sys/block/zram0/reset; modprobe -r zram
	else
		skip "frontswap + swap on zram0: no zram"
	fi
	pinned=1
elif [ -e "$P/frontswap" ]; then
	skip_n 5 "f) frontswap in front of swap on zcache0" "needs the dm device, a memory cgroup and memstress"
else
	skip "f) frontswap in front of swap on zcache0" "no frontswap front end on $(uname -r)"
fi

if [ -n "$dmdev" ] && dmsetup remove "$DM"; then dmdev=''; fi
if [ -n "$pinned" ]; then
	check "reset, remove zcache1 (zcache stays: pinned by frontswap); dm device removed" \
		sh -c "echo 1 >$S/reset && echo 1 >$C/remove && ! test -e /sys/block/zcache1 && test -z '$dmdev'"
else
	check "reset, remove zcache1, rmmod zcache; dm device removed" \
		sh -c "echo 1 >$S/reset && echo 1 >$C/remove && ! test -e /sys/block/zcache1 && modprobe -r zcache && ! test -d /sys/module/zcache && test -z '$dmdev'"
fi
exit $failed
