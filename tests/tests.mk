# SPDX-License-Identifier: GPL-2.0
# Test and benchmark targets; included by the top-level Makefile.

## test            everything CI runs: packaging lint, the DKMS build matrix,
##                 the VM suites (see tests/run-all.sh; TEST_STEPS=... to pick)
test:
	tests/run-all.sh $(TEST_STEPS)
