#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 00-harness: the guest runner's contract holds (docs/architecture.md,
# "Tests and the VM harness"): the environment is set, ZC_OUT is writable,
# the tests share is read-only, the expected kernel booted, swap is off.
set -u
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n $*"; }
nok() { n=$((n + 1)); failed=1; echo "not ok $n $*"; }
t() { local d=$1; shift; if "$@" >&2 2>&1; then ok "$d"; else nok "$d"; fi; }

echo "TAP version 13"
echo "1..6"
t "ZC_SUITE, ZC_TESTS, ZC_OUT, ZC_BIN are set" \
	test -n "${ZC_SUITE:-}" -a -n "${ZC_TESTS:-}" -a -n "${ZC_OUT:-}" -a -n "${ZC_BIN:-}"
t "ZC_SUITE matches the guest's Debian release" \
	sh -c 'case "$ZC_SUITE" in
	bullseye) grep -q "^11" /etc/debian_version ;;
	bookworm) grep -q "^12" /etc/debian_version ;;
	trixie) grep -q -E "^(13|trixie)" /etc/debian_version ;;
	sid) grep -q -E "sid|^1[4-9]|forky" /etc/debian_version ;;
	*) false ;; esac'
t "ZC_OUT is writable" sh -c 'echo x >"$ZC_OUT/.probe" && rm "$ZC_OUT/.probe"'
t "ZC_TESTS is read-only" sh -c '! touch "$ZC_TESTS/.probe" 2>/dev/null'
t "the expected kernel booted (${ZC_EXPECT_KERNEL:-any})" \
	sh -c 'test -z "${ZC_EXPECT_KERNEL:-}" || test "$(uname -r)" = "$ZC_EXPECT_KERNEL"'
t "no swap is active at start" sh -c 'test "$(tail -n +2 /proc/swaps | wc -l)" = 0'
exit $failed
