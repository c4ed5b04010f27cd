# SPDX-License-Identifier: GPL-2.0
# Shared helpers of the vm/ and tests/ scripts.  Source it, do not run it.

# Everything built (trees, images, packages, logs) is cached here, never
# in the checkout.
ZC_CACHE=${ZC_CACHE:-/var/cache/zcache-dkms}
ZC_SUITES="bullseye bookworm trixie sid"

zc_log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
zc_die() { printf 'error: %s\n' "$*" >&2; exit 1; }

zc_check_suite() {
	case " $ZC_SUITES " in *" $1 "*) return 0 ;; esac
	echo "unknown suite '$1' (known: $ZC_SUITES)" >&2
	return 1
}

# The machine's Debian mirror, read from its apt sources.
zc_mirror() {
	local m
	if [ -n "${ZC_MIRROR:-}" ]; then echo "$ZC_MIRROR"; return; fi
	m=$(grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources |
		awk '{print $2}' | grep -m1 '/debian/\?$' || true)
	[ -n "$m" ] || m=$(grep -hs '^deb ' /etc/apt/sources.list |
		awk '{print $2}' | grep -m1 '/debian/\?$' || true)
	echo "${m:-http://deb.debian.org/debian}"
}

# zc_need_cmd CMD PACKAGE: install PACKAGE with apt-get when CMD is missing.
zc_need_cmd() {
	command -v "$1" >/dev/null 2>&1 && return 0
	zc_apt_install "$2"
}

# zc_apt_install PKG...: install the Debian packages that are missing.
zc_apt_install() {
	local p missing=()
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q 'install ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	zc_log "installing host packages: ${missing[*]}"
	if [ ! -f "$ZC_CACHE/.apt-updated" ] ||
	   [ -n "$(find "$ZC_CACHE/.apt-updated" -mmin +720)" ]; then
		mkdir -p "$ZC_CACHE"
		apt-get update -q -o DPkg::Lock::Timeout=900 >&2 &&
			touch "$ZC_CACHE/.apt-updated"
	fi
	# Another apt on the machine (a second engineer's run) holds the dpkg
	# lock for a while: wait for it rather than fail.
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		-o DPkg::Lock::Timeout=900 \
		--no-install-recommends "${missing[@]}" >&2
}

# zc_rm_tree DIR: remove a chroot tree, but only when nothing is mounted
# below it (removing a tree with /dev bound inside deletes the host's /dev).
zc_rm_tree() {
	local d=$1
	[ -e "$d" ] || return 0
	if findmnt -rn -o TARGET | grep -q "^$(realpath "$d")\(/\|$\)"; then
		echo "refusing to remove $d: something is mounted below it" >&2
		return 1
	fi
	rm -rf --one-file-system "$d"
}

# zc_src_hash DIR: a hash of the files under DIR (names and contents, not
# times), so that a copy of src/ in another checkout hashes the same.  The
# stamp file .zc-src-hash itself does not count.
zc_src_hash() {
	(cd "$1" && find . -type f ! -name .zc-src-hash -print0 | LC_ALL=C sort -z |
		xargs -0 sha256sum) | sha256sum | cut -c1-16
}
