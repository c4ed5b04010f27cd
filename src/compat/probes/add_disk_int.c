// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_ADD_DISK_INT: add_disk() returns an error code (5.15)
 * 5.15 API change: add_disk() is __must_check and returns int; before it
 * returned void.
 */
#include <linux/blkdev.h>

static __maybe_unused int zc_probe(struct gendisk *disk)
{
	int err = add_disk(disk);

	return err;
}
