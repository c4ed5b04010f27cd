#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 33-zcache-core: the zcache core in the guest.
#  1. zcache loads; /sys/kernel/zcache/ and its parameters are there
#  2. zcache_test (built in the guest from the harness's copy of src/,
#     with its own copy of the core) loads; its KTAP cases from dmesg
#     become subtests; a failing case fails the load
#  3. compressor: every available name is accepted at run time and read
#     back; an unknown one gives EINVAL and one dmesg line listing what is
#     available
#  4. garbage to every core parameter: EINVAL, one dmesg line each, value
#     unchanged
#  5. zswap on at the same time: zcachectl status warns
#  6. debugfs pools table
#  7. zcache_test and zcache unload (unless a front end pinned zcache)
#  8. no oops/warning/lockup taint
# KTAP on stdout; commands and their output on stderr.
set -u
. "$ZC_TESTS/guest/ktap-lib.sh"
OUT=${ZC_OUT:-/tmp}
G=/sys/kernel/zcache
P=/sys/module/zcache/parameters
Z=/sys/module/zswap/parameters/enabled
DBG=/sys/kernel/debug
zswap0=

cleanup() {
	[ -z "$zswap0" ] || echo "$zswap0" >$Z 2>/dev/null
	rmmod zcache_test 2>/dev/null
	true
}
trap cleanup EXIT

# dmesg lines since mark $1
since() { dmesg | tail -n +"$(($1 + 1))"; }

tap_begin_package
echo "1..8"
taint_mark
mountpoint -q $DBG || mount -t debugfs none $DBG 2>/dev/null

