#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/bench/run.sh [options] SUITE: the benchmark (`make bench`).  Boots
# ONE guest of SUITE (vm/run.sh) with a throttled scratch disk, runs every
# workload under disk swap, zswap, zram, zcache (block device over the same
# disk) and zcache's frontswap backend (5.10) in that boot
# (tests/bench/guest.sh), then writes the report (tests/bench/report.py):
#   $ZC_CACHE/results/NAME/bench/{report.md,*.png,results.tsv,meta.txt}
#
#   --profile ssd|hdd|none  throttling of the scratch disk (default ssd:
#                     10k IOPS, 200 MB/s; hdd: 200 IOPS, 100 MB/s)
#   --rot auto|0|1    the scratch disk's queue/rotational in the guest (auto:
#                     0 for ssd, 1 for hdd); zcache0 and zram-wb's zram0 get
#                     the same value
#   --lru-gen auto|0|1  the guest's multi-gen LRU (auto: the kernel's
#                     default, on in Debian from 6.12); floor.py's LRU model
#                     claims a floor only for a run without it
#   --mem MIB         guest RAM (default 640)
#   --configs LIST    comma list, run in this order (default disk,zswap,
#                     zram,zcache-fs,zcache,zram-wb; unavailable ones are
#                     skipped; zram-wb's repeats after all the others,
#                     whatever the order: on hdd it can wedge the guest)
#   --workloads LIST  comma list of ms1,ms2,pc,build (default ms2,pc,build);
#                     build: a parallel build of Lua (Debian's source, fetched
#                     here with apt-get source) in a memory cgroup
#   --build-mem MIB   memory.max of the build's cgroup (default 48)
#   --build-jobs N    its make -j (default 3)
#   --ws-pct N        anonymous working set, % of guest RAM (default 150,
#                     120 with --quick); the report's goal set follows it
#   --pool-pct N      pool limit, % of RAM, for zswap, zram, zcache (20)
#   --comp NAME       compressor for all of them (default lz4)
#   --passes N        workload passes (default 1)
#   --slow-factor N   a rival row slower than N times the disk row of the
#                     same workload is stopped and reported TIMEOUT, and
#                     not run again in later repeats (default 4)
#   --repeat N        runs of each configuration in the boot, interleaved
#                     (default 3; 1 with --quick); the report shows the
#                     median and min-max
#   --install fast|none  with the package (default: fast when a .deb is in
#                     the package dir; without one, a run whose --configs
#                     name zcache stops with an error; none skips them)
#   --pkg-dir DIR     the packages (default $ZC_CACHE/pkg)
#   --quick           smaller sets (ZC_QUICK=1)
#   --timeout SEC     hard limit of the boot (default 7200 per repeat)
#   --name NAME       run name (default bench-SUITE-PROFILE-DATE)
#   --kargs WORDS     extra guest kernel command-line words for every row
#                     alike (e.g. 'clocksource=tsc tsc=reliable'); meta.txt
#                     records them and the clocksource the guest used
#   --perf            profile every run system-wide in the guest (Debian's
#                     linux-perf of SUITE, fetched here once into
#                     tests/bench/.cache): runs/CFG-WL/perf-*.txt; it
#                     slows every row alike, so read shares, not times
#   --publish         copy the report into docs/bench/SUITE-PROFILE/ (the
#                     committed reference reports; commit them by hand)
# Environment: ZC_BENCH_HOST_GRACE (default 600): seconds past a row's own
# limit after which the host stops a guest that has not moved on and
# writes the row itself (tests/bench/hostwatch.sh).
# Prints the report's summary line; exit status 0 only when the guest run
# passed (every configuration set up, every workload verified its data).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
. "$repo/vm/lib.sh"

usage() { sed -n '4,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0" >&2; exit 2; }

profile=ssd mem=640 configs=disk,zswap,zram,zcache-fs,zcache,zram-wb workloads=ms2,pc,build
build_mem=48 build_jobs=3
ws_pct='' pool_pct=20 comp=lz4 passes=1 install='' quick='' tmo='' name='' publish=''
slow_factor=4 repeat='' rot=auto lru_gen=auto perf='' kargs='' pkgdir=${ZC_PKG_DIR:-$ZC_CACHE/pkg}
while [ $# -gt 0 ]; do
	case $1 in
	--profile) profile=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--configs) configs=$2; shift 2 ;;
	--workloads) workloads=$2; shift 2 ;;
	--ws-pct) ws_pct=$2; shift 2 ;;
	--pool-pct) pool_pct=$2; shift 2 ;;
	--comp) comp=$2; shift 2 ;;
	--passes) passes=$2; shift 2 ;;
	--slow-factor) slow_factor=$2; shift 2 ;;
	--repeat) repeat=$2; shift 2 ;;
	--rot) rot=$2; shift 2 ;;
	--lru-gen) lru_gen=$2; shift 2 ;;
	--build-mem) build_mem=$2; shift 2 ;;
	--build-jobs) build_jobs=$2; shift 2 ;;
	--pkg-dir) pkgdir=$2; shift 2 ;;
	--install) install=$2; shift 2 ;;
	--quick) quick=1; shift ;;
	--timeout) tmo=$2; shift 2 ;;
	--name) name=$2; shift 2 ;;
	--publish) publish=1; shift ;;
	--perf) perf=1; shift ;;
	--kargs) kargs=$2; shift 2 ;;
	-h|--help) usage ;;
	-*) echo "unknown option $1" >&2; usage ;;
	*) break ;;
	esac
