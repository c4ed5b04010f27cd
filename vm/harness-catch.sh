#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vm/harness-catch.sh [SUITE]: prove that the VM harness fails a run, and
# names the cause, when something goes wrong in the guest (make
# vm-harness-catch).  Two runs of SUITE (default bookworm), no package
# needed, each of which MUST fail:
#   force-fail  ZC_FORCE_FAIL=harness-canary: the guest runner injects a test
#               of that name that fails; the result must name it
#   splat       ZC_FORCE_WARN=1 (same boot): a "WARNING:" line lands in the
#               guest's kernel log; the result must report a kernel splat
#   timeout     --timeout 15: the guest cannot finish; the result must say
#               timeout
# Exit status 0 when all three were caught.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
suite=${1:-bookworm}
zc_check_suite "$suite" || exit 2
stamp=$(date +%Y%m%d-%H%M%S)
ok=0 total=0
expect() {	# expect NAME PATTERN COMMAND...: COMMAND must fail, naming PATTERN
	local what=$1 pat=$2 line rc=0
	shift 2
	total=$((total + 1))
	zc_log "harness-catch: $what (must FAIL and mention '$pat')"
	line=$("$@" | tail -n 1) || rc=$?
	echo "    result: $line" >&2
	if [ "$rc" != 0 ] && echo "$line" | cut -f8- | grep -q -- "$pat" &&
	   [ "$(echo "$line" | cut -f8)" = FAIL ]; then
		zc_log "harness-catch: $what: caught"
		ok=$((ok + 1))
	else
		zc_log "harness-catch: $what: NOT caught (exit $rc)"
	fi
}
run=("$here/run.sh" --install none --only 00-harness --timeout 600)
# One boot for the two guest-side injections (each must be named).
expect force-fail "harness-canary" \
	env ZC_FORCE_FAIL=harness-canary ZC_FORCE_WARN=1 "${run[@]}" --name "catch-$stamp" "$suite"
total=$((total + 1))
if grep -q 'kernel splat' "$ZC_CACHE/logs/catch-$stamp/summary.tsv" 2>/dev/null; then
	zc_log "harness-catch: splat (ZC_FORCE_WARN): caught"; ok=$((ok + 1))
else
	zc_log "harness-catch: splat (ZC_FORCE_WARN): NOT caught"
fi
expect timeout "timeout" \
	"$here/run.sh" --install none --timeout 15 --name "catch-timeout-$stamp" "$suite"
zc_log "harness-catch: $ok of $total failures caught"
[ "$ok" = "$total" ]
