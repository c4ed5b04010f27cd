/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat-blk.h: gendisk, queue limits, block_device_operations, bios and
 * the backing device, across the kernels zcache serves (5.10 to 7.2).
 *
 * Included by compat.h after the probe results (zcache_config.h).  The
 * block front end (zcache_blk.c) uses only these spellings:
 *
 *   struct zc_blk_limits + zc_blk_alloc_disk(&lim)
 *	one description of the queue (block size, discard, write zeroes,
 *	stable writes, non-rotational, I/O statistics) applied
 *	through blk_alloc_queue() + alloc_disk() + blk_queue_*() setters
 *	(5.10), blk_alloc_disk(node) + setters (5.14, 6.1) or
 *	blk_alloc_disk(&queue_limits, node) (6.9).  ERR_PTR on failure.
 *   zc_blk_add_disk(disk, groups) / zc_blk_free_disk(disk)
 *	device_add_disk() returning int (void before 5.15); teardown with
 *	blk_cleanup_queue() where it exists (before 5.19).
 *   zc_blk_set_capacity(disk, sectors)
 *	updates an open block device's size too.
 *   The block_device_operations: each ZC_BLK_DEFINE_X(fn) defines fn_fop,
 *   the method in this kernel's shape, calling fn in one shape:
 *   ZC_BLK_DEFINE_SUBMIT_BIO(fn)
 *	->submit_bio returning blk_qc_t (before 5.16) or void; fn(bio) is void.
 *   ZC_BLK_DEFINE_OPEN(fn) / ZC_BLK_DEFINE_RELEASE(fn)
 *	->open(bdev, fmode_t) / ->release(disk, fmode_t) before 6.5,
 *	->open(disk, blk_mode_t) / ->release(disk) since; fn takes the disk.
 *   struct zc_bdev + zc_bdev_open(&b, path, holder) / zc_bdev_close(&b)
 *	exclusive read-write open of a backing device by path:
 *	blkdev_get_by_path() (before 6.5) or bdev_file_open_by_path() (6.9).
 *   zc_bdev_nr_sectors(bdev)
 *   zc_bio_disk(bio)
 *	the gendisk of a bio: bio->bi_disk before 5.12, bi_bdev->bd_disk since.
 *   zc_page_swapcache(page) / zc_page_set_dirty(page)
 *	is a page of a read bio in the swap cache; mark it dirty (the swap
 *	address space has no dirty accounting: setting the flag is all its
 *	dirty hook does).  Folio calls where they exist (5.16; 6.12 removed
 *	PageSwapCache()), page flags on 5.10.
 *   zc_bdev_can_discard(bdev)
 *	the device takes REQ_OP_DISCARD: bdev_max_discard_sectors() (5.19),
 *	blk_queue_discard() before.
 *   zc_bio_alloc(bdev, opf, gfp, bio_set), zc_blk_opf_t
 *	one-vector bio for bdev: bio_alloc_bioset(gfp, n, bs) + bio_set_dev()
 *	before 5.18, bio_alloc_bioset(bdev, n, opf, gfp, bs) since.
 */
#ifndef ZCACHE_COMPAT_BLK_H
#define ZCACHE_COMPAT_BLK_H

#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/mm.h>

/* Queue description, applied in one of three ways below. */
struct zc_blk_limits {
	unsigned int block_size;		/* logical = physical = io_min */
	unsigned int max_discard_sectors;	/* 0: no discard */
	unsigned int discard_granularity;
	unsigned int max_write_zeroes_sectors;	/* 0: no write zeroes */
	unsigned int dma_alignment;		/* mask, e.g. PAGE_SIZE - 1 */
	bool stable_writes;	/* pages must not change under write */
	bool io_stat;		/* account I/O in /proc/diskstats */
};

#if defined(HAVE_BLK_ALLOC_DISK_LIM)

static inline struct gendisk *zc_blk_alloc_disk(const struct zc_blk_limits *l)
{
	struct queue_limits lim = {
		.logical_block_size	= l->block_size,
		.physical_block_size	= l->block_size,
		.io_min			= l->block_size,
		.io_opt			= l->block_size,
		.max_hw_discard_sectors	= l->max_discard_sectors,
		.discard_granularity	= l->discard_granularity,
		.max_write_zeroes_sectors = l->max_write_zeroes_sectors,
		.dma_alignment		= l->dma_alignment,
	};

	if (l->stable_writes)
		lim.features |= BLK_FEAT_STABLE_WRITES;
	if (l->io_stat)
		lim.features |= BLK_FEAT_IO_STAT;
	/* Non-rotational is the default: BLK_FEAT_ROTATIONAL is not set. */
	return blk_alloc_disk(&lim, NUMA_NO_NODE);
}

