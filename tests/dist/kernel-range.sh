#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/dist/kernel-range.sh [DKMS_CONF]: the kernels dkms.conf lets DKMS
# build for, checked against the promise (issue 21): every kernel from 5.10
# except 6.5 to 6.8, whose backing-device open API src/compat has no probe
# for.  Matches BUILD_EXCLUSIVE_KERNEL as DKMS does (an extended regular
# expression on the kernel release).  Seconds, no chroot: `make lint`.
# Exit 1 when a kernel lands on the wrong side.
set -uo pipefail
conf=${1:-$(dirname "$0")/../../dkms.conf}
re=$(sed -n 's/^BUILD_EXCLUSIVE_KERNEL="\(.*\)"$/\1/p' "$conf")
[ -n "$re" ] || { echo "kernel-range: no BUILD_EXCLUSIVE_KERNEL in $conf"; exit 1; }
serve="5.10.0-32-amd64 5.10.0-32-rt-amd64 5.15.0-100-generic 5.19.0-1 6.0.0-1
6.1.0-50-amd64 6.1.0-50-rt-amd64 6.4.0-1 6.9.0-1 6.10.0-1 6.12.117+deb13-amd64
6.19.0-1 7.2.13+deb14-amd64 7.10.0-1 10.0.0-1"
refuse="4.19.0-27-amd64 5.4.0-150-generic 5.9.0-1 6.5.0-1 6.5.13 6.6.0-1
6.7.12-amd64 6.8.0-31-generic 6.8.12-amd64"
rc=0
for k in $serve; do
	grep -qE "$re" <<<"$k" || { echo "kernel-range: $k refused, but the package serves it"; rc=1; }
done
for k in $refuse; do
	! grep -qE "$re" <<<"$k" || { echo "kernel-range: $k let through, but the package cannot serve it"; rc=1; }
done
[ $rc = 0 ] && echo "kernel-range: BUILD_EXCLUSIVE_KERNEL serves 5.10 and later except 6.5-6.8 ($(wc -w <<<"$serve") served, $(wc -w <<<"$refuse") refused as promised)"
exit $rc
