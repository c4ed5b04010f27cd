#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/dkms-matrix.sh [SUITE...]             the DKMS build matrix (make matrix)
# tests/dkms-matrix.sh --flavour F [SUITE...]  the same for kernel flavour F
#                                             (rt: make matrix-rt)
# tests/dkms-matrix.sh --check [SUITE...]     W=1 + sparse per suite, then checkpatch
# tests/dkms-matrix.sh --checkpatch           checkpatch.pl --no-tree -f on src/
# tests/dkms-matrix.sh --modules [--suite S] [--kdir DIR]
#                                             build the modules in a copy of src/
#
# Matrix, per suite (default: bullseye bookworm trixie sid): in a throw-away
# overlay chroot of the suite's cached root filesystem (vm/rootfs.sh,
# vm/chroot.sh), `apt-get install ./zcache-dkms_*.deb` makes DKMS build the
# modules with that suite's kernel headers and compiler, exactly as on that
# distro.  Then: the probe block from DKMS's make.log, `modinfo` vermagic,
# the warnings of the DKMS build, a W=1 + sparse build of the installed
# sources, `apt-get purge` (no module file left under /lib/modules, `dkms
# status` empty, /usr/src/zcache-* gone) and a second install.  Prints a
# table; per-suite logs in $ZC_CACHE/logs/matrix-SUITE.log.  Exit status is
# non-zero when a suite fails to build, install, purge or reinstall, or
# when the DKMS build, W=1 or sparse warns in zcache's files.
#
# The .deb comes from $ZC_CACHE/pkg (make deb builds it; make matrix does
# both).
#
# --flavour F (rt, the PREEMPT_RT kernel; cloud; make matrix-flavours runs
# both on every suite): linux-headers-F-amd64 is
# installed from the suite's archive in the chroot first, then the .deb; DKMS
# builds for both kernels and every column is about the F kernel.  Results
# in $ZC_CACHE/results/matrix-F/, logs $ZC_CACHE/logs/matrix-F-SUITE.log.

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
. "$top/vm/lib.sh"

usage() {
	sed -n '3,9s/^# \{0,1\}//p' "$0" >&2
	exit 2
}

mode=matrix suite= kdir= flavour=
suites=()
while [ $# -gt 0 ]; do
	case $1 in
	--check) mode=check; shift ;;
	--checkpatch) mode=checkpatch; shift ;;
	--modules) mode=modules; shift ;;
	--suite) [ $# -ge 2 ] || usage; suite=$2; shift 2 ;;
	--kdir) [ $# -ge 2 ] || usage; kdir=$2; shift 2 ;;
	--flavour) [ $# -ge 2 ] || usage; flavour=$2; shift 2 ;;
	-h|--help) usage ;;
	-*) usage ;;
	*) zc_check_suite "$1" || usage; suites+=("$1"); shift ;;
	esac
