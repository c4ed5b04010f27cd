// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_ALLOC_DISK: blk_alloc_queue(node) + alloc_disk() allocate a bio disk (5.10)
 * 5.9 API: blk_alloc_queue(node) for a bio-based queue and alloc_disk(minors);
 * 5.15 removed alloc_disk() in favour of blk_alloc_disk().
 * symbol: blk_alloc_queue
 * symbol: __alloc_disk_node
 * config: CONFIG_BLOCK
 */
#include <linux/blkdev.h>

static __maybe_unused struct gendisk *zc_probe(void)
{
	struct request_queue *q = blk_alloc_queue(NUMA_NO_NODE);
	struct gendisk *disk = alloc_disk(1);

	if (disk)
		disk->queue = q;
	return disk;
}
