#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs INSIDE the image's chroot (vm/chroot.sh), called by vm/image.sh:
#   prepare-image.sh [--debs] [--kernel-flavour FLAVOUR | --kernel-debs]
#                    [--test-modules]
# Installs the harness's guest side (from /mnt/zc-harness), then
#   --debs                 apt-get install the .debs found in /mnt/zc-pkg
#                          (DKMS builds the modules here, at native speed)
#   --kernel-flavour F     then install linux-image-F-amd64 and its headers
#                          from the archive: DKMS must build for the new
#                          kernel by itself (its kernel postinst hook)
#   --kernel-debs          the same with the linux-image + linux-headers
#                          .debs found in /mnt/zc-kdebs (a test kernel built
#                          by vm/testkernel.sh) instead of the archive's
#   --test-modules         last, build the test modules (make ZC_TESTS=1)
#                          from /mnt/zc-src for every kernel with headers,
#                          into /lib/modules/KVER/extra/zcache-tests with
#                          the source's .zc-src-hash: the guest's suites
#                          use them instead of compiling under TCG (a KASAN
#                          kernel's build takes over 45 min there)
set -euo pipefail

debs=0 flavour= kdebs=0 testmods=0
while [ $# -gt 0 ]; do
	case $1 in
	--debs) debs=1; shift ;;
	--kernel-flavour) flavour=$2; shift 2 ;;
	--kernel-debs) kdebs=1; shift ;;
	--test-modules) testmods=1; shift ;;
	*) echo "usage: $0 [--debs] [--kernel-flavour FLAVOUR | --kernel-debs] [--test-modules]" >&2; exit 2 ;;
	esac
done
h=/mnt/zc-harness
step() { echo "== prepare-image: $*"; }

step "guest harness files"
install -m 0755 "$h/zcache-guest" /usr/local/sbin/zcache-guest
install -m 0644 "$h/zcache-test.service" /etc/systemd/system/zcache-test.service
mkdir -p /etc/systemd/system/multi-user.target.wants
ln -sf /etc/systemd/system/zcache-test.service \
	/etc/systemd/system/multi-user.target.wants/zcache-test.service
# Timers that would only add noise (and CPU) to a test boot.
for t in apt-daily.timer apt-daily-upgrade.timer dpkg-db-backup.timer \
	e2scrub_all.timer fstrim.timer man-db.timer; do
	rm -f "/etc/systemd/system/timers.target.wants/$t"
done
# The cloud path's seed is a NoCloud disk: look there only (ds-identify
# otherwise probes every cloud's metadata service first).
mkdir -p /etc/cloud/cloud.cfg.d
printf 'datasource_list: [ NoCloud, None ]\n' >/etc/cloud/cloud.cfg.d/90-zcache-nocloud.cfg
# 9p for the shares (a module on Debian's standard kernels).
printf '9pnet_virtio\n9p\n' >/etc/modules-load.d/zcache-9p.conf

dkms_logs() {
	local f
	for f in /var/lib/dkms/*/*/build/make.log /var/lib/dkms/*/*/*/*/log/make.log; do
		[ -f "$f" ] || continue
		step "DKMS build log $f (last 60 lines)"
		tail -n 60 "$f"
	done
}

apt_install() {
	local rc=0
	{ apt-get install -y --no-install-recommends "$@" && echo 0 >/tmp/zc-apt.rc || echo $? >/tmp/zc-apt.rc; } 2>&1 |
		tee /tmp/zc-apt.out
	rc=$(cat /tmp/zc-apt.rc)
	[ "$rc" != 0 ] || return 0
	# Missing dependencies need the archive's lists (dropped by mmdebstrap).
	if grep -q -E 'Unable to locate|unmet dependencies|has no installation candidate' /tmp/zc-apt.out; then
		step "apt-get install needs the archive: apt-get update and retry"
		apt-get update -q
		apt-get install -y --no-install-recommends "$@" && return 0
	fi
	dkms_logs
	step "PACKAGE INSTALL FAILED"
	return 1
}

if [ "$debs" = 1 ]; then
	step "installing $(cd /mnt/zc-pkg && echo *.deb)"
	mkdir -p /root/zc-pkg
	cp /mnt/zc-pkg/*.deb /root/zc-pkg/
	apt_install /root/zc-pkg/*.deb
	step "dkms status after the package"
	dkms status || true
fi

# The second kernel, after the package: from the archive (a flavour) or
# from local .debs (a test kernel).  Either way apt installs it and DKMS's
# kernel hook must build the modules for it by itself.
if [ -n "$flavour" ] || [ "$kdebs" = 1 ]; then
	if [ "$kdebs" = 1 ]; then
		mkdir -p /root/zc-kdebs
		cp /mnt/zc-kdebs/linux-image-*.deb /mnt/zc-kdebs/linux-headers-*.deb /root/zc-kdebs/
		set -- /root/zc-kdebs/*.deb
		step "installing a second kernel: $(cd /root/zc-kdebs && echo *.deb)"
	else
		set -- "linux-image-$flavour-amd64" "linux-headers-$flavour-amd64"
		step "installing a second kernel: linux-image-$flavour-amd64 + headers"
		apt-get update -q
	fi
	apt-get install -y --no-install-recommends "$@"
	step "dkms status after the new kernel"
	dkms status || true
fi
# The test modules: not in the package (users never get test code).  A
# kernel whose build fails here gets none: the guest then builds them
# itself and its suite shows that build's error.
if [ "$testmods" = 1 ]; then
	for k in /lib/modules/*; do
		kv=${k##*/}
		[ -e "$k/build/Makefile" ] || { step "test modules: no headers for $kv"; continue; }
		b=$(mktemp -d /tmp/zcache-tests.XXXXXX)
		cp -a /mnt/zc-src/. "$b/"
		step "test modules for $kv: make install-tests ($(cat "$b/.zc-src-hash"))"
		if ! make -C "$b" -j"$(nproc)" install-tests KDIR="$k/build" KVER="$kv" \
		    >"$b/build.log" 2>&1; then
			tail -n 40 "$b/build.log"
			step "test modules for $kv: build FAILED (the guest will try again)"
		fi
		rm -rf "$b"
	done
fi
step "kernels: $(ls /lib/modules | tr '\n' ' ')"
for k in /lib/modules/*; do
	find "$k" -name 'zc*.ko*' -o -name 'zcache*.ko*' 2>/dev/null | sed "s|^|   module: |"
done
rm -rf /var/lib/apt/lists/* /var/cache/apt/archives/*.deb
step done
