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

# host_cpu CONSOLE: "EPOCH BUSY QEMU PIDS": the host's busy jiffies
# (/proc/stat), those of the QEMU of CONSOLE, and its PIDs (comma list).
host_cpu() {
	local q=0 pids='' p f
	for p in $(qemu_of "$1"); do
		read -r -a f <"/proc/$p/stat" 2>/dev/null || continue
		q=$((q + f[13] + f[14]))
		pids+=${pids:+,}$p
	done
	awk -v q="$q" -v t="$(date +%s)" -v p="${pids:--}" \
		'$1 == "cpu" {print t, $2 + $3 + $4 + $7 + $8 + $9, q, p; exit}' /proc/stat
}

# host_load_sampler CONSOLE: the host's CPU taken by anything but the
# QEMU of CONSOLE, every ZC_BENCH_LOAD_SECS (5) s: "EPOCH CORES" (another
# guest on the host counts as load).  Under TCG a busy host slows the
# guest's clock-time work unevenly, so the report shows per row how busy
# the host was while it ran.  An interval in which that QEMU started or
# ended gives no line: its CPU time is then known at one end only (at its
# exit the whole of it would count as the host's, 100 cores and more).
host_load_sampler() {
	local hz secs=${ZC_BENCH_LOAD_SECS:-5} t0 b0 q0 p0 t1 b1 q1 p1
	hz=$(getconf CLK_TCK)
	read -r t0 b0 q0 p0 < <(host_cpu "$1")
	while sleep "$secs"; do
		read -r t1 b1 q1 p1 < <(host_cpu "$1")
		[ "$p1" != "$p0" ] ||
			awk -v t="$t1" -v d=$(((b1 - b0) - (q1 - q0))) -v dt=$((t1 - t0)) -v hz="$hz" \
				'BEGIN {if (dt > 0) printf "%d %.2f\n", t, (d < 0 ? 0 : d) / (dt * hz)}'
		t0=$t1 b0=$b1 q0=$q1 p0=$p1
	done
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
