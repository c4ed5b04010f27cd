#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/bench/guest.sh: the benchmark, INSIDE one guest boot (started by
# vm/run.sh --script bench/guest.sh; tests/bench/run.sh does that).
#
# Runs each workload under each swap configuration, one after the other,
# on the same throttled scratch disk ($ZC_SCRATCH_DEV, profile
# $ZC_SCRATCH_PROFILE):
#   disk          swap on the scratch disk only
#   zswap         the kernel's zswap (same compressor, same max_pool_percent)
#                 in front of the same disk swap
#   zram          zram (same compressor, sized to the same pool share of
#                 RAM) as a higher-priority swap in front of the disk swap
#   zram-wb       zram with the same disk partition as its backing_dev and
#                 its own write-back (zram.rst: slots marked idle on a
#                 timer, huge then idle slots written back); swap on zram0
#                 only
#   zcache        /dev/zcache0 over the same disk partition as its backing
#                 device (swap on zcache0 only)
#   zcache-fs     zcache's frontswap backend over the disk swap (kernels
#                 with a usable frontswap: 5.10)
# and collects runtime, disk I/O of the swap partition, pool size,
# compression ratio, CPU time and OOM kills into $ZC_RESULTS/bench/:
#   results.tsv   one row per (configuration, workload), header first
#   meta.txt      suite, kernel, machine, RAM, sizes, profile, date
#   runs/CFG-WL/  the workload's output, pool samples, stats before/after
#   current-row   while a row runs: "CFG WL REP LIMIT-S START-EPOCH
#                 KILL-WAIT-S" (the host stops a guest that overruns it)
# Every workload verifies all its data; a row is "ok" only when it did.
#
# Settings (kernel command-line words, from tests/bench/run.sh):
#   zcb_configs=disk,zswap,zram,zcache-fs,zcache,zram-wb  (unavailable: skip)
#   zcb_workloads=ms1,ms2,pc    ms1: memstress, 1 process, mixed access
#                               ms2: memstress, one process per CPU
#                               pc:  pagecache re-reads (files on the disk)
#                               build: a parallel build of Lua from Debian's
#                                    source in a memory cgroup (appbuild.sh)
#   zcb_ws_pct=150   anonymous working set, percent of MemTotal
#   zcb_pc_pct=125   page-cache file set, percent of MemTotal
#   zcb_pool_pct=20  pool limit, percent of RAM (zswap, zram, zcache)
#   zcb_comp=lz4     compressor for zswap, zram and zcache
#   zcb_passes=1     memstress/pagecache passes
#   zcb_build_mem=48 memory.max of the build's cgroup, MiB
#   zcb_build_jobs=3 make -j of the build
#   zcb_repeat=1     runs of each (configuration, workload) in the boot,
#                    interleaved: all configurations, then again;
#                    zram-wb's repeats after all the others
#   zcb_rot=auto     the scratch disk's queue/rotational in the guest: auto
#                    (0 for the ssd profile, 1 for hdd, the kernel's own
#                    value otherwise), 0 or 1; /dev/zcache0 gets the same
#   zcb_lru_gen=auto the multi-gen LRU (/sys/kernel/mm/lru_gen/enabled):
#                    auto keeps the kernel's default, 0 turns it off, 1 on;
#                    meta.txt records it (floor.py's LRU model applies
#                    only without it)
# ZC_QUICK=1: working set 120% of RAM, file set 110% (unless given).
#
# Writes the harness's success token only when every configuration could
# be set up and every workload verified its data; always powers off.

set -u
R=${ZC_RESULTS:?ZC_RESULTS must name the writable results directory}
export ZC_TESTS=${ZC_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
export ZC_BIN=${ZC_BIN:-/var/tmp/zc-bin}
B=$R/bench
mkdir -p "$B/runs" "$ZC_BIN"
rm -f "$R/token" "$R/summary.tsv" "$R/failures.txt"
exec 3>&1 >>"$B/bench.log" 2>&1	# fd 3: the console (progress lines)
say() { echo "zc-run: $*" >&3; echo "[$(date +%T)] $*"; }
run() { echo "+ $*"; "$@"; }

finish() {
	dmesg >"$R/dmesg.txt"
	sync
	if [ "${ZC_NO_POWEROFF:-0}" = 1 ]; then exit 0; fi
	say "powering off"
	poweroff -f
	sleep 30
}

cmdline_word() {
	local w
	for w in $(cat /proc/cmdline); do
		case $w in "$1"=*) echo "${w#*=}"; return ;; esac
	done
	echo "$2"
}

configs=$(cmdline_word zcb_configs disk,zswap,zram,zcache-fs,zcache,zram-wb | tr , ' ')
workloads=$(cmdline_word zcb_workloads ms1,ms2,pc | tr , ' ')
ws_pct=$(cmdline_word zcb_ws_pct 150)
pc_pct=$(cmdline_word zcb_pc_pct 125)
pool_pct=$(cmdline_word zcb_pool_pct 20)
comp=$(cmdline_word zcb_comp lz4)
passes=$(cmdline_word zcb_passes 1)
repeat=$(cmdline_word zcb_repeat 1)
build_mem=$(cmdline_word zcb_build_mem 48)
build_jobs=$(cmdline_word zcb_build_jobs 3)
build_src=$ZC_TESTS/bench/.cache/lua.tar.gz
rot_want=$(cmdline_word zcb_rot auto)
lru_gen_want=$(cmdline_word zcb_lru_gen auto)
perf_want=$(cmdline_word zcb_perf 0)
# ZC_QUICK: smaller sets unless the command line names them
if [ "${ZC_QUICK:-}" = 1 ]; then
	ws_pct=$(cmdline_word zcb_ws_pct 120) pc_pct=$(cmdline_word zcb_pc_pct 110)
