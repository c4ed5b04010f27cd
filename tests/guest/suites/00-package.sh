#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 00-package: the package is installed and DKMS built and installed the
# modules for the running kernel (deb: apt in the chroot or by cloud-init;
# rpm: rpm -i, whose %post must register, build and install through DKMS;
# kernel-upgrade runs: DKMS's kernel hook built them for the new kernel).
# KTAP on stdout; commands and their output on stderr.
set -u
. "$ZC_TESTS/guest/ktap-lib.sh"

tap_begin_package
kver=$(uname -r)
echo "1..10"
echo "# kernel $kver, install ${ZC_INSTALL:-?}"

if [ "${ZC_INSTALL:-}" = rpm ]; then
	check "rpm: zcache-dkms is installed" rpm -q zcache-dkms
else
	check "deb: zcache-dkms is installed" \
		sh -c 'dpkg-query -W -f="\${Status} \${Version}\n" zcache-dkms | grep "install ok installed"'
fi
echo "+ dkms status" >&2
dkms status 2>&1 | tee "$ZC_OUT/dkms-status.txt" >&2
if grep -i '^zcache[/,]' "$ZC_OUT/dkms-status.txt" | grep -F "$kver" | grep -q 'installed'; then
	ok "dkms: zcache is installed for $kver"
else
	nok "dkms: zcache is installed for $kver"
fi
for m in zcsmalloc zcache; do
	echo "+ modinfo -k $kver $m" >&2
	if f=$(modinfo -k "$kver" -F filename "$m" 2>&1); then
		echo "$f" >&2
		case $f in
		/lib/modules/"$kver"/*|/usr/lib/modules/"$kver"/*) ok "modinfo: $m is built for $kver" ;;
		*) nok "modinfo: $m is built for $kver # found $f" ;;
		esac
	else
		nok "modinfo: $m is built for $kver # $f"
	fi
done
check "modinfo: zcache depends on zcsmalloc" \
	sh -c "modinfo -k $kver -F depends zcache | tr , '\n' | grep -qx zcsmalloc"
check "modprobe knows zcache (dry run)" modprobe -n -v zcache
v_pkg=$(dkms status 2>/dev/null | sed -n -E 's|^zcache[/,] ?([^,:]+).*|\1|p' | head -n 1)
# The module modprobe would load is the very file DKMS built for this
# version and kernel (srcversion exists only with MODULE_VERSION: compare
# the files themselves).
built=$(find "/var/lib/dkms/zcache/$v_pkg/$kver" -name 'zcache.ko*' 2>/dev/null | head -n 1)
inst=$(modinfo -k "$kver" -F filename zcache 2>/dev/null)
echo "# dkms build '$built', installed '$inst'" >&2
if [ -n "$built" ] && [ -n "$inst" ] && cmp -s "$built" "$inst"; then
	ok "installed zcache is DKMS's build of $v_pkg for $kver"
else
	nok "installed zcache is DKMS's build of $v_pkg for $kver # built '$built', installed '$inst'"
fi
# Users get zcsmalloc and zcache only (issue 20): no test or benchmark
# module in DKMS's tree or under /lib/modules, and zcache.ko exports
# nothing (the self-test links its own copy of the core).  The harness's
# own test modules (extra/zcache-tests, ktap-lib.sh) are not the package's.
mods=$(find "/var/lib/dkms/zcache/$v_pkg/$kver" /lib/modules/"$kver" \
	-path "/lib/modules/$kver/extra/zcache-tests" -prune -o \
	-name '*.ko*' -print 2>/dev/null | grep -E '/(zcache|zcsmalloc)[^/]*\.ko' |
	sed 's|.*/||; s|\.ko.*||' | sort -u | tr '\n' ' ')
echo "# zcache-dkms modules: $mods" >&2
if [ "$mods" = "zcache zcsmalloc " ]; then
	ok "the package builds zcsmalloc and zcache only"
else
	nok "the package builds zcsmalloc and zcache only # found: $mods"
fi
exports=-1
if [ -n "$inst" ] && command -v readelf >/dev/null; then
	t=$(mktemp)
	case $inst in
	*.xz) xz -dc "$inst" >"$t" ;;
	*.zst) zstd -q -dc "$inst" >"$t" ;;
	*.gz) gzip -dc "$inst" >"$t" ;;
	*) cp "$inst" "$t" ;;
	esac
	exports=$(readelf -sW "$t" | grep -c ' __ksymtab_')
	rm -f "$t"
fi
if [ "$exports" = 0 ]; then
	ok "zcache.ko exports no symbol"
else
	nok "zcache.ko exports no symbol # __ksymtab_ entries: $exports"
fi
v_mod=$(modinfo -k "$kver" -F version zcache 2>/dev/null)
echo "# dkms version '$v_pkg', module version '$v_mod'" >&2
if [ -z "$v_mod" ]; then
	ok "MODULE_VERSION matches the package version # SKIP zcache declares no MODULE_VERSION"
elif [ "$v_pkg" = "$v_mod" ]; then
	ok "MODULE_VERSION matches the package version ($v_mod)"
else
	nok "MODULE_VERSION matches the package version # dkms '$v_pkg', module '$v_mod'"
fi
exit $failed
