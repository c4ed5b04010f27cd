// SPDX-License-Identifier: GPL-2.0
/*
 * The block-device front end of zcache: /dev/zcacheN.
 *
 * A /dev/zcacheN is a swap device whose pages live compressed in a zcache
 * pool (persistent, zcsmalloc), optionally stacked on a real backing device
 * (a partition, a disk, a loop device) onto whose sectors the pages map 1:1:
 * page n of zcacheN is sectors [n * 8, n * 8 + 8) of the backing device.
 *
 * Where a page's data is:
 *   - in the pool, when the core has it (zcache_load() hits); always the
 *     newest copy;
 *   - else on the backing device, when backing_map has bit n: written there
 *     because it did not compress (-E2BIG), because the pool was full
 *     (-ENOSPC, -ENOMEM), or because the core wrote it back (cold, LRU);
 *   - else nowhere: the page reads as zeroes;
 *   - error_map bit n overrides all of these: the page's last write failed
 *     (no backing device, or a backing I/O error) and reads of it fail
 *     until it is written again or discarded.
 *
 * The I/O path never blocks on a lock of its own: pool calls never sleep
 * (zcache.h), map bits are atomic, and backing-device I/O is chained to the
 * caller's bio asynchronously.  Only zcache_writeback_wait() may sleep, so
 * that a copy the core is writing back cannot land after a newer one we
 * write ourselves.  Bios with pages that are not whole (a direct I/O
 * buffer aligned to less than a page) go to a worker that does a
 * read-modify-write with synchronous backing I/O; ->submit_bio cannot wait
 * for a bio of its own (it sits on current->bio_list until we return).
 *
 * How swap sees the device (docs/zcache-blk.md, "Data path"): it is NOT
 * synchronous (no ->rw_page, no BLK_FEAT_SYNCHRONOUS), so swap keeps every
 * page it reads in the swap cache, reads ahead around a fault and plugs
 * its writes, as for a disk.  A synchronous device makes do_swap_page()
 * bypass the swap cache and free the slot on every swap-in: a page read
 * back and not modified must then be written again at the next reclaim,
 * and swap readahead is off.  Loads into a swap-cache page are exclusive:
 * the pool drops its copy and the page is marked dirty (the swap address
 * space has no dirty accounting), so the pool holds no copy of a page that
 * is in RAM, and a page read from the backing device stays clean with its
 * slot and its data there.  Stores run in reclaim context (kswapd, direct
 * reclaim) and may use the reserves there, as zram and zswap do: the pool
 * limit bounds what they take.  When the pool is full, new pages are
 * written through to the backing device; cold pages are written back only
 * when the admin turns write-back on (writeback=1 before disksize).
 *
 * Lock ordering: disk->open_mutex -> zcache_blk_dev.lock (->open);
 * zcache_blk_idr_lock -> zcache_blk_dev.lock.  Removal drops dev->lock
 * before del_gendisk().
 */
#undef pr_fmt			/* compat.h's headers defined the default */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/ctype.h>
#include <linux/device.h>
#include <linux/highmem.h>
#include <linux/idr.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#include "zcache.h"
#include "zcache_blk.h"

/*
 * Context of a bio to the backing device, in the front pad of each bio
 * of zcache_blk_bioset.
 */
struct zcache_blk_child {
	struct zcache_blk_dev *dev;
	unsigned long page;			/* page number on the device */
	enum zcache_blk_bw_reason reason;	/* writes: why */
	struct bio bio;				/* must be last */
};

/********************************** tunables **********************************/

static unsigned int zcache_blk_num_devices = 1;

static int zcache_blk_num_devices_set(const char *val,
				      const struct kernel_param *kp)
{
	unsigned int n;
	int ret;

	ret = kstrtouint(val, 0, &n);
	if (ret || n > ZCACHE_BLK_MAX_DEVICES) {
		pr_err("num_devices: '%s' is not a number from 0 to %d\n",
		       val, ZCACHE_BLK_MAX_DEVICES);
		return -EINVAL;
	}
	*(unsigned int *)kp->arg = n;
	return 0;
}

static const struct kernel_param_ops zcache_blk_num_devices_ops = {
	.set = zcache_blk_num_devices_set,
	.get = param_get_uint,
};

/* Devices created at load; more with /sys/class/zcache-control/add. */
module_param_cb(num_devices, &zcache_blk_num_devices_ops,
		&zcache_blk_num_devices, 0444);
MODULE_PARM_DESC(num_devices,
		 "Number of /dev/zcacheN devices created at load (0-64, default 1)");

/******************************* data structures ******************************/

static int zcache_blk_major;
static DEFINE_IDR(zcache_blk_idr);
/* Guards zcache_blk_idr and creation/removal of devices. */
static DEFINE_MUTEX(zcache_blk_idr_lock);
static struct bio_set zcache_blk_bioset;
static struct workqueue_struct *zcache_blk_wq;
static struct class *zcache_blk_class;
static const struct block_device_operations zcache_blk_fops;

/********************************** helpers ***********************************/

static inline u64 zcache_blk_oid(unsigned long page)
{
	return page >> ZCACHE_BLK_OBJ_SHIFT;
}

static inline pgoff_t zcache_blk_index(unsigned long page)
{
	return page & ZCACHE_BLK_OBJ_MASK;
}

static inline const char *zcache_blk_name(struct zcache_blk_dev *dev)
{
	return dev->disk->disk_name;
}

/* True once disksize is set: the pool and maps exist. */
static inline bool zcache_blk_initialized(struct zcache_blk_dev *dev)
{
	return dev->disksize != 0;
}

/*************************** backing-device I/O *******************************/

/*
 * Record the end of a backing-device I/O of one page; any context.  A
 * failed write of the page's only copy marks the page lost; a failed
 * write-back does not: the core keeps the page in the pool.
 */
static void zcache_blk_backing_done(struct zcache_blk_dev *dev,
				    unsigned long page, bool write,
				    enum zcache_blk_bw_reason reason,
				    blk_status_t status)
{
	if (write) {
		if (status == BLK_STS_OK) {
			set_bit(page, dev->backing_map);
			clear_bit(page, dev->error_map);
		} else if (reason != ZCACHE_BLK_BW_WRITEBACK) {
			clear_bit(page, dev->backing_map);
			set_bit(page, dev->error_map);
		}
	}
	if (status != BLK_STS_OK) {
		atomic64_inc(&dev->stats.io_errors);
		pr_err_ratelimited("%s: backing device %s error on page %lu: %d\n",
				   zcache_blk_name(dev),
				   write ? "write" : "read", page,
				   blk_status_to_errno(status));
	}
}

static void zcache_blk_child_end_io(struct bio *bio)
{
	struct zcache_blk_child *child =
		container_of(bio, struct zcache_blk_child, bio);
	struct bio *parent = bio->bi_private;

	zcache_blk_backing_done(child->dev, child->page,
				op_is_write(bio_op(bio)), child->reason,
				bio->bi_status);
	if (bio->bi_status && !parent->bi_status)
		parent->bi_status = bio->bi_status;
	bio_put(bio);
	bio_endio(parent);
}

