// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_BDEV_MAX_DISCARD_SECTORS: bdev_max_discard_sectors() (5.19)
 * 5.19 API change: QUEUE_FLAG_DISCARD and blk_queue_discard() are gone; a
 * device takes discards when bdev_max_discard_sectors() is not 0.
 */
#include <linux/blkdev.h>

static __maybe_unused bool zc_probe(struct block_device *bdev)
{
	return bdev_max_discard_sectors(bdev) != 0;
}
