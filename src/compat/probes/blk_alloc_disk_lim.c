// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_BLK_ALLOC_DISK_LIM: blk_alloc_disk takes queue_limits (6.9)
 * 6.9 API change: blk_alloc_disk(&lim, node) takes the queue limits and
 * returns an ERR_PTR on error.
 * symbol: __blk_alloc_disk
 * config: CONFIG_BLOCK
 */
#include <linux/blkdev.h>

static __maybe_unused struct gendisk *zc_probe(void)
{
	struct queue_limits lim = { .logical_block_size = 4096 };

	return blk_alloc_disk(&lim, NUMA_NO_NODE);
}
