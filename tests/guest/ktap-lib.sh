# SPDX-License-Identifier: GPL-2.0
#
# tests/guest/ktap-lib.sh: what the guest suites share.  Sourced by a suite:
#   . "$ZC_TESTS/guest/ktap-lib.sh"
# Suites print KTAP on stdout and their commands on stderr.  The runner
# (run.sh) sources it too, for mem_avail_mb and kmemleak_scan.

n=0 failed=0

# The KTAP header of a suite that tests the package; the whole suite is
# skipped (exit 4) in runs that install none (vm/run.sh --install none).
tap_begin_package() {
	echo "TAP version 13"
	if [ "${ZC_INSTALL:-}" = none ]; then
		echo "1..0 # SKIP no package installed (ZC_INSTALL=none)"
		exit 4
	fi
}
ok() { n=$((n + 1)); echo "ok $n $*"; }
nok() { n=$((n + 1)); failed=1; echo "not ok $n $*"; }
skip() { n=$((n + 1)); echo "ok $n $1 # SKIP ${2:-}"; }
# test_modules_build: zcsmalloc_test, zcache_test and zcsmalloc_bench are
# not in the package (users never get test code): the harness copies src/
# into the run's tests (vm/run.sh: tests/zcache-src).  When the image's
# chroot built them from the same source (vm/image.sh --test-src, its
# .zc-src-hash equal to the copy's), they are used as they are; else
# this builds them against the running kernel and installs them under
# /lib/modules/KVER/extra/zcache-tests with src/Makefile's install-tests
# (the same target as the image's; the root disk is a snapshot), once per
# boot; modprobe then finds them and loads zcsmalloc.ko of the
# package under them.  Status 0 when they are there; the build log is on
# stderr when it fails.
test_modules_build() {
	local kver dir b rc=0 st=${ZC_RUN_TMP:-/run}/zc-test-modules
	[ ! -e "$st" ] || return "$(cat "$st")"
	kver=$(uname -r)
	dir=/lib/modules/$kver/extra/zcache-tests
	if [ ! -d "$ZC_TESTS/zcache-src" ]; then
		echo "test modules: no $ZC_TESTS/zcache-src (harness copy of src/)" >&2
		echo 1 >"$st"
		return 1
	fi
	# Built in the image's chroot from this very source (vm/image.sh
	# --test-src; src/Makefile install-tests writes the stamp last).
	if cmp -s "$dir/.zc-src-hash" "$ZC_TESTS/zcache-src/.zc-src-hash"; then
		echo "test modules: built in the image for source $(cat "$dir/.zc-src-hash"), in $dir" >&2
		echo 0 >"$st"
		return 0
	fi
	b=$(mktemp -d /tmp/zcache-tests.XXXXXX)
	cp -a "$ZC_TESTS/zcache-src/." "$b/"
	echo "+ make -C $b install-tests KDIR=/lib/modules/$kver/build KVER=$kver" >&2
	if make -C "$b" -j"$(nproc)" install-tests KDIR="/lib/modules/$kver/build" \
	    KVER="$kver" >"$b/build.log" 2>&1; then
		echo "test modules: built and installed in $dir" >&2
	else
		rc=1
		tail -n 40 "$b/build.log" >&2
	fi
	rm -rf "$b"
	echo "$rc" >"$st"
	return "$rc"
}

# check DESCRIPTION COMMAND...: one test, the command's output on stderr.
check() {
	local d=$1; shift
	echo "+ $*" >&2
	if "$@" >&2; then ok "$d"; else nok "$d"; fi
}
# run COMMAND...: echo it and run it, its output on stderr.
run() { echo "+ $*" >&2; "$@" >&2; }

