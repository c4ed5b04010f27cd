#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/dist/autopkgtest.sh [SUITE]: Debian's autopkgtest on the source
# package, as Debian's CI would run it (debian/control Testsuite:
# autopkgtest-pkg-dkms: autodep8 generates the test, dkms-autopkgtest
# builds and installs the modules for every kernel with headers; it never
# loads them).  Runs inside SUITE's chroot (vm/chroot.sh over the cached
# rootfs, default bookworm) with the null virt server: the chroot is the
# testbed, nothing touches the host; the overlay is thrown away after,
# so the test's breaks-testbed restriction is ignored.  Input: zcache_<ver>.dsc and the .debs
# of $ZC_PKG (make deb).  Output: $ZC_CACHE/results/autopkgtest-SUITE-DATE/
# (log, summary, autopkgtest's own output directory); exit status is
# autopkgtest's (0 all passed, 2 some skipped, 4 failed, 8 no tests ...).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/vm/lib.sh"
suite=${1:-bookworm}
zc_check_suite "$suite" || { echo "usage: $0 [SUITE]" >&2; exit 2; }
pkg=${ZC_PKG:-$ZC_CACHE/pkg}
dsc=$(ls -t "$pkg"/zcache_*.dsc 2>/dev/null | head -n 1) || true
[ -n "$dsc" ] || zc_die "no zcache_*.dsc in $pkg (make deb ZC_PKG=$pkg)"
ver=${dsc##*/zcache_}; ver=${ver%.dsc}
out=$ZC_CACHE/results/autopkgtest-$suite-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out/in"
cp "$dsc" "$pkg"/zcache_"$ver".tar.* "$pkg"/zcache-dkms_"${ver}"_all.deb "$pkg"/zcache-utils_"${ver}"_all.deb "$out/in/"
rootfs=$("$top/vm/rootfs.sh" "$suite")
cat >"$out/in/run.sh" <<EOS
#!/bin/bash
set -u
apt-get update -q >/zc/out/apt.log 2>&1
apt-get install -y -q --no-install-recommends autopkgtest autodep8 dpkg-dev >>/zc/out/apt.log 2>&1 ||
	{ tail -n 20 /zc/out/apt.log; exit 90; }
echo "autopkgtest \$(dpkg-query -W -f='\${Version}' autopkgtest), autodep8 \$(dpkg-query -W -f='\${Version}' autodep8), kernel headers: \$(ls -d /lib/modules/*/build | tr '\n' ' ')"
cd /zc/in
# autodep8's test is breaks-testbed, which wants revert-full-system; the
# null server cannot revert, but this chroot is a throw-away overlay.
autopkgtest --output-dir /zc/out/autopkgtest-out --ignore-restrictions=breaks-testbed \
	zcache_$ver.dsc zcache-dkms_${ver}_all.deb zcache-utils_${ver}_all.deb -- null
EOS
zc_log "autopkgtest: zcache $ver in a $suite chroot (null virt server), log $out/autopkgtest.log"
rc=0
"$top/vm/chroot.sh" --bind "$out/in:/zc/in" --bind "$out:/zc/out" "$rootfs" -- \
	bash /zc/in/run.sh >"$out/autopkgtest.log" 2>&1 || rc=$?
rm -rf "$out/in"
cat "$out/autopkgtest-out/summary" 2>/dev/null || tail -n 20 "$out/autopkgtest.log"
zc_log "autopkgtest: exit status $rc ($out)"
exit $rc
