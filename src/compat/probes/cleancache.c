// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_CLEANCACHE: cleancache is built and cleancache_register_ops() exported
 * cleancache exists up to 5.16 (removed in 5.17) and only with
 * CONFIG_CLEANCACHE=y, which Debian never sets; a test kernel may.
 * symbol: cleancache_register_ops
 * config: CONFIG_CLEANCACHE
 */
#include <linux/cleancache.h>

static __maybe_unused int zc_probe(const struct cleancache_ops *ops)
{
	int (*reg)(const struct cleancache_ops *) = cleancache_register_ops;

	return reg(ops);
}
