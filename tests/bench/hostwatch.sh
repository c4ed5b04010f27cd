# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# tests/bench/hostwatch.sh: the host's limit of a benchmark row, sourced
# by tests/bench/run.sh (and tests/bench/selftest.sh).
#
# The guest stops a row at its limit and gives up on it when its
# processes outlive SIGKILL (guest.sh run_bounded), but a guest can stall
# whole: zram-wb on the hdd profile, its pool full at mem_limit, failing
# swap writes by the thousand (s18 trixie: the console still printing
# them, the bench script silent 800 s past the row's deadline).  The
# guest names the running row in bench/current-row on the live share
# ("CFG WL REP LIMIT-S START-EPOCH KILL-WAIT-S"); when that row is still
# there GRACE s after the guest's own deadline and kill wait, the host
# stops the boot (row_watch) and writes the row itself (row_stopped).
# The rows after it do not run.

# qemu_of CONSOLE: the PIDs of the QEMU whose serial console is the file
# CONSOLE (one per boot; another guest on the host is not it)
qemu_of() {
	local p
	for p in $(pgrep -f '^qemu-system'); do
		grep -qzF "path=$1" "/proc/$p/cmdline" 2>/dev/null && echo "$p"
	done
	return 0
}

# row_watch BENCH-DIR CONSOLE STOP-FILE GRACE: until it stops a boot,
# every ZC_BENCH_WATCH_SECS (15) s: when BENCH-DIR/current-row is overdue,
# writes "CFG WL REP LIMIT START NOW" to STOP-FILE and sends SIGTERM to
# the QEMU whose serial console is the file CONSOLE.
row_watch() {
	local cur=$1/current-row console=$2 stopf=$3 grace=$4 cfg wl r lim t0 kw now p
	while sleep "${ZC_BENCH_WATCH_SECS:-15}"; do
		[ -f "$cur" ] && read -r cfg wl r lim t0 kw <"$cur" 2>/dev/null || continue
		case $lim$t0$kw in ''|*[!0-9]*) continue ;; esac
		now=$(date +%s)
		[ "$now" -gt $((t0 + lim + kw + grace)) ] || continue
		echo "$cfg $wl $r $lim $t0 $now" >"$stopf"
		zc_log "$cfg/$wl#$r: $((now - t0 - lim)) s past its limit of $lim s and the guest has not moved on: stopping the boot"
		for p in $(qemu_of "$console"); do
			kill "$p"
		done
		return 0
	done
}

# row_stopped BENCH-DIR STOP-FILE RUN-FAILED: the row the host stopped,
# appended to results.tsv as the guest would have written it: TIMEOUT for
# a rival (its result), FAIL for zcache's own; "-" for what only the
# guest measures.  Returns 0 when the run still counts as passed: a
# rival's row, and RUN-FAILED (the guest's failures or a kernel report
# before the stop) is 0.
row_stopped() {
	local out=$1 stopf=$2 failed=$3 cfg wl r lim t0 now st=TIMEOUT s k p ws ram
	read -r cfg wl r lim t0 now <"$stopf"
	# suite, kernel, profile, ws_mib and ram_mib: those of the first row
	IFS=$'\t' read -r s k p ws ram < <(sed -n 2p "$out/results.tsv" | cut -f1-3,26,27)
	case $cfg in zcache*) st=FAIL ;; esac
	printf '%s\t' "$s" "$k" "$p" "$cfg" "$wl" "$r" "$st" 124 "$((now - t0))" \
		- - - - - - - - - - - - - - - - >>"$out/results.tsv"
	printf '%s\t%s\t-\t-\n' "$ws" "$ram" >>"$out/results.tsv"
	echo "$cfg/$wl#$r: the guest stalled in it ($((now - t0 - lim)) s past its limit of $lim s); the host stopped the boot, the rows after it did not run" >>"$out/skipped.txt"
	rm -f "$out/current-row"
	if [ "$st" = TIMEOUT ] && [ "$failed" = 0 ]; then
		zc_log "$cfg/$wl#$r: TIMEOUT written by the host; nothing failed before it"
		return 0
	fi
	zc_log "$cfg/$wl#$r: $st written by the host"
	return 1
}