#else /* setters: 5.10 and 6.1 */

static inline void zc_blk_apply_limits(struct request_queue *q,
				       const struct zc_blk_limits *l)
{
	blk_queue_logical_block_size(q, l->block_size);
	blk_queue_physical_block_size(q, l->block_size);
	blk_queue_io_min(q, l->block_size);
	blk_queue_io_opt(q, l->block_size);
	blk_queue_dma_alignment(q, l->dma_alignment);
	if (l->max_discard_sectors) {
		q->limits.discard_granularity = l->discard_granularity;
		blk_queue_max_discard_sectors(q, l->max_discard_sectors);
#ifdef QUEUE_FLAG_DISCARD
		blk_queue_flag_set(QUEUE_FLAG_DISCARD, q);
#endif
	}
	if (l->max_write_zeroes_sectors)
		blk_queue_max_write_zeroes_sectors(q, l->max_write_zeroes_sectors);
	blk_queue_flag_set(QUEUE_FLAG_NONROT, q);
	blk_queue_flag_clear(QUEUE_FLAG_ADD_RANDOM, q);
	if (l->stable_writes)
		blk_queue_flag_set(QUEUE_FLAG_STABLE_WRITES, q);
	if (l->io_stat)
		blk_queue_flag_set(QUEUE_FLAG_IO_STAT, q);
}

#if defined(HAVE_BLK_ALLOC_DISK_NODE)
static inline struct gendisk *zc_blk_alloc_disk(const struct zc_blk_limits *l)
{
	struct gendisk *disk = blk_alloc_disk(NUMA_NO_NODE);

	if (!disk)
		return ERR_PTR(-ENOMEM);
	zc_blk_apply_limits(disk->queue, l);
	return disk;
}
#elif defined(HAVE_ALLOC_DISK)
static inline struct gendisk *zc_blk_alloc_disk(const struct zc_blk_limits *l)
{
	struct request_queue *q = blk_alloc_queue(NUMA_NO_NODE);
	struct gendisk *disk;

	if (!q)
		return ERR_PTR(-ENOMEM);
	disk = alloc_disk(1);
	if (!disk) {
		blk_cleanup_queue(q);
		return ERR_PTR(-ENOMEM);
	}
	disk->queue = q;
	zc_blk_apply_limits(q, l);
	return disk;
}
#else
#error "zcache: no way to allocate a bio-based gendisk on this kernel (supported: Debian 5.10 to 7.2)"
#endif

#endif /* queue limits */

/* Partitions make no sense on a swap device. */
#ifdef HAVE_GENHD_FL_NO_PART
#define ZC_GENHD_FL_NO_PART	GENHD_FL_NO_PART
#else
#define ZC_GENHD_FL_NO_PART	GENHD_FL_NO_PART_SCAN
#endif

static inline int zc_blk_add_disk(struct gendisk *disk,
				  const struct attribute_group **groups)
{
#ifdef HAVE_ADD_DISK_INT
	return device_add_disk(NULL, disk, groups);
#else
	device_add_disk(NULL, disk, groups);
	return 0;
#endif
}

/* Tear down a disk that was added (del_gendisk) or never added. */
static inline void zc_blk_free_disk(struct gendisk *disk, bool added)
{
	if (added)
		del_gendisk(disk);
#ifdef HAVE_BLK_CLEANUP_QUEUE
	blk_cleanup_queue(disk->queue);
#endif
	put_disk(disk);
}

static inline void zc_blk_set_capacity(struct gendisk *disk, sector_t sectors)
{
#ifdef HAVE_SET_CAPACITY_AND_NOTIFY
	set_capacity_and_notify(disk, sectors);
#else
	set_capacity_revalidate_and_notify(disk, sectors, true);
#endif
}

/* ->submit_bio */
#ifdef HAVE_SUBMIT_BIO_VOID
#define ZC_BLK_DEFINE_SUBMIT_BIO(fn)					\
	static void fn##_fop(struct bio *bio)				\
	{								\
		fn(bio);						\
	}
#else
#define ZC_BLK_DEFINE_SUBMIT_BIO(fn)					\
	static blk_qc_t fn##_fop(struct bio *bio)			\
	{								\
		fn(bio);						\
		return BLK_QC_T_NONE;					\
	}
#endif

/* ->open and ->release; fn(struct gendisk *) */
#ifdef HAVE_BLOCK_OPEN_GENDISK
#define ZC_BLK_DEFINE_OPEN(fn)						\
	static int fn##_fop(struct gendisk *disk, blk_mode_t mode)	\
	{								\
		return fn(disk);					\
	}
