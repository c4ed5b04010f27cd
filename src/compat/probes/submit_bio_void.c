// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_SUBMIT_BIO_VOID: ->submit_bio returns void (5.16)
 * 5.16 API change: block_device_operations.submit_bio returns void
 * instead of blk_qc_t.
 */
#include <linux/blkdev.h>

static void zc_probe_submit_bio(struct bio *bio)
{
}

static const struct block_device_operations zc_probe_fops __maybe_unused = {
	.submit_bio = zc_probe_submit_bio,
};