static void zcache_blk_count_backing(struct zcache_blk_dev *dev, bool write,
				     enum zcache_blk_bw_reason reason)
{
	if (!write)
		atomic64_inc(&dev->stats.backing_reads);
	else if (reason == ZCACHE_BLK_BW_INCOMPRESSIBLE)
		atomic64_inc(&dev->stats.backing_writes_incompressible);
	else if (reason == ZCACHE_BLK_BW_POOL_FULL)
		atomic64_inc(&dev->stats.backing_writes_pool_full);
	else
		atomic64_inc(&dev->stats.backing_writes_writeback);
}

/*
 * Read or write one whole page of the backing device.  With @parent, the
 * bio is chained to it and submitted asynchronously (the submit path);
 * without, the call waits for it (process context outside ->submit_bio:
 * the worker, the core's write-back).  Returns 0 or a negative errno.
 */
static int zcache_blk_backing_rw(struct zcache_blk_dev *dev,
				 unsigned long page, struct page *data,
				 bool write, enum zcache_blk_bw_reason reason,
				 struct bio *parent)
{
	zc_blk_opf_t opf = write ? REQ_OP_WRITE : REQ_OP_READ;
	struct zcache_blk_child *child;
	struct bio *bio;
	int ret;

	if (!parent)
		opf |= REQ_SYNC;
	bio = zc_bio_alloc(dev->backing.bdev, opf, GFP_NOIO, &zcache_blk_bioset);
	if (!bio)
		return -ENOMEM;
	child = container_of(bio, struct zcache_blk_child, bio);
	child->dev = dev;
	child->page = page;
	child->reason = reason;
	bio->bi_iter.bi_sector = (sector_t)page << ZCACHE_BLK_SECTOR_SHIFT;
	__bio_add_page(bio, data, PAGE_SIZE, 0);
	zcache_blk_count_backing(dev, write, reason);

	if (parent) {
		bio->bi_private = parent;
		bio->bi_end_io = zcache_blk_child_end_io;
		bio_inc_remaining(parent);
		submit_bio(bio);
		return 0;
	}
	ret = submit_bio_wait(bio);
	zcache_blk_backing_done(dev, page, write, reason, bio->bi_status);
	bio_put(bio);
	return ret;
}

/******************************** page I/O ************************************/

/*
 * Read page @page of @dev into @data.  Returns 0 when done, 1 when a
 * backing read was chained to @parent, or -EIO.
 *
 * A pool hit into a swap-cache page is exclusive: the pool drops its copy
 * and the page is marked dirty, so that reclaim writes it again before it
 * can be dropped (the data now lives only in that page).  The page is
 * locked by the swap read path until the bio completes, as for zswap's
 * loads.  Any other reader (the block device read directly, the
 * read-modify-write worker), and every reader with keep_loaded=1,
 * leaves the pool copy in place and the page clean.
 */
static int zcache_blk_read_page(struct zcache_blk_dev *dev, unsigned long page,
				struct page *data, struct bio *parent)
{
	bool exclusive = zc_page_swapcache(data) &&
			 !READ_ONCE(dev->keep_loaded);
	int ret;

	if (test_bit(page, dev->error_map))
		return -EIO;
	ret = zcache_load(dev->pool, zcache_blk_oid(page),
			  zcache_blk_index(page), data, exclusive);
	if (ret == 0) {
		if (exclusive) {
			zc_page_set_dirty(data);
			/* Dropped from the pool: no backing copy either. */
			clear_bit(page, dev->backing_map);
			atomic64_inc(&dev->stats.exclusive_loads);
		}
		goto done;
	}
	if (ret != -ENOENT) {
		/* The core dropped a page that did not decompress. */
		set_bit(page, dev->error_map);
		atomic64_inc(&dev->stats.io_errors);
		pr_err_ratelimited("%s: page %lu lost: load failed: %d\n",
				   zcache_blk_name(dev), page, ret);
		return -EIO;
	}
	if (dev->backing.bdev && test_bit(page, dev->backing_map)) {
		ret = zcache_blk_backing_rw(dev, page, data, false, 0, parent);
		if (ret)
			return ret;
		atomic64_inc(&dev->stats.reads);
		return parent ? 1 : 0;
	}
	clear_highpage(data);
done:
	atomic64_inc(&dev->stats.reads);
	return 0;
}

/*
 * Write @data as page @page of @dev: into the pool, or through to the
 * backing device when the pool refuses it (compressed once either way).
 * Returns 0, 1 (a backing write was chained to @parent) or a negative
 * errno.
 */
static int zcache_blk_write_page(struct zcache_blk_dev *dev,
				 unsigned long page, struct page *data,
				 struct bio *parent)
{
	u64 oid = zcache_blk_oid(page);
	pgoff_t index = zcache_blk_index(page);
	enum zcache_blk_bw_reason reason;
	int ret;

	ret = zcache_store(dev->pool, oid, index, data);
	switch (ret) {
	case 0:
		clear_bit(page, dev->backing_map);
		clear_bit(page, dev->error_map);
		atomic64_inc(&dev->stats.writes);
		return 0;
	case -E2BIG:
		atomic64_inc(&dev->stats.reject_incompressible);
		reason = ZCACHE_BLK_BW_INCOMPRESSIBLE;
		break;
	case -ENOSPC:
		atomic64_inc(&dev->stats.reject_pool_full);
		reason = ZCACHE_BLK_BW_POOL_FULL;
		break;
	case -ENOMEM:
		atomic64_inc(&dev->stats.reject_nomem);
		reason = ZCACHE_BLK_BW_POOL_FULL;
		break;
	default:
		atomic64_inc(&dev->stats.reject_other);
		reason = ZCACHE_BLK_BW_POOL_FULL;
		break;
	}

	if (!dev->backing.bdev) {
		/* Nowhere to put it: fail the write, loudly. */
		clear_bit(page, dev->backing_map);
		set_bit(page, dev->error_map);
		atomic64_inc(&dev->stats.failed_writes);
		pr_warn_ratelimited("%s: write of page %lu failed: pool refused it (%d) and there is no backing device\n",
				    zcache_blk_name(dev), page, ret);
		return -EIO;
	}

	/* An older copy of this page being written back must land first. */
	zcache_writeback_wait(dev->pool, oid, index);
	ret = zcache_blk_backing_rw(dev, page, data, true, reason, parent);
	if (ret)
		return ret;
	atomic64_inc(&dev->stats.writes);
	return parent ? 1 : 0;
}

/* Free pages [first, first + nr) of @dev.  Process context, may sleep. */
static void zcache_blk_discard_pages(struct zcache_blk_dev *dev,
				     unsigned long first, unsigned long nr)
{
	unsigned long page;

	for (page = first; page < first + nr; page++) {
		u64 oid = zcache_blk_oid(page);
		pgoff_t index = zcache_blk_index(page);

		zcache_invalidate(dev->pool, oid, index);
		/* A write-back in flight would set backing_map after us. */
		zcache_writeback_wait(dev->pool, oid, index);
		clear_bit(page, dev->backing_map);
		clear_bit(page, dev->error_map);
		atomic64_inc(&dev->stats.discarded);
		cond_resched();
	}
}

/*
 * A part of a page (direct I/O from a buffer aligned to less than a page):
 * read the whole page, copy in or out, write it back.  Worker only.
 */