PAGE=$(getconf PAGESIZE)
MEM_KB=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)
MEM_MB=$((MEM_KB / 1024))
# mem_avail_mb: the kernel's estimate of what can be allocated without
# swapping (MemAvailable), in MiB.
mem_avail_mb() { awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo; }
# kmemleak_scan OUT: where kmemleak runs (debugfs mounted), two scans 5 s
# apart (an object is reported once no scan found a reference to it), its
# report to OUT and the number of unreferenced objects on stdout.  Status
# 1, nothing written, where the kernel has no kmemleak.  Objects that
# kmemleak-known.txt names (leaks of the kernel's own error paths, with
# the source that shows them) go to OUT.known and are not counted.
kmemleak_scan() {
	local k=/sys/kernel/debug/kmemleak g=$ZC_TESTS/guest
	[ -w $k ] || return 1
	echo scan >$k; sleep 5; echo scan >$k
	: >"$1.known"
	awk -v kernel="$(uname -r)" -v known="$1.known" -f "$g/kmemleak-known.awk" \
		"$g/kmemleak-known.txt" $k >"$1"
	[ -s "$1.known" ] || rm -f "$1.known"
	grep -c '^unreferenced object' "$1" || :
}

# text_file PAGES OUT: PAGES pages of compressible text, the same bytes
# in every suite.  Written to the file and cut there: the guest runs the
# suites with SIGPIPE ignored (a systemd service), so a generator piped
# into `head -c` would go on writing into the closed pipe, an error line
# per write (2613 of them in suite 30's log, and hours under the debug
# kernel).
text_file() {
	awk -v n=$(($1 * PAGE)) 'BEGIN {
		for (i = 0; len < n; i++) {
			l = sprintf("zcache line %d: the quick brown fox %d jumps\n", i, i * 7919 % 10007)
			printf "%s", l
			len += length(l)
		}
	}' >"$2" && truncate -s $(($1 * PAGE)) "$2"
}

# Page I/O on the block device $DEV (direct I/O, PAGE-sized blocks), for
# suites that set DEV and a work directory W:
# wpages FILE PAGE: write FILE at page PAGE.
wpages() { dd if="$1" of="$DEV" bs="$PAGE" seek="$2" oflag=direct conv=notrunc status=none; }
# rpages PAGE COUNT OUT: read COUNT pages from PAGE into OUT.
rpages() { dd if="$DEV" of="$3" bs="$PAGE" skip="$1" count="$2" iflag=direct status=none; }
# verify FILE PAGE: what is at PAGE is FILE.
verify() {
	local pages=$(( $(stat -c %s "$1") / PAGE ))
	rpages "$2" "$pages" "$W/readback" && cmp "$1" "$W/readback"
}
# udev's blkid opens a device after a writer closes it: wait for that
# before anything that needs the device closed (reset, remove).
settle() { udevadm settle 2>/dev/null; sleep 0.2; }
# setup SIZE [BACKING]: configure the zcache device whose sysfs directory
# is $S from scratch: reset, backing device, disk size.
setup() {
	settle
	echo 1 >"$S/reset" || return 1
	if [ -n "${2:-}" ]; then echo "$2" >"$S/backing_dev" || return 1; fi
	if [ -n "${3:-}" ]; then echo "$3" >"$S/writeback" || return 1; fi
	echo "$1" >"$S/disksize"
}
# ZC_IO_FN: the functions above for `sh -c "$ZC_IO_FN; ..."` (set by zc_io_fn
# once DEV, S and W are known).
zc_io_fn() { ZC_IO_FN="$(declare -f wpages rpages verify settle setup "$@"); PAGE=$PAGE DEV=$DEV S=$S W=$W"; }

# zc_backing_setup: set `backing` to the backing device of a suite's
# /dev/zcache0: the scratch disk ($ZC_SCRATCH_DEV, its signatures wiped),
# else a loop device over a new 1 GiB file in $W, also put in `loopdev`
# for the suite's cleanup to detach.
zc_backing_setup() {
	if [ -n "${ZC_SCRATCH_DEV:-}" ] && [ -b "$ZC_SCRATCH_DEV" ]; then
		backing=$(readlink -f "$ZC_SCRATCH_DEV")
		wipefs -a "$backing" >/dev/null 2>&1
	else
		truncate -s 1G "$W/backing.img"
		loopdev=$(losetup -f --show "$W/backing.img")
		backing=$loopdev
	fi
}

