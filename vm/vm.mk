# SPDX-License-Identifier: GPL-2.0
# VM harness targets; included by the top-level Makefile.  See vm/README.md.

SUITE ?= bookworm
INSTALL ?= fast
# More vm/run.sh options, e.g. VM_ARGS="--mem 2048 --only '0*'".
VM_ARGS ?=
# The matrix runs short (ZC_QUICK=1 in the guests) unless QUICK=0.
QUICK ?= 1
ZC_VM_SUITES := bullseye bookworm trixie sid
vm_pkg_target = $(if $(filter rpm,$(1)),rpm,$(if $(filter none,$(1)),,deb))

.PHONY: vm-image vm-test vm-matrix vm-upgrade-test vm-harness-catch vm-test-runner \
	vm-fixture vm-fixture-test vm-clean-images vm-cleancache-test vm-debug-test \
	vm-cleancache-debug-test

## vm-image        build (or reuse) the test image of SUITE=<suite>
vm-image:
	vm/image.sh $(SUITE)

## vm-test         SUITE=<suite> [INSTALL=fast|cloud|rpm|none]: build the
##                 package, boot the suite's VM, install it, run the guest
##                 suites; prints a table (VM_ARGS= more vm/run.sh options)
vm-test: $(call vm_pkg_target,$(INSTALL))
	vm/guest-matrix.sh --install $(INSTALL) $(VM_ARGS) $(SUITE)

## vm-matrix       vm-test on all four suites, one after the other
##                 (INSTALL=fast by default; QUICK=0 for the long tests)
vm-matrix: $(call vm_pkg_target,$(INSTALL))
	vm/guest-matrix.sh --install $(INSTALL) $(if $(filter 1,$(QUICK)),--quick) $(VM_ARGS) $(ZC_VM_SUITES)

## vm-upgrade-test kernel upgrade: bookworm with the package, then the -cloud
##                 kernel (DKMS must build for it by itself); boot it and load
##                 the modules
vm-upgrade-test: deb
	vm/guest-matrix.sh --install fast --kernel-flavour cloud $(VM_ARGS) bookworm

## vm-cleancache-test  bullseye with the package, then the test kernel
##                 5.10-zc-cleancache (CONFIG_CLEANCACHE=y, vm/testkernel.sh;
##                 DKMS builds for it by itself); boots it, runs every guest
##                 suite quick, 34-zcache-cleancache included, with a 2 GiB
##                 scratch disk (VM_ARGS= more vm/run.sh options)
vm-cleancache-test: deb
	vm/guest-matrix.sh --install fast --test-kernel cleancache --quick --scratch 2G:none \
		--timeout 3600 $(VM_ARGS) bullseye

## vm-debug-test   bookworm with the package, then the test kernel
##                 6.1-zc-debug (KASAN, lockdep, kmemleak, DEBUG_ATOMIC_SLEEP,
##                 fault injection); boots it and runs every guest suite
##                 quick; any KASAN/lockdep/kmemleak report fails the run.
##                 Every swapped page costs 10-30x more than on a stock
##                 kernel: 2-3 hours under TCG, a 3 h limit, 2.5 h per suite
##                 (ZC_SUITE_TIMEOUT), 4x the workloads' own time limits
##                 (ZC_TIME_SCALE); VM_ARGS="--only '@(w*|30*)'" runs a
##                 part.  (A 640 MiB guest would halve the workloads, but
##                 9p's 256 KiB readdir buffer then fails to allocate:
##                 docs/reliability.md.)
vm-debug-test: deb
	ZC_SUITE_TIMEOUT=$${ZC_SUITE_TIMEOUT:-9000} ZC_TIME_SCALE=$${ZC_TIME_SCALE:-4} \
		vm/guest-matrix.sh --install fast --test-kernel debug --quick --scratch 2G:none \
		--timeout 10800 $(VM_ARGS) bookworm

## vm-cleancache-debug-test  bullseye on the test kernel
##                 5.10-zc-cleancache-debug: cleancache and frontswap (the
##                 two front ends only 5.10 has) under the debug kernel's
##                 checkers; every guest suite quick, 32 and 34 included;
##                 any KASAN/lockdep/kmemleak report fails the run (limits
##                 as vm-debug-test)
vm-cleancache-debug-test: deb
	ZC_SUITE_TIMEOUT=$${ZC_SUITE_TIMEOUT:-9000} ZC_TIME_SCALE=$${ZC_TIME_SCALE:-4} \
		vm/guest-matrix.sh --install fast --test-kernel cleancache-debug --quick \
		--scratch 2G:none --timeout 10800 $(VM_ARGS) bullseye

## vm-harness-catch  prove the harness fails runs: a test forced to fail
##                 (ZC_FORCE_FAIL), a kernel WARNING, a timeout
vm-harness-catch:
	vm/harness-catch.sh $(SUITE)

## vm-test-runner  the guest runner's verdicts on stand-in suites, on the
##                 host, no guest, no module (seconds)
vm-test-runner:
	vm/test-runner.sh

## vm-fixture-test the harness's own install paths with a stand-in package
##                 (vm/fixture): fast, cloud, rpm and the kernel upgrade
vm-fixture:
	vm/fixture/build.sh
vm-fixture-test: vm-fixture
	vm/guest-matrix.sh --pkg-dir $(ZC_CACHE)/pkg-fixture --only '0*' --install fast $(SUITE)
	vm/guest-matrix.sh --pkg-dir $(ZC_CACHE)/pkg-fixture --only '0*' --install cloud $(SUITE)
	vm/guest-matrix.sh --pkg-dir $(ZC_CACHE)/pkg-fixture --only '0*' --install rpm $(SUITE)
	vm/guest-matrix.sh --pkg-dir $(ZC_CACHE)/pkg-fixture --only '0*' --install fast --kernel-flavour cloud bookworm

## vm-clean-images remove the cached test images (not the rootfs trees)
vm-clean-images:
	rm -rf $(ZC_CACHE)/images
