#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vm/run.sh [options] SUITE: boot a test VM of SUITE under QEMU (TCG), run
# the guest test runner in it and judge the run.  See vm/README.md.
#
#   --install fast|cloud|rpm|none   how the package gets in (default fast)
#        fast   apt-get install of the .debs in a chroot of the image (DKMS
#               builds at native speed), boot with cloud-init disabled; a
#               baked-in unit runs the tests
#        cloud  plain image + NoCloud seed (cloud-localds): cloud-init's
#               user-data installs the .debs with apt in the guest
#        rpm    plain image; the guest installs the .rpm with rpm -i --nodeps
#               (its %post must register, build and install through DKMS)
#        none   no package (harness checks only)
#   --kernel-flavour F   install kernel flavour F (e.g. cloud) after the
#               package (fast path only) and boot that kernel
#   --test-kernel F      the same with a test kernel built from Debian's
#               linux-source by vm/testkernel.sh F (cleancache: bullseye
#               5.10 with CONFIG_CLEANCACHE; debug: bookworm 6.1 with KASAN,
#               lockdep, kmemleak, ...): its linux-image + linux-headers
#               .debs go in after the package, DKMS's kernel hook builds
#               zcache for it, the guest boots it
#   --kernel-debs DIR    the same with the linux-image-*/linux-headers-*
#               .debs of DIR (what --test-kernel uses)
#   --name NAME          run name (default SUITE-INSTALL-DATE)
#   --mem MIB --smp N    guest size (default 1024, 2)
#   --timeout SEC        hard limit for the boot (default 2400; 5400 on the
#               cloud and rpm paths, where DKMS builds in the guest)
#   --scratch SIZE[:PROFILE]  extra disk, guest /dev/disk/by-id/virtio-zcscratch
#               (env ZC_SCRATCH_DEV); PROFILE: ssd (10k IOPS, 200 MB/s),
#               hdd (200 IOPS, 100 MB/s), none, or iops=N,bps=N
#   --only GLOB          run only the guest suites whose name matches GLOB
#   --script PATH        guest script under tests/ instead of guest/run.sh
#   --quick              ZC_QUICK=1 in the guest
#   --append WORDS       extra kernel command-line words
#   --no-panic-on-warn   leave panic_on_warn off
#   --pkg-dir DIR        where the packages are (default $ZC_CACHE/pkg)
#   --apt-repo DIR       a copy of DIR (an apt repository: tests/dist/repo.sh)
#                        in the package share as repo/ (/mnt/zc/pkg/repo)
# Environment: ZC_FORCE_FAIL=NAME injects a failing test NAME into the guest
# run; ZC_FORCE_WARN=1 injects a fake "WARNING:" line into the guest kernel
# log.  Both prove that the harness fails the run and names the cause.
# ZC_SUITE_TIMEOUT (default 3600) limits each guest suite; ZC_WATCH_SECS
# (default 60) is the interval of the guest's progress lines; ZC_TIME_SCALE
# (default 1) multiplies the suites' own workload time limits (the debug
# kernel's runs: 4).
#
# Prints one tab-separated result line on stdout (suite, kernel, install,
# passed, failed, skipped, wall seconds, PASS/FAIL, detail) and writes it to
# $ZC_CACHE/logs/NAME/summary.tsv.  Exit status 0 only on PASS.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
. "$here/lib.sh"

usage() { sed -n '4,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0" >&2; exit 2; }

install=fast flavour= tkernel= kdebdir= name= mem=1024 smp=2 tmo= scratch= only= script=
quick= append= pow=1 pkgdir=${ZC_PKG_DIR:-$ZC_CACHE/pkg} aptrepo=
while [ $# -gt 0 ]; do
	case $1 in
	--install) install=$2; shift 2 ;;
	--kernel-flavour) flavour=$2; shift 2 ;;
	--test-kernel) tkernel=$2; shift 2 ;;
	--kernel-debs) kdebdir=$2; shift 2 ;;
	--name) name=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--smp) smp=$2; shift 2 ;;
	--timeout) tmo=$2; shift 2 ;;
	--scratch) scratch=$2; shift 2 ;;
	--only) only=$2; shift 2 ;;
	--script) script=$2; shift 2 ;;
	--quick) quick=1; shift ;;
	--append) append=$2; shift 2 ;;
	--no-panic-on-warn) pow=0; shift ;;
	--pkg-dir) pkgdir=$2; shift 2 ;;
	--apt-repo) aptrepo=$2; shift 2 ;;
	-h|--help) usage ;;
	-*) echo "unknown option $1" >&2; usage ;;
	*) break ;;
	esac