static int zcache_blk_partial(struct zcache_blk_dev *dev, struct bio_vec *bv,
			      sector_t sector, bool write)
{
	unsigned long page = sector >> ZCACHE_BLK_SECTOR_SHIFT;
	size_t offset = (sector & (ZCACHE_BLK_SECTORS_PER_PAGE - 1)) << SECTOR_SHIFT;
	struct page *tmp;
	void *addr;
	int ret;

	if (offset + bv->bv_len > PAGE_SIZE)
		return -EIO;
	tmp = alloc_page(GFP_NOIO);
	if (!tmp)
		return -ENOMEM;
	ret = zcache_blk_read_page(dev, page, tmp, NULL);
	if (ret == -EIO && write) {
		/* Overwriting part of a lost page cannot make it whole. */
		goto out;
	}
	if (ret)
		goto out;
	addr = zc_kmap_local(tmp);
	if (write)
		memcpy_from_page(addr + offset, bv->bv_page, bv->bv_offset,
				 bv->bv_len);
	else
		memcpy_to_page(bv->bv_page, bv->bv_offset, addr + offset,
			       bv->bv_len);
	zc_kunmap_local(addr);
	if (write)
		ret = zcache_blk_write_page(dev, page, tmp, NULL);
out:
	__free_page(tmp);
	return ret;
}

/********************************** bios **************************************/

static bool zcache_blk_bio_whole_pages(struct bio *bio)
{
	struct bvec_iter iter;
	struct bio_vec bv;

	if (bio->bi_iter.bi_sector & (ZCACHE_BLK_SECTORS_PER_PAGE - 1))
		return false;
	bio_for_each_segment(bv, bio, iter)
		if (bv.bv_len != PAGE_SIZE || bv.bv_offset)
			return false;
	return true;
}

/*
 * Reads and writes.  @sync: the worker (waits for backing I/O, handles
 * partial pages); else the submit path (chains backing I/O to @bio).
 */
static void zcache_blk_rw_bio(struct zcache_blk_dev *dev, struct bio *bio,
			      bool sync)
{
	bool write = op_is_write(bio_op(bio));
	struct bvec_iter iter;
	struct bio_vec bv;
	int ret = 0;

	bio_for_each_segment(bv, bio, iter) {
		unsigned long page = iter.bi_sector >> ZCACHE_BLK_SECTOR_SHIFT;

		if (bv.bv_len != PAGE_SIZE || bv.bv_offset ||
		    (iter.bi_sector & (ZCACHE_BLK_SECTORS_PER_PAGE - 1)))
			ret = sync ? zcache_blk_partial(dev, &bv, iter.bi_sector,
							write) : -EIO;
		else if (write)
			ret = zcache_blk_write_page(dev, page, bv.bv_page,
						    sync ? NULL : bio);
		else
			ret = zcache_blk_read_page(dev, page, bv.bv_page,
						   sync ? NULL : bio);
		if (ret < 0)
			break;
		if (!write && ret == 0)
			flush_dcache_page(bv.bv_page);
	}
	if (ret < 0)
		bio->bi_status = errno_to_blk_status(ret);
}

static bool zcache_blk_bio_in_range(struct zcache_blk_dev *dev,
				    struct bio *bio)
{
	sector_t start = bio->bi_iter.bi_sector;
	sector_t end = bio_end_sector(bio);

	if (!zcache_blk_initialized(dev) || end < start)
		return false;
	return end <= ((sector_t)dev->nr_pages << ZCACHE_BLK_SECTOR_SHIFT);
}

/* A discard of the backing device ended: a failed one loses nothing. */
static void zcache_blk_discard_end_io(struct bio *bio)
{
	struct bio *parent = bio->bi_private;

	bio_put(bio);
	bio_endio(parent);
}

/*
 * Pass a discard of pages [first, first + nr) down to the backing device,
 * chained to @parent, so that an SSD or thin volume under it learns the
 * blocks are free (swapon --discard).  Write zeroes are not passed down:
 * the pages read as zeroes from their cleared map bits.
 */
static void zcache_blk_discard_backing(struct zcache_blk_dev *dev,
				       unsigned long first, unsigned long nr,
				       struct bio *parent)
{
	struct bio *bio;

	if (!dev->backing.bdev || !zc_bdev_can_discard(dev->backing.bdev))
		return;
	bio = zc_bio_alloc(dev->backing.bdev, REQ_OP_DISCARD, GFP_NOIO,
			   &zcache_blk_bioset);
	if (!bio)
		return;
	bio->bi_iter.bi_sector = (sector_t)first << ZCACHE_BLK_SECTOR_SHIFT;
	bio->bi_iter.bi_size = (unsigned int)nr << PAGE_SHIFT;
	bio->bi_private = parent;
	bio->bi_end_io = zcache_blk_discard_end_io;
	bio_inc_remaining(parent);
	atomic64_add(nr, &dev->stats.backing_discarded);
	submit_bio(bio);
}

static void zcache_blk_discard_bio(struct zcache_blk_dev *dev,
				   struct bio *bio)
{
	sector_t start = bio->bi_iter.bi_sector;
	sector_t end = bio_end_sector(bio);
	unsigned long first, last;

	/* Whole pages only: the block size makes every request whole. */
	first = DIV_ROUND_UP(start, ZCACHE_BLK_SECTORS_PER_PAGE);
	last = end >> ZCACHE_BLK_SECTOR_SHIFT;
	if (last <= first)
		return;
	zcache_blk_discard_pages(dev, first, last - first);
	if (bio_op(bio) == REQ_OP_DISCARD)
		zcache_blk_discard_backing(dev, first, last - first, bio);
}

static void zcache_blk_handle_bio(struct zcache_blk_dev *dev, struct bio *bio,
				  bool sync)
{
	unsigned long start;

	if (!zcache_blk_bio_in_range(dev, bio)) {
		bio_io_error(bio);
		return;
	}

	switch (bio_op(bio)) {
	case REQ_OP_READ:
	case REQ_OP_WRITE:
		if (!sync && !zcache_blk_bio_whole_pages(bio)) {
			atomic64_inc(&dev->stats.punted);
			spin_lock(&dev->punt_lock);
			bio_list_add(&dev->punted, bio);
			spin_unlock(&dev->punt_lock);
			queue_work(zcache_blk_wq, &dev->punt_work);
			return;
		}
		start = bio_start_io_acct(bio);
		zcache_blk_rw_bio(dev, bio, sync);
		bio_end_io_acct(bio, start);
		break;
	case REQ_OP_DISCARD:
	case REQ_OP_WRITE_ZEROES:
		zcache_blk_discard_bio(dev, bio);
		break;
	case REQ_OP_FLUSH:
		break;
	default:
		bio->bi_status = BLK_STS_NOTSUPP;
		break;
	}
	/* Completes once every chained backing bio has completed too. */
	bio_endio(bio);
}

static void zcache_blk_submit(struct bio *bio)
{
	struct zcache_blk_dev *dev = zc_bio_disk(bio)->private_data;

	zcache_blk_handle_bio(dev, bio, false);
}

ZC_BLK_DEFINE_SUBMIT_BIO(zcache_blk_submit)

static void zcache_blk_punt_work(struct work_struct *work)
{
	struct zcache_blk_dev *dev =
		container_of(work, struct zcache_blk_dev, punt_work);
	struct bio_list bios;
	struct bio *bio;

	spin_lock(&dev->punt_lock);
	bios = dev->punted;
	bio_list_init(&dev->punted);
	spin_unlock(&dev->punt_lock);

	while ((bio = bio_list_pop(&bios)))
		zcache_blk_handle_bio(dev, bio, true);
}

