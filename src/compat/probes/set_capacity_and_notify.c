// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_SET_CAPACITY_AND_NOTIFY: set_capacity_and_notify(disk, size) (5.11)
 * 5.11 API change: set_capacity_and_notify() replaces
 * set_capacity_revalidate_and_notify(disk, size, update_bdev) and updates
 * the size of an open block device itself.
 * symbol: set_capacity_and_notify
 */
#include <linux/blkdev.h>

static __maybe_unused bool zc_probe(struct gendisk *disk)
{
	return set_capacity_and_notify(disk, 8);
}