done
[ $# -eq 1 ] || usage
suite=$1
zc_check_suite "$suite" || usage
case $install in fast|cloud|rpm|none) ;; *) zc_die "--install: fast, cloud, rpm or none" ;; esac
[ -z "$flavour" ] || [ "$install" = fast ] || zc_die "--kernel-flavour works with --install fast"
# A test kernel: its .debs (built once, cached by vm/testkernel.sh).
if [ -n "$tkernel" ]; then
	[ -z "$kdebdir" ] || zc_die "--test-kernel or --kernel-debs, not both"
	case $tkernel in cleancache|debug|cleancache-debug) ;;
	*) zc_die "--test-kernel: cleancache, debug or cleancache-debug" ;; esac
	kdebdir=$("$here/testkernel.sh" "$tkernel") || zc_die "vm/testkernel.sh $tkernel failed"
fi
if [ -n "$kdebdir" ]; then
	[ "$install" = fast ] || zc_die "--test-kernel/--kernel-debs work with --install fast"
	[ -z "$flavour" ] || zc_die "--kernel-flavour or a test kernel, not both"
	kdebdir=$(realpath "$kdebdir")
	kimg=$(ls "$kdebdir"/linux-image-*.deb 2>/dev/null | grep -v -- '-dbg_' | head -n 1 || true)
	[ -n "$kimg" ] || zc_die "no linux-image-*.deb in $kdebdir"
	# The release it boots: linux-image-RELEASE_VERSION_amd64.deb.
	tk_rel=${kimg##*/linux-image-}; tk_rel=${tk_rel%%_*}
fi
# What the run's name and result line call the kernel variant.
kvariant=${flavour:-${tkernel:-${kdebdir:+kdebs}}}
# DKMS builds inside the guest on the cloud and rpm paths: 10-20 times
# slower than in the chroot under TCG.
case $install in cloud|rpm) tmo=${tmo:-5400} ;; *) tmo=${tmo:-2400} ;; esac
case $mem$smp$tmo in *[!0-9]*) zc_die "--mem, --smp and --timeout take numbers" ;; esac

zc_need_cmd qemu-system-x86_64 qemu-system-x86
zc_need_cmd qemu-img qemu-utils
zc_need_cmd mkfs.ext4 e2fsprogs
[ "$install" != cloud ] || zc_need_cmd cloud-localds cloud-image-utils

t0=$SECONDS
kver=
# fail_early REASON: a run that cannot boot still gets its result line.
fail_early() {
	local line
	line=$(printf '%s\t%s\t%s\t0\t0\t0\t%s\tFAIL\t%s' "$suite" "${kver:-?}" \
		"$install${kvariant:+-$kvariant}" "$((SECONDS - t0))" "$1")
	echo "$line" >"$logdir/summary.tsv"
	zc_log "run $name: FAIL: $1"
	echo "$line"
	exit 1
}
name=${name:-$suite-$install${kvariant:+-$kvariant}-$(date +%Y%m%d-%H%M%S)}
logdir=$ZC_CACHE/logs/$name
share=$ZC_CACHE/results/$name
work=$ZC_CACHE/work/run-$name
rm -rf "$logdir" "$share" "$work"
mkdir -p "$logdir" "$share" "$work/pkg"
ln -sfn "$share" "$logdir/results"
trap 'rm -rf "$work"' EXIT
zc_log "run $name: suite $suite, install $install${flavour:+, kernel flavour $flavour}${kdebdir:+, kernel $tk_rel from $kdebdir}; logs in $logdir"

