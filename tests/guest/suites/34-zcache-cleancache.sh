#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 34-zcache-cleancache: zcache as the cleancache backend (only on kernels
# built with CONFIG_CLEANCACHE, i.e. the 5.10-zc-cleancache test kernel of
# vm/testkernel.sh; elsewhere the whole suite is a KTAP skip, exit 4).
#  1. cleancache=1 registers the backend (cleancache_active = 1)
#  2. an ext4 file system: the scratch disk ($ZC_SCRATCH_DEV) made with
#     mkfs.ext4 and mounted after the registration (its own cleancache
#     pool appears), else a directory in /var/tmp on the root ext4
#  3. a verified page-cache workload ($ZC_BIN/pagecache) over a file set
#     larger than RAM: every block read back is checked
#  4. cleancache puts > 0 (the kernel's debugfs counter and zcache's stores)
#  5. cleancache hits > 0 (successful gets, and zcache's loads)
#  6. the pool stays within max_pool_percent (sampled during the run)
#  7. umount drops the file system's pool (invalidate_fs)
#  8. no oops/warning/lockup taint, no splat in dmesg during the suite
# At the end cleancache=0: the backend stays registered (the module is
# pinned) but accepts no new pages.
# KTAP on stdout; commands and their output on stderr; the figures as '# '
# diagnostic lines and in $ZC_OUT/cleancache-stats.txt.
set -u
. "$ZC_TESTS/guest/ktap-lib.sh"
diag() { echo "# $*"; }
OUT=${ZC_OUT:-/tmp}
G=/sys/kernel/zcache
P=/sys/module/zcache/parameters
DBG=/sys/kernel/debug
CC=$DBG/cleancache
POOLS=$DBG/zcache/pools
W=$(mktemp -d /var/tmp/zc34.XXXXXX)
mnt= sampler= registered=

cleanup() {
	[ -z "$sampler" ] || kill "$sampler" 2>/dev/null
	[ -z "$mnt" ] || umount "$mnt" 2>/dev/null
	# The backend stays registered (no unregister: the module is pinned),
	# but takes no new pages once the suite is over: later suites see
	# zcache as they would without this one.
	[ -z "$registered" ] || echo 0 >$P/cleancache 2>/dev/null
	rm -rf "$W"
	true
}
trap cleanup EXIT

# A counter of the kernel's cleancache debugfs (0 when absent).
ccstat() { cat "$CC/$1" 2>/dev/null || echo 0; }
# The cleancache pools of zcache, one name a line.
ccpools() { awk '$1 ~ /^cleancache-/ { print $1 }' "$POOLS" 2>/dev/null | sort; }

tap_begin_package
mountpoint -q $DBG || mount -t debugfs none $DBG 2>/dev/null
if [ ! -d $CC ] && ! grep -q '^CONFIG_CLEANCACHE=y' "/boot/config-$(uname -r)" 2>/dev/null; then
	echo "1..0 # SKIP $(uname -r) has no cleancache (CONFIG_CLEANCACHE unset)"
	exit 4
fi
modprobe zcache >&2
if [ ! -e $P/cleancache ]; then
	# The kernel has the hook: the probe must have found it.
	echo "1..1"
	nok "cleancache parameter present on a CONFIG_CLEANCACHE kernel # $P/cleancache missing (see the DKMS build log's probe block)"
	exit 1
fi
echo "1..8"
taint_mark
mark=$(dmesg | wc -l)
PAGE=$(getconf PAGESIZE)
echo Y >$P/enabled

# 1. register
echo "+ echo 1 >$P/cleancache" >&2
if echo 1 >$P/cleancache && registered=1 && [ "$(cat $G/cleancache_active)" = 1 ]; then
	ok "cleancache=1: backend registered"
else
	nok "cleancache=1: backend registered # cleancache_active=$(cat $G/cleancache_active 2>/dev/null)"
