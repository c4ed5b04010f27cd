#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/lifecycle.sh [SUITE...]     package lifecycle (make lifecycle)
# tests/lifecycle.sh --build-old    only build the previous-version .deb
# tests/lifecycle.sh --table [SUITE...]  print the table of the last run
#
# Per suite (default: bookworm bullseye), in a throw-away overlay chroot of
# the suite's cached root filesystem (vm/rootfs.sh, vm/chroot.sh):
#   1. apt-get install the previous release (ZC_OLD_VERSION, default 0.1.0:
#      a .deb built from the git tag v0.1.0 with git archive under
#      $ZC_CACHE/work); DKMS builds it
#   2. apt-get install the current .deb ($ZC_CACHE/pkg, make deb): an
#      upgrade; no module of the old version, no DKMS entry of it and no
#      /usr/src/zcache-OLD may remain, the new modules are installed
#   3. modinfo -F signer on the built modules (dkms >= 3 signs; dkms 2.x:
#      "unsigned", which is not a failure there)
#   4. apt-get remove: modules and DKMS tree gone, conffile kept
#   5. apt-get purge: conffile gone, dkms status empty, nothing under
#      /lib/modules/*/updates/dkms, no /usr/src/zcache-*
#   6. apt-get install again: modules built and installed
# Prints a table of checks (PASS/FAIL) per suite and exits non-zero on any
# failure.  Logs: $ZC_CACHE/logs/lifecycle-SUITE.log; results:
# $ZC_CACHE/results/lifecycle/SUITE/checks.tsv.

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
. "$top/vm/lib.sh"

old_version=${ZC_OLD_VERSION:-0.1.0}
pkg=${ZC_LIFECYCLE_PKG:-$ZC_CACHE/pkg}
oldpkg=$ZC_CACHE/pkg-old-$old_version
logs=$ZC_CACHE/logs
mode=run
suites=()
while [ $# -gt 0 ]; do
	case $1 in
	--build-old) mode=build-old; shift ;;
	--table) mode=table; shift ;;
	-h|--help) sed -n '3,5s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
	-*) echo "unknown option $1" >&2; exit 2 ;;
	*) zc_check_suite "$1" || exit 2; suites+=("$1"); shift ;;
	esac