# The packages: the newest version in $pkgdir, staged alone.
if [ "$install" != none ]; then
	if [ "$install" = rpm ]; then
		rpmf=$(ls -t "$pkgdir"/zcache-dkms-*.noarch.rpm 2>/dev/null | head -n 1 || true)
		[ -n "$rpmf" ] || fail_early "no zcache-dkms-*.noarch.rpm in $pkgdir (make rpm)"
		ln "$rpmf" "$work/pkg/" 2>/dev/null || cp "$rpmf" "$work/pkg/"
	else
		deb=$(ls -t "$pkgdir"/zcache-dkms_*_all.deb 2>/dev/null | head -n 1 || true)
		[ -n "$deb" ] || fail_early "no zcache-dkms_*_all.deb in $pkgdir (make deb)"
		ver=${deb##*/zcache-dkms_}; ver=${ver%_all.deb}
		cp "$deb" "$work/pkg/"
		[ ! -f "$pkgdir/zcache-utils_${ver}_all.deb" ] || cp "$pkgdir/zcache-utils_${ver}_all.deb" "$work/pkg/"
	fi
	zc_log "package: $(cd "$work/pkg" && echo *)"
fi
if [ -n "$aptrepo" ]; then
	[ -f "$aptrepo/zcache-archive-keyring.gpg" ] || fail_early "--apt-repo $aptrepo: no zcache-archive-keyring.gpg (tests/dist/repo.sh)"
	cp -al "$aptrepo" "$work/pkg/repo" 2>/dev/null || cp -a "$aptrepo" "$work/pkg/repo"
	zc_log "apt repository: $aptrepo (share: repo/)"
fi

# The sources of the test modules, which the package does not ship
# (zcsmalloc_test, zcache_test, zcsmalloc_bench): on the fast path the
# image's chroot builds them at native speed for every kernel it has;
# the guest builds them itself only when that copy is missing or stale
# (tests/guest/ktap-lib.sh, test_modules_build; .zc-src-hash tells).
mkdir "$work/zcache-src"
(cd "$repo/src" && tar --exclude-vcs --exclude-vcs-ignores -cf - .) |
	tar -C "$work/zcache-src" -xf -
zc_src_hash "$work/zcache-src" >"$work/zcache-src/.zc-src-hash"

# The image.
img_args=()
[ "$install" != fast ] || img_args+=(--debs "$work/pkg" --test-src "$work/zcache-src")
[ -z "$flavour" ] || img_args+=(--kernel-flavour "$flavour")
[ -z "$kdebdir" ] || img_args+=(--kernel-debs "$kdebdir")
tb=$SECONDS
if ! image=$("$here/image.sh" "${img_args[@]}" "$suite" 2>"$logdir/image.err"); then
	cat "$logdir/image.err" >&2
	if grep -q 'PACKAGE INSTALL FAILED' "$logdir/image.err"; then
		fail_early "package install failed in the image chroot: $(grep -m1 -E '^Error!|^E: ' "$logdir/image.err" | cut -c1-120) (log $ZC_CACHE/logs/image-$suite-*.failed.log)"
	fi
	if grep -q -E '^dkms: autoinstall for kernel: .* failed' "$logdir/image.err"; then
		fail_early "DKMS autoinstall failed for the new kernel: $(grep -m1 -E '^dkms: autoinstall for kernel: .* failed' "$logdir/image.err") (log $ZC_CACHE/logs/image-$suite-*.failed.log)"
	fi
	fail_early "image build failed: $(tail -n 1 "$logdir/image.err")"
fi
cat "$logdir/image.err" >&2
build_s=$((SECONDS - tb))
if [ -n "$flavour" ]; then
	kver=$(grep -- "-$flavour-amd64\$" "$image/kernels.txt" | sort -V | tail -n 1 || true)
elif [ -n "$kdebdir" ]; then
	kver=$(grep -x -F -- "$tk_rel" "$image/kernels.txt" || true)
else
	kver=$(grep -v -E -- '-(cloud|rt)-amd64$' "$image/kernels.txt" | sort -V | tail -n 1 || true)
fi
[ -n "$kver" ] || fail_early "no ${flavour:-${tk_rel:-standard}} kernel in $image"
# Hard links: a newer image may replace this one while we wait for the lock.
for f in disk.qcow2 "vmlinuz-$kver" "initrd.img-$kver" "config-$kver"; do
	ln "$image/$f" "$work/$f" 2>/dev/null || cp "$image/$f" "$work/$f"
done
cp "$image/build.log" "$logdir/image-build.log"

if grep -q '^CONFIG_NET_9P_VIRTIO=[ym]' "$work/config-$kver" &&
   grep -q '^CONFIG_9P_FS=[ym]' "$work/config-$kver"; then
	transport=9p
else
	transport=disk	# e.g. Debian's -cloud kernels have no 9p
fi

run_id="$name-$$-$RANDOM"
{
	echo "ZC_RUN_ID=$run_id"
	echo "ZC_SUITE=$suite"
	echo "ZC_INSTALL=$install"
	echo "ZC_KERNEL_FLAVOUR=${kvariant:-standard}"
	[ -z "$kdebdir" ] || echo "ZC_TEST_KERNEL=${tkernel:-$tk_rel}"
	echo "ZC_EXPECT_KERNEL=$kver"
	echo "ZC_QUICK=$quick"
	echo "ZC_ONLY=$(printf %q "$only")"
	echo "ZC_SCRIPT=$(printf %q "${script:-guest/run.sh}")"
	echo "ZC_FORCE_FAIL=$(printf %q "${ZC_FORCE_FAIL:-}")"
	echo "ZC_FORCE_WARN=${ZC_FORCE_WARN:-}"
	# Optional: a suite's time limit and the progress interval (guest/run.sh).
	echo "ZC_SUITE_TIMEOUT=${ZC_SUITE_TIMEOUT:-3600}"
	echo "ZC_WATCH_SECS=${ZC_WATCH_SECS:-60}"
	echo "ZC_TIME_SCALE=${ZC_TIME_SCALE:-1}"
} >"$share/run.env"

qemu=(qemu-system-x86_64 -accel tcg -smp "$smp" -m "$mem" -nodefaults
	-display none -monitor none -no-reboot
	-chardev "file,id=con,path=$logdir/console.log" -serial chardev:con
	-kernel "$work/vmlinuz-$kver" -initrd "$work/initrd.img-$kver"
	-drive "file=$work/disk.qcow2,if=none,id=zcroot,format=qcow2,snapshot=on,cache=unsafe"
	-device virtio-blk-pci,drive=zcroot,serial=zcroot
	-device virtio-rng-pci)
# Disks are explicit -device entries in command-line order (the root disk
# first), and the root is found by its label anyway.
kargs="root=LABEL=zcroot rw console=ttyS0,115200 zcshare=$transport oops=panic panic=1"
# TCG on a shared 2-core host starves the vCPUs for seconds at a time: the
# default 20 s soft-lockup and 21 s RCU-stall limits fire on healthy guests.
# Raised to 120 s (a real lockup is still caught); hung tasks: the runner.
kargs+=" watchdog_thresh=60 rcupdate.rcu_cpu_stall_timeout=120"
# A ring buffer that does not wrap during long runs.
kargs+=" log_buf_len=8M"
[ "$pow" = 0 ] || kargs+=" panic_on_warn=1"

# The guest runs the tests as they are now: a copy, so that edits to the
# checkout while this run waits for the lock or runs do not reach a guest
# in the middle of a script (bash reads scripts as it goes).
rm -rf "$work/tests"
cp -a "$repo/tests" "$work/tests"
cp -a "$work/zcache-src" "$work/tests/zcache-src"
if [ "$transport" = 9p ]; then
	qemu+=(-virtfs "local,path=$work/tests,mount_tag=zctests,security_model=none,readonly=on"
		-virtfs "local,path=$work/pkg,mount_tag=zcpkg,security_model=none,readonly=on"
		-virtfs "local,path=$share,mount_tag=zcout,security_model=none")
else
	mkdir -p "$work/stage/out"
	cp -a "$work/tests" "$work/stage/tests"
	cp -a "$work/pkg" "$work/stage/pkg"
	cp "$share/run.env" "$work/stage/out/"
	sz=$(( $(du -sm "$work/stage" | cut -f1) + 512 ))
	truncate -s "${sz}M" "$work/share.img"
	mkfs.ext4 -q -F -L zcshare -d "$work/stage" "$work/share.img"
	qemu+=(-drive "file=$work/share.img,if=none,id=zcshare,format=raw,cache=unsafe"
		-device virtio-blk-pci,drive=zcshare,serial=zcshare)
fi

if [ "$install" = cloud ]; then
	sed "s/@RUN_ID@/$run_id/g" "$here/seed/user-data.in" >"$work/user-data"
	sed "s/@RUN_ID@/$run_id/g" "$here/seed/meta-data.in" >"$work/meta-data"
	cloud-localds "$work/seed.img" "$work/user-data" "$work/meta-data"
	qemu+=(-drive "file=$work/seed.img,if=none,id=zcseed,format=raw,readonly=on"
		-device virtio-blk-pci,drive=zcseed,serial=zcseed
		-nic "user,model=virtio-net-pci")
else
	kargs+=" zcachetest cloud-init=disabled"
fi

if [ -n "$scratch" ]; then
	size=${scratch%%:*} prof=none
	[ "$scratch" = "$size" ] || prof=${scratch#*:}
	case $prof in
	ssd) thr=",throttling.iops-total=10000,throttling.bps-total=209715200" ;;
	hdd) thr=",throttling.iops-total=200,throttling.bps-total=104857600" ;;
	none) thr= ;;
	iops=*|bps=*) thr=$(echo ",$prof" | sed 's/,iops=/,throttling.iops-total=/; s/,bps=/,throttling.bps-total=/') ;;
	*) zc_die "--scratch SIZE[:ssd|hdd|none|iops=N,bps=N]" ;;
	esac
	qemu-img create -q -f raw "$work/scratch.img" "$size"
	qemu+=(-drive "file=$work/scratch.img,if=none,id=zcscratch,format=raw,cache=none,aio=threads$thr"
		-device virtio-blk-pci,drive=zcscratch,serial=zcscratch)
	{ echo "ZC_SCRATCH_DEV=/dev/disk/by-id/virtio-zcscratch"
	  echo "ZC_SCRATCH_PROFILE=$prof"; } >>"$share/run.env"
	[ "$transport" = 9p ] || cp "$share/run.env" "$work/stage/out/run.env"
	[ "$transport" = 9p ] || mkfs.ext4 -q -F -L zcshare -d "$work/stage" "$work/share.img"
