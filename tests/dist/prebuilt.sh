#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/dist/prebuilt.sh [--key KEY --cert CERT] [--out DIR] SUITE [FLAVOUR...]
#
# Prebuilt, signed module packages for machines without dkms, gcc or
# headers (fleets): for each kernel ABI of SUITE (the standard kernel, and
# linux-headers-FLAVOUR-amd64's for each FLAVOUR given, e.g. rt cloud),
# DKMS builds zcsmalloc and zcache from zcache-dkms_*.deb in the suite's
# chroot (vm/chroot.sh, the suite's own compiler), signed with the
# maintainer's key, and the modules become one binary package per ABI:
#
#   zcache-modules-<ABI>_<version>+<kernel version>_amd64.deb
#     /lib/modules/<ABI>/updates/zcache/{zcsmalloc,zcache}.ko
#     Depends: linux-image-<ABI> (= <kernel version>); Conflicts: zcache-dkms
#
# named like Debian's linux-modules-<ABI> and module-assistant's
# <module>-modules-<ABI> (dkms mkbmdeb's naming; Debian's dkms 3 no longer
# has mkbmdeb).  KEY/CERT (PEM key, PEM or DER certificate) sign the
# modules; without them a test key "zcache-dkms test maintainer key" is made
# once under $ZC_CACHE/dist-keys (never in git).  The packages (.debs from
# $ZC_PKG, default $ZC_CACHE/pkg) land in DIR (default
# $ZC_CACHE/prebuilt/SUITE).  Signing: bookworm and newer through DKMS's
# own mok_signing_key setting; bullseye's dkms 2.8.4 does not sign, so
# there the kernel's scripts/sign-file signs the built modules.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/vm/lib.sh"

usage() { echo "usage: $0 [--key KEY --cert CERT] [--out DIR] SUITE [FLAVOUR...]" >&2; exit 2; }
key= cert= out=
while [ $# -gt 0 ]; do
	case $1 in
	--key) [ $# -ge 2 ] || usage; key=$2; shift 2 ;;
	--cert) [ $# -ge 2 ] || usage; cert=$2; shift 2 ;;
	--out) [ $# -ge 2 ] || usage; out=$2; shift 2 ;;
	-*) usage ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] || usage