done
[ $# -eq 1 ] || usage
suite=$1
zc_check_suite "$suite" || usage
case $profile in ssd|hdd|none) ;; *) zc_die "--profile: ssd, hdd or none" ;; esac
if [ -n "$quick" ]; then ws_pct=${ws_pct:-120} repeat=${repeat:-1}; fi
ws_pct=${ws_pct:-150} repeat=${repeat:-3}
case $repeat in ''|*[!0-9]*) ;; *) tmo=${tmo:-$((7200 * repeat))} ;; esac
case $rot in auto|0|1) ;; *) zc_die "--rot: auto, 0 or 1" ;; esac
case $lru_gen in auto|0|1) ;; *) zc_die "--lru-gen: auto, 0 or 1" ;; esac
case $mem$ws_pct$pool_pct$passes$tmo$repeat$build_mem$build_jobs$slow_factor in *[!0-9]*) zc_die "--mem, --ws-pct, --pool-pct, --passes, --timeout, --repeat, --slow-factor take numbers" ;; esac
[ "$slow_factor" -ge 1 ] || zc_die "--slow-factor: 1 or more"
case $configs in *[!a-z0-9,-]*) zc_die "--configs: a comma list" ;; esac
case $workloads in *[!a-z0-9,]*) zc_die "--workloads: a comma list" ;; esac
case $comp in *[!a-z0-9-]*) zc_die "--comp: a crypto API compressor name" ;; esac
# words of the form name or name=value only: they go on the kernel's
# command line next to the harness's own zcb_* words
for w in $kargs; do
	case $w in zcb_*|*[!A-Za-z0-9_.,=:/-]*) zc_die "--kargs: '$w' is not a kernel parameter word" ;; esac
done
if [ -z "$install" ]; then
	if ls "$pkgdir"/zcache-dkms_*_all.deb >/dev/null 2>&1; then install=fast
	else
		# a zcache row without zcache would be a benchmark of the
		# rivals alone: say so instead of skipping the rows
		case ,$configs, in *,zcache*)
			zc_die "no package in $pkgdir: build it with make deb (make bench does), or give --pkg-dir DIR, or --configs without zcache" ;;
		esac
		install=none
	fi
fi
case $install in fast|none) ;; *) zc_die "--install: fast or none" ;; esac
zc_need_cmd gnuplot gnuplot-nox
zc_need_cmd python3 python3

name=${name:-bench-$suite-$profile-$(date +%Y%m%d-%H%M%S)}
# The scratch disk holds the swap partition (working set + 512 MiB) and the
# page-cache files (their set + 10% + 64 MiB); sparse, so size it roomy.
scratch_mb=$(( mem * ws_pct / 100 + 512 + mem * 125 / 100 * 12 / 10 + 512 ))
# root by label: the scratch disk (an explicit -device) enumerates before
# the root disk (if=virtio), so /dev/vda is the scratch disk.
append="root=LABEL=zcroot zcb_configs=$configs zcb_workloads=$workloads zcb_ws_pct=$ws_pct"
append+=" zcb_pool_pct=$pool_pct zcb_comp=$comp zcb_passes=$passes zcb_repeat=$repeat zcb_rot=$rot"
append+=" zcb_lru_gen=$lru_gen zcb_slow_factor=$slow_factor"
append+=" zcb_build_mem=$build_mem zcb_build_jobs=$build_jobs"
[ -z "$kargs" ] || append+=" zcb_kargs=${kargs// /,} $kargs"
# The build's source: Debian's lua5.4 source package, fetched here (the
# guest has no network) with a private apt configuration (deb-src of
# bookworm from the machine's mirror, zc_mirror; the host's own sources
# stay untouched) into tests/bench/.cache, which vm/run.sh copies into the
# guest with tests/.
case ",$workloads," in *,build,*)
	cache=$here/.cache
	if [ ! -s "$cache/lua.tar.gz" ]; then
		zc_log "fetching Debian's lua5.4 source for the build workload"
		mkdir -p "$cache/apt/lists/partial" "$cache/apt/cache" "$cache/src"
		echo "deb-src $(zc_mirror) bookworm main" >"$cache/apt/sources.list"
		aptq=(-o "Dir::Etc::SourceList=$cache/apt/sources.list" -o "Dir::Etc::SourceParts=/nonexistent"
			-o "Dir::State::Lists=$cache/apt/lists" -o "Dir::Cache=$cache/apt/cache")
		apt-get "${aptq[@]}" update -qq || zc_die "apt-get update (deb-src) failed"
		(cd "$cache/src" && apt-get "${aptq[@]}" source --download-only lua5.4) ||
			zc_die "apt-get source lua5.4 failed"
		cp "$(ls "$cache"/src/lua5.4_*.orig.tar.gz | head -n 1)" "$cache/lua.tar.gz"
		rm -rf "$cache/apt" "$cache/src"
	fi
	;;