fi
# The debug test kernel (KASAN, lockdep) runs ACPI's AML so slowly under
# TCG that every PCI device's _PRT (i440fx: a While loop) hits the 30 s
# AML loop timeout (7 devices: 3.5 min; they still work, over MSI-X), and
# the initramfs gave up waiting for the root disk after 180 s.  Wait up to
# 10 min.  (acpi=noirq avoids the _PRT calls but stalled the boot: no
# output and no share mounted for 10 min after the root disk appeared.)
case $tkernel in *debug) kargs+=" rootdelay=600" ;; esac
[ -z "$append" ] || kargs+=" $append"
qemu+=(-append "$kargs")
printf '%q ' timeout "$tmo" "${qemu[@]}" >"$logdir/qemu-cmdline.txt"; echo >>"$logdir/qemu-cmdline.txt"

# One guest at a time on this machine.
# Killed or interrupted: stop what we started (the lock waiter, QEMU), so
# that no guest outlives its run and no orphan takes the lock.
lockpid= qpid=
stop_children() {
	[ -z "$lockpid" ] || kill "$lockpid" 2>/dev/null
	[ -z "$qpid" ] || kill "$qpid" 2>/dev/null
	zc_log "run $name: interrupted"
	exit 143
}
trap stop_children INT TERM HUP
exec 7>"$ZC_CACHE/qemu.lock"
tw=$SECONDS
if ! flock -n 7; then
	zc_log "waiting for $ZC_CACHE/qemu.lock (another guest is running)"
	# In the background so that a signal is handled at once; the lock
	# belongs to the open file, which this shell keeps.
	flock 7 & lockpid=$!
	wait "$lockpid" || zc_die "cannot take $ZC_CACHE/qemu.lock"
	lockpid=
