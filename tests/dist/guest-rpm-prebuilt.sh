#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/dist/guest-rpm-prebuilt.sh: guest-rpm-utils.sh and then
# guest-prebuilt.sh in one boot of the base image (vm/run.sh --install
# none --apt-repo DIR, the repository with the prebuilt module packages
# and DIR/rpm): zcache-utils is installed, run and removed with rpm, then
# the machine loses its toolchain and takes zcache-modules-$(uname -r) and
# zcache-utils from the repository by name; one KTAP numbering, then the
# runner's suites of ZC_ONLY (e.g. '30*').  One guest boot instead of two.
# shellcheck disable=SC2034 # read by dist_finish (guest-lib.sh)
ZC_DIST_THEN=guest-prebuilt.sh
. "$ZC_TESTS/dist/guest-rpm-utils.sh"
