// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_GENHD_FL_NO_PART: GENHD_FL_NO_PART flag (5.17)
 * 5.17 API change: GENHD_FL_NO_PART replaces GENHD_FL_NO_PART_SCAN
 * to keep partitions off a disk.
 */
#include <linux/blkdev.h>

static __maybe_unused void zc_probe(struct gendisk *disk)
{
	disk->flags |= GENHD_FL_NO_PART;
}
