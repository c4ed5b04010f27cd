// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_GET_RANDOM_U32_BELOW: get_random_u32_below() (6.2, in Debian 6.1)
 * 6.2 API change: get_random_u32_below() replaces prandom_u32_max()
 * (backported to 6.1 stable).
 */
#include <linux/random.h>

static __maybe_unused u32 zc_probe(u32 ceil)
{
	return get_random_u32_below(ceil);
}
