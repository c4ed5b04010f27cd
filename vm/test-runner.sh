#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vm/test-runner.sh: host-side self-test of the guest runner's verdicts
# (tests/guest/run.sh), without a guest and without any kernel module: the
# runner runs stand-in suites from a temporary tree with ZC_NO_POWEROFF=1 and
# a fake kernel log.  Checks that a passing suite passes, a skip skips, and
# each way of failing (not ok with exit 0, non-zero exit, plan mismatch,
# a skip exit after a plan that did not run, no plan, Bail out!, a kernel splat during the suite, a report inside a
# fault-injection window, ZC_FORCE_FAIL) fails the run, while the stack dump of an injected allocation failure
# inside such a window does not,
# and is named in failures.txt, and that the token appears only when
# everything passed.  `make vm-test-runner`; seconds, no lock.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
runner=$here/../tests/guest/run.sh
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
S=$t/tests/guest/suites
mkdir -p "$S"
: >"$t/dmesg"
echo '# none' >"$t/tests/guest/dmesg-ignore.txt"
cp "$here/../tests/guest/ktap-lib.sh" "$here/../tests/guest/fault-window.awk" \
	"$here/../tests/guest/splat.re" "$t/tests/guest/"
k() { cat >"$S/$1.sh"; }
k 10-pass <<'EOS'
echo "TAP version 13"; echo "1..2"; echo "ok 1 one"; echo "ok 2 two"
EOS
k 11-skip <<'EOS'
echo "TAP version 13"; echo "1..0 # SKIP nothing to do here"; exit 4
EOS
k 12-notok <<'EOS'
echo "TAP version 13"; echo "1..2"; echo "ok 1 one"; echo "not ok 2 second-case-fails"; exit 0
EOS
k 13-exit <<'EOS'
echo "TAP version 13"; echo "1..1"; echo "ok 1 one"; exit 3
EOS
k 14-plan <<'EOS'
echo "TAP version 13"; echo "1..3"; echo "ok 1 one"; echo "ok 2 two"
EOS
k 15-bail <<'EOS'
echo "TAP version 13"; echo "1..2"; echo "ok 1 one"; echo "Bail out! cannot go on"
EOS
k 16-splat <<'EOS'
echo "TAP version 13"; echo "1..1"; echo "ok 1 looks fine"
echo "[  1.0] WARNING: CPU: 0 PID: 1 at fake.c:1 fake_function" >>"$ZC_FAKE_DMESG"
EOS
k 17-skiplate <<'EOS'
echo "TAP version 13"; echo "1..2"; echo "ok 1 one"; exit 4
EOS
k 18-noplan <<'EOS'
echo "TAP version 13"; echo "ok 1 one"; echo "ok 2 two"
EOS
k 19-fiwindow <<'EOS'
echo "TAP version 13"; echo "1..1"; echo "ok 1 injected failures reported"
{ echo "[  2.0] zc-fault-window: begin 19"
  echo "[  2.1] vmalloc error: size 8192, failed to allocate pages"
  echo "[  2.1] Call Trace:"
  echo "[  2.1]  ? lockdep_hardirqs_on_prepare+0x17c/0x230"
  echo "[  2.1]  lock_acquire+0x1a/0x30 [zcache]"
  echo "[  2.2] zc-fault-window: end"; } >>"$ZC_FAKE_DMESG"
EOS
k 20-fiwindow-kasan <<'EOS'
echo "TAP version 13"; echo "1..1"; echo "ok 1 looks fine"
{ echo "[  3.0] zc-fault-window: begin 20"
  echo "[  3.1] BUG: KASAN: use-after-free in fake_function"
  echo "[  3.1] Call Trace:"
  echo "[  3.2] zc-fault-window: end"; } >>"$ZC_FAKE_DMESG"
EOS
# after_window NAME LINE: a passing suite whose kernel log has LINE just
# after a fault-injection window closed; the window excuses nothing there.
after_window() {
	k "$1" <<EOS
echo "TAP version 13"; echo "1..1"; echo "ok 1 looks fine"
{ echo "[  4.0] zc-fault-window: begin $1"
  echo "[  4.1] zc-fault-window: end"
  echo "[  4.2] $2"; } >>"\$ZC_FAKE_DMESG"
EOS
}
after_window 21-trace-after-window "Call Trace:"
after_window 22-frame-after-window " ? lockdep_hardirqs_on_prepare+0x17c/0x230"

