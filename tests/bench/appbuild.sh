#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/bench/appbuild.sh TARBALL REF MEM_MIB JOBS: the benchmark's real
# application workload, run by tests/bench/guest.sh inside the guest.
#
# A parallel build (make -jJOBS posix) of Lua 5.4 from Debian's source
# package (its upstream tarball, fetched on the host by tests/bench/run.sh
# with `apt-get source lua5.4` into tests/bench/.cache/), inside a memory
# cgroup whose memory.max is MEM_MIB, so that the compilers swap.  The build
# runs in the same directory every time, so its objects are bit-identical
# from run to run of the same boot: the first successful build writes their
# sha256 sums to REF, every later one must match them.  The built
# interpreter must also compute known results.  Prints one line:
#   appbuild: ok|FAIL objects=N ... mib_verified=... user_s=... sys_s=... majflt=...
# and exits 1 on any mismatch or build failure.
set -u
tarball=$1 ref=$2 mem=$3 jobs=$4
dir=/var/tmp/zcb-build
cg=/sys/fs/cgroup/zcb-build
t0=$(date +%s.%N)

die() { echo "appbuild: FAIL $*"; exit 1; }

[ -f "$tarball" ] || die "no source tarball $tarball (run.sh fetches it)"
rm -rf "$dir"
mkdir -p "$dir"
tar -C "$dir" -xzf "$tarball" || die "tar failed"
src=$(echo "$dir"/lua-*/)
[ -f "$src/src/Makefile" ] || die "no src/Makefile in $tarball"

# the memory cgroup (cgroup v2): this shell and its children (MEM_MIB 0:
# no cgroup, to try the script outside a guest)
if [ "$mem" != 0 ]; then
	mkdir -p "$cg" || die "cannot create $cg"
	grep -qw memory /sys/fs/cgroup/cgroup.subtree_control ||
		echo +memory >/sys/fs/cgroup/cgroup.subtree_control || die "no memory controller"
	echo "${mem}M" >"$cg/memory.max" || die "cannot set memory.max"
	echo $$ >"$cg/cgroup.procs" || die "cannot join $cg"
	sync
	echo 3 >/proc/sys/vm/drop_caches
fi

# the children's CPU time and major faults, from the shell's own counters
# (/proc/PID/stat: cmajflt, cutime, cstime are fields 13, 16, 17)
read -r mf0 cut0 cst0 < <(awk '{print $13, $16, $17}' /proc/$$/stat)
make -C "$src" -j"$jobs" posix >"$dir/build.log" 2>&1
rc=$?
read -r mf1 cut1 cst1 < <(awk '{print $13, $16, $17}' /proc/$$/stat)
events=$(cat "$cg/memory.events" 2>/dev/null | paste -sd ' ')
swap_peak=$(cat "$cg/memory.swap.peak" 2>/dev/null || echo -)
# back to the root cgroup, so that the next run can remove this one
[ "$mem" = 0 ] || echo $$ >/sys/fs/cgroup/cgroup.procs 2>/dev/null
[ "$rc" = 0 ] || { tail -n 5 "$dir/build.log"; die "make exited $rc (memory.events: $events)"; }

# the interpreter must work
out=$("$src/src/lua" -e '
local s = 0 for i = 1, 1000 do s = s + i * i end
local t = {} for w in ("the quick brown fox jumps over the lazy dog"):gmatch("%a+") do t[#t + 1] = w:upper() end
table.sort(t)
print(s, table.concat(t, ","), string.format("%.6f", math.sqrt(2)), 7 // 2, 2^10)')
want=$'333833500\tBROWN,DOG,FOX,JUMPS,LAZY,OVER,QUICK,THE,THE\t1.414214\t3\t1024.0'
[ "$out" = "$want" ] || die "the built lua printed '$out', expected '$want'"

# the objects must be those of the first build of this boot
(cd "$src/src" && sha256sum ./*.o lua luac) >"$dir/sums"
n=$(wc -l <"$dir/sums")
mib=$(cd "$src/src" && cat ./*.o lua luac | wc -c | awk '{printf "%.1f", $1 / 1048576}')
if [ -s "$ref" ]; then
	if ! diff -q "$ref" "$dir/sums" >/dev/null; then
		diff "$ref" "$dir/sums" | head -n 5
		# keep the files that differ, and the reference's, for a diff
		keep=${ref%.sha256}-differ-$(date +%s)
		mkdir -p "$keep"
		diff "$ref" "$dir/sums" | awk '$1 == ">" {print $3}' |
		while read -r o; do
			cp "$src/src/$o" "$keep/$o" && cp "${ref%.sha256}-objs/$o" "$keep/$o.ref"
		done
		die "objects differ from the first build of this boot ($ref; kept in $keep)"
	fi
	how="matched the first build"
else
	cp "$dir/sums" "$ref"
	# the reference objects themselves, to compare a build that differs
	mkdir -p "${ref%.sha256}-objs"
	(cd "$src/src" && cp ./*.o lua luac "${ref%.sha256}-objs/")
	how="first build: reference written"
fi
hz=$(getconf CLK_TCK)
printf 'appbuild: ok objects=%s %s mem_max_mib=%s jobs=%s memory_events="%s" swap_peak=%s' \
	"$n" "${how// /_}" "$mem" "$jobs" "$events" "$swap_peak"
awk -v m="$mib" -v t0="$t0" -v t1="$(date +%s.%N)" -v u="$((cut1 - cut0))" \
	-v s="$((cst1 - cst0))" -v hz="$hz" -v f="$((mf1 - mf0))" 'BEGIN {
	printf " mib_verified=%s elapsed_s=%.2f user_s=%.2f sys_s=%.2f majflt=%d\n",
		m, t1 - t0, u / hz, s / hz, f }'
rm -rf "$dir"
[ "$mem" = 0 ] || rmdir "$cg" 2>/dev/null
exit 0