fi
# the hdd profile (200 IOPS) moves the same pages 50 times slower
case ${ZC_SCRATCH_PROFILE:-} in hdd) WL_TIMEOUT=4500 ;; *) WL_TIMEOUT=1500 ;; esac
WL_TIMEOUT=${ZC_BENCH_WL_TIMEOUT:-$WL_TIMEOUT}
# A row slower than SLOW_FACTOR times the disk row of the same workload
# (first repeat) is stopped and reported TIMEOUT: it lost to plain disk
# swap, and on the hdd profile zram-wb with a full pool can retry failed
# writes for an hour (docs/benchmarks.md, "Rows that time out").
SLOW_FACTOR=${ZC_BENCH_SLOW_FACTOR:-$(cmdline_word zcb_slow_factor 4)}
declare -A disk_secs

ram_mb=$(awk '/^MemTotal:/ {print int($2 / 1024)}' /proc/meminfo)
ncpu=$(nproc)
ws_mb=$((ram_mb * ws_pct / 100))
pc_mb=$((ram_mb * pc_pct / 100))
hz=$(getconf CLK_TCK)
kernel=$(uname -r)

{
	echo "suite: ${ZC_SUITE:-unknown}"
	echo "kernel: $kernel"
	echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "cpu: $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -n 1) x $ncpu (QEMU TCG)"
	echo "ram_mib: $ram_mb"
	echo "profile: ${ZC_SCRATCH_PROFILE:-unknown}"
	echo "working_set_mib: $ws_mb ($ws_pct% of RAM)"
	echo "pagecache_set_mib: $pc_mb ($pc_pct% of RAM)"
	echo "pool_pct: $pool_pct"
	echo "compressor: $comp"
	echo "passes: $passes"
	# extra kernel words given with run.sh --kargs, and the clock every
	# row read: under TCG an emulated HPET makes each ktime_get an
	# emulated device read (docs/benchmarks.md, "Clocksource")
	echo "kargs: $(cmdline_word zcb_kargs none | tr , ' ')"
	echo "clocksource: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo unknown)"
	case " $workloads " in *" build "*)
		echo "build: Lua $(tar -tzf "$build_src" 2>/dev/null | head -n 1 | tr -d /) (Debian source), make -j$build_jobs posix in a cgroup with memory.max ${build_mem} MiB"
	esac
	echo "repeat: $repeat"
	echo "configs: $configs"
	echo "workloads: $workloads"
	dpkg-query -W 'zcache-*' 2>/dev/null | sed 's/^/package: /'
	# pc can only change where a cleancache backend exists
	if grep -q '^CONFIG_CLEANCACHE=y' "/boot/config-$kernel" 2>/dev/null; then
		echo "cleancache: yes"
	else
		echo "cleancache: no"
	fi
} >"$B/meta.txt"
cp "$B/meta.txt" "$R/env.txt"
say "benchmark: kernel $kernel, RAM ${ram_mb} MiB, working set ${ws_mb} MiB, profile ${ZC_SCRATCH_PROFILE:-?}"

fail() { # fail NAME REASON: record a failure (no token)
	echo "$1: $2" >>"$R/failures.txt"
	say "FAIL $1: $2"
}