# 1. load
echo "+ modprobe zcache" >&2
if modprobe zcache >&2 && [ -r $G/stored_pages ] && [ -r $P/compressor ]; then
	ok "modprobe zcache: /sys/kernel/zcache and parameters present"
	for f in $G/*; do echo "$f: $(cat "$f")"; done >&2
	for f in $P/*; do echo "$f: $(cat "$f")"; done >&2
else
	nok "modprobe zcache: /sys/kernel/zcache and parameters present"
fi

# 2. self-test
# The test modules are built here, not shipped (ktap-lib.sh).
test_modules_build || echo "test modules: build failed" >&2
mark=$(dmesg | wc -l)
echo "+ modprobe zcache_test" >&2
if modprobe zcache_test >&2; then st=ok; else st=fail; fi
since "$mark" | sed -n 's/^\[[ 0-9.]*\] //; s/^zcache_test: //p' >"$OUT/selftest.ktap"
cat "$OUT/selftest.ktap" >&2
cases=$(grep -cE '^(not )?ok [0-9]+' "$OUT/selftest.ktap")
bad=$(grep -cE '^not ok [0-9]+' "$OUT/selftest.ktap")
grep -E '^(not )?ok [0-9]+|^1\.\.' "$OUT/selftest.ktap" | sed 's/^/    /'
if [ $st = ok ] && [ "$cases" -gt 0 ] && [ "$bad" = 0 ]; then
	ok "zcache_test: $cases cases"
else
	nok "zcache_test: load $st, $cases cases, $bad not ok"
fi
rmmod zcache_test 2>/dev/null

# 3. compressor at run time
old=$(cat $P/compressor)
good="" missing=""
for c in lzo lzo-rle lz4 zstd; do
	if (echo $c >$P/compressor) 2>/dev/null && [ "$(cat $P/compressor)" = $c ]; then
		good="$good $c"
	else
		missing="$missing $c"
	fi
done
mark=$(dmesg | wc -l)
if (echo bogus >$P/compressor) 2>/dev/null; then
	nok "compressor: bogus accepted"
else
	lines=$(since "$mark" | grep -c 'compressor "bogus" is not available; available:')
	since "$mark" >&2
	echo "# accepted:$good; not available:${missing:- none}" >&2
	case "$good" in
	*lzo*) if [ "$lines" = 1 ]; then
			ok "compressor: accepted$good; bogus -> EINVAL + one dmesg line"
		else
			nok "compressor: $lines dmesg lines for bogus"
		fi ;;
	*) nok "compressor: not even lzo accepted (accepted:$good)" ;;
	esac
fi
echo "$old" >$P/compressor 2>/dev/null

# 4. garbage to every core parameter
bad_total=0 lines_total=0 changed=""
try() { # param value...
	local p=$1 v before
	shift
	before=$(cat $P/"$p")
	for v in "$@"; do
		if (printf '%s' "$v" >$P/"$p") 2>/dev/null; then
			changed="$changed $p=$v(accepted)"
		fi
		bad_total=$((bad_total + 1))
	done
	[ "$(cat $P/"$p")" = "$before" ] || changed="$changed $p(changed)"
}
mark=$(dmesg | wc -l)
try max_pool_percent 0 91 -1 abc 1e9
try accept_threshold_percent 0 101 x
try poor_compression_percent 5 101 y
try same_filled_pages maybe 2
try enabled x 3
[ -e $P/frontswap ] && try frontswap maybe 7
[ -e $P/cleancache ] && try cleancache maybe 7
lines_total=$(since "$mark" | grep -cE '^\[[ 0-9.]*\] zcache: ')
since "$mark" >&2
if [ -z "$changed" ] && [ "$lines_total" = "$bad_total" ]; then
	ok "parameters: $bad_total bad values rejected, one dmesg line each"
else
	nok "parameters: $bad_total bad values, $lines_total dmesg lines;${changed}"
fi

# 5. zswap at the same time.  The module cannot know (zswap exports no
# state, and a module must not read files): zcachectl status tells.
if [ -w $Z ] && command -v zcachectl >/dev/null; then
	zswap0=$(cat $Z)
	echo Y >$Z
	on=$(zcachectl status 2>&1 | grep -c 'WARNING: zswap is enabled too')
	echo N >$Z
	off=$(zcachectl status 2>&1 | grep -c 'WARNING: zswap is enabled too')
	echo "# zcachectl status zswap warnings: zswap on $on, off $off" >&2
	if [ "$on$off" = 10 ]; then
		ok "zswap enabled too: zcachectl status warns, and only then"
	else
		nok "zswap enabled too: zcachectl status warned $on times with zswap on, $off off"
	fi
	echo "$zswap0" >$Z
	zswap0=
else
	skip "zswap enabled too" "no writable $Z or no zcachectl (zcache-utils)"
fi

# 6. debugfs
if [ -r $DBG/zcache/pools ]; then
	cat $DBG/zcache/pools >&2
	# The table agrees with sysfs: the limit, and one row per pool.
	rows=$(awk 'h { n++ } /^pool / { h = 1 } END { print n + 0 }' $DBG/zcache/pools)
	lim=$(sed -n 's/.* limit_pages \([0-9]*\) .*/\1/p' $DBG/zcache/pools)
	if [ "$lim" = "$(cat $G/pool_limit_pages)" ] && [ "$rows" = "$(cat $G/pools)" ]; then
		ok "debugfs zcache/pools: limit $lim, $rows pools as in sysfs"
	else
		nok "debugfs zcache/pools: limit '$lim' rows $rows, sysfs limit $(cat $G/pool_limit_pages) pools $(cat $G/pools)"
	fi
else
	skip "debugfs zcache/pools" "debugfs not available"
fi

# 7. unload
if [ "$(cat $G/frontswap_active 2>/dev/null)" = 1 ] ||
	[ "$(cat $G/cleancache_active 2>/dev/null)" = 1 ]; then
	skip "rmmod zcache" "a front end registered: the module is pinned"
elif ls /dev/zcache[0-9]* >/dev/null 2>&1 && grep -q '^/dev/zcache' /proc/swaps; then
	skip "rmmod zcache" "a zcache device is in use"
else
	echo "+ rmmod zcache" >&2
	if rmmod zcache >&2; then ok "rmmod zcache"; else nok "rmmod zcache"; fi
fi

# 8. taint
check_taint
exit $failed
