#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/guest/run.sh: the in-guest test runner (started by the image's
# zcache-guest helper; see vm/README.md and docs/architecture.md).
#
#  1. builds tests/workloads/*.c with the guest's gcc into $ZC_BIN
#  2. runs tests/guest/suites/NN-*.sh in order, each with ZC_SUITE, ZC_TESTS,
#     ZC_OUT, ZC_BIN, ZC_QUICK (and the run's other ZC_* settings), KTAP on
#     stdout; exit 0 pass, 4 skip, else fail
#  3. judges each suite: its exit status, its "not ok" lines, its plan, and
#     kernel splats logged while it ran
#  4. aggregates KTAP ($ZC_RESULTS/ktap.txt), writes summary.tsv,
#     failures.txt, env.txt and dmesg.txt
#  5. writes the success token only if everything passed
#  6. always powers the machine off (unless ZC_NO_POWEROFF=1)
#
# Input (from the host's run.env): ZC_RUN_ID, ZC_SUITE, ZC_RESULTS,
# ZC_TESTS, ZC_QUICK, ZC_ONLY (glob of suite names), ZC_FORCE_FAIL (inject a
# failing test of that name), ZC_FORCE_WARN (inject a fake WARNING line).

set -u
# Only a harness guest may be powered off: elsewhere (vm/test-runner.sh on
# the host) ZC_NO_POWEROFF=1 is required.
if ! grep -q -E '(^| )zcshare=(9p|disk)( |$)' /proc/cmdline && [ "${ZC_NO_POWEROFF:-0}" != 1 ]; then
	echo "$0: not in a harness guest (no zcshare= on the kernel command line): set ZC_NO_POWEROFF=1" >&2
	exit 2
