// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_BLK_ALLOC_DISK_NODE: blk_alloc_disk(node) allocates disk and queue (5.14, 6.1)
 * 5.14 API change: blk_alloc_disk(node) returns a gendisk with its queue,
 * NULL on failure; 6.9 added a queue_limits argument.
 * symbol: __blk_alloc_disk
 * config: CONFIG_BLOCK
 */
#include <linux/blkdev.h>

static __maybe_unused struct gendisk *zc_probe(void)
{
	return blk_alloc_disk(NUMA_NO_NODE);
}
