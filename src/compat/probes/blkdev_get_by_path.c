// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_BLKDEV_GET_BY_PATH: blkdev_get_by_path(path, fmode, holder) (up to 6.4)
 * Opens the backing device exclusively; 6.5 added holder ops (4 args),
 * 6.8 removed it for bdev_open_by_path(), 6.9 for bdev_file_open_by_path().
 * symbol: blkdev_get_by_path
 */
#include <linux/blkdev.h>
#include <linux/fs.h>

static __maybe_unused struct block_device *zc_probe(const char *path, void *holder)
{
	return blkdev_get_by_path(path, FMODE_READ | FMODE_WRITE | FMODE_EXCL,
				  holder);
}