/*
 * swap_slot_free_notify: swap freed the slot.  Atomic context (under the
 * swap_info lock, or in bio completion): no write-back wait here; a copy
 * being written back may set backing_map again, which is harmless since
 * the slot is free and its next write resets it.
 *
 * 5.10 calls it from the completion of a swap read, which for a page read
 * from the backing device runs in that device's interrupt context.  The
 * core's locks are not irq-safe, and such a page has no pool entry anyway
 * (the pool missed, or it would not have been read there): only the map
 * bits are cleared then.
 */
static void zcache_blk_slot_free_notify(struct block_device *bdev,
					unsigned long index)
{
	struct zcache_blk_dev *dev = bdev->bd_disk->private_data;

	if (!zcache_blk_initialized(dev) || index >= dev->nr_pages)
		return;
	if (in_task())
		zcache_invalidate(dev->pool, zcache_blk_oid(index),
				  zcache_blk_index(index));
	clear_bit(index, dev->backing_map);
	clear_bit(index, dev->error_map);
	atomic64_inc(&dev->stats.notify_free);
}

static int zcache_blk_open(struct gendisk *disk)
{
	struct zcache_blk_dev *dev = disk->private_data;
	int ret = 0;

	mutex_lock(&dev->lock);
	if (dev->claimed)
		ret = -EBUSY;
	else
		dev->openers++;
	mutex_unlock(&dev->lock);
	return ret;
}

static void zcache_blk_release(struct gendisk *disk)
{
	struct zcache_blk_dev *dev = disk->private_data;

	mutex_lock(&dev->lock);
	dev->openers--;
	mutex_unlock(&dev->lock);
}

ZC_BLK_DEFINE_OPEN(zcache_blk_open)
ZC_BLK_DEFINE_RELEASE(zcache_blk_release)

static const struct block_device_operations zcache_blk_fops = {
	.owner			= THIS_MODULE,
	.open			= zcache_blk_open_fop,
	.release		= zcache_blk_release_fop,
	.submit_bio		= zcache_blk_submit_fop,
	.swap_slot_free_notify	= zcache_blk_slot_free_notify,
};

/************************** core write-back callback **************************/

static int zcache_blk_writeback(struct zcache_pool *pool, void *owner,
				u64 oid, pgoff_t index, struct page *data)
{
	struct zcache_blk_dev *dev = owner;
	unsigned long page = (unsigned long)(oid << ZCACHE_BLK_OBJ_SHIFT) |
			     index;

	if (!dev->backing.bdev || page >= dev->nr_pages ||
	    index > ZCACHE_BLK_OBJ_MASK)
		return -EINVAL;
	return zcache_blk_backing_rw(dev, page, data, true,
				     ZCACHE_BLK_BW_WRITEBACK, NULL);
}

/* With write-back on: the core writes cold pages back when the pool is full. */
static const struct zcache_pool_ops zcache_blk_wb_pool_ops = {
	.writeback = zcache_blk_writeback,
};

/*
 * With a backing device and write-back off (the default): a full pool
 * refuses new pages, which go through to the backing device, and nothing
 * drains the pool but the pages swap reads back or frees.
 */
static const struct zcache_pool_ops zcache_blk_wt_pool_ops = {
};

/* Without a backing device, a page that does not compress stays in RAM. */
static const struct zcache_pool_ops zcache_blk_ram_pool_ops = {
	.flags = ZCACHE_POOL_KEEP_RAW,
};

/************************** configuration (sysfs) *****************************/

/*
 * Attributes of /sys/block/zcacheN/zcache/: NAME served by
 * zcache_blk_NAME_show() and zcache_blk_NAME_store().
 */