fi
wait_s=$((SECONDS - tw))
zc_log "booting $suite, kernel $kver, transport $transport, timeout ${tmo}s"
tq=$SECONDS
: >"$logdir/console.log"
timeout -k 15 "$tmo" "${qemu[@]}" >"$logdir/qemu.log" 2>&1 &
qpid=$!
# Progress: the guest's "zc-guest:"/"zc-run:" lines from the serial console.
tail -n +1 -F --pid="$qpid" "$logdir/console.log" 2>/dev/null | sed -u 's/\r//g' |
	grep -a --line-buffered -o -E 'zc-(guest|run): .*' | sed -u 's/^/    | /' >&2 &
qrc=0
wait "$qpid" || qrc=$?
qpid=
echo "$qrc" >"$logdir/qemu.rc"
wait || true
exec 7>&-
trap - INT TERM HUP
boot_s=$((SECONDS - tq))

if [ "$transport" = disk ]; then
	e2fsck -fy "$work/share.img" >/dev/null 2>&1 || true
	mkdir -p "$work/extract"
	debugfs -R "rdump /out $work/extract" "$work/share.img" >/dev/null 2>&1 || true
	cp -a "$work/extract/out/." "$share/" 2>/dev/null || true
fi

# Judge the run.
reasons=()
case $qrc in
0) ;;
124|137) reasons+=("timeout: no power-off within ${tmo}s") ;;
*) reasons+=("qemu exit status $qrc (see $logdir/qemu.log)") ;;
esac
if grep -a -q -E 'Kernel panic|end Kernel panic' "$logdir/console.log"; then
	reasons+=("kernel panic: $( { grep -a -m1 -E 'Kernel panic' "$logdir/console.log" | tr -d '\r' | cut -c1-160; } || true)")
