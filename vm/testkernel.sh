#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vm/testkernel.sh FLAVOUR: build (or reuse) a test kernel from Debian's own
# linux-source package, in a chroot of its suite, packaged as .debs
# (linux-image + linux-headers) so that it installs like a distro kernel
# and DKMS builds zcache for it by itself.
#
#   cleancache  bullseye 5.10 with CONFIG_CLEANCACHE=y: the cleancache
#               front end is compiled (probe) and runs for real
#   debug       bookworm 6.1 with KASAN, lockdep (PROVE_LOCKING), kmemleak,
#               DEBUG_ATOMIC_SLEEP and fault injection (FAILSLAB,
#               FAIL_PAGE_ALLOC)
#   cleancache-debug  bullseye 5.10 with both: the frontswap and cleancache
#               front ends under the same checkers
#
# The configuration starts from Debian's own config of that kernel,
# trimmed with localmodconfig to the modules a test guest loads
# (vm/testkernel/guest-modules), plus common.config and the flavour's
# fragments (vm/testkernel/*.config, below); the release ends in
# -zc-FLAVOUR.  Outputs, cached under
# $ZC_CACHE/testkernel/FLAVOUR-HASH/ (HASH covers the recipe):
#   linux-image-*.deb linux-headers-*.deb  and  kernel.release
# Prints that directory on stdout.  Runs at nice 19: it takes a while.

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

usage() { echo "usage: $0 {cleancache|debug|cleancache-debug}" >&2; exit 2; }
[ $# -eq 1 ] || usage
flavour=$1
case $flavour in
cleancache) suite=bullseye srcpkg=linux-source-5.10 frags=cleancache ;;
debug) suite=bookworm srcpkg=linux-source-6.1 frags='checks debug' ;;
cleancache-debug) suite=bullseye srcpkg=linux-source-5.10 frags='cleancache checks' ;;
*) usage ;;
esac

kdir=$here/testkernel
fragfiles=()
for f in $frags; do
	[ -f "$kdir/$f.config" ] || zc_die "missing $kdir/$f.config"
	fragfiles+=("$kdir/$f.config")
done
rootfs=$("$here/rootfs.sh" "$suite")
# The rootfs by its name (its own content hash), not its path: cache
# lanes ($ZC_CACHE elsewhere, testkernel/ linked) share the kernels.
hash=$(cat "$0" "${fragfiles[@]}" "$kdir/common.config" "$kdir/guest-modules" |
	{ cat; echo "${rootfs##*/}"; } | sha256sum | cut -c1-12)
out=$ZC_CACHE/testkernel/$flavour-$hash
if [ -f "$out/kernel.release" ]; then
	zc_log "test kernel $flavour: cached in $out"
	echo "$out"
	exit 0
fi

# The source and object tree stays between builds (incremental rebuilds);
# the packages of each recipe go to $out.
build=$ZC_CACHE/testkernel/$flavour-build
mkdir -p "$out" "$build" "$ZC_CACHE/logs"
exec 9>"$build/.lock"
flock 9
log=$ZC_CACHE/logs/testkernel-$flavour.log
zc_log "test kernel $flavour: building $srcpkg in a $suite chroot (20-60 min on 2 cores), log $log"

# Everything below runs inside the chroot; $build is bound at /build,
# $out at /out.
cat >"$build/build.sh" <<'EOF'
#!/bin/bash
set -euo pipefail
flavour=$1 srcpkg=$2; shift 2
apt-get update -q
apt-get install -y -q --no-install-recommends "$srcpkg" bc bison flex \
	libssl-dev libelf-dev cpio rsync kmod build-essential fakeroot debhelper \
	python3 xz-utils >/dev/null
cd /build
if [ ! -d src ]; then
	echo "extracting /usr/src/$srcpkg.tar.xz"
	mkdir src.tmp
	tar -C src.tmp --strip-components=1 -xf "/usr/src/$srcpkg.tar.xz"
	mv src.tmp src
fi
cd src
kver=$(ls /lib/modules | head -n1)
cp "/boot/config-$kver" .config
# Trim to what a test guest loads: localmodconfig reads an lsmod listing.
awk '!/^#/ { for (i = 1; i <= NF; i++) print $i, 0, 0 }' /kcfg/guest-modules |
	{ echo "Module Size Used"; cat; } >/tmp/lsmod
yes '' | make LSMOD=/tmp/lsmod localmodconfig >/dev/null 2>&1 || true
frags=(/kcfg/common.config)
for f in "$@"; do frags+=("/kcfg/$f.config"); done
echo "CONFIG_LOCALVERSION=\"-zc-$flavour\"" >/tmp/localversion.config
frags+=(/tmp/localversion.config)
scripts/kconfig/merge_config.sh -m .config "${frags[@]}" >/dev/null
make olddefconfig >/dev/null
# Every option the fragments ask for must have survived olddefconfig.
bad=0
while read -r line; do
	case $line in ''|'#'*) continue ;; esac
	if ! grep -qx -- "$line" .config; then
		echo "config: wanted '$line', got '$(grep "^${line%%=*}=" .config || echo unset)'" >&2
		bad=1
	fi
done < <(cat "${frags[@]}" | grep -v '^# ')
[ $bad -eq 0 ] || exit 1
echo "building: $(make -s kernelrelease)"
nice -n 19 make -j"$(nproc)" bindeb-pkg LOCALVERSION= \
	KDEB_PKGVERSION="$(make -s kernelversion)-1zc" >/build/make.log 2>&1 ||
	{ tail -n 40 /build/make.log; exit 1; }
# bindeb-pkg writes the packages next to the source tree.
mv /build/linux-image-*.deb /build/linux-headers-*.deb /out/
rm -f /build/*.deb /build/*.buildinfo /build/*.changes
make -s kernelrelease >/out/kernel.release.tmp
EOF
chmod +x "$build/build.sh"

start=$SECONDS
if ! "$here/chroot.sh" --bind "$build:/build" --bind "$out:/out" \
	--bind "$kdir:/kcfg" "$rootfs" -- \
	/build/build.sh "$flavour" "$srcpkg" $frags >"$log" 2>&1; then
	tail -n 40 "$log" >&2
	zc_die "test kernel $flavour failed (log: $log)"
fi
ls "$out"/linux-image-*.deb "$out"/linux-headers-*.deb >/dev/null ||
	zc_die "no packages produced (log: $log)"
mv "$out/kernel.release.tmp" "$out/kernel.release"
zc_log "test kernel $flavour: $(cat "$out/kernel.release") built in $((SECONDS - start)) s"
echo "$out"
