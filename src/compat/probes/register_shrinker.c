// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_REGISTER_SHRINKER: register_shrinker(s) with one argument (up to 5.19)
 * Up to 5.19 a shrinker is an embedded struct registered with
 * register_shrinker(s); 6.0 added a name argument.
 * symbol: register_shrinker
 */
#include <linux/mm.h>
#include <linux/shrinker.h>

static __maybe_unused int zc_probe(struct shrinker *s)
{
	return register_shrinker(s);
}