fi
[ ! -s "$share/guest-error.txt" ] || reasons+=("guest: $(head -n 1 "$share/guest-error.txt")")
if [ -f "$share/install.rc" ] && [ "$(cat "$share/install.rc")" != 0 ]; then
	reasons+=("package install failed in the guest (results/install.log)")
fi
passed=0 failed=0 skipped=0
if [ -f "$share/summary.tsv" ]; then
	read -r passed failed skipped < <(awk -F'\t' '{p+=$3; f+=$4; s+=$5} END {print p+0, f+0, s+0}' "$share/summary.tsv")
	while IFS=$'\t' read -r s st _; do
		[ "$st" = fail ] || continue
		reasons+=("suite $s failed: $( { grep -m 3 "^$s:" "$share/failures.txt" 2>/dev/null | cut -d: -f2- | sed 's/^ *//' | paste -sd ';' | cut -c1-200; } || true)")
	done <"$share/summary.tsv"
fi
# Kernel splats anywhere in the guest's log (the runner also pins them to
# the suite during which they appeared).
# (tests/guest/splat.re: the same pattern as the guest runner's)
splat_re=$(grep -v '^#' "$repo/tests/guest/splat.re")
# Both the saved dmesg and the console (which has what a wrapped ring
# buffer or a panic lost), minus the harness's own progress lines.
grep -v -E '^#|^$' "$repo/tests/guest/dmesg-ignore.txt" >"$work/ignore" || true
if cat "$share/dmesg.txt" "$logdir/console.log" 2>/dev/null | tr -d '\r' |
	awk -f "$repo/tests/guest/fault-window.awk" |
	grep -a -v -E 'zc-(run|guest):' | grep -a -E "$splat_re" |
	grep -a -v -E -f "$work/ignore" -e '^$' >"$logdir/splats.txt"; then
	reasons+=("kernel splat in the guest log: $(head -n 1 "$logdir/splats.txt" | tr -d '\r' | cut -c1-160)")
fi
token=$(cat "$share/token" 2>/dev/null || true)
[ "$token" = "ZC-TESTS-PASSED $run_id" ] || reasons+=("no success token from the guest")
kern=$(sed -n 's/^kernel: //p' "$share/env.txt" 2>/dev/null | head -n 1 || true)
kern=${kern:-$kver}

# Wall time of the run itself: waiting for another engineer's guest to
# finish is not part of it (reported in the detail).
wall=$((SECONDS - t0 - wait_s))
if [ ${#reasons[@]} -eq 0 ]; then result=PASS detail="image ${build_s}s, boot ${boot_s}s, lock wait ${wait_s}s"
else result=FAIL detail=$(printf '%s; ' "${reasons[@]}"); detail=${detail%; }
fi
line=$(printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s' "$suite" "$kern" "$install${kvariant:+-$kvariant}" \
	"$passed" "$failed" "$skipped" "$wall" "$result" "$detail")
echo "$line" >"$logdir/summary.tsv"
ln -sfn "$logdir" "$ZC_CACHE/logs/latest-$suite"
if [ "$result" = PASS ]; then
	zc_log "run $name: PASS ($passed passed, $skipped skipped, ${wall}s: image ${build_s}s, boot ${boot_s}s; lock wait ${wait_s}s)"
else
	zc_log "run $name: FAIL (${wall}s: image ${build_s}s, boot ${boot_s}s; lock wait ${wait_s}s)"
	for r in "${reasons[@]}"; do echo "    - $r" >&2; done
	echo "    console: $logdir/console.log  results: $share" >&2
fi
echo "$line"
[ "$result" = PASS ]