fi
dmesg | grep -E 'zcache: cleancache' >&2
diag "kernel $(uname -r), compressor $(cat $P/compressor), max_pool_percent $(cat $P/max_pool_percent)"

# 2. the file system
mem_kb=$(awk '/^MemTotal:/ {print $2}' /proc/meminfo)
size_mb=$((mem_kb * 15 / 10 / 1024)) passes=3
[ -z "${ZC_QUICK:-}" ] || { size_mb=$((mem_kb * 12 / 10 / 1024)); passes=2; }
pools0=$(ccpools)
newpool=
if [ -n "${ZC_SCRATCH_DEV:-}" ] && [ -b "${ZC_SCRATCH_DEV:-}" ]; then
	dev=$(readlink -f "$ZC_SCRATCH_DEV")
	dev_mb=$(( $(blockdev --getsize64 "$dev") / 1048576 ))
	# Room for the set plus ext4's own overhead.
	[ "$size_mb" -le $((dev_mb * 85 / 100)) ] || size_mb=$((dev_mb * 85 / 100))
	mnt=$W/mnt
	mkdir -p "$mnt"
	echo "+ mkfs.ext4 $dev; mount $dev $mnt" >&2
	if mkfs.ext4 -q -F "$dev" >&2 && mount -t ext4 "$dev" "$mnt"; then
		newpool=$(comm -13 <(echo "$pools0") <(ccpools) | head -n 1)
		dir=$mnt
		if [ -n "$newpool" ]; then
			ok "ext4 on $dev ($dev_mb MiB) mounted: cleancache pool $newpool"
		else
			nok "ext4 on $dev mounted: no new cleancache pool in $POOLS"
		fi
	else
		nok "mkfs.ext4 + mount $dev"
		mnt= dir=
	fi
else
	dir=$W/files
	mkdir -p "$dir"
	# A setup choice, not a result: the mount test did not run.
	skip "ext4 mounted: a new cleancache pool" "no scratch disk; files in $dir on the root file system ($(findmnt -n -o FSTYPE -T "$dir"))"
fi
cat "$POOLS" >&2 2>/dev/null

# 3. the workload, stats sampled meanwhile
p0=$(ccstat puts) g0=$(ccstat succ_gets) f0=$(ccstat failed_gets) i0=$(ccstat invalidates)
s0=$(cat $G/stores) l0=$(cat $G/loads) m0=$(cat $G/load_misses) e0=$(cat $G/evicted)
: >"$W/samples"
(while :; do
	echo "$(cat $G/stored_pages) $(cat $G/pool_pages) $(cat $G/pool_limit_pages) $(cat $G/compression_ratio)"
	sleep 1
done >>"$W/samples" 2>/dev/null) &
sampler=$!
cmd=("$ZC_BIN/pagecache" --dir "$dir" --size-mb "$size_mb" --passes "$passes" --drop-caches)
echo "+ ${cmd[*]}" >&2
t0=$SECONDS
if [ -z "$dir" ]; then
	nok "pagecache: no file system"
elif "${cmd[@]}" >"$W/pagecache.out" 2>&1 && grep -q '^pagecache: ok' "$W/pagecache.out"; then
	mib=$(sed -n 's/.* mib_verified=\([0-9.]*\).*/\1/p' "$W/pagecache.out")
	ok "pagecache --size-mb $size_mb (RAM $((mem_kb / 1024)) MiB) --passes $passes: $mib MiB verified"
else
	nok "pagecache --size-mb $size_mb --passes $passes # $(tail -n 3 "$W/pagecache.out" | tr '\n' ' ')"
fi
secs=$((SECONDS - t0))
cat "$W/pagecache.out" >&2
kill "$sampler" 2>/dev/null
wait "$sampler" 2>/dev/null
sampler=
grep '^pagecache:' "$W/pagecache.out" | sed 's/^/# /'

