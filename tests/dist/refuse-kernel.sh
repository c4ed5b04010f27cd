#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/dist/refuse-kernel.sh [SUITE]: what DKMS says for kernels the
# package cannot serve (issue 21).  In SUITE's chroot (default bookworm)
# with zcache-dkms installed (no build: /etc/dkms/no-autoinstall), fake
# header trees /lib/modules/KVER/build (a Makefile that fails the test if
# DKMS ever runs it) for 6.5.0-zcfake, 6.8.0-31-generic (Ubuntu 24.04's)
# and 5.4.0-zcfake; for each, `dkms build` and `dkms autoinstall` (the
# kernel hook's path) must print DKMS's one BUILD_EXCLUSIVE line and never
# run make; `dkms build` exits 77, `dkms autoinstall` 0 (a skip is not a
# failure), except on dkms 3.0.x (bookworm's 3.0.10), whose autoinstall
# counts an excluded module as failed (exit 11, "One or more modules
# failed to install") whatever the package does.  Output: the transcript
# on stdout; exit 1 on any mismatch.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/vm/lib.sh"
suite=${1:-bookworm}
pkg=${ZC_PKG:-$ZC_CACHE/pkg}
deb=$(ls -t "$pkg"/zcache-dkms_*_all.deb 2>/dev/null | head -n 1) || true
[ -n "$deb" ] || zc_die "no zcache-dkms_*_all.deb in $pkg"
w=$ZC_CACHE/work/refuse-kernel; zc_rm_tree "$w"; mkdir -p "$w"
cp "$deb" "$w/"
cat >"$w/inner.sh" <<'EOS'
#!/bin/bash
set -u
mkdir -p /etc/dkms; touch /etc/dkms/no-autoinstall
apt-get install -y -q --no-install-recommends /zc/zcache-dkms_*_all.deb >/zc/apt.log 2>&1 || { tail /zc/apt.log; exit 1; }
ver=$(dpkg-query -W -f='${Version}' zcache-dkms)
rm -f /etc/dkms/no-autoinstall
echo "dkms $(dpkg-query -W -f='${Version}' dkms), zcache-dkms $ver"
bad=0
for k in 6.5.0-zcfake 6.8.0-31-generic 5.4.0-zcfake; do
	mkdir -p /lib/modules/$k/build/include/config
	printf 'all modules:\n\ttouch /zc/make-ran-%s; false\n' "$k" >/lib/modules/$k/build/Makefile
	echo "CONFIG_MODULES=y" >/lib/modules/$k/build/.config
	echo; echo "\$ dkms build -m zcache -v $ver -k $k"
	out=$(dkms build -m zcache -v "$ver" -k "$k" 2>&1); rc=$?
	echo "$out"; echo "(exit status $rc)"
	[ "$rc" = 77 ] && printf '%s' "$out" | grep -q 'BUILD_EXCLUSIVE directive' || bad=1
	echo; echo "\$ dkms autoinstall -k $k"
	out=$(dkms autoinstall -k "$k" 2>&1); rc=$?
	echo "$out"; echo "(exit status $rc)"
	printf '%s' "$out" | grep -q 'BUILD_EXCLUSIVE directive' || bad=1
	case $rc:$(dpkg-query -W -f='${Version}' dkms) in
	0:*) ;;
	11:3.0.*) echo "(dkms 3.0.x: an excluded module counts as an autoinstall failure)" ;;
	*) bad=1 ;;
	esac
	[ ! -e /zc/make-ran-$k ] || { echo "make ran for $k"; bad=1; }
	[ -z "$(dkms status -k "$k" zcache 2>/dev/null | grep -i installed)" ] || bad=1
done
exit $bad
EOS
rootfs=$("$top/vm/rootfs.sh" "$suite")
rc=0
"$top/vm/chroot.sh" --bind "$w:/zc" "$rootfs" -- bash /zc/inner.sh || rc=$?
zc_rm_tree "$w"
[ $rc = 0 ] && echo "refuse-kernel: every unserved kernel refused by DKMS's BUILD_EXCLUSIVE line, no make run" ||
	echo "refuse-kernel: FAILED"
exit $rc
