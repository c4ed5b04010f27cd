// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_BLK_CLEANUP_QUEUE: blk_cleanup_queue() tears the queue down (up to 5.19)
 * 6.0 API change: blk_cleanup_queue() is gone, del_gendisk() + put_disk()
 * are enough.
 * symbol: blk_cleanup_queue
 */
#include <linux/blkdev.h>

static __maybe_unused void zc_probe(struct request_queue *q)
{
	blk_cleanup_queue(q);
}
