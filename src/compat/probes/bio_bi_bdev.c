// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_BIO_BI_BDEV: struct bio names its device by bi_bdev (5.12)
 * 5.12 API change: bio->bi_bdev replaces bio->bi_disk + bi_partno; a
 * bio-based driver finds its gendisk at bio->bi_bdev->bd_disk.
 */
#include <linux/blk_types.h>
#include <linux/blkdev.h>

static __maybe_unused struct gendisk *zc_probe(struct bio *bio)
{
	return bio->bi_bdev->bd_disk;
}