done
[ ${#suites[@]} -gt 0 ] || read -r -a suites <<<"$ZC_SUITES"

logs=$ZC_CACHE/logs
pkg=${ZC_MATRIX_PKG:-$ZC_CACHE/pkg}   # where the .deb is (override for experiments)
mkdir -p "$logs" "$ZC_CACHE/work"

# ---------------------------------------------------------------------------
# What runs inside a suite's chroot.  /pkg holds the .deb, /out is this
# suite's output directory; results go to /out/result.env.

inner_matrix() {
	set -u
	res=/out/result.env
	: >"$res"
	put() { printf '%s=%q\n' "$1" "$2" >>"$res"; }
	step() { echo; echo "=== $*"; }

	flavour=$(cat /out/flavour 2>/dev/null || true)
	if [ -n "$flavour" ]; then
		step "apt-get install linux-headers-$flavour-amd64"
		apt-get update -q || true
		if ! apt-get install -y --no-install-recommends "linux-headers-$flavour-amd64"; then
			put build "no-headers"
			return 1
		fi
		kver=$(ls /lib/modules | grep -e "-$flavour-amd64\$" | sort -V | tail -n 1)
		put preempt "$(grep -E '^CONFIG_PREEMPT(_RT|_DYNAMIC|_VOLUNTARY)?=y' \
			/lib/modules/$kver/build/.config | sed 's/^CONFIG_//; s/=y//' | tr '\n' ' ')"
	else
		kver=$(ls /lib/modules | sort -V | tail -n 1)
	fi
	kdir=/lib/modules/$kver/build
	put kernel "$kver"
	cc=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\(.*\)"/\1/p' "$kdir/.config")
	# "gcc-12 (Debian 12.2.0-14+deb12u1) 12.2.0" -> "gcc-12 12.2.0"
	put compiler "$(echo "$cc" | sed 's/x86_64-linux-gnu-//; s/^\([^ ]*\) ([^)]*) \([0-9.]*\).*/\1 \2/')"
	put dkms "$(dpkg-query -W -f='${Version}' dkms)"
	deb=$(ls /pkg/zcache-dkms_*_all.deb)
	ver=$(dpkg-deb -f "$deb" Version)
	ver=${ver%%-*}

	step "apt-get install $deb"
	if apt-get install -y --no-install-recommends "$deb" &&
	   [ -n "$(find /lib/modules/"$kver" -path '*/updates/dkms/*' -name 'zcache.ko*')" ]; then
		put build ok
	else
		put build FAIL
	fi
	log=/var/lib/dkms/zcache/$ver/$kver/$(uname -m)/log/make.log
	[ -f "$log" ] || log=/var/lib/dkms/zcache/$ver/build/make.log
	if [ -f "$log" ]; then
		cp "$log" /out/make.log
		step "DKMS make.log"
		cat "$log"
		sed -n '/^zcache: feature probes/,/^zcache: enabled:/p' "$log" >/out/probes.txt
		grep '^zcache: cannot build' "$log" >>/out/probes.txt || true
		put probes "$(sed -n 's/^zcache: enabled: *//p' "$log" | wc -w)"
		put first_error "$(grep -m1 -E ': (fatal )?error: ' "$log" || true)"
		put warnings "$(grep -E ': (warning|error): |^WARNING: ' "$log" |
			grep -v -E '^(/usr/src/|/lib/modules/)' | wc -l)"
	fi
	mods=$(find /lib/modules/"$kver" -path '*/updates/dkms/*' -name 'zc*.ko*' | sort)
	step "installed modules"
	echo "${mods:-none}"
	put nmods "$(echo "$mods" | grep -c . || true)"
	zc=$(echo "$mods" | grep '/zcache\.ko' || true)
	[ -n "$zc" ] && put vermagic "$(modinfo -F vermagic "$zc")"

	step "W=1 + sparse build of /usr/src/zcache-$ver"
	if [ -d "/usr/src/zcache-$ver/src" ]; then
		rm -rf /tmp/check && cp -a "/usr/src/zcache-$ver" /tmp/check
		make -C /tmp/check/src check KDIR="$kdir" 2>&1 | tee /out/check.log || true
		line=$(grep '^zcache: check: W=1 warnings' /out/check.log || true)
		if [ -n "$line" ]; then
			put w1 "$(echo "$line" | sed 's/.*W=1 warnings: \([0-9]*\).*/\1/')"
			put sparse "$(echo "$line" | sed 's/.*sparse warnings: \([0-9]*\).*/\1/')"
		else
			put w1 fail
			put sparse fail
		fi
	fi

	step "apt-get purge -y zcache-dkms"
	purge=clean
	apt-get purge -y zcache-dkms || purge="purge failed"
	left=$(find /lib/modules -name 'zc*.ko*' -o -path '*/updates/dkms/zc*' | head)
	[ -z "$left" ] || { purge="modules left"; echo "left: $left"; }
	st=$(dkms status 2>/dev/null | grep zcache || true)
	[ -z "$st" ] || { purge="dkms status: $st"; }
	! ls -d /usr/src/zcache-* /var/lib/dkms/zcache 2>/dev/null || purge="files left"
	[ ! -e /etc/modprobe.d/zcache.conf ] || purge="conffile left"
	echo "purge: $purge"
	put purge "$purge"

	step "reinstall"
	if apt-get install -y --no-install-recommends "$deb" &&
	   [ -n "$(find /lib/modules/"$kver" -path '*/updates/dkms/*' -name 'zcache.ko*')" ] &&
	   [ -n "$(dkms status -k "$kver" 2>/dev/null | grep -i 'zcache.*installed')" ]; then
		put reinstall ok
	else
		put reinstall FAIL
	fi
}

# W=1 + sparse of the source tree bound at /zsrc (no package involved).
inner_check() {
	set -u
	kver=$(ls /lib/modules | sort -V | tail -n 1)
	rm -rf /tmp/check && cp -a /zsrc /tmp/check
	make -C /tmp/check check KDIR="/lib/modules/$kver/build"
}

inner_modules() {
	set -u
	kver=$(ls /lib/modules | sort -V | tail -n 1)
	make -C /zsrc KDIR="/lib/modules/$kver/build"
	# The test harness's build: zcsmalloc and the test modules.
	make -C /zsrc KDIR="/lib/modules/$kver/build" ZC_TESTS=1
	ls -l /zsrc/*.ko
	modinfo -F vermagic /zsrc/zcache.ko 2>/dev/null || true
}

# Run function $1 in SUITE's chroot ($2) with extra chroot.sh args.
run_in_suite() {
	local fn=$1 s=$2 rootfs dir rc=0
	shift 2
	rootfs=$("$top/vm/rootfs.sh" "$s") || return 1
	dir=$(mktemp -d "$ZC_CACHE/work/matrix-inner.XXXXXX")
	{ declare -f "$fn"; echo "$fn"; } >"$dir/inner.sh"
	"$top/vm/chroot.sh" --bind "$dir:/zinner" "$@" "$rootfs" -- \
		bash /zinner/inner.sh || rc=$?
	rm -rf "$dir"
	return $rc
}

# A copy of src/ under $ZC_CACHE/work (build outputs never land in the
# checkout); prints its path.
src_copy() {
	local d
	mkdir -p "$ZC_CACHE/work/modules"
	d=$(mktemp -d "$ZC_CACHE/work/modules/src.XXXXXX")
	(cd "$top/src" && tar --exclude-vcs --exclude-vcs-ignores -cf - .) | tar -C "$d" -xf -
	echo "$d"
}

# ---------------------------------------------------------------------------

do_matrix() {
	local s out rc fail=0 deb
	deb=$(ls "$pkg"/zcache-dkms_*_all.deb 2>/dev/null | tail -n 1) ||
		zc_die "no zcache-dkms .deb in $pkg: run make deb (or make matrix)"
	local mx=matrix${flavour:+-$flavour}
	zc_log "matrix${flavour:+ (kernel flavour $flavour)}: $(basename "$deb") on ${suites[*]}"
	for s in "${suites[@]}"; do
		out=$ZC_CACHE/results/$mx/$s
		rm -rf "$out"
		mkdir -p "$out"
		[ -z "$flavour" ] || echo "$flavour" >"$out/flavour"
		zc_log "matrix $s: DKMS build, purge, reinstall (log $logs/$mx-$s.log)"
		# The full log goes to the file, the step titles to the terminal.
		{
			rc=0
			run_in_suite inner_matrix "$s" --bind "$pkg:/pkg" \
				--bind "$out:/out" 2>&1 || rc=$?
			echo "$rc" >"$out.rc"
		} | tee "$logs/$mx-$s.log" |
			while IFS= read -r line; do
				case $line in "=== "*) zc_log "matrix $s: ${line#=== }" ;; esac
			done
		rc=$(cat "$out.rc" 2>/dev/null || echo 1)
		rm -f "$out.rc"
		[ -f "$out/result.env" ] || echo "build=FAIL" >"$out/result.env"
		(
			. "$out/result.env"
			zc_log "matrix $s: kernel ${kernel:-?}, build ${build:-?}, purge ${purge:-?}, reinstall ${reinstall:-?}"
		)
		if [ -s "$out/probes.txt" ]; then
			sed "s/^/  [$s] /" "$out/probes.txt" >&2
		else
			tail -n 20 "$logs/$mx-$s.log" | sed "s/^/  [$s] /" >&2
		fi
		cp "$out/probes.txt" "$logs/$mx-$s-probes.txt" 2>/dev/null || true
		[ $rc -eq 0 ] || echo "chroot=rc$rc" >>"$out/result.env"
	done

	echo
	local kw=20 vw=56
	[ -z "$flavour" ] || kw=26 vw=66
	printf "%-9s %-${kw}s %-13s %-6s %-6s %-${vw}s %-5s %-4s %-6s %-6s %s\\n" \
		suite kernel compiler probes build vermagic warn W=1 sparse purge reinstall
	for s in "${suites[@]}"; do
		(
			kernel=- compiler=- probes=- build=FAIL vermagic=- warnings=-
			w1=- sparse=- purge=- reinstall=-
			. "$ZC_CACHE/results/$mx/$s/result.env"
			printf "%-9s %-${kw}s %-13s %-6s %-6s %-${vw}s %-5s %-4s %-6s %-6s %s\\n" \
				"$s" "$kernel" "$compiler" "$probes" "$build" "$vermagic" \
				"$warnings" "$w1" "$sparse" "$purge" "$reinstall"
		)
	done
	if [ -n "$flavour" ]; then
		echo
		for s in "${suites[@]}"; do
			( preempt=-; . "$ZC_CACHE/results/$mx/$s/result.env"
			  echo "$s $flavour kernel config: $preempt" )
		done
	fi
	for s in "${suites[@]}"; do
		# A warning in zcache's files fails the suite: the DKMS build's
		# own, W=1's and sparse's.
		(
			build=FAIL purge=- reinstall=- warnings=- w1=- sparse=-
			. "$ZC_CACHE/results/$mx/$s/result.env"
			[ "$build" = ok ] && [ "$purge" = clean ] && [ "$reinstall" = ok ] &&
				[ "$warnings" = 0 ] && [ "$w1" = 0 ] && [ "$sparse" = 0 ]
		) || { fail=1; echo "FAILED: $s (see $logs/$mx-$s.log)"
			( first_error=; . "$ZC_CACHE/results/$mx/$s/result.env"
			  [ -z "$first_error" ] || echo "  first error: $first_error" ); }
	done
	[ $fail -eq 0 ] && echo "matrix: all ${#suites[@]} suites built, purged clean and reinstalled"
	return $fail
}

checkpatch_setup() {
	local dir=$ZC_CACHE/checkpatch tarball top_dir
	[ -f "$dir/checkpatch.pl" ] && return 0
	zc_apt_install linux-source-6.1 perl
	tarball=$(ls /usr/src/linux-source-6.1*.tar.* | head -n 1)
	zc_log "checkpatch: extracting scripts/checkpatch.pl from $tarball"
	top_dir=$(basename "$tarball" | sed 's/\.tar\..*//')
	mkdir -p "$dir"
	tar -C "$dir" -xf "$tarball" --strip-components=2 \
		"$top_dir/scripts/checkpatch.pl" "$top_dir/scripts/spelling.txt" \
		"$top_dir/scripts/const_structs.checkpatch"
}

do_checkpatch() {
	checkpatch_setup
	local d rc=0
	d=$(src_copy)
	make --no-print-directory -C "$d" checkpatch CHECKPATCH="$ZC_CACHE/checkpatch/checkpatch.pl" || rc=$?
	zc_rm_tree "$d"
	return $rc
}

do_check() {
	local s d rc fail=0 line
	d=$(src_copy)
	for s in "${suites[@]}"; do
		zc_log "check $s: W=1 + sparse (log $logs/check-$s.log)"
		rc=0
		run_in_suite inner_check "$s" --bind "$d:/zsrc" >"$logs/check-$s.log" 2>&1 || rc=$?
		line=$(grep '^zcache: check:' "$logs/check-$s.log" || echo "zcache: check: build failed")
		echo "$s: ${line#zcache: check: }"
		[ $rc -eq 0 ] || fail=1
	done
	zc_rm_tree "$d"
	zc_log "checkpatch"
	do_checkpatch || fail=1
	return $fail
}

do_modules() {
	local d rc=0
	d=$(src_copy)
	if [ -n "$suite" ]; then
		zc_check_suite "$suite" || usage
		run_in_suite inner_modules "$suite" --bind "$d:/zsrc" || rc=$?
	else
		[ -n "$kdir" ] || kdir=/lib/modules/$(uname -r)/build
		make -C "$d" KDIR="$kdir" || rc=$?
	fi
	echo "build tree: $d (make clean removes it)"
	return $rc
}

case $mode in
matrix) do_matrix ;;
check) do_check ;;
checkpatch) do_checkpatch ;;
modules) do_modules ;;
esac
