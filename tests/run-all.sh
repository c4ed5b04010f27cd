#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/run-all.sh [STEP...]: the project's test command (`make test`).
#
# Runs each step in order, logs each to $ZC_CACHE/logs/test-STEP.log, keeps
# going after a failure so one run reports everything, prints a table and
# the closing line "N passed, N failed", and exits non-zero when any step
# failed.  With no arguments it runs the default steps below; name steps to
# run only those (e.g. `make test TEST_STEPS="lint vm-bookworm"`).
#
# Steps:
#   host-deps     install what the host needs (apt-get), build the packages
#   lint          lintian and rpmlint on the built .deb and .rpm; the
#                 kernel range of dkms.conf (tests/dist/kernel-range.sh)
#   matrix        apt install of the .deb in a chroot of each suite: DKMS
#                 builds there with the suite's compiler; purge leaves
#                 nothing; W=1 and sparse warnings counted
#   matrix-rt     the matrix for the PREEMPT_RT kernels (linux-headers-rt-amd64)
#                 of bookworm and trixie: DKMS builds by apt, purge, reinstall
#                 (about 2 min per suite)
#   lifecycle     bookworm and bullseye chroots: install 0.0.9, upgrade to
#                 the current version, remove, purge, reinstall, module
#                 signer (about 2 min per suite)
#   vm-rt-SUITE   SUITE's image with linux-image-rt-amd64 installed after the
#                 package; boots the -rt kernel and runs the guest suites
#                 quick (10-15 min with the image build: not in the default
#                 list, run it by name)
#   vm-SUITE      boot SUITE's image with the package installed (fast path)
#                 and run every guest suite (tests/guest/suites); a 2 GiB
#                 virtio scratch disk is the backing device of the swap
#                 tests (swap over a loop device on a file stalls under
#                 memory pressure)
#   vm-quick-SUITE  the same with ZC_QUICK=1 (shorter workloads)
#   vm-cloud      bookworm, package installed by apt inside the guest via
#                 cloud-init (the path a user's cloud VM takes)
#   vm-rpm        bookworm, the .rpm installed with rpm; its scriptlets
#                 build the modules through DKMS
#   vm-upgrade    a second kernel installed after the package: DKMS builds
#                 for it by itself, the guest boots it and loads zcache
#   harness-catch the guest runner's verdicts on stand-in suites and the
#                 benchmark's host side on a fixture (host, no guest), then
#                 a guest test forced to fail, a kernel WARNING and a
#                 timeout must each fail the VM run
#   vm-cleancache bullseye booted on the test kernel 5.10-zc-cleancache
#                 (vm/testkernel.sh): every guest suite quick, the cleancache
#                 front end proven by 34-zcache-cleancache (full list only)
#   vm-debug      bookworm booted on the test kernel 6.1-zc-debug (KASAN,
#                 lockdep, kmemleak): every guest suite quick; any report
#                 fails it (full list only; slow under TCG)
#   vm-cleancache-debug  bullseye on 5.10-zc-cleancache-debug: the same
#                 checkers with the frontswap and cleancache front ends
#                 (full list only; slow under TCG)

set -uo pipefail

cd "$(dirname "$0")/.."
. vm/lib.sh

# The default (CI, `make test`) fits CI's budget: the packages and their
# lint, the DKMS build matrix of all four suites, bookworm and bullseye
# booted end to end with the package and the guest suites (short), and
# the harness's own failure checks.  bullseye is there because its
# kernel (5.10) is the only Debian kernel with frontswap: without it the
# frontswap suite (32) and every frontswap path of the others would skip
# in CI.
# `make test-full` (TEST_STEPS=full) runs everything: all suites in full,
# the rt kernels, the lifecycle, the cloud-init, rpm and upgrade paths.
default_steps="host-deps lint matrix vm-quick-bookworm vm-quick-bullseye harness-catch"
full_steps="host-deps lint matrix matrix-rt lifecycle vm-bookworm
	vm-bullseye vm-trixie vm-sid vm-rt-bookworm vm-rt-trixie vm-cloud vm-rpm
	vm-upgrade harness-catch vm-cleancache vm-debug vm-cleancache-debug"
case "$*" in
'') steps=$default_steps ;;
full) steps=$full_steps ;;
*) steps=$* ;;
esac

step_cmd() {
	case $1 in
	host-deps) echo "make deb rpm" ;;
	lint) echo "make lint" ;;
	matrix) echo "make matrix" ;;
	matrix-rt) echo "make matrix-rt" ;;
	lifecycle) echo "make lifecycle" ;;
	vm-rt-*)
		zc_check_suite "${1#vm-rt-}" || return 1
		echo "make vm-test SUITE=${1#vm-rt-} INSTALL=fast VM_ARGS='--kernel-flavour rt --quick'" ;;
	vm-quick-*)
		zc_check_suite "${1#vm-quick-}" || return 1
		echo "make vm-test SUITE=${1#vm-quick-} INSTALL=fast VM_ARGS='--quick --scratch 2G:none'" ;;
	vm-cloud) echo "make vm-test SUITE=bookworm INSTALL=cloud" ;;
	vm-rpm) echo "make vm-test SUITE=bookworm INSTALL=rpm" ;;
	vm-upgrade) echo "make vm-upgrade-test" ;;
	vm-cleancache) echo "make vm-cleancache-test" ;;
	vm-debug) echo "make vm-debug-test" ;;
	vm-cleancache-debug) echo "make vm-cleancache-debug-test" ;;
	harness-catch) echo "make vm-test-runner bench-selftest vm-harness-catch" ;;
	vm-*)
		zc_check_suite "${1#vm-}" || return 1
		echo "make vm-test SUITE=${1#vm-} INSTALL=fast VM_ARGS='--scratch 2G:none'" ;;
	*) echo "unknown step '$1'" >&2; return 1 ;;
	esac
}

mkdir -p "$ZC_CACHE/logs"
passed=0 failed=0
table=()
for step in $steps; do
	cmd=$(step_cmd "$step") || { failed=$((failed + 1)); table+=("$step|FAIL|0|unknown step"); continue; }
	log=$ZC_CACHE/logs/test-$step.log
	zc_log "=== step $step: $cmd (log: $log)"
	start=$SECONDS
	# Progress stays visible; the full output is also kept in the log.
	if bash -c "$cmd" 2>&1 | tee "$log"; then
		res=PASS passed=$((passed + 1))
	else
		res=FAIL failed=$((failed + 1))
	fi
	secs=$((SECONDS - start))
	zc_log "=== step $step: $res in ${secs}s"
	table+=("$step|$res|$secs|$cmd")
done

echo
printf '%-14s %-5s %7s  %s\n' STEP RESULT SECONDS COMMAND
for row in "${table[@]}"; do
	IFS='|' read -r s r t c <<<"$row"
	printf '%-14s %-5s %7s  %s\n' "$s" "$r" "$t" "$c"
done
echo
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
