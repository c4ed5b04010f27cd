#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/bench/selftest.sh: the benchmark's host side on a fixture, no guest
# (make bench-selftest; CI's harness-catch step).  tests/bench/fixture is
# the results folder of a real run (trixie, hdd profile, s18) without its
# zram-wb rows.  Checks:
#   - row_watch stops the QEMU whose console is the run's when the guest's
#     current row is overdue, and only that one, and leaves a row inside
#     its limit alone;
#   - row_stopped writes the row as the guest would (every column), TIMEOUT
#     for a rival and the run still passes, FAIL for zcache's own, and a
#     failure before the stop still fails the run;
#   - report.py then names the rival's TIMEOUT in the summary, keeps the
#     summary per workload and calls pc a control row without cleancache;
#   - host_load_sampler does not count a QEMU's CPU time as the host's
#     when that QEMU exits.
# Exit status 0 when every check passed.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
. "$repo/vm/lib.sh"
. "$here/hostwatch.sh"
zc_need_cmd gnuplot gnuplot-nox
zc_need_cmd python3 python3

t=$(mktemp -d)
fakes=()
cleanup() {
	[ ${#fakes[@]} -eq 0 ] || kill "${fakes[@]}" 2>/dev/null
	rm -rf "$t"
}
trap cleanup EXIT
nfail=0 n=0
check() {	# check DESCRIPTION COMMAND...
	local what=$1
	shift
	n=$((n + 1))
	if "$@"; then
		echo "ok $n $what"
	else
		echo "not ok $n $what"
		nfail=$((nfail + 1))
	fi
}
# fake_qemu CONSOLE: a process that looks like a QEMU of that console to
# row_watch (its command line starts with qemu-system, names the path)
fake_qemu() {
	(exec -a qemu-system-x86_64 perl -e 'sleep 600' -- \
		-chardev "file,id=ser0,path=$1") &
	fakes+=($!)
}
# alive PID: running (a killed child of this shell stays a zombie)
alive() { case $(ps -o stat= -p "$1" 2>/dev/null) in ''|Z*) return 1 ;; esac; }
gone() {	# gone PID: it ends within 10 s
	local tries=20
	while [ "$tries" -gt 0 ]; do
		alive "$1" || return 0
		sleep 0.5
		tries=$((tries - 1))
	done
	return 1
}
fresh() {	# fresh NAME: a copy of the fixture in $t/NAME
	mkdir -p "$t/$1"
	cp "$here"/fixture/* "$t/$1/"
}
cols() { awk -F'\t' -v n="$2" 'NR == n {print NF}' "$1"; }

export ZC_BENCH_WATCH_SECS=1
now=$(date +%s)

# 1. an overdue row: its QEMU is stopped, the other one is not
fresh watch
fake_qemu "$t/watch/console.log"
mine=${fakes[-1]}
fake_qemu "$t/other/console.log"
other=${fakes[-1]}
# started 100 s ago, limit 30 s, kill wait 10 s: 60 s past it all
echo "zram-wb ms2 1 30 $((now - 100)) 10" >"$t/watch/current-row"
timeout 30 bash -c '. "$1"; . "$2"; row_watch "$3" "$3/console.log" "$3/stop" 20' _ \
	"$repo/vm/lib.sh" "$here/hostwatch.sh" "$t/watch" >"$t/watch.log" 2>&1
check "row_watch: an overdue row stops its guest's QEMU" gone "$mine"
check "row_watch: another guest's QEMU is left running" alive "$other"
check "row_watch: the stop file names the row and its limit" \
	grep -qE '^zram-wb ms2 1 30 [0-9]+ [0-9]+$' "$t/watch/stop"
check "row_watch: says why it stopped the boot" grep -q 'zram-wb/ms2#1: .* past its limit of 30 s' "$t/watch.log"

# 2. a row inside its limit (+ kill wait + grace) is left alone
fresh inside
fake_qemu "$t/inside/console.log"
mine=${fakes[-1]}
echo "zram-wb ms2 1 30 $((now - 35)) 10" >"$t/inside/current-row"
timeout 4 bash -c '. "$1"; . "$2"; row_watch "$3" "$3/console.log" "$3/stop" 20' _ \
	"$repo/vm/lib.sh" "$here/hostwatch.sh" "$t/inside" >/dev/null 2>&1
check "row_watch: a row inside its limit and grace is left running" alive "$mine"
check "row_watch: ... and nothing is written" test ! -e "$t/inside/stop"

# 3. row_stopped: a rival's row is its TIMEOUT, the run passes
fresh rival
rows=$(wc -l <"$t/rival/results.tsv")
echo "zram-wb ms2 1 1611 $((now - 2400)) $now" >"$t/rival/stop"
touch "$t/rival/current-row"
row_stopped "$t/rival" "$t/rival/stop" 0 >/dev/null 2>&1
check "row_stopped: a rival's stall leaves the run passed" test $? = 0
check "row_stopped: one row appended" test "$(wc -l <"$t/rival/results.tsv")" = $((rows + 1))
check "row_stopped: every column of the header" \
	test "$(cols "$t/rival/results.tsv" $((rows + 1)))" = "$(cols "$t/rival/results.tsv" 1)"
check "row_stopped: TIMEOUT after 2400 s, the fixture's suite and kernel" \
	test "$(tail -n 1 "$t/rival/results.tsv" | cut -f1,2,4,5,6,7,9 | tr '\t' ' ')" = \
	"trixie 6.12.117+deb13-amd64 zram-wb ms2 1 TIMEOUT 2400"
check "row_stopped: skipped.txt says the host stopped the boot" \
	grep -q '^zram-wb/ms2#1: the guest stalled in it (789 s past its limit of 1611 s)' "$t/rival/skipped.txt"
check "row_stopped: the guest's current-row is gone" test ! -e "$t/rival/current-row"
python3 "$here/report.py" "$t/rival" >"$t/rival.out" 2>&1
check "report.py: runs on the stopped run" test $? = 0
check "report.py: the summary names zram-wb's TIMEOUT, not a ratio" \
	grep -q '^\*\*Summary\*\* .*ms2: zcache/disk I/O 0.46 .*/zram-wb TIMEOUT$' "$t/rival/report.md"
check "report.py: the comparison line too" grep -q 'ms2 zram-wb TIMEOUT\.' "$t/rival/report.md"
check "report.py: the summary is per workload (no pc in it)" \
	bash -c '! grep "^\*\*Summary" "$1" | grep -q "pc:"' _ "$t/rival/report.md"
check "report.py: pc is a control row without cleancache" \
	grep -q '^pc is a control row on this kernel (no cleancache)' "$t/rival/report.md"

# 4. zcache's own row stalled: FAIL, and the run fails
fresh own
echo "zcache ms2 2 900 $((now - 2000)) $now" >"$t/own/stop"
row_stopped "$t/own" "$t/own/stop" 0 >/dev/null 2>&1
check "row_stopped: zcache's own stall fails the run" test $? = 1
check "row_stopped: ... written as FAIL" test "$(tail -n 1 "$t/own/results.tsv" | cut -f4,7)" = "zcache	FAIL"

# 5. a rival's stall after a failure: the run stays failed
fresh failed
echo "zram-wb pc 1 300 $((now - 2000)) $now" >"$t/failed/stop"
row_stopped "$t/failed" "$t/failed/stop" 1 >/dev/null 2>&1
check "row_stopped: a failure before the stall still fails the run" test $? = 1

# 6. host_load_sampler across a QEMU that burns CPU and exits: no sample
# may count its CPU time as the host's (at its exit the whole of it did)
mkdir -p "$t/load"
(exec -a qemu-system-x86_64 perl -e 'my $e = time + 4; 1 while time < $e' -- \
	-chardev "file,id=ser0,path=$t/load/console.log") &
busy=$!
fakes+=("$busy")
ZC_BENCH_LOAD_SECS=1 timeout 8 bash -c '. "$1"; . "$2"; host_load_sampler "$3"' _ \
	"$repo/vm/lib.sh" "$here/hostwatch.sh" "$t/load/console.log" >"$t/load/host-load.txt"
ncpu=$(nproc)
check "host_load_sampler: samples while the QEMU ran and after" \
	test "$(wc -l <"$t/load/host-load.txt")" -ge 4
check "host_load_sampler: none above the host's $ncpu cores when the QEMU exits" \
	awk -v n="$ncpu" '$2 > n + 0.5 {bad = 1} END {exit bad}' "$t/load/host-load.txt"

echo "bench selftest: $nfail of $n failed"
[ "$nfail" = 0 ]
