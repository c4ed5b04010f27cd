// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_BLOCK_RW_PAGE: block_device_operations has ->rw_page (up to 6.8)
 * ->rw_page makes swapon set SWP_SYNCHRONOUS_IO for a bio device;
 * 6.9 removed it (BLK_FEAT_SYNCHRONOUS / QUEUE_FLAG_SYNCHRONOUS instead).
 */
#include <linux/blkdev.h>

static __maybe_unused size_t zc_probe(void)
{
	return offsetof(struct block_device_operations, rw_page);
}
