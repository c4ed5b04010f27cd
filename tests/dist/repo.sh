#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/dist/repo.sh [--out DIR] [--prebuilt DIR] [--extra DIR]
#
# A signed apt repository of zcache, made with Debian's own tools
# (apt-ftparchive, gpg), the way a fleet's mirror serves it: one snapshot
# per release, so a guest can install the old one by name and then
# `apt upgrade` to the new one.
#
#   DIR/zcache-archive-keyring.gpg   the public key (apt's signed-by=)
#   DIR/0.1.0/                      the previous release, built from the
#                                   git tag v0.1.0 (git archive + dpkg-buildpackage)
#   DIR/<version>/                  the current one: the .debs of $ZC_PKG
#                                   (make deb), the prebuilt module packages
#                                   of --prebuilt DIR (tests/dist/prebuilt.sh)
#   DIR/rpm/                        the current .rpms of $ZC_PKG (make rpm), for
#                                   the rpm guest path (guest-rpm-utils.sh)
#   each: pool/main/*.deb, dists/bookworm/{Release,InRelease,Release.gpg},
#         dists/bookworm/main/binary-amd64/Packages{,.gz}
#
# --extra DIR adds the .debs of DIR to both snapshots (e.g. lvm2 and its
# libraries for suite 35's PV test on an image without them).
# The signing key is a test key made once under $ZC_CACHE/dist-keys/gnupg
# (never in git).  DIR defaults to $ZC_CACHE/repo.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/vm/lib.sh"

usage() { echo "usage: $0 [--out DIR] [--prebuilt DIR] [--extra DIR]" >&2; exit 2; }
out=$ZC_CACHE/repo prebuilt= extra=
while [ $# -gt 0 ]; do
	case $1 in
	--out) [ $# -ge 2 ] || usage; out=$2; shift 2 ;;
	--prebuilt) [ $# -ge 2 ] || usage; prebuilt=$2; shift 2 ;;
	--extra) [ $# -ge 2 ] || usage; extra=$2; shift 2 ;;
	*) usage ;;
	esac
