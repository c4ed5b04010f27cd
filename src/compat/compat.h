/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat.h: force-included in every object of zcache (compat/Kbuild.include).
 *
 * zcache_config.h holds the HAVE_* results of compat/probe.sh for the
 * kernel being built; the headers below turn them into one spelling of
 * each kernel API, so that the rest of the sources read like upstream.
 * HAVE_* macros belong in these headers only (and the probe script writes
 * the Kbuild choice of objects, zcache_config.mk, from the same results).
 */
#ifndef ZCACHE_COMPAT_H
#define ZCACHE_COMPAT_H

#include "zcache_config.h"

#include "compat-misc.h"
#include "compat-mm.h"
#include "compat-blk.h"
#include "compat-crypto.h"
#include "compat-frontends.h"

#endif /* ZCACHE_COMPAT_H */
