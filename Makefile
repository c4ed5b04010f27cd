# SPDX-License-Identifier: GPL-2.0
#
# zcache-dkms: the entry point for everything.  `make help` lists targets.
#
# The two commands of the README:
#   make demo   the main job: build the package, boot a bookworm VM, install
#               it there, run a memory-pressure workload on zcache over a
#               backing swap device beside the same run on disk swap
#   make test   the tests (what .ci/run calls)
#
# Both must be run as root on a Debian 12 machine; they install the Debian
# packages they need.  Nothing built lands in the checkout: see ZC_CACHE.

SHELL := /bin/bash
ZC_CACHE ?= /var/cache/zcache-dkms
export ZC_CACHE

.PHONY: help demo test
help:
	@sed -n 's/^## \{0,1\}//p' $(MAKEFILE_LIST)

## demo            main job: VM demo of zcache vs disk swap (bookworm)
## test            all tests (host checks, build matrix, VM suites)

# Packaging, build matrix and kernel-code quality targets (below), VM
# harness targets (vm/vm.mk), tests and benchmarks (tests/tests.mk).
include vm/vm.mk
include tests/tests.mk
