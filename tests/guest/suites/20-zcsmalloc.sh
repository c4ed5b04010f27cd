#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 20-zcsmalloc: the allocator in the guest.
#  1. zcsmalloc_test (built in the guest from the harness's copy of src/)
#     loads (its KTAP cases from dmesg become subtests; a
#     failing case fails the load)
#  2. fail_alloc_every rejects bad input with -EINVAL and one dmesg line
#  3. debugfs statistics are there and count the self-test's compaction
#  4. zcsmalloc_bench: ours vs the kernel's zsmalloc, lines saved to
#     $ZC_OUT/bench.txt
#  5. zram coexistence: swap on zram under a verified memory workload
#     ($ZC_BIN/memstress) while zcsmalloc is loaded
#  6. everything unloads (rmmod zcsmalloc after its users)
#  7. no oops/warning/lockup taint
# KTAP on stdout; commands and their output on stderr.
set -u
. "$ZC_TESTS/guest/ktap-lib.sh"
OUT=${ZC_OUT:-/tmp}
DBG=/sys/kernel/debug
zram_dev=

cleanup() {
	if [ -n "$zram_dev" ]; then
		swapoff "/dev/$zram_dev" 2>/dev/null
		echo 1 >"/sys/block/$zram_dev/reset" 2>/dev/null
	fi
	rmmod zcsmalloc_bench zcsmalloc_test 2>/dev/null
	modprobe -r zram 2>/dev/null
	modprobe -r zcsmalloc 2>/dev/null
	true
}
trap cleanup EXIT

tap_begin_package
if ! modinfo zcsmalloc >/dev/null 2>&1; then
	# 00-package fails an install that lacks the modules; this suite
	# only tests them (a stand-in package, e.g. the harness fixture).
	echo "1..0 # SKIP no zcsmalloc module installed"
	exit 4
fi
echo "1..7"
taint_mark
mountpoint -q $DBG || mount -t debugfs none $DBG 2>/dev/null

# 1. self-test
# The test modules are built here, not shipped (ktap-lib.sh).
test_modules_build || echo "test modules: build failed" >&2
args=()
[ -z "${ZC_QUICK:-}" ] || args=(quick=1 ops=60000)
mark=$(dmesg | wc -l)
echo "+ modprobe zcsmalloc_test ${args[*]}" >&2
if modprobe zcsmalloc_test "${args[@]}" >&2; then st=ok; else st=fail; fi
dmesg | tail -n +"$((mark + 1))" | sed -n 's/^\[[ 0-9.]*\] //; s/^zcsmalloc_test: //p' \
	>"$OUT/selftest.ktap"
cat "$OUT/selftest.ktap" >&2
cases=$(grep -cE '^(not )?ok [0-9]+' "$OUT/selftest.ktap")
bad=$(grep -cE '^not ok [0-9]+' "$OUT/selftest.ktap")
sed 's/^/    /' "$OUT/selftest.ktap"
if [ $st = ok ] && [ "$cases" -gt 0 ] && [ "$bad" = 0 ]; then
	ok "zcsmalloc_test: $cases cases"
else
	nok "zcsmalloc_test: load $st, $cases cases, $bad not ok"
fi

# 2. fault-injection knob validation
p=/sys/module/zcsmalloc/parameters/fail_alloc_every
mark=$(dmesg | wc -l)
if [ -w $p ] && ! (echo bogus >$p) 2>/dev/null && ! (echo 2000000 >$p) 2>/dev/null &&
	echo 7 >$p && [ "$(cat $p)" = 7 ] && echo 0 >$p && [ "$(cat $p)" = 0 ]; then
	lines=$(dmesg | tail -n +"$((mark + 1))" | grep -c 'fail_alloc_every: invalid value')
	dmesg | tail -n +"$((mark + 1))" >&2
	if [ "$lines" = 2 ]; then
		ok "fail_alloc_every: bad values rejected, one dmesg line each"
	else
		nok "fail_alloc_every: $lines dmesg lines for 2 bad values"
	fi
else
	nok "fail_alloc_every: bad values accepted or good ones rejected"
fi

# 3. debugfs statistics
if [ -r $DBG/zcsmalloc/stats ]; then
	run cat $DBG/zcsmalloc/stats
	c=$(sed -n 's/^compacted_pages //p' $DBG/zcsmalloc/stats)
	if [ "${c:-0}" -gt 0 ]; then
		ok "debugfs zcsmalloc/stats: $c pages compacted by the self-test"
	else
		nok "debugfs zcsmalloc/stats: no compacted pages counted"
	fi
else
	skip "debugfs zcsmalloc/stats" "debugfs not available"
fi

