// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_BDEV_FILE_OPEN_BY_PATH: bdev_file_open_by_path() + bdev_fput() (6.9)
 * 6.9 API change: block devices are opened as files; file_bdev() gives
 * the block_device and bdev_fput() (6.10) releases it.
 * symbol: bdev_file_open_by_path
 * symbol: bdev_fput
 * symbol: file_bdev
 */
#include <linux/blkdev.h>
#include <linux/fs.h>

static __maybe_unused struct block_device *zc_probe(const char *path, void *holder)
{
	struct file *file = bdev_file_open_by_path(path,
			BLK_OPEN_READ | BLK_OPEN_WRITE | BLK_OPEN_EXCL, holder, NULL);
	struct block_device *bdev;

	if (IS_ERR(file))
		return NULL;
	bdev = file_bdev(file);
	bdev_fput(file);
	return bdev;
}
