// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_BIO_ALLOC_BDEV: bio_alloc(bdev, nr_vecs, opf, gfp) (5.18)
 * 5.18 API change: bio_alloc() takes the block device and operation
 * instead of bio_alloc(gfp, nr_vecs) + bio_set_dev().
 * symbol: bio_alloc_bioset
 */
#include <linux/bio.h>

static __maybe_unused struct bio *zc_probe(struct block_device *bdev)
{
	return bio_alloc(bdev, 1, REQ_OP_WRITE | REQ_SYNC, GFP_NOIO);
}