done
zc_apt_install apt-utils gnupg dpkg-dev debhelper dh-dkms
pkg=${ZC_PKG:-$ZC_CACHE/pkg}
cur=$(ls -t "$pkg"/zcache-dkms_*_all.deb 2>/dev/null | head -n 1) || true
[ -n "$cur" ] || zc_die "no zcache-dkms_*_all.deb in $pkg (make deb ZC_PKG=$pkg)"
ver=${cur##*/zcache-dkms_}; ver=${ver%_all.deb}
[ "$ver" != 0.1.0 ] || zc_die "$pkg holds 0.1.0 itself: nothing to upgrade to"

# The signing key.
export GNUPGHOME=$ZC_CACHE/dist-keys/gnupg
uid="zcache-dkms test archive key <zcache-dkms@lists.zcache.dev>"
mkdir -p "$GNUPGHOME"; chmod 700 "$GNUPGHOME"
if ! gpg --batch --list-secret-keys "$uid" >/dev/null 2>&1; then
	gpg --batch --quiet --passphrase '' --quick-gen-key "$uid" ed25519 sign 2y
	zc_log "repo: made the test archive key ($GNUPGHOME)"
fi
fpr=$(gpg --batch --with-colons --list-secret-keys "$uid" | awk -F: '$1 == "fpr" { print $10; exit }')

# The previous release, from its tag, built once per tag commit.
# A clone without tags (CI's, a fresh checkout) takes the commit the tag
# names: the tree as released as 0.1.0, before the 0.2.0 work began.
tag=v0.1.0
rel_0_1_0=96d4d1e6d15f4d80953efcdc092e125cc434d15b
if ! rev=$(git -C "$top" rev-parse --verify -q "$tag^{commit}"); then
	rev=$(git -C "$top" rev-parse --verify -q "$rel_0_1_0^{commit}") ||
		zc_die "no tag $tag and no commit $rel_0_1_0 in $top"
	zc_log "repo: no tag $tag here; 0.1.0 is its commit ${rev:0:12}"
fi
old=$ZC_CACHE/repo-build/0.1.0-${rev:0:12}
if ! ls "$old"/zcache-dkms_0.1.0_all.deb >/dev/null 2>&1; then
	w=$ZC_CACHE/work/repo-0.1.0
	zc_rm_tree "$w"; mkdir -p "$w/zcache-0.1.0"
	git -C "$top" archive "$rev" | tar -C "$w/zcache-0.1.0" -xf -
	grep -q '^zcache (0.1.0)' "$w/zcache-0.1.0/debian/changelog" || zc_die "$tag: debian/changelog is not at 0.1.0"
	zc_log "repo: dpkg-buildpackage 0.1.0 from $tag (${rev:0:12})"
	(cd "$w/zcache-0.1.0" && dpkg-buildpackage -us -uc -b) >"$w.log" 2>&1 ||
		{ tail -n 30 "$w.log" >&2; zc_die "0.1.0 build failed (log $w.log)"; }
	mkdir -p "$old"; cp "$w"/*.deb "$old/"; zc_rm_tree "$w"
fi

# snapshot NAME DEB...: one signed repository under $out/NAME.
snapshot() {
	local d=$out/$1 rel; shift
	zc_rm_tree "$d"
	mkdir -p "$d/pool/main" "$d/dists/bookworm/main/binary-amd64"
	cp "$@" "$d/pool/main/"
	# apt-get download names files with the epoch URL-encoded (2%3a...);
	# Debian's pool drops the epoch.
	for f in "$d"/pool/main/*%3a*; do
		[ -e "$f" ] && mv "$f" "$(printf '%s' "$f" | sed 's/_[0-9]*%3a/_/')"
	done
	(cd "$d" && apt-ftparchive packages pool >dists/bookworm/main/binary-amd64/Packages)
	gzip -9nk "$d/dists/bookworm/main/binary-amd64/Packages"
	rel=$d/dists/bookworm/Release
	apt-ftparchive \
		-o APT::FTPArchive::Release::Origin=zcache-dkms \
		-o APT::FTPArchive::Release::Label=zcache-dkms \
		-o APT::FTPArchive::Release::Suite=bookworm \
		-o APT::FTPArchive::Release::Codename=bookworm \
		-o APT::FTPArchive::Release::Architectures="amd64 all" \
		-o APT::FTPArchive::Release::Components=main \
		-o APT::FTPArchive::Release::Description="zcache $1 (test archive)" \
		release "$d/dists/bookworm" >"$rel.tmp"
	mv "$rel.tmp" "$rel"
	gpg --batch --yes --local-user "$fpr" --clearsign -o "$d/dists/bookworm/InRelease" "$rel"
	gpg --batch --yes --local-user "$fpr" -abs -o "$rel.gpg" "$rel"
	zc_log "repo: $d: $(cd "$d/pool/main" && echo *)"
}
mkdir -p "$out"
gpg --batch --yes --export "$fpr" >"$out/zcache-archive-keyring.gpg"
ex=()
[ -z "$extra" ] || ex=("$extra"/*.deb)
snapshot 0.1.0 "$old"/zcache-dkms_0.1.0_all.deb "$old"/zcache-utils_0.1.0_all.deb "${ex[@]}"
pb=()
[ -z "$prebuilt" ] || pb=("$prebuilt"/zcache-modules-*.deb)
snapshot "$ver" "$cur" "$pkg/zcache-utils_${ver}_all.deb" "${pb[@]}" "${ex[@]}"
echo "$ver" >"$out/current"
zc_rm_tree "$out/rpm"; mkdir -p "$out/rpm"
cp "$pkg"/zcache-dkms-"$ver"-*.noarch.rpm "$pkg"/zcache-utils-"$ver"-*.noarch.rpm "$out/rpm/" 2>/dev/null ||
	zc_log "repo: no .rpm of $ver in $pkg (make rpm): rpm/ left empty"
# apt's own check of what was just signed.
gpgv --keyring "$out/zcache-archive-keyring.gpg" "$out/$ver/dists/bookworm/InRelease" 2>&1 | grep -q 'Good signature' ||
	zc_die "repo: InRelease does not verify with the exported key"
zc_log "repo: $out (key $fpr)"