esac
# perf for the guest: linux-perf and what it needs, downloaded in a chroot
# of SUITE (the same archive as the image) into tests/bench/.cache, which
# vm/run.sh copies into the guest with tests/.
if [ -n "$perf" ]; then
	pdir=$here/.cache/perf-$suite
	if ! ls "$pdir"/linux-perf*.deb >/dev/null 2>&1; then
		zc_log "fetching linux-perf of $suite for --perf"
		rootfs=$("$repo/vm/rootfs.sh" "$suite")
		mkdir -p "$pdir"
		"$repo/vm/chroot.sh" --bind "$pdir:/out" "$rootfs" -- sh -c \
			'apt-get update -qq && apt-get install -y -q --download-only --no-install-recommends -o Dir::Cache::archives=/out linux-perf >/dev/null' ||
			zc_die "cannot download linux-perf for $suite"
		rm -rf "$pdir/partial" "$pdir/lock"
	fi
	append+=" zcb_perf=1"
fi
vm_args=(--install "$install" --pkg-dir "$pkgdir" --mem "$mem" --scratch "${scratch_mb}M:$profile"
	--script bench/guest.sh --name "$name" --timeout "$tmo" --append "$append")
[ -z "$quick" ] || vm_args+=(--quick)

# qemu_of, the host's load beside the guest (host_load_sampler) and the
# host's limit of a row (a guest that stalls whole)
. "$here/hostwatch.sh"

stopf=$ZC_CACHE/work/host-stop-$name.$$

load0=$(cut -d' ' -f1-3 /proc/loadavg)
zc_log "benchmark $name: $suite, ${mem} MiB RAM, profile $profile, configs $configs, workloads $workloads"
mkdir -p "$ZC_CACHE/work"
hl=$ZC_CACHE/work/host-load-$name.$$
host_load_sampler "$ZC_CACHE/logs/$name/console.log" >"$hl" &
hl_pid=$!
rm -f "$ZC_CACHE/results/$name/bench/current-row" "$stopf"
row_watch "$ZC_CACHE/results/$name/bench" "$ZC_CACHE/logs/$name/console.log" "$stopf" \
	"${ZC_BENCH_HOST_GRACE:-600}" &
rw_pid=$!
rc=0
"$repo/vm/run.sh" "${vm_args[@]}" "$suite" || rc=$?
kill "$hl_pid" "$rw_pid" 2>/dev/null; wait "$hl_pid" "$rw_pid" 2>/dev/null || true	# 143: killed
out=$ZC_CACHE/results/$name/bench
[ -f "$out/results.tsv" ] || zc_die "the guest wrote no results (logs: $ZC_CACHE/logs/$name)"
if [ -s "$stopf" ]; then
	failed=0
	[ ! -s "$ZC_CACHE/results/$name/failures.txt" ] && [ ! -s "$ZC_CACHE/logs/$name/splats.txt" ] ||
		failed=1
	if row_stopped "$out" "$stopf" "$failed"; then rc=0; else rc=1; fi
	rm -f "$stopf"
fi
mv "$hl" "$out/host-load.txt"
# what the guest cannot know: the host's side of the run
{
	echo "host_load: $load0 before the boot, $(cut -d' ' -f1-3 /proc/loadavg) after (1/5/15 min)"
	echo "qemu: $(qemu-system-x86_64 --version | head -n 1)"
	echo "host_cpus: $(nproc)"
	echo "source: $(git -C "$repo" describe --always --dirty 2>/dev/null || echo unknown)" \
		"(the checkout run.sh ran from; packages from $pkgdir)"
} >>"$out/meta.txt"
# the floor: the trace model of the memstress workloads (floor.py)
python3 "$here/floor.py" "$out" --json "$out/floor.json" >"$out/floor.txt" 2>&1 ||
	zc_log "floor.py failed (see $out/floor.txt): the report has no floor"
python3 "$here/report.py" "$out" || rc=1
zc_log "report: $out/report.md"
grep -m1 '^\*\*Summary' "$out/report.md" | sed 's/\*\*//g' || true
if [ -n "$publish" ]; then
	pub=$repo/docs/bench/$suite-$profile
	rm -rf "$pub"
	mkdir -p "$pub"
	cp "$out"/report.md "$out"/results.tsv "$out"/meta.txt "$out"/*.png "$pub"/
	cp "$out"/floor.json "$out"/floor.txt "$out"/host-load.txt "$pub"/ 2>/dev/null || true
	zc_log "published to $pub (commit it with its docs/bench/README.md line)"
fi
exit "$rc"