#define ZCACHE_BLK_ATTR_RW(_name)					\
	static struct device_attribute zcache_blk_attr_##_name =	\
		__ATTR(_name, 0644, zcache_blk_##_name##_show,		\
		       zcache_blk_##_name##_store)
#define ZCACHE_BLK_ATTR_RO(_name)					\
	static struct device_attribute zcache_blk_attr_##_name =	\
		__ATTR(_name, 0444, zcache_blk_##_name##_show, NULL)
#define ZCACHE_BLK_ATTR_WO(_name)					\
	static struct device_attribute zcache_blk_attr_##_name =	\
		__ATTR(_name, 0200, NULL, zcache_blk_##_name##_store)

/*
 * Detaches the backing device into @b and @path (dev->lock held, no
 * disksize set); the caller closes it with zcache_blk_put_backing() once
 * dev->lock is dropped.  Closing takes the backing disk's open_mutex,
 * and our ->open takes dev->lock under our own disk's open_mutex: one lock
 * class for lockdep, so never close under dev->lock.
 */
static void zcache_blk_detach_backing(struct zcache_blk_dev *dev,
				      struct zc_bdev *b, char **path)
{
	*b = dev->backing;
	*path = dev->backing_path;
	memset(&dev->backing, 0, sizeof(dev->backing));
	dev->backing_path = NULL;
}

static void zcache_blk_put_backing(struct zc_bdev *b, char *path)
{
	zc_bdev_close(b);
	kfree(path);
}

static void zcache_blk_deinit(struct zcache_blk_dev *dev, bool live)
{
	flush_work(&dev->punt_work);
	if (dev->pool)
		zcache_pool_destroy(dev->pool);	/* waits for write-back */
	dev->pool = NULL;
	kvfree(dev->backing_map);
	kvfree(dev->error_map);
	dev->backing_map = NULL;
	dev->error_map = NULL;
	dev->disksize = 0;
	dev->nr_pages = 0;
	if (live)
		zc_blk_set_capacity(dev->disk, 0);
}

static struct zcache_blk_dev *zcache_blk_dev_of(struct device *d)
{
	return dev_to_disk(d)->private_data;
}

/*
 * A size as memparse() spells it ("4096", "512M", "2G": K, M, G, T, P, E,
 * powers of 1024), refusing what memparse() lets through: no digits, a
 * sign, a 0x or octal prefix read another way, trailing junk, overflow.
 */
static int zcache_blk_parse_size(const char *buf, u64 *out)
{
	static const char suffixes[] = "kmgtpe";
	unsigned int shift = 0;
	char digits[21];
	const char *s;
	size_t n = 0;
	u64 value;

	while (isdigit(buf[n]))
		n++;
	if (n == 0 || n >= sizeof(digits))
		return -EINVAL;
	memcpy(digits, buf, n);
	digits[n] = '\0';
	if (kstrtou64(digits, 10, &value))
		return -EINVAL;
	if (buf[n] && buf[n] != '\n') {
		s = strchr(suffixes, tolower(buf[n]));
		if (!s)
			return -EINVAL;
		shift = 10 * (s - suffixes + 1);
		n++;
	}
	if (buf[n] == '\n')
		n++;
	if (buf[n] || value > (U64_MAX >> shift))
		return -EINVAL;
	*out = value << shift;
	return 0;
}

/* Length of a user's value to quote in dmesg: up to the newline, at most 64. */
static int zcache_blk_arglen(const char *buf)
{
	return min_t(size_t, strcspn(buf, "\n"), 64);
}

static ssize_t zcache_blk_disksize_show(struct device *d, struct device_attribute *attr,
			     char *buf)
{
	struct zcache_blk_dev *dev = zcache_blk_dev_of(d);

	return sysfs_emit(buf, "%llu\n", dev->disksize);
}

static ssize_t zcache_blk_disksize_store(struct device *d, struct device_attribute *attr,
			      const char *buf, size_t len)
{
	struct zcache_blk_dev *dev = zcache_blk_dev_of(d);
	const struct zcache_pool_ops *ops;
	unsigned long nr_pages;
	u64 size, limit;
	char name[32];
	int ret;

	ret = zcache_blk_parse_size(buf, &size);
	if (ret || !size) {
		pr_warn("%s: disksize: '%.*s' is not a size above 0 (e.g. 512M, 2G)\n",
			zcache_blk_name(dev), zcache_blk_arglen(buf), buf);
		return -EINVAL;
	}
	size = PAGE_ALIGN(size);
	if (!size) {
		pr_warn("%s: disksize: too large\n", zcache_blk_name(dev));
		return -EINVAL;
	}

	mutex_lock(&dev->lock);
	if (zcache_blk_initialized(dev)) {
		pr_warn("%s: disksize: already set (%llu); reset the device first\n",
			zcache_blk_name(dev), dev->disksize);
		ret = -EBUSY;
		goto out;
	}
	if (dev->backing.bdev) {
		limit = (u64)zc_bdev_nr_sectors(dev->backing.bdev) << SECTOR_SHIFT;
		if (size > limit) {
			pr_warn("%s: disksize: %llu is larger than the backing device %s (%llu bytes)\n",
				zcache_blk_name(dev), size, dev->backing_path,
				limit);
			ret = -EINVAL;
			goto out;
		}
	} else {
		/* Without a backing device every page lives in RAM. */
		limit = (u64)totalram_pages() << (PAGE_SHIFT + 2);
		if (size > limit) {
			pr_warn("%s: disksize: %llu is more than 4 times RAM and there is no backing device\n",
				zcache_blk_name(dev), size);
			ret = -EINVAL;
			goto out;
		}
	}
	nr_pages = size >> PAGE_SHIFT;

	ret = -ENOMEM;
	dev->backing_map = kvcalloc(BITS_TO_LONGS(nr_pages),
				    sizeof(unsigned long), GFP_KERNEL);
	dev->error_map = kvcalloc(BITS_TO_LONGS(nr_pages),
				  sizeof(unsigned long), GFP_KERNEL);
	if (!dev->backing_map || !dev->error_map) {
		pr_warn("%s: disksize: no memory for the page maps of %llu bytes\n",
			zcache_blk_name(dev), size);
		goto fail;
	}
	snprintf(name, sizeof(name), "%s", zcache_blk_name(dev));
	if (!dev->backing.bdev)
		ops = &zcache_blk_ram_pool_ops;
	else if (dev->writeback)
		ops = &zcache_blk_wb_pool_ops;
	else
		ops = &zcache_blk_wt_pool_ops;
	dev->pool = zcache_pool_create(ZCACHE_POOL_PERSISTENT, name, ops, dev);
	if (!dev->pool) {
		pr_warn("%s: disksize: cannot create the pool\n",
			zcache_blk_name(dev));
		goto fail;
	}
	dev->nr_pages = nr_pages;
	dev->disksize = size;
	zc_blk_set_capacity(dev->disk, (sector_t)nr_pages <<
			    ZCACHE_BLK_SECTOR_SHIFT);
	pr_info("%s: created: %llu bytes, backing device %s, write-back %s\n",
		zcache_blk_name(dev), size,
		dev->backing_path ? dev->backing_path : "none",
		ops == &zcache_blk_wb_pool_ops ? "on" : "off");
	ret = len;
	goto out;
fail:
	zcache_blk_deinit(dev, true);
out:
	mutex_unlock(&dev->lock);
	return ret;
}
ZCACHE_BLK_ATTR_RW(disksize);

static ssize_t zcache_blk_backing_dev_show(struct device *d,
				struct device_attribute *attr, char *buf)
{
	struct zcache_blk_dev *dev = zcache_blk_dev_of(d);
	ssize_t ret;

	mutex_lock(&dev->lock);
	ret = sysfs_emit(buf, "%s\n", dev->backing_path ? dev->backing_path :
			 "none");
	mutex_unlock(&dev->lock);
	return ret;
}

/*
 * The backing device is opened before dev->lock is taken: opening a
 * block device takes its open_mutex, and when that device is a zcache
 * device (refused below, but only once opened) its ->open takes its own
 * dev->lock, which would invert disk->open_mutex -> dev->lock.
 */
static ssize_t zcache_blk_backing_dev_store(struct device *d,
					    struct device_attribute *attr,
					    const char *buf, size_t len)
{
	struct zcache_blk_dev *dev = zcache_blk_dev_of(d);
	struct zc_bdev backing = {}, old;
	char *path, *old_path;
	bool none;
	int ret;

	path = kstrndup(buf, PATH_MAX, GFP_KERNEL);
	if (!path)
		return -ENOMEM;
	strim(path);
	none = !*path || !strcmp(path, "none");

	if (!none && path[0] != '/') {
		pr_warn("%s: backing_dev: '%.64s' is not an absolute path\n",
			zcache_blk_name(dev), path);
		ret = -EINVAL;
		goto out;
	}
	if (!none) {
		ret = zc_bdev_open(&backing, path, dev);
		if (ret) {
			pr_warn("%s: backing_dev: cannot open %.64s exclusively: %d (%s)\n",
				zcache_blk_name(dev), path, ret,
				ret == -EBUSY ? "in use" :
				"not a usable block device");
			if (ret != -EBUSY)
				ret = -EINVAL;
			goto out;
		}
		if (backing.bdev->bd_disk->fops == &zcache_blk_fops) {
			pr_warn("%s: backing_dev: %.64s is a zcache device\n",
				zcache_blk_name(dev), path);
			ret = -EINVAL;
			goto out;
		}
		if (bdev_logical_block_size(backing.bdev) > PAGE_SIZE ||
		    zc_bdev_nr_sectors(backing.bdev) < ZCACHE_BLK_SECTORS_PER_PAGE) {
			pr_warn("%s: backing_dev: %.64s is too small or its block size exceeds the page size\n",
				zcache_blk_name(dev), path);
			ret = -EINVAL;
			goto out;
		}
	}

	mutex_lock(&dev->lock);
	if (zcache_blk_initialized(dev)) {
		mutex_unlock(&dev->lock);
		pr_warn("%s: backing_dev: device in use (disksize set); reset it first\n",
			zcache_blk_name(dev));
		ret = -EBUSY;
		goto out;
	}
	zcache_blk_detach_backing(dev, &old, &old_path);
	dev->backing = backing;
	dev->backing_path = none ? NULL : path;
	mutex_unlock(&dev->lock);
	zcache_blk_put_backing(&old, old_path);
	if (none)
		kfree(path);
	return len;
out:
	zc_bdev_close(&backing);
	kfree(path);
	return ret;
}
ZCACHE_BLK_ATTR_RW(backing_dev);

/*
 * writeback: 1 = when the pool is full, the core writes its coldest pages
 * back to the backing device to make room; 0 (default) = new pages go
 * through to the backing device instead.  Set before disksize.
 */
static ssize_t zcache_blk_writeback_show(struct device *d, struct device_attribute *attr,
			      char *buf)
{
	struct zcache_blk_dev *dev = zcache_blk_dev_of(d);
	ssize_t ret;

	mutex_lock(&dev->lock);
	ret = sysfs_emit(buf, "%d\n", dev->writeback);
	mutex_unlock(&dev->lock);
	return ret;
}

/* A 0/1 attribute's value; refused with one line in dmesg. */
static int zcache_blk_parse_bool(struct zcache_blk_dev *dev, const char *name,
				 const char *buf, bool *on)
{
	if (!kstrtobool(buf, on))
		return 0;
	pr_warn("%s: %s: '%.*s' is not 0 or 1\n", zcache_blk_name(dev), name,
		zcache_blk_arglen(buf), buf);
	return -EINVAL;
}

static ssize_t zcache_blk_writeback_store(struct device *d, struct device_attribute *attr,
			       const char *buf, size_t len)
{
	struct zcache_blk_dev *dev = zcache_blk_dev_of(d);
	bool on;

	if (zcache_blk_parse_bool(dev, "writeback", buf, &on))
		return -EINVAL;
	mutex_lock(&dev->lock);
	if (zcache_blk_initialized(dev)) {
		mutex_unlock(&dev->lock);
		pr_warn("%s: writeback: device in use (disksize set); reset it first\n",
			zcache_blk_name(dev));
		return -EBUSY;
	}
	dev->writeback = on;
	mutex_unlock(&dev->lock);
	return len;
}
ZCACHE_BLK_ATTR_RW(writeback);

/*
 * keep_loaded: 0 (default) = a pool hit into a swap-cache page drops the
 * pool copy and dirties the page (an exclusive load): the pool holds
 * nothing that is in RAM, and the page is compressed again when
 * reclaimed.  1 = the copy stays and the page stays clean, as 6.1's zswap
 * does: a page read and not modified is dropped by reclaim without
 * being compressed again, and its copy takes pool room until the page is
 * modified or its slot freed.  Any time; pages loaded before keep what
 * they got.
 */
static ssize_t zcache_blk_keep_loaded_show(struct device *d,
					   struct device_attribute *attr,
					   char *buf)
{
	return sysfs_emit(buf, "%d\n",
			  READ_ONCE(zcache_blk_dev_of(d)->keep_loaded));
}

static ssize_t zcache_blk_keep_loaded_store(struct device *d,
					    struct device_attribute *attr,
					    const char *buf, size_t len)
{
	struct zcache_blk_dev *dev = zcache_blk_dev_of(d);
	bool on;

	if (zcache_blk_parse_bool(dev, "keep_loaded", buf, &on))
		return -EINVAL;
	WRITE_ONCE(dev->keep_loaded, on);
	return len;
}
ZCACHE_BLK_ATTR_RW(keep_loaded);

/*
 * Write back up to N of the coldest pages now (1 to 1M at a time), in
 * batches: dev->lock keeps the pool alive across one batch only, so a
 * reset or an attribute write waits for at most one batch of writes, not
 * for a million of them.  A reset between batches ends the loop; so does
 * a fatal signal.
 */
#define ZCACHE_BLK_WB_BATCH	256U

static ssize_t zcache_blk_writeback_pages_store(struct device *d,
						struct device_attribute *attr,
						const char *buf, size_t len)
{
	struct zcache_blk_dev *dev = zcache_blk_dev_of(d);
	unsigned int nr, left;
	long done;

	if (kstrtouint(buf, 10, &nr) || nr == 0 || nr > (1U << 20)) {
		pr_warn("%s: writeback_pages: '%.*s' is not a number from 1 to %u\n",
			zcache_blk_name(dev), zcache_blk_arglen(buf), buf,
			1U << 20);
		return -EINVAL;
	}
	for (left = nr; left; left -= min(left, ZCACHE_BLK_WB_BATCH)) {
		mutex_lock(&dev->lock);
		if (!zcache_blk_initialized(dev) || !dev->backing.bdev ||
		    !dev->writeback) {
			mutex_unlock(&dev->lock);
			if (left < nr)
				break;	/* reset or switched off meanwhile */
			pr_warn("%s: writeback_pages: needs a backing device, writeback=1 and a disksize\n",
				zcache_blk_name(dev));
			return -EINVAL;
		}
		done = zcache_pool_writeback(dev->pool,
					     min(left, ZCACHE_BLK_WB_BATCH));
		mutex_unlock(&dev->lock);
		if (done < 0) {
			pr_warn("%s: writeback_pages: write-back failed: %ld\n",
				zcache_blk_name(dev), done);
			return done;
		}
		if (!done || fatal_signal_pending(current))
			break;	/* nothing cold left, or the writer is dying */
		cond_resched();
	}
	return len;
}
ZCACHE_BLK_ATTR_WO(writeback_pages);

/* Tear down: refuse while open, keep opens out meanwhile. */
static int zcache_blk_claim(struct zcache_blk_dev *dev)
{
	int ret = 0;

	mutex_lock(&dev->lock);
	if (dev->openers || dev->claimed)
		ret = -EBUSY;
	else
		dev->claimed = true;
	mutex_unlock(&dev->lock);
	return ret;
}

static void zcache_blk_reset(struct zcache_blk_dev *dev)
{
	struct zc_bdev backing;
	char *path;

	mutex_lock(&dev->lock);
	zcache_blk_deinit(dev, true);
	zcache_blk_detach_backing(dev, &backing, &path);
	memset(&dev->stats, 0, sizeof(dev->stats));
	dev->writeback = false;
	dev->keep_loaded = false;
	dev->claimed = false;
	mutex_unlock(&dev->lock);
	zcache_blk_put_backing(&backing, path);
}

static ssize_t zcache_blk_reset_store(struct device *d, struct device_attribute *attr,
			   const char *buf, size_t len)
{
	struct zcache_blk_dev *dev = zcache_blk_dev_of(d);
	bool on;

	if (kstrtobool(buf, &on) || !on) {
		pr_warn("%s: reset: '%.*s': write 1 to reset\n",
			zcache_blk_name(dev), zcache_blk_arglen(buf), buf);
		return -EINVAL;
	}
	if (zcache_blk_claim(dev)) {
		pr_warn("%s: reset: device is busy (open or being removed)\n",
			zcache_blk_name(dev));
		return -EBUSY;
	}
	zcache_blk_reset(dev);
	pr_info("%s: reset\n", zcache_blk_name(dev));
	return len;
}
ZCACHE_BLK_ATTR_WO(reset);

/******************************** statistics **********************************/

static void zcache_blk_pool_stats(struct zcache_blk_dev *dev,
				  struct zcache_stats *st)
{
	memset(st, 0, sizeof(*st));
	mutex_lock(&dev->lock);
	if (dev->pool)
		zcache_pool_stats(dev->pool, st);
	mutex_unlock(&dev->lock);
}

#define ZCACHE_BLK_POOL_STAT(_name, _field)				\
static ssize_t zcache_blk_##_name##_show(struct device *d,		\
			    struct device_attribute *attr, char *buf)	\
{									\
	struct zcache_stats st;						\
									\
	zcache_blk_pool_stats(zcache_blk_dev_of(d), &st);		\
	return sysfs_emit(buf, "%llu\n", st._field);			\
}									\
ZCACHE_BLK_ATTR_RO(_name)

#define ZCACHE_BLK_DEV_STAT(_name)					\
static ssize_t zcache_blk_##_name##_show(struct device *d,		\
			    struct device_attribute *attr, char *buf)	\
{									\
	struct zcache_blk_dev *dev = zcache_blk_dev_of(d);		\
									\
	return sysfs_emit(buf, "%lld\n",				\
			  atomic64_read(&dev->stats._name));		\
}									\
ZCACHE_BLK_ATTR_RO(_name)

ZCACHE_BLK_POOL_STAT(stored_pages, stored_pages);
ZCACHE_BLK_POOL_STAT(same_filled_pages, same_filled_pages);
ZCACHE_BLK_POOL_STAT(raw_pages, raw_pages);
ZCACHE_BLK_POOL_STAT(compressed_bytes, compressed_bytes);
ZCACHE_BLK_POOL_STAT(pool_pages, pool_pages);
ZCACHE_BLK_POOL_STAT(written_back_pages, written_back);
ZCACHE_BLK_POOL_STAT(writeback_failed, writeback_failed);
ZCACHE_BLK_DEV_STAT(reads);
ZCACHE_BLK_DEV_STAT(writes);
ZCACHE_BLK_DEV_STAT(reject_incompressible);
ZCACHE_BLK_DEV_STAT(reject_pool_full);
ZCACHE_BLK_DEV_STAT(reject_nomem);
ZCACHE_BLK_DEV_STAT(reject_other);
ZCACHE_BLK_DEV_STAT(backing_reads);
ZCACHE_BLK_DEV_STAT(backing_writes_incompressible);
ZCACHE_BLK_DEV_STAT(backing_writes_pool_full);
ZCACHE_BLK_DEV_STAT(backing_writes_writeback);
ZCACHE_BLK_DEV_STAT(failed_writes);
ZCACHE_BLK_DEV_STAT(io_errors);
ZCACHE_BLK_DEV_STAT(discarded);
ZCACHE_BLK_DEV_STAT(notify_free);
ZCACHE_BLK_DEV_STAT(exclusive_loads);
ZCACHE_BLK_DEV_STAT(backing_discarded);

/* The ratios of zcache.h for this device's pool, two decimals. */
#define ZCACHE_BLK_RATIO(_name)						\
static ssize_t zcache_blk_##_name##_show(struct device *d,		\
			    struct device_attribute *attr, char *buf)	\
{									\
	struct zcache_stats st;						\
	u64 r;								\
									\
	zcache_blk_pool_stats(zcache_blk_dev_of(d), &st);		\
	r = zcache_stats_##_name(&st);					\
	return sysfs_emit(buf, "%llu.%02llu\n", r / 100, r % 100);	\
}									\
ZCACHE_BLK_ATTR_RO(_name)

