// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_REGISTER_SHRINKER_NAME: register_shrinker(s, fmt, ...) (6.0, Debian 6.1)
 * 6.0 API change: register_shrinker() takes a printf-style name for
 * debugfs; 6.7 replaced it with shrinker_alloc()/shrinker_register().
 * symbol: register_shrinker
 */
#include <linux/mm.h>
#include <linux/shrinker.h>

static __maybe_unused int zc_probe(struct shrinker *s)
{
	return register_shrinker(s, "zcache-%s", "probe");
}