# 4. benchmark
bargs=()
[ -z "${ZC_QUICK:-}" ] || bargs=(nr_objs=5000 churn_ops=20000 rounds=2)
mark=$(dmesg | wc -l)
echo "+ modprobe zcsmalloc_bench ${bargs[*]}" >&2
if modprobe zcsmalloc_bench "${bargs[@]}" >&2; then bst=ok; else bst=fail; fi
dmesg | tail -n +"$((mark + 1))" | sed -n 's/^\[[ 0-9.]*\] //; /^zcsmalloc_bench: /p' \
	>"$OUT/bench.txt"
echo "suite ${ZC_SUITE:-?} kernel $(uname -r) quick=${ZC_QUICK:-0}" >>"$OUT/bench.txt"
cat "$OUT/bench.txt" >&2
ratio=$(sed -n 's/^zcsmalloc_bench: ratio ours\/kernel: //p' "$OUT/bench.txt")
# Both allocators ran the whole workload and every object read back as
# written ("0 errors"); the ratio line is a figure, not a verdict.
clean=$(grep -c -E '^zcsmalloc_bench: (ours|kernel) \((zcsmalloc|zsmalloc)\): [0-9]+ ops/s .*, 0 errors$' "$OUT/bench.txt")
if [ $bst = ok ] && [ "$clean" = 2 ] && [[ $ratio =~ ^throughput\ [0-9.]+x\ density\ [0-9.]+x$ ]]; then
	ok "zcsmalloc_bench: both allocators, 0 errors; $ratio"
else
	nok "zcsmalloc_bench: load $bst, $clean of 2 allocators ran without errors, ratio '${ratio:-none}'"
fi
rmmod zcsmalloc_bench zcsmalloc_test 2>/dev/null

# 5. zram coexistence: swap on zram, verified workload, zcsmalloc loaded
ms=${ZC_BIN:-/nonexistent}/memstress
if ! modinfo zram >/dev/null 2>&1; then
	skip "swap on zram beside zcsmalloc" "no zram module in this kernel"
elif [ ! -x "$ms" ]; then
	nok "swap on zram beside zcsmalloc # $ms missing (tests/workloads/memstress.c not built)"
else
	# zram's pool is kernel memory outside the workload's cgroup: what
	# spills out of the cgroup stays in RAM.  The workload must fit in
	# what is available (a debug kernel leaves about 330 MiB of 1 GiB),
	# or the whole guest thrashes: 3/4 of MemAvailable at most, the
	# cgroup 5/12 of it, as 384/160 does.
	avail=$(mem_avail_mb)
	wl=384
	[ $((avail * 3 / 4)) -ge $wl ] || wl=$((avail * 3 / 4))
	zc_pressure $wl $((wl * 5 / 12))
	size=$ZC_PRESSURE_MB passes=2
	[ -z "${ZC_QUICK:-}" ] || passes=1
	if run modprobe zcsmalloc && run modprobe zram num_devices=1 &&
		zram_dev=zram0 &&
		echo $((MEM_MB * 2))M >/sys/block/zram0/disksize &&
		run mkswap /dev/zram0 && run swapon -p 100 /dev/zram0 &&
		run "${ZC_PRESSURE[@]}" "$ms" --size-mb "$size" --passes "$passes"; then
		run cat /proc/swaps /sys/block/zram0/mm_stat
		used=$(awk '{ print $3 }' /sys/block/zram0/mm_stat)
		# The workload must really have swapped to zram: sectors
		# written (field 7 of the block layer's stat file).
		wsec=$(awk '{ print $7 }' /sys/block/zram0/stat)
		if [ ! -d /sys/module/zcsmalloc ]; then
			nok "swap on zram beside zcsmalloc # zcsmalloc not loaded"
		elif [ "${wsec:-0}" -gt 0 ]; then
			ok "swap on zram beside zcsmalloc: memstress ${size} MiB x $passes verified, $((wsec / 8)) pages swapped to zram"
		else
			nok "swap on zram beside zcsmalloc # nothing was written to zram0 (the workload never swapped)"
		fi
		echo "# zram pool at the end: ${used:-?} bytes" >&2
	else
		nok "swap on zram beside zcsmalloc # setup or memstress failed"
	fi
fi

# 6. unload
if [ -n "$zram_dev" ]; then
	run swapoff /dev/$zram_dev
	echo 1 >/sys/block/$zram_dev/reset
	zram_dev=
fi
run modprobe -r zram
if run modprobe zcsmalloc && run rmmod zcsmalloc && [ ! -d /sys/module/zcsmalloc ]; then
	ok "rmmod zcsmalloc after its users are gone"
else
	nok "rmmod zcsmalloc after its users are gone"
fi

# 7. taint
check_taint
exit $failed