ZCACHE_BLK_RATIO(compression_ratio);
ZCACHE_BLK_RATIO(effective_ratio);

/*
 * One line: orig_data_size compr_data_size mem_used_total stored_pages
 * same_filled_pages written_back_pages backing_reads backing_writes
 * io_errors (bytes, then pages and counts).
 */
static ssize_t zcache_blk_summary_show(struct device *d, struct device_attribute *attr,
			    char *buf)
{
	struct zcache_blk_dev *dev = zcache_blk_dev_of(d);
	struct zcache_blk_stats *s = &dev->stats;
	struct zcache_stats st;

	zcache_blk_pool_stats(dev, &st);
	return sysfs_emit(buf, "%8llu %8llu %8llu %8llu %8llu %8llu %8lld %8lld %8lld\n",
			  st.stored_pages << PAGE_SHIFT, st.compressed_bytes,
			  st.pool_pages << PAGE_SHIFT, st.stored_pages,
			  st.same_filled_pages, st.written_back,
			  atomic64_read(&s->backing_reads),
			  atomic64_read(&s->backing_writes_incompressible) +
			  atomic64_read(&s->backing_writes_pool_full) +
			  atomic64_read(&s->backing_writes_writeback),
			  atomic64_read(&s->io_errors));
}
ZCACHE_BLK_ATTR_RO(summary);