# zc_pressure SIZE_MB LIMIT_MB: set ZC_PRESSURE (an array: a command prefix)
# and ZC_PRESSURE_MB (the workload size to use) so that a workload of SIZE_MB
# swaps in a memory cgroup of LIMIT_MB.  Swapping inside a cgroup goes
# through the same swap-out and swap-in paths as global reclaim, but leaves
# the rest of the guest its memory: under TCG, heavy global swapping of
# the whole guest takes tens of minutes and trips soft-lockup detectors.
# Without cgroup v2 and systemd-run: global pressure, 1.1x RAM.
zc_pressure() {
	if command -v systemd-run >/dev/null && [ -f /sys/fs/cgroup/cgroup.controllers ]; then
		ZC_PRESSURE=(systemd-run --scope -q -p "MemoryMax=${2}M" -p MemorySwapMax=infinity)
		ZC_PRESSURE_MB=$1
		echo "# workload: $1 MiB in a memory cgroup of $2 MiB" >&2
	else
		ZC_PRESSURE=()
		ZC_PRESSURE_MB=$((MEM_MB * 11 / 10))
		echo "# workload: $ZC_PRESSURE_MB MiB, global pressure (no cgroup v2)" >&2
	fi
}

# The kernel's taint flags a test run must not set: 7 (D, died: an oops),
# 9 (W, a WARNING), 14 (L, a soft lockup).
bad_taint() { echo $(( $(cat /proc/sys/kernel/tainted) & ((1 << 7) | (1 << 9) | (1 << 14)) )); }
# taint_mark: note them at the suite's start; check_taint: one test, none
# of them set since.
taint_mark() { ZC_TAINT0=$(bad_taint); }
check_taint() {
	local t
	t=$(cat /proc/sys/kernel/tainted)
	if [ "$(bad_taint)" = "${ZC_TAINT0:-0}" ]; then
		ok "no oops, warning or soft lockup (tainted=$t)"
	else
		nok "no oops, warning or soft lockup # tainted=$t"
	fi
}

# check_pool_limit SAMPLES LIMIT: one test: the pool's pages (column 2 of
# each sample line) stayed within its limit (column 3), with 16 pages of
# slack for stores in flight.
check_pool_limit() {
	local over peak
	over=$(awk '$2 > $3 + 16 { c++ } END { print c + 0 }' "$1")
	peak=$(awk '$2 > m { m = $2 } END { print m + 0 }' "$1")
	if [ "$over" = 0 ]; then
		ok "pool within its limit: peak $peak pages, limit $2"
	else
		nok "pool over its limit in $over samples: peak $peak, limit $2"
	fi
}

# kmsg_mark: write a unique marker line to the kernel log and print it.
# zcache_said MARK: a kernel log line after MARK names zcache (the module's
# own messages and the kernel's parameter errors carry its name); any other
# new line (udev, a loop device) does not count.  A marker, not a line
# count, so that a full log buffer that drops old lines cannot fool it.
kmsg_mark() {
	local m="zc-mark-$$-$(date +%s%N)"
	echo "$m" >/dev/kmsg
	echo "$m"
}
zcache_said() { dmesg | sed -n "/$1\$/,\$p" | tail -n +2 | grep -q 'zcache'; }

# fi_window_begin / fi_window_end: allocations fail on purpose between the
# two (fault injection); the splat checks skip the stack dumps of the
# kernel's allocation-failure reports there, and nothing else
# (tests/guest/fault-window.awk).  Call fi_window_end from the suite's
# EXIT trap too: a window left open would last to the end of the log.
fi_window_begin() { echo "zc-fault-window: begin $1" >/dev/kmsg; }
fi_window_end() { echo "zc-fault-window: end" >/dev/kmsg 2>/dev/null || true; }