fails=0
check() {	# check DESCRIPTION COMMAND...
	if "${@:2}"; then echo "ok - $1"; else echo "NOT OK - $1"; fails=$((fails + 1)); fi
}
run() {	# run NAME [VAR=VALUE...]: one runner pass into $t/NAME
	local n=$1; shift
	mkdir -p "$t/$n"
	env -i PATH="$PATH" ZC_NO_POWEROFF=1 ZC_RUN_ID="id-$n" ZC_SUITE=test \
		ZC_TESTS="$t/tests" ZC_RESULTS="$t/$n" ZC_BIN="$t/bin" ZC_RUN_TMP="$t/tmp-$n" \
		ZC_DMESG_CMD="cat $t/dmesg" ZC_FAKE_DMESG="$t/dmesg" "$@" \
		bash "$runner" >/dev/null
}
st() { awk -F'\t' -v s="$2" '$1 == s {print $2}' "$t/$1/summary.tsv"; }

run all
for s in 12-notok 13-exit 14-plan 15-bail 16-splat 17-skiplate 18-noplan 20-fiwindow-kasan 21-trace-after-window 22-frame-after-window; do
	check "$s fails" test "$(st all $s)" = fail
	check "$s is named in failures.txt" grep -q "^$s: " "$t/all/failures.txt"
done
check "10-pass passes" test "$(st all 10-pass)" = pass
check "11-skip skips" test "$(st all 11-skip)" = skip
check "19-fiwindow: a stack dump inside a fault-injection window passes, lockdep frames too" test "$(st all 19-fiwindow)" = pass
check "20-fiwindow-kasan: a KASAN report inside the window is named" grep -q '^20-fiwindow-kasan: kernel splat: .*KASAN' "$t/all/failures.txt"
check "not ok line quoted" grep -q 'second-case-fails' "$t/all/failures.txt"
check "plan mismatch named" grep -q 'planned 3 tests, ran 2' "$t/all/failures.txt"
check "a skip after the plan still counts its tests" grep -q '^17-skiplate: planned 2 tests, ran 1' "$t/all/failures.txt"
check "a suite without a plan is named" grep -q '^18-noplan: printed no KTAP plan' "$t/all/failures.txt"
check "splat named" grep -q '16-splat: kernel splat: .*WARNING' "$t/all/failures.txt"
check "no token when a suite failed" test ! -e "$t/all/token"
check "aggregate KTAP has 13 suites" grep -q '^1\.\.13$' "$t/all/ktap.txt"

: >"$t/dmesg"
run good ZC_ONLY='@(1[01]|19)-*'
check "token when everything passed" grep -qx 'ZC-TESTS-PASSED id-good' "$t/good/token"

run forced ZC_ONLY='10-*' ZC_FORCE_FAIL=harness-canary
check "ZC_FORCE_FAIL fails the run" test ! -e "$t/forced/token"
check "ZC_FORCE_FAIL names the test" grep -q '^force-fail: not ok 1 harness-canary' "$t/forced/failures.txt"

check "refuses to run outside a guest without ZC_NO_POWEROFF" \
	sh -c "! env -i PATH=\"$PATH\" ZC_RESULTS=$t/x bash $runner 2>/dev/null"

# kmemleak-known.awk: the kernel's own leak (5.10 sysfs_slab_add, the one
# suite 32's injected failures reach) is set aside; a leak of zcache's
# unwind, or the same frames on another kernel, still counts.
g=$here/../tests/guest
leak() { # COMM FRAMES...: one kmemleak record
	local c=$1 f; shift
	echo "unreferenced object 0xffff88800a8b7380 (size 16):"
	echo "  comm \"$c\", pid 1216, jiffies 4295740359 (age 1301.120s)"
	echo "  backtrace:"
	for f in "$@"; do echo "    [<000000000a891d72>] $f+0x2e/0x60"; done
}
slab=(kstrdup kobject_set_name_vargs kobject_init_and_add sysfs_slab_add __kmem_cache_create kmem_cache_create zcache_tmem_init)
{ leak failnth_load "${slab[@]}"; leak failnth_load __kmalloc zcache_pool_create zcache_init
  leak failnth_load kstrdup zcache_sysfs_init kobject_init_and_add sysfs_slab_add; } >"$t/leaks"
kl() { awk -v kernel="$1" -v known="$t/known-$1" -f "$g/kmemleak-known.awk" "$g/kmemleak-known.txt" "$t/leaks" |
	grep -c '^unreferenced object'; }
check "kmemleak: 5.10's sysfs_slab_add leak set aside, zcache's own leaks counted" test "$(kl 5.10.223-zc-cleancache-debug)" = 2
check "kmemleak: the set-aside leak is kept with its rule" grep -q 'known kernel leak, rule: .*sysfs_slab_add' "$t/known-5.10.223-zc-cleancache-debug"
check "kmemleak: on 6.1 the same frames count" test "$(kl 6.1.0-50-amd64)" = 3

echo "runner self-test: $fails failure(s)"
[ "$fails" = 0 ]
