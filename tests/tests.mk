# SPDX-License-Identifier: GPL-2.0
# Test and benchmark targets; included by the top-level Makefile.

## test            everything CI runs: packaging lint, the DKMS build matrix,
##                 the VM suites (see tests/run-all.sh; TEST_STEPS=... to pick)
test:
	tests/run-all.sh $(TEST_STEPS)

## bench           the benchmark in one guest boot: disk swap, zswap, zram,
##                 zcache (+ frontswap on 5.10); SUITE=bookworm PROFILE=ssd|hdd
##                 (BENCH_ARGS="--quick ..." for more; see tests/bench/run.sh);
##                 builds the packages of this checkout first, as demo does
.PHONY: bench
bench: deb
	tests/bench/run.sh --profile $(or $(PROFILE),ssd) $(BENCH_ARGS) $(or $(SUITE),bookworm)

## bench-selftest  the benchmark's host side (row limit, report) on a
##                 fixture, no guest (seconds)
.PHONY: bench-selftest
bench-selftest:
	tests/bench/selftest.sh

## test-full       the default test steps plus the long ones (every suite in
##                 full, rt kernels, lifecycle, cloud-init/rpm/upgrade paths)
.PHONY: test-full
test-full:
	tests/run-all.sh full

## demo            the main job: build the packages, boot a bookworm VM with
##                 them installed, set up /dev/zcache0 over a backing swap
##                 partition on a throttled disk, run the verified memstress
##                 workload, and print zcache's statistics beside the same
##                 run on plain disk swap and on zswap over that disk
##                 (report in $ZC_CACHE/results/demo-*)
.PHONY: demo
demo: deb
	tests/bench/run.sh --install fast --quick --profile $(or $(PROFILE),ssd) \
		--configs disk,zswap,zcache --workloads ms1 --repeat 1 \
		--name demo-$(or $(SUITE),bookworm)-$$(date +%Y%m%d-%H%M%S) $(or $(SUITE),bookworm)