static struct attribute *zcache_blk_attrs[] = {
	&zcache_blk_attr_disksize.attr,
	&zcache_blk_attr_backing_dev.attr,
	&zcache_blk_attr_writeback.attr,
	&zcache_blk_attr_writeback_pages.attr,
	&zcache_blk_attr_keep_loaded.attr,
	&zcache_blk_attr_reset.attr,
	&zcache_blk_attr_stored_pages.attr,
	&zcache_blk_attr_same_filled_pages.attr,
	&zcache_blk_attr_raw_pages.attr,
	&zcache_blk_attr_compressed_bytes.attr,
	&zcache_blk_attr_pool_pages.attr,
	&zcache_blk_attr_compression_ratio.attr,
	&zcache_blk_attr_effective_ratio.attr,
	&zcache_blk_attr_written_back_pages.attr,
	&zcache_blk_attr_writeback_failed.attr,
	&zcache_blk_attr_reads.attr,
	&zcache_blk_attr_writes.attr,
	&zcache_blk_attr_reject_incompressible.attr,
	&zcache_blk_attr_reject_pool_full.attr,
	&zcache_blk_attr_reject_nomem.attr,
	&zcache_blk_attr_reject_other.attr,
	&zcache_blk_attr_backing_reads.attr,
	&zcache_blk_attr_backing_writes_incompressible.attr,
	&zcache_blk_attr_backing_writes_pool_full.attr,
	&zcache_blk_attr_backing_writes_writeback.attr,
	&zcache_blk_attr_failed_writes.attr,
	&zcache_blk_attr_io_errors.attr,
	&zcache_blk_attr_discarded.attr,
	&zcache_blk_attr_notify_free.attr,
	&zcache_blk_attr_exclusive_loads.attr,
	&zcache_blk_attr_backing_discarded.attr,
	&zcache_blk_attr_summary.attr,
	NULL,
};

static const struct attribute_group zcache_blk_attr_group = {
	.name	= "zcache",
	.attrs	= zcache_blk_attrs,
};

static const struct attribute_group *zcache_blk_attr_groups[] = {
	&zcache_blk_attr_group,
	NULL,
};

/******************************* devices **************************************/

static const struct zc_blk_limits zcache_blk_limits = {
	.block_size			= PAGE_SIZE,
	.max_discard_sectors		= UINT_MAX,
	.discard_granularity		= PAGE_SIZE,
	.max_write_zeroes_sectors	= UINT_MAX,
	.dma_alignment			= PAGE_SIZE - 1,
	.stable_writes			= true,
	.io_stat			= true,
};

