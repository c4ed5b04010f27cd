/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The block-device front end's internal types (zcache_blk.c).
 *
 * The rest of zcache only calls zcache_blk_init()/zcache_blk_exit()
 * (declared in zcache.h).
 */
#ifndef _ZCACHE_BLK_H
#define _ZCACHE_BLK_H

#include <linux/atomic.h>
#include <linux/bio.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#define ZCACHE_BLK_NAME			"zcache"
#define ZCACHE_BLK_CONTROL		"zcache-control"
#define ZCACHE_BLK_MAX_DEVICES		64
#define ZCACHE_BLK_SECTORS_PER_PAGE	(PAGE_SIZE >> SECTOR_SHIFT)
#define ZCACHE_BLK_SECTOR_SHIFT		(PAGE_SHIFT - SECTOR_SHIFT)
/*
 * A device's page n is stored in its pool under object n >> OBJ_SHIFT,
 * index n & OBJ_MASK: objects of 1024 pages (4 MiB) spread the core's
 * per-object locking over the device.
 */
#define ZCACHE_BLK_OBJ_SHIFT		10
#define ZCACHE_BLK_OBJ_MASK		((1UL << ZCACHE_BLK_OBJ_SHIFT) - 1)

/* Why a page went to the backing device (counters and dmesg). */
enum zcache_blk_bw_reason {
	ZCACHE_BLK_BW_INCOMPRESSIBLE,	/* zcache_store() said -E2BIG */
	ZCACHE_BLK_BW_POOL_FULL,	/* -ENOSPC, -ENOMEM or -EIO */
	ZCACHE_BLK_BW_WRITEBACK,	/* the core wrote a cold page back */
};

/*
 * struct zcache_blk_stats - per-device counters, all monotonic except
 * none; read with atomic64_read, never reset (a reset makes a new device).
 */
struct zcache_blk_stats {
	atomic64_t reads;		/* pages read (any source) */
	atomic64_t writes;		/* pages written (any destination) */
	atomic64_t reject_incompressible;	/* stores refused: -E2BIG */
	atomic64_t reject_pool_full;	/* stores refused: -ENOSPC */
	atomic64_t reject_nomem;	/* stores refused: -ENOMEM */
	atomic64_t reject_other;	/* stores refused: -EIO, -EINVAL */
	atomic64_t backing_reads;	/* pages read from the backing device */
	atomic64_t backing_writes_incompressible; /* written there: -E2BIG */
	atomic64_t backing_writes_pool_full; /* written there: pool full/nomem */
	atomic64_t backing_writes_writeback; /* written there by write-back */
	atomic64_t failed_writes;	/* writes refused: no backing device */
	atomic64_t io_errors;		/* backing I/O errors, lost pages */
	atomic64_t discarded;		/* pages freed by discard/write zeroes */
	atomic64_t notify_free;		/* pages freed by swap_slot_free_notify */
	atomic64_t exclusive_loads;	/* pool hits into swap-cache pages, dropped */
	atomic64_t backing_discarded;	/* pages discarded on the backing device */
	atomic64_t punted;		/* bios handed to the worker */
};

/**
 * struct zcache_blk_dev - one /dev/zcacheN
 * @id: N; the disk's minor
 * @disk: the gendisk; private_data points back here
 * @lock: guards the configuration below (disksize, pool, maps, backing,
 *	openers, claimed) against sysfs writers and open/release.  The I/O
 *	path reads the configuration without it: it is fixed while the
 *	device is initialised, and reset/remove wait until nobody has the
 *	device open.
 * @disksize: size in bytes, page aligned; 0 until set (not initialised)
 * @nr_pages: disksize / PAGE_SIZE
 * @pool: the core pool holding this device's compressed pages
 * @backing_map: bit n: page n's data is on the backing device (used when
 *	the pool misses; the pool copy, when there is one, is newer)
 * @error_map: bit n: page n's last write or load failed; reads of it fail
 *	until it is written again or discarded (never a silent loss)
 * @backing: the backing device, opened exclusively; bdev NULL if none
 * @backing_path: the path it was opened by, for sysfs
 * @writeback: the pool is made (at disksize) with write-back: when full,
 *	the core writes cold pages back to the backing device (default off:
 *	new pages go through to it instead)
 * @keep_loaded: pool hits into swap-cache pages keep the pool copy and
 *	leave the page clean (keep_loaded=1); default off: exclusive
 * @openers: opens of the block device now
 * @claimed: a reset or removal is under way: opens fail with -EBUSY
 * @punt_lock: guards @punted
 * @punted: bios the submit path handed to @punt_work (partial pages)
 * @punt_work: handles @punted in process context, synchronously
 * @stats: counters
 */
struct zcache_blk_dev {
	int id;
	struct gendisk *disk;
	struct mutex lock;
	u64 disksize;
	unsigned long nr_pages;
	struct zcache_pool *pool;
	unsigned long *backing_map;
	unsigned long *error_map;
	struct zc_bdev backing;
	char *backing_path;
	bool writeback;
	bool keep_loaded;
	int openers;
	bool claimed;
	spinlock_t punt_lock;
	struct bio_list punted;
	struct work_struct punt_work;
	struct zcache_blk_stats stats;
};

#endif /* _ZCACHE_BLK_H */