fi
DMESG=${ZC_DMESG_CMD:-dmesg}
export ZC_TESTS=${ZC_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
. "$ZC_TESTS/guest/ktap-lib.sh" || exit 2	# mem_avail_mb, kmemleak_scan
R=${ZC_RESULTS:?ZC_RESULTS must name the writable results directory}
export ZC_BIN=${ZC_BIN:-/var/tmp/zc-bin}
export ZC_SUITE=${ZC_SUITE:-unknown} ZC_QUICK=${ZC_QUICK:-}
SUITE_TIMEOUT=${ZC_SUITE_TIMEOUT:-3600}
# The lines that fail a run (one pattern for this runner and vm/run.sh).
SPLAT_RE=$(grep -v '^#' "$ZC_TESTS/guest/splat.re") || exit 2

mkdir -p "$R/suites" "$ZC_BIN" "${ZC_RUN_TMP:-/run}"
# Known distro noise that the splat checks skip (see the file).
IGNORE=${ZC_RUN_TMP:-/run}/zc-dmesg-ignore
grep -v -E '^#|^$' "$ZC_TESTS/guest/dmesg-ignore.txt" >"$IGNORE" 2>/dev/null || true
echo '^$' >>"$IGNORE"
splats() {
	awk -f "$ZC_TESTS/guest/fault-window.awk" "$1" | grep -a -E "$SPLAT_RE" |
		grep -a -v -E -f "$IGNORE"
}
rm -f "$R/token" "$R/summary.tsv" "$R/failures.txt" "$R/ktap.txt"
exec 3>&1 >>"$R/runner.log" 2>&1	# fd 3: the console (progress lines)
say() { echo "zc-run: $*" >&3; echo "[$(date +%T)] $*"; }

finish() {
	sync
	if [ "${ZC_NO_POWEROFF:-0}" = 1 ]; then exit "${1:-0}"; fi
	say "powering off"
	sync
	poweroff -f
	sleep 30
}

{
	echo "run: ${ZC_RUN_ID:-}"
	echo "suite: $ZC_SUITE"
	echo "kernel: $(uname -r)"
	echo "install: ${ZC_INSTALL:-}"
	echo "uname: $(uname -a)"
	echo "cmdline: $(cat /proc/cmdline)"
	echo "memory: $(awk '/MemTotal/ {print $2, $3}' /proc/meminfo)"
	echo "cpus: $(nproc)"
	dpkg-query -W 'zcache-*' 2>/dev/null | sed 's/^/deb: /'
	rpm -qa 'zcache*' 2>/dev/null | sed 's/^/rpm: /'
} >"$R/env.txt"
say "kernel $(uname -r), suite $ZC_SUITE, run ${ZC_RUN_ID:-?}"
# Under TCG on a loaded host a task can wait minutes for I/O without being
# hung: report only waits past 10 minutes (the host's timeout is the limit).
[ "${ZC_NO_POWEROFF:-0}" = 1 ] || sysctl -q -w kernel.hung_task_timeout_secs=600 2>/dev/null || true
if [ -n "${ZC_EXPECT_KERNEL:-}" ] && [ "$(uname -r)" != "$ZC_EXPECT_KERNEL" ]; then
	say "booted $(uname -r), expected $ZC_EXPECT_KERNEL"
fi

# The list of suites: synthetic ones (workload build, injected failure)
# are generated under /run/zc-suites.
gen=${ZC_RUN_TMP:-/run}/zc-suites
mkdir -p "$gen"
suites=()

# 1. Workloads.
shopt -s nullglob
wl=("$ZC_TESTS"/workloads/*.c)
# shellcheck disable=SC2053
if [ ${#wl[@]} -gt 0 ] && { [ -z "${ZC_ONLY:-}" ] || [[ workloads-build == $ZC_ONLY ]]; }; then
	cat >"$gen/workloads-build.sh" <<'EOS'
#!/bin/bash
# Build tests/workloads/*.c with the guest's gcc into $ZC_BIN.
set -u
files=("$ZC_TESTS"/workloads/*.c)
echo "TAP version 13"
echo "1..${#files[@]}"
n=0 rc=0
for c in "${files[@]}"; do
	n=$((n + 1)); b=$(basename "$c" .c)
	if gcc -O2 -g -Wall -pthread -o "$ZC_BIN/$b" "$c" -lm >"$ZC_OUT/$b.gcc.log" 2>&1; then
		echo "ok $n build $b"
	else
		echo "not ok $n build $b"; sed 's/^/# /' "$ZC_OUT/$b.gcc.log"; rc=1
	fi
done
exit $rc
EOS
	suites+=("$gen/workloads-build.sh")
fi
for s in "$ZC_TESTS"/guest/suites/[0-9][0-9]-*.sh; do
	n=$(basename "$s" .sh)
	# shellcheck disable=SC2053
	if [ -n "${ZC_ONLY:-}" ] && [[ $n != $ZC_ONLY ]]; then continue; fi
	suites+=("$s")
done
if [ -n "${ZC_FORCE_FAIL:-}" ]; then
	cat >"$gen/force-fail.sh" <<EOS
#!/bin/bash
# Injected by ZC_FORCE_FAIL: a test that fails on purpose.
echo "TAP version 13"
echo "1..1"
echo "not ok 1 $(echo "$ZC_FORCE_FAIL" | tr -cd 'A-Za-z0-9_.:-') # failed on purpose (ZC_FORCE_FAIL)"
exit 1
EOS
	suites+=("$gen/force-fail.sh")
fi
if [ -n "${ZC_FORCE_WARN:-}" ] && [ "${ZC_NO_POWEROFF:-0}" != 1 ]; then
	echo "WARNING: CPU: 0 PID: $$ at zcache-harness: injected by ZC_FORCE_WARN" >/dev/kmsg
fi

# While a suite runs: a progress line on the console every
# $ZC_WATCH_SECS (swap traffic, free memory, zcache's pool), so that a slow
# run can be told from a stuck one; a minute before the suite's timeout, the
# blocked tasks (sysrq w) go to the kernel log, where the splat check and
# the console log keep them.
WATCH_SECS=${ZC_WATCH_SECS:-60}
vmstat_pages() { awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat; }
watch_suite() {	# NAME START
	local out in mem swap pool dumped=0 now
	while sleep "$WATCH_SECS"; do
		now=$(( $(date +%s) - $2 ))
		out=$(vmstat_pages pswpout) in=$(vmstat_pages pswpin)
		mem=$(mem_avail_mb)
		swap=$(awk '/^SwapTotal:/ { t = $2 } /^SwapFree:/ { f = $2 } END { print int((t - f) / 1024) }' /proc/meminfo)
		pool=$(cat /sys/kernel/zcache/pool_pages 2>/dev/null || echo -)
		say "    $1: ${now}s: swapped out/in ${out:-?}/${in:-?} pages, swap used ${swap} MiB, available ${mem} MiB, zcache pool ${pool} pages"
		if [ "$dumped" = 0 ] && [ "$now" -ge $((SUITE_TIMEOUT - WATCH_SECS - 30)) ]; then
			dumped=1
			say "    $1: near its ${SUITE_TIMEOUT}s timeout: blocked tasks to the kernel log (sysrq w)"
			echo 1 >/proc/sys/kernel/sysrq 2>/dev/null
			echo w >/proc/sysrq-trigger 2>/dev/null
		fi
	done
}

# 2-3. Run and judge each suite.
all_ok=1 total=${#suites[@]} i=0
klog_mark() { $DMESG | wc -l; }
{
	echo "TAP version 13"
	echo "1..$total"
} >"$R/ktap.txt"
for s in "${suites[@]}"; do
	i=$((i + 1))
	n=$(basename "$s" .sh)
	d=$R/suites/$n
	mkdir -p "$d/out"
	export ZC_OUT=$d/out
	say "[$i/$total] $n: start"
	mark=$(klog_mark)
	t=$(date +%s)
	rc=0
	watch_suite "$n" "$t" &
	watcher=$!
	timeout -k 10 "$SUITE_TIMEOUT" bash "$s" >"$d/ktap.txt" 2>"$d/stderr.txt" </dev/null || rc=$?
	kill "$watcher" 2>/dev/null; wait "$watcher" 2>/dev/null
	secs=$(( $(date +%s) - t ))
	echo "$rc" >"$d/exit-status"
	$DMESG | tail -n +"$((mark + 1))" >"$d/dmesg.txt"
	# Top-level KTAP results only (subtests are indented).
	p=$(grep -c -E '^ok [0-9]+' "$d/ktap.txt" | tr -d ' ' || true)
	skp=$(grep -E '^ok [0-9]+' "$d/ktap.txt" | grep -c -i '# *SKIP' || true)
	p=$((p - skp))
	f=$(grep -c -E '^not ok [0-9]+' "$d/ktap.txt" || true)
	plan=$(sed -n -E 's/^1\.\.([0-9]+).*/\1/p' "$d/ktap.txt" | head -n 1)
	ran=$((p + skp + f))
	[ "$rc" != 4 ] || [ "$skp" -gt 0 ] || skp=1	# a skipped suite counts once
	why=()
	grep -E '^not ok [0-9]+' "$d/ktap.txt" | sed "s/^/$n: /" >>"$R/failures.txt"
	[ "$f" -eq 0 ] || why+=("$f test(s) not ok")
	case $rc in
	0) ;;
	4) ;;
	124|137) why+=("timed out after ${SUITE_TIMEOUT}s"); echo "$n: timed out after ${SUITE_TIMEOUT}s" >>"$R/failures.txt" ;;
	*) why+=("exit status $rc"); [ "$f" -gt 0 ] || echo "$n: exit status $rc, no 'not ok' line" >>"$R/failures.txt" ;;
	esac
	if grep -q '^Bail out!' "$d/ktap.txt"; then
		why+=("bailed out"); echo "$n: $(grep -m1 '^Bail out!' "$d/ktap.txt")" >>"$R/failures.txt"
	fi
	# The plan is checked whatever the exit status: a suite that skipped
	# (exit 4) after its plan must still account for every test.
	if [ -z "$plan" ]; then
		why+=("no plan"); echo "$n: printed no KTAP plan (1..N)" >>"$R/failures.txt"
	elif [ "$plan" != "$ran" ]; then
		why+=("planned $plan, ran $ran"); echo "$n: planned $plan tests, ran $ran" >>"$R/failures.txt"
	fi
	if splats "$d/dmesg.txt" >"$d/splats.txt"; then
		why+=("kernel splat"); echo "$n: kernel splat: $(head -n 1 "$d/splats.txt" | cut -c1-160)" >>"$R/failures.txt"
	fi
	if [ ${#why[@]} -gt 0 ]; then
		status=fail all_ok=0
		echo "not ok $i $n # $(IFS=,; echo "${why[*]}")" >>"$R/ktap.txt.tail"
	elif [ "$rc" = 4 ]; then
		status=skip
		echo "ok $i $n # SKIP $(grep -m1 -o -i '# *SKIP.*' "$d/ktap.txt" | sed 's/^# *SKIP *//')" >>"$R/ktap.txt.tail"
	else
		status=pass
		echo "ok $i $n" >>"$R/ktap.txt.tail"
	fi
	# The suite's KTAP as a subtest, indented.
	{ sed 's/^/    /' "$d/ktap.txt"; cat "$R/ktap.txt.tail"; } >>"$R/ktap.txt"
	rm -f "$R/ktap.txt.tail"
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$n" "$status" "$p" "$f" "$skp" "$secs" >>"$R/summary.tsv"
	say "[$i/$total] $n: $status ($p passed, $f failed, $skp skipped, ${secs}s)${why:+: $(IFS=,; echo "${why[*]}")}"
	[ "$status" != fail ] || sed 's/^/zc-run:     /' "$d/ktap.txt" | grep -E '^zc-run: +not ok' | cut -c1-200 >&3
	sync
done

# 4. The kernel log of the whole boot; kmemleak where the kernel has it.
if [ "${ZC_NO_POWEROFF:-0}" = 1 ]; then :
elif [ -w /sys/kernel/debug/kmemleak ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null; then
	if leaks=$(kmemleak_scan "$R/kmemleak.txt") && [ "$leaks" != 0 ]; then
		all_ok=0; echo "kmemleak: $leaks leak(s)" >>"$R/failures.txt"
	fi
	[ ! -s "$R/kmemleak.txt.known" ] ||
		say "kmemleak: $(grep -c '^unreferenced object' "$R/kmemleak.txt.known") known kernel leak(s) not counted (kmemleak.txt.known)"
fi
$DMESG >"$R/dmesg.txt"
if splats "$R/dmesg.txt" >"$R/splats.txt"; then
	all_ok=0
	echo "kernel log: $(head -n 1 "$R/splats.txt" | cut -c1-160)" >>"$R/failures.txt"
	say "kernel splat in the log: $(head -n 1 "$R/splats.txt" | cut -c1-120)"
fi
[ "$total" -gt 0 ] || { all_ok=0; echo "runner: no suite to run" >>"$R/failures.txt"; }

# 5. The token.
if [ "$all_ok" = 1 ]; then
	echo "ZC-TESTS-PASSED ${ZC_RUN_ID:-}" >"$R/token"
	say "all $total suite(s) passed: token written"
else
	say "FAILED: $(cut -c1-100 "$R/failures.txt" | head -n 5 | paste -sd "|")"
fi
# 6. Power off.
finish 0
