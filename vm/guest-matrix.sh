#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vm/guest-matrix.sh [vm/run.sh options] SUITE...: run vm/run.sh for each suite in
# turn (one guest at a time), show progress, and print the table: suite,
# kernel, install path, tests passed/failed/skipped, wall time, result.
# The table is also written to $ZC_CACHE/results/matrix-DATE.tsv.  Exit
# status 0 only when every run passed.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

opts=() suites=()
while [ $# -gt 0 ]; do
	case $1 in
	--quick|--no-panic-on-warn) opts+=("$1"); shift ;;
	--*) [ $# -ge 2 ] || zc_die "$1 needs a value"; opts+=("$1" "$2"); shift 2 ;;
	*) zc_check_suite "$1" || exit 2; suites+=("$1"); shift ;;
	esac
done
[ ${#suites[@]} -gt 0 ] || zc_die "usage: $0 [vm/run.sh options] SUITE..."

mkdir -p "$ZC_CACHE/results"
table=$ZC_CACHE/results/matrix-$(date +%Y%m%d-%H%M%S).tsv
t0=$SECONDS i=0 bad=0
for s in "${suites[@]}"; do
	i=$((i + 1))
	zc_log "=== [$i/${#suites[@]}] $s ${opts[*]}"
	line=$("$here/run.sh" "${opts[@]}" "$s" | tail -n 1) || bad=$((bad + 1))
	[ -n "$line" ] || line=$(printf '%s\t?\t?\t0\t0\t0\t?\tFAIL\tvm/run.sh printed no result' "$s")
	echo "$line" >>"$table"
	zc_log "=== [$i/${#suites[@]}] $s: $(echo "$line" | cut -f8)"
done

{
	echo
	printf '%-9s %-22s %-14s %6s %6s %7s %7s  %s\n' suite kernel install passed failed skipped wall result
	while IFS=$'\t' read -r s k inst p f sk w r _; do
		printf '%-9s %-22s %-14s %6s %6s %7s %6ss  %s\n' "$s" "$k" "$inst" "$p" "$f" "$sk" "$w" "$r"
	done <"$table"
	echo "total wall time: $((SECONDS - t0)) s; table: $table"
	if [ "$bad" -gt 0 ]; then
		echo "failures:"
		awk -F'\t' '$8 != "PASS" {print "  " $1 " (" $3 "): " $9}' "$table"
	fi
} | tee "$table.txt"
[ "$bad" -eq 0 ]
