// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_BLOCK_RW_PAGE: block_device_operations has ->rw_page (up to 6.8)
 * ->rw_page makes swapon set SWP_SYNCHRONOUS_IO for a bio device;
 * 6.9 removed it (BLK_FEAT_SYNCHRONOUS / QUEUE_FLAG_SYNCHRONOUS instead).
 */
#include <linux/blkdev.h>

static __maybe_unused bool zc_probe(const struct block_device_operations *ops)
{
	return ops->rw_page != NULL;
}