done
[ ${#suites[@]} -gt 0 ] || suites=(bookworm bullseye)
mkdir -p "$logs" "$ZC_CACHE/work"

# Build zcache-dkms at $old_version from its release tag v$old_version
# (git archive of the tag, dpkg-buildpackage), once per tag commit.
build_old() {
	local w src rev rc=0
	zc_apt_install dpkg-dev debhelper dh-dkms
	exec 7>"$ZC_CACHE/work/.lock-lifecycle-old"
	flock 7
	rev=$(git -C "$top" rev-parse --verify -q "v$old_version^{commit}") ||
		zc_die "no git tag v$old_version (the release the upgrade starts from)"
	if ls "$oldpkg"/zcache-dkms_"$old_version"_all.deb >/dev/null 2>&1 &&
	   [ "$(cat "$oldpkg/tree.sha" 2>/dev/null)" = "$rev" ]; then
		zc_log "lifecycle: old package $old_version cached in $oldpkg"
		return 0
	fi
	w=$ZC_CACHE/work/lifecycle-old
	zc_rm_tree "$w"
	src=$w/zcache-$old_version
	mkdir -p "$src" "$oldpkg"
	git -C "$top" archive "$rev" | tar -C "$src" -xf -
	grep -q "^zcache ($old_version)" "$src/debian/changelog" ||
		zc_die "v$old_version: its debian/changelog does not say $old_version"
	zc_log "lifecycle: building zcache-dkms $old_version from v$old_version (${rev:0:12}, log $w/build.log)"
	(cd "$src" && dpkg-buildpackage -us -uc -b) >"$w/build.log" 2>&1 || rc=$?
	if [ $rc -ne 0 ]; then
		tail -n 30 "$w/build.log" >&2
		zc_die "dpkg-buildpackage of $old_version failed (log $w/build.log)"
	fi
	rm -f "$oldpkg"/*.deb
	cp "$w"/zcache-dkms_"$old_version"_all.deb "$oldpkg/"
	echo "$rev" >"$oldpkg/tree.sha"
	zc_rm_tree "$w"
}

# ---------------------------------------------------------------------------
# Runs inside the chroot: /old and /new hold the .debs; /out gets checks.tsv.
inner_lifecycle() {
	set -u
	out=/out/checks.tsv
	: >"$out"
	check() { # check NAME PASS|FAIL|INFO DETAIL
		printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$out"
		echo "CHECK $2 $1: $3"
	}
	step() { echo; echo "=== $*"; }
	apt_in() { apt-get install -y --no-install-recommends "$@"; }
	kvers=$(ls /lib/modules | sort -V)
	kver=$(echo "$kvers" | tail -n 1)
	olddeb=$(ls /old/zcache-dkms_*_all.deb)
	newdeb=$(ls /new/zcache-dkms_*_all.deb)
	ov=$(dpkg-deb -f "$olddeb" Version); ov=${ov%%-*}
	nv=$(dpkg-deb -f "$newdeb" Version); nv=${nv%%-*}
	dkmsv=$(dpkg-query -W -f='${Version}' dkms)
	echo "kernels: $kvers; dkms $dkmsv; old $ov, new $nv"
	printf 'kernel\t%s\ndkms\t%s\n' "$kver" "$dkmsv" >/out/info.tsv
	mods() { find /lib/modules -path '*/updates/dkms/*' -name 'zc*.ko*' 2>/dev/null | sort; }
	# Modules a version installs: its dkms.conf's BUILT_MODULE_NAME lines
	# (0.1.0: five, with the self-tests; 0.2.0: zcsmalloc and zcache) per
	# kernel.
	nmods_expected() {
		local f=/usr/src/zcache-${1:-$nv}/dkms.conf
		echo $(( $(echo "$kvers" | wc -w) * $(grep -c '^BUILT_MODULE_NAME' "$f") ))
	}
	dkst() { dkms status 2>/dev/null | grep -i zcache || true; }

	step "install old $ov"
	if apt_in "$olddeb" && [ -n "$(dkst | grep "$ov" | grep -i installed)" ] &&
	   [ "$(mods | wc -l)" -eq "$(nmods_expected "$ov")" ]; then
		check "install $ov" PASS "$(dkst | tr '\n' ';')"
	else
		check "install $ov" FAIL "$(dkst | tr '\n' ';') $(mods | wc -l) modules"
	fi
	# Fingerprint of the old modules, to prove the upgrade replaced them.
	mods | xargs -r sha256sum >/tmp/old.sha
	touch /tmp/stamp
	sleep 1

	step "upgrade to $nv"
	if apt_in "$newdeb" && [ "$(dpkg-query -W -f='${Version}' zcache-dkms)" = "$nv" ]; then
		check "upgrade $ov -> $nv (apt)" PASS "zcache-dkms $nv installed"
	else
		check "upgrade $ov -> $nv (apt)" FAIL "apt-get install failed"
	fi
	st=$(dkst)
	echo "dkms status: $st"
	if [ -n "$(echo "$st" | grep "$ov")" ]; then
		check "no DKMS entry of $ov" FAIL "$(echo "$st" | tr '\n' ';')"
	elif [ -e "/var/lib/dkms/zcache/$ov" ] || [ -e "/usr/src/zcache-$ov" ]; then
		check "no DKMS entry of $ov" FAIL "$(ls -d /var/lib/dkms/zcache/$ov /usr/src/zcache-$ov 2>/dev/null)"
	else
		check "no DKMS entry of $ov" PASS "dkms status: $(echo "$st" | tr '\n' ';')"
	fi
	# Modules that predate the upgrade, or report another version
	# (MODULE_VERSION, when the source sets it).
	stale=$(mods | while read -r m; do
		v=$(modinfo -F version "$m" 2>/dev/null | head -n 1)
		if [ ! "$m" -nt /tmp/stamp ] || { [ -n "$v" ] && [ "$v" != "$nv" ]; }; then
			echo "$m${v:+ ($v)}"
		fi
	done)
	same=$(mods | xargs -r sha256sum | grep -F -x -f /tmp/old.sha || true)
	if [ -z "$stale" ] && [ -z "$same" ] &&
	   [ "$(mods | wc -l)" -eq "$(nmods_expected "$nv")" ] &&
	   [ -n "$(echo "$st" | grep "$nv" | grep -i installed)" ]; then
		check "no stale module of $ov" PASS "$(mods | wc -l) modules, all rebuilt by $nv$(v=$(modinfo -F version "$(mods | head -n 1)" 2>/dev/null); [ -z "$v" ] || echo ", modinfo version $v")"
	else
		check "no stale module of $ov" FAIL "stale: $(echo $stale $same) count $(mods | wc -l)"
	fi

	step "signatures"
	signers=$(mods | while read -r m; do modinfo -F signer "$m" 2>/dev/null; done | sort -u)
	unsigned=$(mods | while read -r m; do [ -n "$(modinfo -F signer "$m" 2>/dev/null)" ] || echo "$m"; done)
	case $dkmsv in
	2.*)
		if [ -z "$signers" ]; then
			check "module signer" INFO "unsigned (dkms $dkmsv does not sign)"
		else
			check "module signer" INFO "signed by: $signers (dkms $dkmsv)"
		fi ;;
	*)
		if [ -n "$signers" ] && [ -z "$unsigned" ]; then
			check "module signer" PASS "signer: $(echo "$signers" | paste -sd,) (dkms $dkmsv, key /var/lib/dkms/mok.pub)"
		else
			check "module signer" FAIL "unsigned: $(echo $unsigned)"
		fi ;;
	esac

	step "apt-get remove zcache-dkms"
	apt-get remove -y zcache-dkms || true
	st=$(dkst)
	if [ -z "$(mods)" ] && [ -z "$st" ] && ! ls -d /usr/src/zcache-* 2>/dev/null; then
		check "remove: modules gone" PASS "no zc*.ko under updates/dkms, dkms status empty"
	else
		check "remove: modules gone" FAIL "$(mods | tr '\n' ' ') $st"
	fi
	if [ -f /etc/modprobe.d/zcache.conf ] &&
	   dpkg-query -W -f='${Status}' zcache-dkms | grep -q config-files; then
		check "remove: conffile kept" PASS "/etc/modprobe.d/zcache.conf, state config-files"
	else
		check "remove: conffile kept" FAIL "$(dpkg-query -W -f='${Status}' zcache-dkms 2>&1)"
	fi

	step "apt-get purge zcache-dkms"
	apt-get purge -y zcache-dkms || true
	left=$(find /lib/modules/*/updates/dkms -mindepth 1 2>/dev/null | head || true)
	[ -z "$left" ] && check "purge: nothing in updates/dkms" PASS "empty" ||
		check "purge: nothing in updates/dkms" FAIL "$(echo $left)"
	st=$(dkms status 2>/dev/null || true)
	[ -z "$st" ] && check "purge: dkms status empty" PASS "empty" ||
		check "purge: dkms status empty" FAIL "$(echo "$st" | tr '\n' ';')"
	left=$(ls -d /usr/src/zcache-* /var/lib/dkms/zcache 2>/dev/null || true)
	[ -z "$left" ] && check "purge: no /usr/src/zcache-*" PASS "none" ||
		check "purge: no /usr/src/zcache-*" FAIL "$(echo $left)"
	if [ ! -e /etc/modprobe.d/zcache.conf ] && ! dpkg-query -W zcache-dkms >/dev/null 2>&1; then
		check "purge: conffile gone" PASS "no /etc/modprobe.d/zcache.conf, package unknown to dpkg"
	else
		check "purge: conffile gone" FAIL "$(ls /etc/modprobe.d/zcache.conf 2>&1)"
	fi

	step "reinstall $nv"
	if apt_in "$newdeb" && [ "$(mods | wc -l)" -eq "$(nmods_expected "$nv")" ] &&
	   [ -n "$(dkst | grep "$nv" | grep -i installed)" ]; then
		check "reinstall $nv" PASS "$(mods | wc -l) modules; $(dkst | tr '\n' ';')"
	else
		check "reinstall $nv" FAIL "$(mods | wc -l) modules; $(dkst | tr '\n' ';')"
	fi
}

run_suite() {
	local s=$1 rootfs dir out rc=0
	out=$ZC_CACHE/results/lifecycle/$s
	rm -rf "$out"
	mkdir -p "$out"
	rootfs=$("$top/vm/rootfs.sh" "$s") || return 1
	dir=$(mktemp -d "$ZC_CACHE/work/lifecycle-inner.XXXXXX")
	{ declare -f inner_lifecycle; echo inner_lifecycle; } >"$dir/inner.sh"
	mkdir -p "$dir/new"
	cp "$(ls "$pkg"/zcache-dkms_*_all.deb | tail -n 1)" "$dir/new/"
	zc_log "lifecycle $s: install $old_version, upgrade, remove, purge, reinstall (log $logs/lifecycle-$s.log)"
	"$top/vm/chroot.sh" --bind "$dir:/zinner" --bind "$oldpkg:/old" \
		--bind "$dir/new:/new" --bind "$out:/out" "$rootfs" -- \
		bash /zinner/inner.sh >"$logs/lifecycle-$s.log" 2>&1 || rc=$?
	rm -rf "$dir"
	grep '^CHECK ' "$logs/lifecycle-$s.log" | sed "s/^/  [$s] /" >&2 || true
	[ $rc -eq 0 ] || printf 'chroot\tFAIL\texit status %s\n' "$rc" >>"$out/checks.tsv"
}

print_table() {
local s f kernel dkmsv name res detail fail=0
echo
printf '%-9s %-16s %-17s %-30s %-6s %s\n' suite kernel dkms check result detail
for s in "${suites[@]}"; do
	f=$ZC_CACHE/results/lifecycle/$s/checks.tsv
	kernel=$(sed -n 's/^kernel\t//p' "$ZC_CACHE/results/lifecycle/$s/info.tsv" 2>/dev/null)
	dkmsv=$(sed -n 's/^dkms\t//p' "$ZC_CACHE/results/lifecycle/$s/info.tsv" 2>/dev/null)
	[ -s "$f" ] || { printf '%-9s %-16s %-17s %-30s %-6s %s\n' "$s" - - chroot FAIL "no results"; fail=1; continue; }
	while IFS=$'\t' read -r name res detail; do
		printf '%-9s %-16s %-17s %-30s %-6s %s\n' "$s" "${kernel:--}" "${dkmsv:--}" "$name" "$res" "${detail%;}"
		[ "$res" != FAIL ] || fail=1
	done <"$f"
done
echo
if [ $fail -eq 0 ]; then echo "lifecycle: all checks passed on ${suites[*]}"; else echo "lifecycle: FAILED"; fi
return $fail
}

if [ "$mode" = table ]; then print_table; exit; fi
build_old
[ "$mode" = build-old ] && exit 0
ls "$pkg"/zcache-dkms_*_all.deb >/dev/null 2>&1 ||
	zc_die "no zcache-dkms .deb in $pkg: run make deb (or make lifecycle)"

for s in "${suites[@]}"; do run_suite "$s"; done
print_table
