// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_RW_PAGE_REQ_OP: ->rw_page takes enum req_op (6.0, Debian 6.1)
 * 6.0 API change: rw_page(bdev, sector, page, enum req_op) replaces the
 * unsigned int op and bool is_write arguments.
 */
#include <linux/blkdev.h>

static int zc_probe_rw_page(struct block_device *bdev, sector_t sector,
			    struct page *page, enum req_op op)
{
	return 0;
}

static const struct block_device_operations zc_probe_fops __maybe_unused = {
	.rw_page = zc_probe_rw_page,
};
