// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_BLOCK_OPEN_GENDISK: ->open takes (struct gendisk *, blk_mode_t) (6.5)
 * 6.5 API change: block_device_operations.open(disk, mode) and
 * release(disk) replace open(bdev, fmode_t) and release(disk, fmode_t).
 */
#include <linux/blkdev.h>

static int zc_probe_open(struct gendisk *disk, blk_mode_t mode)
{
	return 0;
}

static void zc_probe_release(struct gendisk *disk)
{
}

static const struct block_device_operations zc_probe_fops __maybe_unused = {
	.open = zc_probe_open,
	.release = zc_probe_release,
};
