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

# Packaging, build matrix and kernel-code quality targets (below), VM
# harness targets (vm/vm.mk), tests and benchmarks (tests/tests.mk).
include vm/vm.mk
include tests/tests.mk

# ---------------------------------------------------------------------------
# Packaging, build matrix and kernel-code quality (docs/packaging.md).
# The version comes from debian/changelog only.  Packages are built in a
# copy of the tree under $ZC_CACHE/work and land in $ZC_CACHE/pkg.

ZC_VERSION := $(shell sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p' debian/changelog)
ZC_UPSTREAM := $(firstword $(subst -, ,$(ZC_VERSION)))
ZC_PKG := $(ZC_CACHE)/pkg
ZC_WORK := $(ZC_CACHE)/work
# Copy of the tree without VCS data and without what .gitignore ignores.
ZC_COPY_TREE = tar --exclude-vcs --exclude-vcs-ignores -cf - . | tar -C $(1) -xf -

.PHONY: deb rpm lint matrix matrix-rt matrix-flavours lifecycle check checkpatch modules clean

## deb             build zcache-dkms_<ver>_all.deb and zcache-utils into $ZC_CACHE/pkg
deb:
	@set -euo pipefail; . vm/lib.sh; \
	zc_apt_install dpkg-dev debhelper dh-dkms; \
	mkdir -p $(ZC_WORK); exec 9>$(ZC_WORK)/.lock-deb; flock 9; \
	w=$(ZC_WORK)/deb; zc_rm_tree $$w; mkdir -p $$w/zcache-$(ZC_UPSTREAM) $(ZC_PKG); \
	$(call ZC_COPY_TREE,$$w/zcache-$(ZC_UPSTREAM)); \
	zc_log "deb: dpkg-buildpackage zcache $(ZC_VERSION) (log $$w/build.log)"; \
	if ! (cd $$w/zcache-$(ZC_UPSTREAM) && dpkg-buildpackage -us -uc) >$$w/build.log 2>&1; then \
		tail -n 40 $$w/build.log; zc_die "dpkg-buildpackage failed (log $$w/build.log)"; fi; \
	rm -f $(ZC_PKG)/zcache-dkms_*.deb $(ZC_PKG)/zcache-utils_*.deb $(ZC_PKG)/zcache_*; \
	cp $$w/*.deb $$w/zcache_$(ZC_VERSION)* $(ZC_PKG)/; \
	zc_rm_tree $$w; ls -l $(ZC_PKG)/*.deb

## rpm             build zcache-dkms-<ver>-1.noarch.rpm (rpmbuild) into $ZC_CACHE/pkg
rpm:
	@set -euo pipefail; . vm/lib.sh; \
	zc_apt_install rpm; \
	mkdir -p $(ZC_WORK); exec 9>$(ZC_WORK)/.lock-rpm; flock 9; \
	w=$(ZC_WORK)/rpm; v=$(ZC_UPSTREAM); zc_rm_tree $$w; \
	mkdir -p $$w/SOURCES $$w/SPECS $$w/src/zcache-$$v $(ZC_PKG); \
	$(call ZC_COPY_TREE,$$w/src/zcache-$$v); \
	tar -C $$w/src -czf $$w/SOURCES/zcache-$$v.tar.gz zcache-$$v; \
	sed 's/@VERSION@/'$$v'/g' rpm/zcache-dkms.spec.in >$$w/SPECS/zcache-dkms.spec; \
	zc_log "rpm: rpmbuild zcache-dkms $$v (log $$w/build.log)"; \
	if ! rpmbuild --define "_topdir $$w" --nodeps -ba $$w/SPECS/zcache-dkms.spec >$$w/build.log 2>&1; then \
		tail -n 40 $$w/build.log; zc_die "rpmbuild failed (log $$w/build.log)"; fi; \
	rm -f $(ZC_PKG)/zcache-dkms-*.rpm $(ZC_PKG)/zcache-utils-*.rpm; \
	cp $$w/RPMS/noarch/*.rpm $$w/SRPMS/*.rpm $(ZC_PKG)/; \
	zc_rm_tree $$w; ls -l $(ZC_PKG)/*.rpm

## lint            lintian (0 errors, 0 warnings) and rpmlint (0 errors) on the packages;
##                 dkms.conf's kernel range (tests/dist/kernel-range.sh)
lint: deb rpm
	@set -uo pipefail; . vm/lib.sh; zc_apt_install lintian rpmlint; rc=0; \
	echo "== lintian (bookworm) $(ZC_PKG)/zcache_$(ZC_VERSION)_*.changes"; \
	if lintian --fail-on error,warning $(ZC_PKG)/zcache_$(ZC_VERSION)_*.changes; then \
		echo "lintian: 0 errors, 0 warnings"; else rc=1; fi; \
	echo "== rpmlint $(ZC_PKG)/zcache-dkms-$(ZC_UPSTREAM)-*.rpm $(ZC_PKG)/zcache-utils-$(ZC_UPSTREAM)-*.rpm"; \
	rpmlint -r rpm/zcache-dkms.rpmlintrc $(ZC_PKG)/zcache-dkms-$(ZC_UPSTREAM)-*.rpm $(ZC_PKG)/zcache-utils-$(ZC_UPSTREAM)-*.rpm || rc=1; \
	echo "== dkms.conf: the kernels DKMS may build for"; \
	tests/dist/kernel-range.sh || rc=1; \
	exit $$rc

## matrix          DKMS build of the .deb by apt in bullseye/bookworm/trixie/sid chroots (SUITES=...)
matrix: deb
	@tests/dkms-matrix.sh $(SUITES)

## matrix-rt       the matrix for the PREEMPT_RT kernels (linux-headers-rt-amd64; SUITES=..., default bookworm trixie)
matrix-rt: deb
	@tests/dkms-matrix.sh --flavour rt $(or $(SUITES),bookworm trixie)

## matrix-flavours the matrix for the -rt and -cloud kernels of every suite (SUITES=...); a warning fails it
matrix-flavours: deb
	@rc=0; for f in rt cloud; do tests/dkms-matrix.sh --flavour $$f $(SUITES) || rc=1; done; exit $$rc

## lifecycle       upgrade from 0.1.0 (built from the tag v0.1.0), remove, purge, reinstall, module signer, in bookworm and bullseye chroots (SUITES=...)
lifecycle: deb
	@tests/lifecycle.sh $(SUITES)

## check           W=1 + sparse per suite, checkpatch on the host (SUITES=...)
check:
	@tests/dkms-matrix.sh --check $(SUITES)

## checkpatch      scripts/checkpatch.pl --no-tree -f on src/ (from Debian's linux-source)
checkpatch:
	@tests/dkms-matrix.sh --checkpatch

## modules         build the modules in a copy of src/: SUITE=bookworm (chroot) or KDIR=<build tree>
modules:
	@tests/dkms-matrix.sh --modules $(if $(SUITE),--suite $(SUITE)) $(if $(KDIR),--kdir $(KDIR))

## clean           remove packaging work trees and build droppings in src/
clean:
	@. vm/lib.sh; for d in deb rpm modules; do zc_rm_tree $(ZC_WORK)/$$d; done
	@git clean -q -f -X -- src/ 2>/dev/null || true
