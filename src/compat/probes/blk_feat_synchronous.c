// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_BLK_FEAT_SYNCHRONOUS: queue_limits.features has BLK_FEAT_SYNCHRONOUS (6.11)
 * 6.11 API change: queue flags moved into queue_limits.features;
 * BLK_FEAT_SYNCHRONOUS makes swap skip the swap cache readahead.
 */
#include <linux/blkdev.h>

static __maybe_unused struct queue_limits zc_probe(void)
{
	struct queue_limits lim = {
		.features = BLK_FEAT_SYNCHRONOUS | BLK_FEAT_STABLE_WRITES,
	};

	return lim;
}