# ---- workloads ----
for c in "$ZC_TESTS"/workloads/*.c; do
	b=$(basename "$c" .c)
	if ! gcc -O2 -Wall -o "$ZC_BIN/$b" "$c" >"$B/$b.gcc.log" 2>&1; then
		fail "build-$b" "gcc failed (bench/$b.gcc.log)"
		finish
	fi
done

# ---- perf (zcb_perf=1): Debian's linux-perf, fetched by run.sh --perf ----
perf_on=''
if [ "$perf_want" = 1 ]; then
	if dpkg -i "$ZC_TESTS"/bench/.cache/perf-"${ZC_SUITE:-}"/*.deb >"$B/perf-install.log" 2>&1 &&
	   perf --version >>"$B/perf-install.log" 2>&1; then
		perf_on=1
		echo 0 >/proc/sys/kernel/kptr_restrict
		echo -1 >/proc/sys/kernel/perf_event_paranoid
		echo "perf: $(perf --version), every run profiled system-wide (perf record -a -g -F 199)" >>"$B/meta.txt"
	else
		fail bench-setup "zcb_perf=1: linux-perf does not install (bench/perf-install.log)"
		finish
	fi
fi

# ---- the scratch disk: partition 1 swap, partition 2 the pagecache files ----
dev=${ZC_SCRATCH_DEV:-}
for _ in $(seq 30); do [ -n "$dev" ] && [ -e "$dev" ] && break; sleep 1; done
if [ -z "$dev" ] || [ ! -e "$dev" ]; then
	fail bench-setup "no scratch disk (run vm/run.sh with --scratch SIZE:PROFILE)"
	finish
fi
dev=$(readlink -f "$dev")
dname=$(basename "$dev")
# Equal devices: the swap allocator (SSD clusters or not) and the swap
# readahead (VMA or cluster) follow the rotational flag of each swap device
# at swapon.  virtio-blk has no rotation rate, so set the queue attribute
# before anything uses the disk, and give zcache0 the same (setup_zcache).
case $rot_want in
auto) case ${ZC_SCRATCH_PROFILE:-} in ssd) rot=0 ;; hdd) rot=1 ;; *) rot= ;; esac ;;
0|1) rot=$rot_want ;;
*) rot= ;;
esac
rot_q=/sys/block/$dname/queue/rotational
echo "scratch_rotational_kernel: $(cat "$rot_q" 2>/dev/null || echo '?')" >>"$B/meta.txt"
if [ -n "$rot" ]; then
	if ! echo "$rot" >"$rot_q" 2>"$B/rot.err"; then
		fail bench-setup "cannot set $rot_q to $rot: $(cat "$B/rot.err")"
		finish
	fi
fi
rot=$(cat "$rot_q")
echo "scratch_rotational: $rot (set in the guest through $rot_q)" >>"$B/meta.txt"
# The reclaim algorithm: the multi-gen LRU (Debian: on by default from
# 6.12) or the two-list LRU that floor.py's model approximates.
lru_gen_f=/sys/kernel/mm/lru_gen/enabled
echo "lru_gen_kernel: $(cat "$lru_gen_f" 2>/dev/null || echo none)" >>"$B/meta.txt"
case $lru_gen_want in
0|1)
	lru_gen_yn=n
	[ "$lru_gen_want" = 0 ] || lru_gen_yn=y
	if [ -e "$lru_gen_f" ]; then
		if ! echo "$lru_gen_yn" >"$lru_gen_f"; then
			fail bench-setup "cannot set $lru_gen_f to $lru_gen_want"
			finish
		fi
	elif [ "$lru_gen_want" = 1 ]; then
		fail bench-setup "zcb_lru_gen=1: this kernel has no multi-gen LRU"
		finish
	fi ;;
esac
echo "lru_gen: $(cat "$lru_gen_f" 2>/dev/null || echo none) (zcb_lru_gen=$lru_gen_want)" >>"$B/meta.txt"
disk_mb=$(( $(blockdev --getsize64 "$dev") / 1048576 ))
swap_mb=$((ws_mb + 512))
fs_mb=$((disk_mb - swap_mb - 2))
if [ "$fs_mb" -lt $((pc_mb + pc_mb / 10 + 64)) ]; then
	case " $workloads " in *" pc "*)
		say "scratch disk of $disk_mb MiB too small for the page-cache set: pc dropped"
		workloads=$(echo " $workloads " | sed 's/ pc / /') ;;
	esac
fi
swapoff -a
run sfdisk -q "$dev" <<EOF || { fail bench-setup "sfdisk $dev failed"; finish; }
label: dos
,${swap_mb}M,82
,,83
EOF
udevadm settle 2>/dev/null || sleep 2
P1=${dev}1 P2=${dev}2
[ -b "$P1" ] || { fail bench-setup "no $P1 after partitioning"; finish; }
run mkswap "$P1" >/dev/null || { fail bench-setup "mkswap $P1"; finish; }
FILES=/mnt/zcb-files
case " $workloads " in *" pc "*)
	mkdir -p "$FILES"
	run mkfs.ext4 -q -F "$P2" && run mount "$P2" "$FILES" ||
		{ fail bench-setup "mkfs/mount $P2"; finish; }
	;;
esac
echo "scratch: $dev ${disk_mb} MiB: swap ${P1} ${swap_mb} MiB, files ${P2}" >>"$B/meta.txt"
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug

# ---- counters ----
# disk I/O of the whole scratch disk (swap and files partitions):
# "sectors_read sectors_written reads writes"
disk_io() { awk '{print $3, $7, $1, $5}' "/sys/class/block/$1/stat"; }
vmstat_get() { awk -v k="$1" '$1 == k {print $2; f=1} END {if (!f) print 0}' /proc/vmstat; }
# CPU jiffies of all CPUs: "busy iowait"
cpu_jiffies() { awk '/^cpu / {print $2+$3+$4+$7+$8, $6}' /proc/stat; }

# ---- configurations: setup, pool sample ("pool_bytes stored_bytes"), teardown ----
zswap_p=/sys/module/zswap/parameters
cfg_available() {
	case $1 in
	disk) return 0 ;;
	zswap) [ -d "$zswap_p" ] ;;
	zram) modinfo zram >/dev/null 2>&1 ;;
	zram-wb) modinfo zram >/dev/null 2>&1 && zram_has_wb ;;
	zcache|zcache-wb|zcache-keep) modinfo zcache >/dev/null 2>&1 ;;
	zcache-fs) modinfo -F parm zcache 2>/dev/null | grep -q '^frontswap:' ;;
	*) return 1 ;;
	esac
}

# The zram-wb and zcache rows use $P1 as raw backing storage and may
# write over its swap signature (on sid 7.2 on 2026-12-06 every row after
# the first zram-wb and zcache rows failed "swapon: /dev/vdb1: read swap
# header failed"): every row that swaps on $P1 writes a fresh one first.
swapon_p1() {
	mkswap "$P1" >/dev/null || { echo "mkswap $P1 failed" >&2; return 1; }
	run swapon -p 10 "$P1"
}
setup_disk() { swapon_p1; }
pool_disk() { echo "0 0"; }
teardown_disk() { swapoff -a; }

setup_zswap() {
	echo "$comp" >"$zswap_p/compressor" || return 1
	modprobe zsmalloc 2>/dev/null
	echo zsmalloc >"$zswap_p/zpool" || true	# zbud on some kernels otherwise
	echo "$pool_pct" >"$zswap_p/max_pool_percent" || return 1
	echo Y >"$zswap_p/enabled" || return 1
	grep . "$zswap_p"/* >"$RUN/params.txt" 2>&1
	swapon_p1
}
pool_zswap() {
	local d=/sys/kernel/debug/zswap
	echo "$(cat $d/pool_total_size 2>/dev/null || echo 0) $(( $(cat $d/stored_pages 2>/dev/null || echo 0) * 4096 ))"
}
teardown_zswap() { swapoff -a; echo N >"$zswap_p/enabled"; }

setup_zram() {
	local z
	modprobe zram num_devices=1 || return 1
	z=/sys/block/zram0
	echo "$comp" >"$z/comp_algorithm" || return 1
	# capacity for a pool of pool_pct% of RAM at the content's ~2x
	echo "$((ram_mb * pool_pct / 100 * 2))M" >"$z/disksize" || return 1
	echo "$((ram_mb * pool_pct / 100))M" >"$z/mem_limit" || return 1
	mkswap /dev/zram0 >/dev/null || return 1
	run swapon -p 100 /dev/zram0 || return 1
	swapon_p1
}
pool_zram() { awk '{print $3, $1}' /sys/block/zram0/mm_stat 2>/dev/null || echo "0 0"; }
teardown_zram() {
	swapoff -a
	echo 1 >/sys/block/zram0/reset 2>/dev/null
	rmmod zram
}

# zram with the swap partition as its backing device (CONFIG_ZRAM_WRITEBACK)
# and the write-back Documentation/admin-guide/blockdev/zram.rst describes:
# "echo all > idle", let the system run, then "echo huge > writeback" and
# "echo idle > writeback".  The pool has the same mem_limit as zram's; a
# daemon marks every slot idle each period and writes back, huge (badly
# compressing) slots first, what stayed idle since the last mark; it does
# so at once, too, when the pool passes half its limit (a full zram fails
# stores: there is no swap device behind it).
zram_has_wb() {
	local k
	k=/boot/config-$(uname -r)
	[ -f "$k" ] && grep -q '^CONFIG_ZRAM_WRITEBACK=y' "$k"
}
ZRAM_WB_PERIOD=${ZC_ZRAM_WB_PERIOD:-10}
# The write-back daemon.  Under heavy swapping a daemon that forks (sleep,
# awk) starves and zram fills to mem_limit, where its stores fail and the
# guest livelocked in the first try: this one uses bash builtins only (a
# read with a timeout on a FIFO nobody writes is its sleep), is exempt from
# the OOM killer, and writes back as soon as the pool passes half its limit.
zram_wb_daemon() { # ZRAM_SYSFS LIMIT_BYTES
	local z=$1 lim=$2 tick=0 used fifo=/run/zcb-zram-wb.fifo
	echo -1000 >"/proc/$BASHPID/oom_score_adj"
	rm -f "$fifo"
	mkfifo "$fifo" || return 1
	exec 9<>"$fifo"
	while [ -e "$z/writeback" ]; do
		read -r -t 2 -u 9 _
		tick=$((tick + 2))
		read -r _ _ used _ <"$z/mm_stat" || used=0
		if [ "$tick" -ge "$ZRAM_WB_PERIOD" ] || [ "$used" -gt $((lim / 2)) ]; then
			echo huge >"$z/writeback"
			echo idle >"$z/writeback"
			echo all >"$z/idle"
			tick=0
		fi
	done
}
setup_zram-wb() {
	local z=/sys/block/zram0 lim
	modprobe zram num_devices=1 || return 1
	[ -e "$z/backing_dev" ] || { echo "zram has no backing_dev"; return 1; }
	echo "$comp" >"$z/comp_algorithm" || return 1
	echo "$P1" >"$z/backing_dev" || return 1
	# the capacity of the disk swap: write-back fills the partition
	blockdev --getsize64 "$P1" >"$z/disksize" || return 1
	lim=$((ram_mb * pool_pct / 100))
	echo "${lim}M" >"$z/mem_limit" || return 1
	echo "$rot" >"$z/queue/rotational" 2>/dev/null || true
	mkswap /dev/zram0 >/dev/null || return 1
	run swapon -p 10 /dev/zram0 || return 1
	lim=$((lim * 1048576))
	zram_wb_daemon "$z" "$lim" >/dev/null 2>&1 &
	echo $! >/run/zcb-zram-wb.pid
}
pool_zram-wb() { pool_zram; }
teardown_zram-wb() {
	if [ -f /run/zcb-zram-wb.pid ]; then
		kill "$(cat /run/zcb-zram-wb.pid)" 2>/dev/null
		rm -f /run/zcb-zram-wb.pid
	fi
	grep . /sys/block/zram0/bd_stat /sys/block/zram0/mm_stat 2>/dev/null
	teardown_zram
}

# zcache's block device over the swap partition (docs/zcache-blk.md).
# $1: writeback (0, the default, or 1); $2: keep_loaded, when given.
ZB=/sys/block/zcache0/zcache
setup_zcache() {
	modprobe zcache compressor="$comp" max_pool_percent="$pool_pct" || return 1
	[ -d /sys/block/zcache0 ] || echo 1 >/sys/class/zcache-control/add 2>/dev/null
	[ -d "$ZB" ] || { echo "no $ZB"; return 1; }
	grep . /sys/module/zcache/parameters/* >"$RUN/params.txt" 2>&1
	echo "$P1" >"$ZB/backing_dev" || return 1
	echo "${1:-0}" >"$ZB/writeback" || return 1
	if [ -n "${2:-}" ]; then
		echo "$2" >"$ZB/keep_loaded" || return 1
	fi
	[ -e "$ZB/keep_loaded" ] &&
		grep . "$ZB/keep_loaded" >>"$RUN/params.txt"
	blockdev --getsize64 "$P1" >"$ZB/disksize" || return 1
	# the same rotational flag as the backing disk (equal devices)
	if ! echo "$rot" >/sys/block/zcache0/queue/rotational; then
		echo "cannot set /sys/block/zcache0/queue/rotational to $rot"
		return 1
	fi
	mkswap /dev/zcache0 >/dev/null || return 1
	run swapon -p 10 /dev/zcache0
}
pool_zcache() {
	local g=/sys/kernel/zcache pp sp
	pp=$(cat $g/pool_pages 2>/dev/null || echo 0)
	sp=$(cat $g/stored_pages 2>/dev/null || echo 0)
	echo "$((pp * 4096)) $((sp * 4096))"
}
teardown_zcache() {
	swapoff -a
	echo 1 >"$ZB/reset" 2>/dev/null
	rmmod zcache
}

# The same with write-back on: a full pool writes its coldest pages back.
setup_zcache-wb() { setup_zcache 1; }
pool_zcache-wb() { pool_zcache; }
teardown_zcache-wb() { teardown_zcache; }

# The same with loads that keep their pool copy (keep_loaded=1), as
# 6.1's zswap: fewer compressions, more disk I/O.
setup_zcache-keep() { setup_zcache 0 1; }
pool_zcache-keep() { pool_zcache; }
teardown_zcache-keep() { teardown_zcache; }

# zcache's frontswap backend (5.10) over the disk swap.
setup_zcache-fs() {
	modprobe zcache frontswap=1 compressor="$comp" max_pool_percent="$pool_pct" || return 1
	grep . /sys/module/zcache/parameters/* >"$RUN/params.txt" 2>&1
	swapon_p1
}
pool_zcache-fs() { pool_zcache; }
teardown_zcache-fs() {
	swapoff -a
	# frontswap backends cannot unregister on 5.10: the module stays
	echo N >/sys/module/zcache/parameters/frontswap 2>/dev/null || true
}

stats_dump() { # everything worth keeping about the state now
	{
		echo "== swaps"; cat /proc/swaps
		echo "== meminfo"; cat /proc/meminfo
		echo "== vmstat"; cat /proc/vmstat
		echo "== diskstats"; cat /proc/diskstats
		echo "== zswap"; grep . /sys/kernel/debug/zswap/* 2>/dev/null
		echo "== zram"; grep . /sys/block/zram0/mm_stat /sys/block/zram0/io_stat /sys/block/zram0/bd_stat 2>/dev/null
		echo "== zcache"; grep -r . /sys/kernel/zcache /sys/block/zcache0/zcache /sys/kernel/debug/zcache 2>/dev/null
		# zcsmalloc's totals (compacted pages among them) and the
		# kernel's zsmalloc pools (zswap's, zram's): where pool CPU goes
		echo "== zcsmalloc"; grep . /sys/kernel/debug/zcsmalloc/stats 2>/dev/null
		echo "== zsmalloc"; grep -r . /sys/kernel/debug/zsmalloc 2>/dev/null
		# time stalled on memory, I/O and CPU (PSI, where the kernel has it)
		echo "== pressure"; grep . /proc/pressure/* 2>/dev/null
		echo "== stat"; grep '^cpu' /proc/stat
	} >"$1"
}

reset_state() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	echo 1 >/proc/sys/vm/compact_memory 2>/dev/null
	sleep 2
}

# ---- one workload in one configuration ----
wl_cmd() {
	case $1 in
	ms1) echo "$ZC_BIN/memstress --size-mb $ws_mb --procs 1 --mode mixed --passes $passes --seed 1" ;;
	ms2) echo "$ZC_BIN/memstress --size-mb $ws_mb --procs $ncpu --mode mixed --passes $passes --seed 2" ;;
	pc) echo "$ZC_BIN/pagecache --dir $FILES --size-mb $pc_mb --files 8 --passes $((passes + 1)) --drop-caches" ;;
	build) echo "$ZC_TESTS/bench/appbuild.sh $build_src $B/build-ref.sha256 $build_mem $build_jobs" ;;
	esac
}

cols="suite kernel profile config workload rep status rc wall_s user_s sys_s cpu_busy_s iowait_s majflt disk_read_mib disk_write_mib disk_reads disk_writes pswpin pswpout oom_kills pool_max_mib stored_at_max_mib ratio_at_max mib_verified ws_mib ram_mib zswpin zswpout"
echo "$cols" | tr ' ' '\t' >"$B/results.tsv"

all_ok=1
# perf_start / perf_stop: a system-wide profile of one run (zcb_perf=1),
# kept as text: the symbols (kernel, modules, user) with their share of
# the samples, flat and by caller; the raw data is dropped (tens of MiB).
# The profile costs every configuration alike; compare shares, not times.
perf_start() {
	perf record -a -g -F 199 -o "$RUN/perf.data" >"$RUN/perf-record.log" 2>&1 &
	perf_pid=$!
	sleep 1
}
perf_stop() {
	kill -INT "$perf_pid" 2>/dev/null
	wait "$perf_pid" 2>/dev/null
	perf report -i "$RUN/perf.data" --stdio --no-children --sort dso,sym \
		--percent-limit 0.5 -g none >"$RUN/perf-flat.txt" 2>/dev/null
	perf report -i "$RUN/perf.data" --stdio --children --sort sym \
		--percent-limit 2 -g none >"$RUN/perf-children.txt" 2>/dev/null
	perf report -i "$RUN/perf.data" --stdio --no-children --sort comm \
		-g none >"$RUN/perf-comm.txt" 2>/dev/null
	# who calls the hottest symbols: each one's call chains, callee first
	perf report -i "$RUN/perf.data" --stdio --no-children --sort sym \
		--percent-limit 2 -g callee,2,0 >"$RUN/perf-callers.txt" 2>/dev/null
	rm -f "$RUN/perf.data" "$RUN/perf.data.old"
}

# run_bounded SECS CMD: runs CMD (output to $RUN/out.txt, err.txt) in a
# session of its own and returns its exit status, or 124 when it was
# still running after SECS.  Then the whole session is sent TERM and,
# 10 s later, KILL.  A process stuck in the kernel does not die of
# SIGKILL until its system call returns: zram-wb on the hdd profile,
# its pool full at mem_limit, retries failed swap writes while
# memstress waits in reclaim (s16 trixie: still there 1,000 s after
# its SIGKILL).  GNU timeout would wait for it for ever; here, when it
# is still alive WEDGE_WAIT s after the KILL, $RUN/wedged is written
# and the caller runs nothing more in this boot.  t1 is the deadline.
WEDGE_WAIT=${ZC_BENCH_WEDGE_WAIT:-120}
run_bounded() {
	local tmo=$1 pid timer first rc i
	# shellcheck disable=SC2086
	setsid $2 >"$RUN/out.txt" 2>"$RUN/err.txt" &
	pid=$!
	sleep "$tmo" &
	timer=$!
	# returns as soon as either ends (bash 5.1: wait -n -p)
	wait -n -p first "$pid" "$timer"
	rc=$?
	if [ "$first" = "$pid" ]; then
		kill "$timer" 2>/dev/null
		wait "$timer" 2>/dev/null
		return "$rc"
	fi
	kill -TERM -- "-$pid" 2>/dev/null
	for i in $(seq $((WEDGE_WAIT / 2 + 5))); do
		[ "$i" != 6 ] || kill -KILL -- "-$pid" 2>/dev/null
		kill -0 "$pid" 2>/dev/null || break
		sleep 2
	done
	if kill -0 "$pid" 2>/dev/null; then
		{ echo "pid $pid alive ${WEDGE_WAIT}s after SIGKILL"
		  ps -o pid,stat,wchan:32,cmd -s "$pid" 2>/dev/null; } >"$RUN/wedged"
	else
		wait "$pid" 2>/dev/null
	fi
	return 124
}

# A rival's row (any configuration but zcache's) runs inside a fault
# window (tests/guest/fault-window.awk): the kernel's allocation-failure
# dumps there are that configuration's result, listed in the row's
# kernel-reports.txt and in the report, not a failure of the run (s15:
# 7.2's swap_cluster_alloc_table failed an order-0 allocation in direct
# reclaim in the zram row).  Every other report (WARNING, BUG, KASAN,
# lockdep, a hung task) still fails the run, and zcache's rows have no
# window: any report there fails it.
row_window() { # begin|end CFG WL REP
	local tag="zc-fault-window: begin bench row $2/$3#$4"
	case $2 in zcache*) return ;; esac
	if [ "$1" = begin ]; then
		echo "$tag" >/dev/kmsg
		return
	fi
	echo "zc-fault-window: end" >/dev/kmsg
	dmesg | awk -v tag="$tag" 'index($0, tag) {on = 1; next}
		on && /zc-fault-window: end/ {on = 0}
		on && /allocation failure|vmalloc error|allocation failed/' >"$RUN/kernel-reports.txt"
	[ -s "$RUN/kernel-reports.txt" ] || rm -f "$RUN/kernel-reports.txt"
}

run_one() { # CFG WL REP
	local cfg=$1 wl=$2 r=$3 cmd rc=0 t0 t1 io0 io1 cpu0 cpu1 sp sout st
	local in0 out0 oom0 in1 out1 oom1 pmax pst ratio ver user sys majflt sampler
	local zin0 zout0 zin1 zout1 tmo sum
	cmd=$(wl_cmd "$wl")
	tmo=$WL_TIMEOUT
	if [ "$cfg" != disk ] && [ -n "${disk_secs[$wl]:-}" ]; then
		tmo=$((disk_secs[$wl] * SLOW_FACTOR))
		[ "$tmo" -ge 300 ] || tmo=300
		[ "$tmo" -le "$WL_TIMEOUT" ] || tmo=$WL_TIMEOUT
	fi
	reset_state
	read -r -a io0 < <(disk_io "$dname")
	read -r -a cpu0 < <(cpu_jiffies)
	in0=$(vmstat_get pswpin) out0=$(vmstat_get pswpout) oom0=$(vmstat_get oom_kill)
	# zswap's hits and stores: not in pswpin/pswpout (0 where absent)
	zin0=$(vmstat_get zswpin) zout0=$(vmstat_get zswpout)
	stats_dump "$RUN/stats-before.txt"
	( while :; do echo "$(date +%s) $("pool_$cfg")"; sleep 2; done ) >"$RUN/pool.txt" 2>/dev/null &
	sampler=$!
	echo "$cmd" >"$RUN/cmd.txt"
	say "  $cfg/$wl#$r: $cmd"
	[ -z "$perf_on" ] || perf_start
	row_window begin "$cfg" "$wl" "$r"
	t0=$(date +%s.%N)
	# for the host (tests/bench/run.sh): the row running, its limit and
	# start; a guest that stalls whole cannot report its own TIMEOUT
	echo "$cfg $wl $r $tmo ${t0%.*} $((WEDGE_WAIT + 20))" >"$B/current-row"
	run_bounded "$tmo" "$cmd" || rc=$?
	t1=$(date +%s.%N)
	row_window end "$cfg" "$wl" "$r"
	[ "$rc" != 124 ] || t1=$(awk -v a="$t0" -v t="$tmo" 'BEGIN {printf "%.2f", a + t}')
	if [ "$cfg" = disk ] && [ "$rc" = 0 ] && [ -z "${disk_secs[$wl]:-}" ]; then
		disk_secs[$wl]=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%d", b - a + 1}')
	fi
	[ -z "$perf_on" ] || perf_stop
	echo "$(date +%s) $("pool_$cfg")" >>"$RUN/pool.txt"
	kill "$sampler" 2>/dev/null; wait "$sampler" 2>/dev/null
	read -r -a io1 < <(disk_io "$dname")
	read -r -a cpu1 < <(cpu_jiffies)
	in1=$(vmstat_get pswpin) out1=$(vmstat_get pswpout) oom1=$(vmstat_get oom_kill)
	zin1=$(vmstat_get zswpin) zout1=$(vmstat_get zswpout)
	stats_dump "$RUN/stats-after.txt"
	# pool: the sample with the largest pool, and what it held then
	read -r pmax pst < <(awk 'NF == 3 && $2 >= m {m = $2; s = $3} END {print m + 0, s + 0}' "$RUN/pool.txt")
	ratio=$(awk -v p="$pmax" -v s="$pst" 'BEGIN {if (p > 0) printf "%.2f", s / p; else print "-"}')
	sout=$(grep -E '^(memstress|pagecache|appbuild): ' "$RUN/out.txt" | tail -n 1)
	kv() { echo "$sout" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
	ver=$(kv mib_verified) user=$(kv user_s) sys=$(kv sys_s) majflt=$(kv majflt)
	st=ok
	if [ "$rc" != 0 ] || ! echo "$sout" | grep -q ': ok '; then
		st=FAIL
		[ "$rc" != 124 ] && [ "$rc" != 137 ] || st=TIMEOUT
		case $st-$cfg in
		TIMEOUT-zcache*) ;;
		TIMEOUT-*)
			# a rival slower than SLOW_FACTOR x disk: its result, not a
			# failure of the run (zcache's own rows still fail)
			say "  $cfg/$wl#$r: stopped after ${tmo}s, over ${SLOW_FACTOR}x the disk row: TIMEOUT"
			st=TIMEOUT-rival
			timed_out[$cfg-$wl]=1 ;;
		esac
		if [ "$st" != TIMEOUT-rival ]; then
			all_ok=0
			fail "bench-$cfg-$wl-r$r" "exit $rc: $(head -n 3 "$RUN/err.txt" | paste -sd ' ' | cut -c1-200)"
		fi
	fi
	printf '%s\t' "${ZC_SUITE:-unknown}" "$kernel" "${ZC_SCRATCH_PROFILE:-unknown}" "$cfg" "$wl" "$r" "${st%-rival}" "$rc" \
		"$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.1f", b - a}')" \
		"${user:--}" "${sys:--}" \
		"$(awk -v a="${cpu0[0]}" -v b="${cpu1[0]}" -v h="$hz" 'BEGIN {printf "%.1f", (b - a) / h}')" \
		"$(awk -v a="${cpu0[1]}" -v b="${cpu1[1]}" -v h="$hz" 'BEGIN {printf "%.1f", (b - a) / h}')" \
		"${majflt:--}" \
		"$(awk -v a="${io0[0]}" -v b="${io1[0]}" 'BEGIN {printf "%.1f", (b - a) / 2048}')" \
		"$(awk -v a="${io0[1]}" -v b="${io1[1]}" 'BEGIN {printf "%.1f", (b - a) / 2048}')" \
		"$((io1[2] - io0[2]))" "$((io1[3] - io0[3]))" \
		"$((in1 - in0))" "$((out1 - out0))" "$((oom1 - oom0))" \
		"$(awk -v p="$pmax" 'BEGIN {printf "%.1f", p / 1048576}')" \
		"$(awk -v p="$pst" 'BEGIN {printf "%.1f", p / 1048576}')" \
		"$ratio" "${ver:--}" "$ws_mb" >>"$B/results.tsv"
	printf '%s\t%s\t%s\n' "$ram_mb" "$((zin1 - zin0))" "$((zout1 - zout0))" >>"$B/results.tsv"
	# a rival's TIMEOUT is its result, counted as a skip
	case $st in
	ok) sum='pass\t1\t0\t0' ;;
	TIMEOUT-rival) sum='skip\t0\t0\t1' ;;
	*) sum='fail\t0\t1\t0' ;;
	esac
	printf "bench-%s-%s-r%s\t$sum\t%s\n" "$cfg" "$wl" "$r" \
		"$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%d", b - a}')" >>"$R/summary.tsv"
	st=${st%-rival}
	rm -f "$B/current-row"
	say "  $cfg/$wl#$r: $st in $(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.0f", b - a}')s, disk r/w $(tail -n 1 "$B/results.tsv" | cut -f15,16 | tr '\t' /) MiB, pool max $(awk -v p="$pmax" 'BEGIN {printf "%.0f", p / 1048576}') MiB"
}

# swap_flags CFG: what the kernel printed at each swapon of the setup
# ("Adding NNNk swap on DEV.  Priority:P extents:E across:Ak SSDSCFS": SS
# solid state, D discard, FS file system-like) and the rotational flags.
swap_flags() {
	local l d
	dmesg | sed -n 's/^\[[^]]*\] //; /Adding .*k swap on /p' | tail -n +"$((dmesg_swapons + 1))" |
	while read -r l; do echo "swapon $1: $l"; done
	awk 'NR > 1 {print $1}' /proc/swaps | while read -r d; do
		d=$(basename "$(readlink -f "$d")")
		# a partition's queue is its disk's
		[ ! -e "/sys/class/block/$d/partition" ] ||
			d=$(basename "$(dirname "$(readlink -f "/sys/class/block/$d")")")
		echo "rotational $1: $d $(cat "/sys/block/$d/queue/rotational" 2>/dev/null || echo '?')"
	done
}

# timed_out[CFG-WL]: a rival stopped at SLOW_FACTOR x disk is not run
# again in later repeats: its result is known, and on the hdd profile
# another try costs SLOW_FACTOR disk rows of the boot.
declare -A flags_done cfg_failed timed_out
wedged=''

# skip_wedged CFG REP [FIRST-WL]: the rows a wedged guest will not run
skip_wedged() {
	local w on=''
	for w in $workloads; do
		[ "$w" = "${3:-$w}" ] && on=1
		[ -z "$on" ] ||
			echo "$1/$w#$2: not run (the guest wedged in $wedged)" >>"$B/skipped.txt"
	done
}

# run_cfg CFG REP: every workload of one configuration, set up and torn
# down around each; after a wedged row (run_bounded) nothing more runs.
run_cfg() {
	local cfg=$1 r=$2 wl
	if ! cfg_available "$cfg"; then
		if [ "$r" = 1 ]; then
			say "$cfg: not available on $kernel, skipped"
			echo "$cfg: skipped (not available on $kernel)" >>"$B/skipped.txt"
		fi
		return
	fi
	[ -z "${cfg_failed[$cfg]:-}" ] || return
	[ -z "$wedged" ] || { skip_wedged "$cfg" "$r"; return; }
	say "configuration $cfg (run $r of $repeat)"
	for wl in $workloads; do
		[ -z "$wedged" ] || { skip_wedged "$cfg" "$r" "$wl"; return; }
		if [ -n "${timed_out[$cfg-$wl]:-}" ]; then
			say "  $cfg/$wl#$r: not run again (TIMEOUT in an earlier run)"
			continue
		fi
		RUN=$B/runs/$cfg-$wl
		[ "$r" = 1 ] || RUN=$RUN-r$r
		mkdir -p "$RUN"
		dmesg_swapons=$(dmesg | grep -c 'Adding .*k swap on ')
		if ! "setup_$cfg" >"$RUN/setup.log" 2>&1; then
			fail "bench-$cfg" "setup failed: $(tail -n 2 "$RUN/setup.log" | paste -sd ' ')"
			all_ok=0
			cfg_failed[$cfg]=1
			"teardown_$cfg" >>"$RUN/setup.log" 2>&1
			return
		fi
		cat /proc/swaps >>"$RUN/setup.log"
		swap_flags "$cfg" >"$RUN/swap-flags.txt"
		if [ -z "${flags_done[$cfg]:-}" ]; then
			cat "$RUN/swap-flags.txt" >>"$B/meta.txt"
			flags_done[$cfg]=1
		fi
		run_one "$cfg" "$wl" "$r"
		if [ -f "$RUN/wedged" ]; then
			# its swap cannot be turned off while the process holds it
			wedged=$cfg/$wl#$r
			say "  $wedged: still running ${WEDGE_WAIT}s after SIGKILL (in the kernel: $RUN/wedged); no teardown, nothing more runs in this boot"
			echo "$wedged: wedged, $(head -n 1 "$RUN/wedged")" >>"$B/skipped.txt"
			continue
		fi
		"teardown_$cfg" >>"$RUN/setup.log" 2>&1
	done
}

# Every repeat of the other configurations first, then zram-wb's: on the
# hdd profile its full pool can wedge the guest (run_bounded), and then
# only its own rows are lost.
head_cfgs='' tail_cfgs=''
for cfg in $configs; do
	case $cfg in
	zram-wb) tail_cfgs="$tail_cfgs $cfg" ;;
	*) head_cfgs="$head_cfgs $cfg" ;;
	esac
done
for cfgs in "$head_cfgs" "$tail_cfgs"; do
	for r in $(seq "$repeat"); do
		for cfg in $cfgs; do
			run_cfg "$cfg" "$r"
		done
	done
done
[ -z "$wedged" ] || say "the guest wedged in $wedged: rows after it not run (bench/skipped.txt)"
case " $workloads " in *" pc "*) [ -n "$wedged" ] || umount "$FILES" ;; esac

[ -s "$R/summary.tsv" ] || { all_ok=0; fail bench "nothing ran"; }
if [ "$all_ok" = 1 ]; then
	echo "ZC-TESTS-PASSED ${ZC_RUN_ID:-}" >"$R/token"
	say "benchmark complete: token written"
fi
finish
