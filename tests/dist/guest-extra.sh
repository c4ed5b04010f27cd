#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/dist/guest-extra.sh: install the packages of ZC_DIST_EXTRA (default
# lvm2, for suite 35's PV test) by name from the current snapshot of the
# repository in the package share (vm/run.sh --apt-repo), then run the
# guest runner as usual (fast path: the package is in the image already).
. "$ZC_TESTS/dist/guest-lib.sh"
cur=$(cat "$REPO/current")
use_snapshot "$cur"
# shellcheck disable=SC2086
dcheck "apt-get install ${ZC_DIST_EXTRA:-lvm2} from the repository" "${APT_Y[@]}" install ${ZC_DIST_EXTRA:-lvm2}
ZC_DIST_INSTALL=${ZC_INSTALL:-fast}
dist_finish