suite=$1; shift
zc_check_suite "$suite" || usage
flavours=("$@")
[ -z "$key$cert" ] || { [ -f "$key" ] && [ -f "$cert" ]; } || zc_die "--key and --cert: both, existing files"
pkg=${ZC_PKG:-$ZC_CACHE/pkg}
out=${out:-$ZC_CACHE/prebuilt/$suite}
deb=$(ls -t "$pkg"/zcache-dkms_*_all.deb 2>/dev/null | head -n 1) || true
[ -n "$deb" ] || zc_die "no zcache-dkms_*_all.deb in $pkg (make deb ZC_PKG=$pkg)"
ver=${deb##*/zcache-dkms_}; ver=${ver%_all.deb}

if [ -z "$key" ]; then
	kd=$ZC_CACHE/dist-keys
	key=$kd/maintainer.key cert=$kd/maintainer.pem
	if [ ! -f "$cert" ]; then
		mkdir -p "$kd"; chmod 700 "$kd"
		zc_need_cmd openssl openssl
		openssl req -new -x509 -newkey rsa:3072 -sha256 -nodes -days 3650 \
			-subj "/CN=zcache-dkms test maintainer key/O=zcache-dkms/" \
			-addext "extendedKeyUsage=codeSigning" \
			-keyout "$key" -out "$cert" 2>/dev/null
		zc_log "prebuilt: made the test maintainer key $cert"
	fi
fi
signer=$(openssl x509 -in "$cert" -noout -subject -nameopt multiline 2>/dev/null |
	sed -n 's/^ *commonName *= *//p') || true
[ -n "$signer" ] || signer=$(openssl x509 -inform DER -in "$cert" -noout -subject -nameopt multiline | sed -n 's/^ *commonName *= *//p')

rootfs=$("$top/vm/rootfs.sh" "$suite")
w=$ZC_CACHE/work/prebuilt-$suite
zc_rm_tree "$w"
mkdir -p "$w/in" "$w/out" "$out"
cp "$deb" "$w/in/"
cp "$key" "$w/in/maintainer.key"
# DER for DKMS (mok_certificate), PEM or DER in.
openssl x509 -in "$cert" -outform DER -out "$w/in/maintainer.der" 2>/dev/null ||
	cp "$cert" "$w/in/maintainer.der"
hdrs=()
for f in "${flavours[@]}"; do hdrs+=("linux-headers-$f-amd64" "linux-image-$f-amd64"); done

cat >"$w/in/build.sh" <<'EOS'
#!/bin/bash
# In the chroot: DKMS builds and signs for every kernel with headers.
set -euo pipefail
if [ $# -gt 0 ]; then
	apt-get update -q >/dev/null
	apt-get install -y -q --no-install-recommends "$@" >/zc/out/apt-kernels.log 2>&1 ||
		{ tail -n 20 /zc/out/apt-kernels.log; exit 1; }
fi
mkdir -p /etc/dkms/framework.conf.d
printf 'mok_signing_key=/zc/in/maintainer.key\nmok_certificate=/zc/in/maintainer.der\n' \
	>/etc/dkms/framework.conf.d/zcache-maintainer.conf
apt-get install -y -q --no-install-recommends /zc/in/zcache-dkms_*_all.deb >/zc/out/apt.log 2>&1 ||
	{ tail -n 40 /zc/out/apt.log; cat /var/lib/dkms/zcache/*/build/make.log 2>/dev/null | tail -n 40; exit 1; }
for b in /lib/modules/*/build; do
	k=${b#/lib/modules/}; k=${k%/build}
	d=/lib/modules/$k/updates/dkms
	[ -f "$d/zcache.ko" ] || [ -f "$d/zcache.ko.xz" ] || { echo "no zcache.ko for $k" >&2; exit 1; }
	mkdir -p "/zc/out/$k"
	for m in zcsmalloc zcache; do
		f=$(ls "$d/$m.ko"* | head -n 1)
		case $f in *.xz) xz -dc "$f" >"/zc/out/$k/$m.ko" ;; *) cp "$f" "/zc/out/$k/$m.ko" ;; esac
		if ! modinfo -F signer "/zc/out/$k/$m.ko" | grep -q .; then
			# dkms 2.8 (bullseye) does not sign: the kernel's sign-file.
			sf=$(ls /usr/src/linux-headers-"$k"/scripts/sign-file /usr/lib/linux-kbuild-*/scripts/sign-file 2>/dev/null | head -n 1)
			[ -n "$sf" ] || { echo "no sign-file for $k" >&2; exit 1; }
			"$sf" sha256 /zc/in/maintainer.key /zc/in/maintainer.der "/zc/out/$k/$m.ko"
		fi
	done
	dpkg-query -W -f='${Version}\n' "linux-image-$k" >"/zc/out/$k/kernel-version"
	modinfo -F signer "/zc/out/$k/zcache.ko" >"/zc/out/$k/signer"
done
EOS
zc_log "prebuilt $suite: DKMS build of zcache $ver in the chroot${flavours[*]:+ (+ ${flavours[*]})}"
"$top/vm/chroot.sh" --bind "$w/in:/zc/in" --bind "$w/out:/zc/out" "$rootfs" -- \
	bash /zc/in/build.sh "${hdrs[@]}" >"$w/chroot.log" 2>&1 ||
	{ tail -n 40 "$w/chroot.log" >&2; zc_die "prebuilt: chroot build failed (log $w/chroot.log)"; }

rm -f "$out"/zcache-modules-*.deb
for kd in "$w/out"/*/; do
	k=$(basename "$kd")
	kv=$(cat "$kd/kernel-version")
	got=$(cat "$kd/signer")
	[ "$got" = "$signer" ] || zc_die "prebuilt: $k modules signed by '$got', not '$signer'"
	p=zcache-modules-$k
	r=$w/deb/$p
	mkdir -p "$r/DEBIAN" "$r/lib/modules/$k/updates/zcache" "$r/usr/share/doc/$p"
	install -m 644 "$kd"/zcsmalloc.ko "$kd"/zcache.ko "$r/lib/modules/$k/updates/zcache/"
	install -m 644 "$top/debian/copyright" "$r/usr/share/doc/$p/copyright"
	cat >"$r/DEBIAN/control" <<EOC
Package: $p
Source: zcache
Version: $ver+$kv
Architecture: amd64
Maintainer: $(sed -n 's/^Maintainer: //p' "$top/debian/control")
Section: kernel
Priority: optional
Depends: linux-image-$k (= $kv)
Conflicts: zcache-dkms
Provides: zcache-modules
Recommends: zcache-utils
Installed-Size: $(du -k -s "$r" | cut -f1)
Description: compressed RAM cache for swap pages (modules for $k)
 zcsmalloc and zcache $ver built for the Debian kernel $k
 (linux-image-$k $kv) and signed with the maintainer key
 "$signer", for machines without DKMS, a compiler or kernel headers.
 zcache-dkms builds the same modules on the machine itself.
EOC
	printf '#!/bin/sh\nset -e\ndepmod -a %s || true\n' "$k" >"$r/DEBIAN/postinst"
	printf '#!/bin/sh\nset -e\ndepmod -a %s 2>/dev/null || true\n' "$k" >"$r/DEBIAN/postrm"
	chmod 755 "$r/DEBIAN/postinst" "$r/DEBIAN/postrm"
	dpkg-deb --root-owner-group -Zxz -b "$r" "$out/${p}_${ver}+${kv}_amd64.deb" >/dev/null
	zc_log "prebuilt: $out/${p}_${ver}+${kv}_amd64.deb (signer: $got)"
done
zc_rm_tree "$w"
ls -l "$out"