# 4. and 5. puts and hits
puts=$(( $(ccstat puts) - p0 )) hits=$(( $(ccstat succ_gets) - g0 ))
misses=$(( $(ccstat failed_gets) - f0 )) invs=$(( $(ccstat invalidates) - i0 ))
stores=$(( $(cat $G/stores) - s0 )) loads=$(( $(cat $G/loads) - l0 ))
zmiss=$(( $(cat $G/load_misses) - m0 )) evicted=$(( $(cat $G/evicted) - e0 ))
max_stored=$(awk '$1 > m { m = $1 } END { print m + 0 }' "$W/samples")
best_ratio=$(awk '$4 + 0 > m { m = $4 + 0 } END { print m + 0 }' "$W/samples")
for f in $G/* $CC/*; do echo "$f: $(cat "$f" 2>/dev/null)"; done >&2
cat "$POOLS" >&2 2>/dev/null
diag "cleancache (kernel debugfs): puts $puts, hits (succ_gets) $hits, failed_gets $misses, invalidates $invs"
diag "zcache: stores $stores, loads $loads, load_misses $zmiss, evicted $evicted, up to $max_stored pages held, ratio up to $best_ratio"
diag "workload: $secs s, ${mib:-0} MiB verified"
{
	echo "suite ${ZC_SUITE:-?} kernel $(uname -r) dir=$dir size_mb=$size_mb passes=$passes seconds=$secs"
	echo "cleancache puts=$puts succ_gets=$hits failed_gets=$misses invalidates=$invs"
	echo "zcache stores=$stores loads=$loads load_misses=$zmiss evicted=$evicted max_stored_pages=$max_stored best_ratio=$best_ratio mib_verified=${mib:-0}"
	grep '^pagecache:' "$W/pagecache.out"
	grep . $G/* 2>/dev/null
	cat "$POOLS" 2>/dev/null
} >"$OUT/cleancache-stats.txt"
# Without the kernel's debugfs counters, zcache's own stand for them.
[ -d $CC ] || { puts=$stores hits=$loads; }
if [ "$puts" -gt 0 ] && [ "$stores" -gt 0 ]; then
	ok "cleancache puts: $puts (zcache stores $stores)"
else
	nok "cleancache puts: $puts (zcache stores $stores)"
fi
if [ "$hits" -gt 0 ] && [ "$loads" -gt 0 ]; then
	ok "cleancache hits: $hits successful gets (zcache loads $loads)"
else
	nok "cleancache hits: $hits successful gets (zcache loads $loads)"
fi

# 6. pool limit (a few pages of slack: stores in flight)
check_pool_limit "$W/samples" "$(cat $G/pool_limit_pages)"

# 7. umount: invalidate_fs destroys the file system's pool
if [ -z "$mnt" ]; then
	skip "umount drops the pool" "no scratch file system"
else
	held=$(awk -v p="$newpool" '$1 == p { print $3 }' "$POOLS" 2>/dev/null)
	echo "+ umount $mnt" >&2
	if umount "$mnt"; then
		mnt=
		if [ -n "$newpool" ] && ! ccpools | grep -qx -- "$newpool"; then
			ok "umount: pool $newpool (${held:-?} pages) destroyed"
		else
			nok "umount: pool ${newpool:-?} still listed"
		fi
	else
		nok "umount $mnt"
	fi
	cat "$POOLS" >&2 2>/dev/null
fi

# 8. taint and splats
dmesg | tail -n +"$((mark + 1))" >"$W/dmesg"
splat=$(grep -a -m1 -E 'BUG:|WARNING:|Oops|KASAN:|UBSAN:|Call Trace:|lockdep|circular locking|soft lockup|blocked for more than' "$W/dmesg")
if [ "$(bad_taint)" = "$ZC_TAINT0" ] && [ -z "$splat" ]; then
	ok "no oops, warning or soft lockup"
else
	nok "kernel tainted ($(cat /proc/sys/kernel/tainted)) or splat: ${splat:-none}"
fi
exit $failed
