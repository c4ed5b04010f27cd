// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_SHRINKER_ALLOC: shrinker_alloc()/shrinker_register()/shrinker_free() (6.7)
 * 6.7 API change: shrinkers are allocated by the core (RCU-freed) and
 * carry private_data.
 * symbol: shrinker_alloc
 * symbol: shrinker_register
 * symbol: shrinker_free
 */
#include <linux/mm.h>
#include <linux/shrinker.h>

static __maybe_unused struct shrinker *zc_probe(void *data)
{
	struct shrinker *s = shrinker_alloc(0, "zcache-%s", "probe");

	if (!s)
		return NULL;
	s->private_data = data;
	shrinker_register(s);
	shrinker_free(s);
	return s;
}