#define ZC_BLK_DEFINE_RELEASE(fn)					\
	static void fn##_fop(struct gendisk *disk)			\
	{								\
		fn(disk);						\
	}
#else
#define ZC_BLK_DEFINE_OPEN(fn)						\
	static int fn##_fop(struct block_device *bdev, fmode_t mode)	\
	{								\
		return fn(bdev->bd_disk);				\
	}
#define ZC_BLK_DEFINE_RELEASE(fn)					\
	static void fn##_fop(struct gendisk *disk, fmode_t mode)	\
	{								\
		fn(disk);						\
	}
#endif

#ifdef HAVE_BDEV_MAX_DISCARD_SECTORS
#define zc_bdev_can_discard(bdev)	(bdev_max_discard_sectors(bdev) != 0)
#else
#define zc_bdev_can_discard(bdev)	blk_queue_discard(bdev_get_queue(bdev))
#endif

/* Swap-cache pages of a read bio (exclusive loads). */
#ifdef HAVE_FOLIO_TEST_SWAPCACHE
#define zc_page_swapcache(page)	folio_test_swapcache(page_folio(page))
#define zc_page_set_dirty(page)	folio_set_dirty(page_folio(page))
#else
#define zc_page_swapcache(page)	PageSwapCache(page)
#define zc_page_set_dirty(page)	SetPageDirty(page)
#endif

/* Backing device: opened read-write and exclusively, by path. */
struct zc_bdev {
	struct block_device *bdev;
#ifdef HAVE_BDEV_FILE_OPEN_BY_PATH
	struct file *file;
#endif
};

static inline int zc_bdev_open(struct zc_bdev *b, const char *path,
			       void *holder)
{
#if defined(HAVE_BDEV_FILE_OPEN_BY_PATH)
	struct file *file;

	file = bdev_file_open_by_path(path, BLK_OPEN_READ | BLK_OPEN_WRITE |
				      BLK_OPEN_EXCL, holder, NULL);
	if (IS_ERR(file))
		return PTR_ERR(file);
	b->file = file;
	b->bdev = file_bdev(file);
	return 0;
#elif defined(HAVE_BLKDEV_GET_BY_PATH)
	struct block_device *bdev;

	bdev = blkdev_get_by_path(path, FMODE_READ | FMODE_WRITE | FMODE_EXCL,
				  holder);
	if (IS_ERR(bdev))
		return PTR_ERR(bdev);
	b->bdev = bdev;
	return 0;
#else
#error "zcache: no way to open a backing device by path on this kernel (supported: Debian 5.10 to 7.2)"
#endif
}

static inline void zc_bdev_close(struct zc_bdev *b)
{
	if (!b->bdev)
		return;
#ifdef HAVE_BDEV_FILE_OPEN_BY_PATH
	bdev_fput(b->file);
	b->file = NULL;
#else
	blkdev_put(b->bdev, FMODE_READ | FMODE_WRITE | FMODE_EXCL);
#endif
	b->bdev = NULL;
}

static inline sector_t zc_bdev_nr_sectors(struct block_device *bdev)
{
#ifdef HAVE_BDEV_NR_SECTORS
	return bdev_nr_sectors(bdev);
#else
	return i_size_read(bdev->bd_inode) >> SECTOR_SHIFT;
#endif
}

/* The gendisk a bio was submitted to. */
#ifdef HAVE_BIO_BI_BDEV
#define zc_bio_disk(bio)	((bio)->bi_bdev->bd_disk)
#else
#define zc_bio_disk(bio)	((bio)->bi_disk)
#endif

/* Operation and flags of a bio: blk_opf_t since 6.0. */
#ifdef HAVE_BIO_ALLOC_BDEV
#define zc_blk_opf_t	blk_opf_t
#else
#define zc_blk_opf_t	unsigned int
#endif

/* A bio with room for one page, for @bdev, from @bs (mempool-backed). */
static inline struct bio *zc_bio_alloc(struct block_device *bdev,
				       zc_blk_opf_t opf, gfp_t gfp,
				       struct bio_set *bs)
{
#ifdef HAVE_BIO_ALLOC_BDEV
	return bio_alloc_bioset(bdev, 1, opf, gfp, bs);
#else
	struct bio *bio = bio_alloc_bioset(gfp, 1, bs);

	if (bio) {
		bio_set_dev(bio, bdev);
		bio->bi_opf = opf;
	}
	return bio;
#endif
}

#endif /* ZCACHE_COMPAT_BLK_H */