/* Returns the new device's id or a negative errno.  zcache_blk_idr_lock held. */
static int zcache_blk_add(void)
{
	struct zcache_blk_dev *dev;
	struct gendisk *disk;
	int id, ret;

	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	id = idr_alloc(&zcache_blk_idr, dev, 0, ZCACHE_BLK_MAX_DEVICES,
		       GFP_KERNEL);
	if (id < 0) {
		ret = id;
		goto free_dev;
	}
	dev->id = id;
	mutex_init(&dev->lock);
	spin_lock_init(&dev->punt_lock);
	bio_list_init(&dev->punted);
	INIT_WORK(&dev->punt_work, zcache_blk_punt_work);

	disk = zc_blk_alloc_disk(&zcache_blk_limits);
	if (IS_ERR(disk)) {
		ret = PTR_ERR(disk);
		goto free_id;
	}
	dev->disk = disk;
	disk->major = zcache_blk_major;
	disk->first_minor = id;
	disk->minors = 1;
	disk->flags |= ZC_GENHD_FL_NO_PART;
	disk->fops = &zcache_blk_fops;
	disk->private_data = dev;
	snprintf(disk->disk_name, sizeof(disk->disk_name), ZCACHE_BLK_NAME "%d",
		 id);
	set_capacity(disk, 0);

	ret = zc_blk_add_disk(disk, zcache_blk_attr_groups);
	if (ret)
		goto free_disk;
	pr_info("%s: added\n", disk->disk_name);
	return id;

free_disk:
	zc_blk_free_disk(disk, false);
free_id:
	idr_remove(&zcache_blk_idr, id);
free_dev:
	kfree(dev);
	return ret;
}

/* dev claimed (zcache_blk_claim) or module exit; zcache_blk_idr_lock held. */
static void zcache_blk_destroy(struct zcache_blk_dev *dev)
{
	char name[DISK_NAME_LEN];
	struct zc_bdev backing;
	char *path;

	strscpy(name, dev->disk->disk_name, sizeof(name));
	/* Sysfs attributes go away with the disk: no writer afterwards. */
	del_gendisk(dev->disk);
	mutex_lock(&dev->lock);
	zcache_blk_deinit(dev, false);
	zcache_blk_detach_backing(dev, &backing, &path);
	mutex_unlock(&dev->lock);
	zcache_blk_put_backing(&backing, path);
	zc_blk_free_disk(dev->disk, false);
	idr_remove(&zcache_blk_idr, dev->id);
	kfree(dev);
	pr_info("%s: removed\n", name);
}

/**************************** zcache-control class ****************************/

/* A new device's id, or a negative errno (logged). */
static int zcache_blk_control_add(void)
{
	int id;

	mutex_lock(&zcache_blk_idr_lock);
	id = zcache_blk_add();
	mutex_unlock(&zcache_blk_idr_lock);
	if (id < 0)
		pr_warn("control: add: cannot create a device: %d%s\n", id,
			id == -ENOSPC ? " (all 64 exist)" : "");
	return id;
}

/* Reading creates a device and prints its number. */
static ssize_t zcache_blk_control_add_show(ZC_CLASS_CONST struct class *class,
					   ZC_CLASS_CONST struct class_attribute *attr,
					   char *buf)
{
	int id = zcache_blk_control_add();

	return id < 0 ? id : sysfs_emit(buf, "%d\n", id);
}

/* Writing anything creates one too (its name is in dmesg). */
static ssize_t zcache_blk_control_add_store(ZC_CLASS_CONST struct class *class,
					    ZC_CLASS_CONST struct class_attribute *attr,
					    const char *buf, size_t len)
{
	int id = zcache_blk_control_add();

	return id < 0 ? id : len;
}

static ssize_t zcache_blk_control_remove_store(ZC_CLASS_CONST struct class *class,
					       ZC_CLASS_CONST struct class_attribute *attr,
					       const char *buf, size_t len)
{
	struct zcache_blk_dev *dev;
	const char *p = buf;
	int id, ret;

	if (!strncmp(p, ZCACHE_BLK_NAME, strlen(ZCACHE_BLK_NAME)))
		p += strlen(ZCACHE_BLK_NAME);
	if (kstrtoint(p, 10, &id) || id < 0) {
		pr_warn("control: remove: '%.*s' is not a device number\n",
			zcache_blk_arglen(buf), buf);
		return -EINVAL;
	}

	mutex_lock(&zcache_blk_idr_lock);
	dev = idr_find(&zcache_blk_idr, id);
	if (!dev) {
		pr_warn("control: remove: zcache%d does not exist\n", id);
		ret = -EINVAL;
		goto out;
	}
	ret = zcache_blk_claim(dev);
	if (ret) {
		pr_warn("control: remove: zcache%d is busy (open)\n", id);
		goto out;
	}
	zcache_blk_destroy(dev);
	ret = len;
out:
	mutex_unlock(&zcache_blk_idr_lock);
	return ret;
}

static struct class_attribute zcache_blk_class_attr_add =
	__ATTR(add, 0600, zcache_blk_control_add_show,
	       zcache_blk_control_add_store);
static struct class_attribute zcache_blk_class_attr_remove =
	__ATTR(remove, 0200, NULL, zcache_blk_control_remove_store);

/*********************************** init *************************************/

static void zcache_blk_destroy_all(void)
{
	struct zcache_blk_dev *dev;
	int id = 0;

	mutex_lock(&zcache_blk_idr_lock);
	while ((dev = idr_get_next(&zcache_blk_idr, &id)))
		zcache_blk_destroy(dev);
	idr_destroy(&zcache_blk_idr);
	mutex_unlock(&zcache_blk_idr_lock);
}

int zcache_blk_init(void)
{
	unsigned int i;
	int ret;

	ret = bioset_init(&zcache_blk_bioset, BIO_POOL_SIZE,
			  offsetof(struct zcache_blk_child, bio),
			  BIOSET_NEED_BVECS | BIOSET_NEED_RESCUER);
	if (ret)
		return ret;
	/* Unbound: newer kernels (7.2) warn when a queue names neither kind. */
	zcache_blk_wq = alloc_workqueue("zcache_blk",
					WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	if (!zcache_blk_wq) {
		ret = -ENOMEM;
		goto free_bioset;
	}
	zcache_blk_major = register_blkdev(0, ZCACHE_BLK_NAME);
	if (zcache_blk_major < 0) {
		ret = zcache_blk_major;
		goto free_wq;
	}
	zcache_blk_class = zc_class_create(ZCACHE_BLK_CONTROL);
	if (IS_ERR(zcache_blk_class)) {
		ret = PTR_ERR(zcache_blk_class);
		goto unregister;
	}
	ret = class_create_file(zcache_blk_class, &zcache_blk_class_attr_add);
	if (!ret)
		ret = class_create_file(zcache_blk_class,
					&zcache_blk_class_attr_remove);
	if (ret)
		goto destroy_class;

	mutex_lock(&zcache_blk_idr_lock);
	for (i = 0; i < zcache_blk_num_devices; i++) {
		ret = zcache_blk_add();
		if (ret < 0)
			break;
	}
	mutex_unlock(&zcache_blk_idr_lock);
	if (ret < 0) {
		pr_err("cannot create zcache%u: %d\n", i, ret);
		goto destroy_devices;
	}
	return 0;

destroy_devices:
	zcache_blk_destroy_all();
destroy_class:
	class_destroy(zcache_blk_class);
unregister:
	unregister_blkdev(zcache_blk_major, ZCACHE_BLK_NAME);
free_wq:
	destroy_workqueue(zcache_blk_wq);
free_bioset:
	bioset_exit(&zcache_blk_bioset);
	return ret;
}

void zcache_blk_exit(void)
{
	/* Removes the control files first: no device appears meanwhile. */
	class_destroy(zcache_blk_class);
	zcache_blk_destroy_all();
	unregister_blkdev(zcache_blk_major, ZCACHE_BLK_NAME);
	destroy_workqueue(zcache_blk_wq);
	bioset_exit(&zcache_blk_bioset);
}
