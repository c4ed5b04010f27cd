// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_BDEV_NR_SECTORS: bdev_nr_sectors() gives a block device's size (5.12)
 * 5.12 API change: bdev_nr_sectors() reads the size of a block device or
 * partition; before, callers read i_size of bdev->bd_inode (gone in 6.10).
 */
#include <linux/blkdev.h>

static __maybe_unused sector_t zc_probe(struct block_device *bdev)
{
	return bdev_nr_sectors(bdev);
}
