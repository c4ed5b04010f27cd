/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The zcache core API, shared by the core (tmem, compression,
 * policy, zbud, statistics) and its front ends (frontswap, cleancache,
 * block device /dev/zcacheN).
 *
 * A pool holds compressed copies of pages, keyed by (oid, index).  A
 * persistent pool (zcsmalloc) keeps a page until the front end invalidates
 * it or the core writes it back; an ephemeral pool (zbud) may drop pages at
 * any time (LRU-first) when the global pool is full.
 *
 * Global limit: all pools together never hold more than max_pool_percent of
 * RAM.  Once the limit is hit, every store is refused until the total falls
 * below accept_threshold_percent of the limit (hysteresis).  While over the
 * limit, persistent pools with a ->writeback op are shrunk cold-first by a
 * worker; ephemeral pools evict whole zbud page frames LRU-first.
 *
 * Context: zcache_store(), zcache_load(), zcache_invalidate() and
 * zcache_invalidate_object() never sleep and may be called from the block
 * layer's submit path (process context, atomic or not) and with
 * interrupts off (cleancache, under the page cache's i_pages lock).
 * Allocations are GFP_NOWAIT | __GFP_NOWARN: they never block; in
 * reclaim they may use the reserves, as zram's and zswap's do, and the
 * pool limit still bounds the pool.
 * zcache_pool_create(), zcache_pool_destroy(), zcache_invalidate_pool(),
 * zcache_pool_writeback() and zcache_writeback_wait() may sleep.
 */
#ifndef _ZCACHE_H
#define _ZCACHE_H

#include <linux/types.h>
#include <linux/math64.h>
#include <linux/mm_types.h>

/* Kind of pool: which allocator backs it and whether pages may be dropped. */
enum zcache_pool_kind {
	ZCACHE_POOL_PERSISTENT,		/* zcsmalloc; never dropped silently */
	ZCACHE_POOL_EPHEMERAL,		/* zbud; evicted LRU-first when full */
};

struct zcache_pool;

/**
 * struct zcache_pool_ops - what the core asks of a pool's owner
 * @writeback: write @page (the decompressed data of (@oid, @index)) to the
 *	owner's backing device.  Process context, may sleep.  Return 0 when
 *	the data is durable there: the core then frees the entry (unless it
 *	was replaced or invalidated meanwhile, which the core checks).  Any
 *	error keeps the entry in the pool (made warm again).  May be NULL:
 *	the pool then just refuses stores when the global pool is full.
 * @flags: ZCACHE_POOL_KEEP_RAW: a persistent pool keeps a page that
 *	compresses worse than poor_compression_percent uncompressed instead
 *	of refusing it (for an owner with nowhere else to put it: a
 *	/dev/zcacheN without a backing device).  The pool limit still holds.
 */
struct zcache_pool_ops {
	int (*writeback)(struct zcache_pool *pool, void *owner, u64 oid,
			 pgoff_t index, struct page *page);
	unsigned int flags;
};

#define ZCACHE_POOL_KEEP_RAW	0x1

/**
 * struct zcache_stats - a snapshot of a pool's (or all pools') counters
 * @stored_pages: pages held now (compressed or same-filled)
 * @same_filled_pages: of those, pages held as a repeated word (no memory)
 * @raw_pages: of those, pages held uncompressed (ZCACHE_POOL_KEEP_RAW)
 * @compressed_bytes: sum of the compressed sizes of the pages held now
 * @pool_pages: page frames the allocator uses now for this pool
 * @stores: successful stores since creation
 * @loads: successful loads
 * @load_misses: loads that found nothing (-ENOENT)
 * @invalidates: pages invalidated (page, object and pool)
 * @reject_poor_compression: stores refused: compressed worse than threshold
 * @reject_pool_limit: stores refused: global pool at its limit
 * @reject_alloc_fail: stores refused: an allocation failed
 * @reject_compressor: stores refused: the compressor returned an error
 * @reject_disabled: stores refused: zcache disabled (front end switch)
 * @written_back: pages written back to the owner's device and freed
 * @writeback_failed: ->writeback calls that returned an error
 * @writeback_raced: written back, but replaced/invalidated meanwhile
 * @evicted: pages dropped by ephemeral eviction
 * @duplicate: stores that replaced a page already held under the same key
 */
struct zcache_stats {
	u64 stored_pages;
	u64 same_filled_pages;
	u64 raw_pages;
	u64 compressed_bytes;
	u64 pool_pages;
	u64 stores;
	u64 loads;
	u64 load_misses;
	u64 invalidates;
	u64 reject_poor_compression;
	u64 reject_pool_limit;
	u64 reject_alloc_fail;
	u64 reject_compressor;
	u64 reject_disabled;
	u64 written_back;
	u64 writeback_failed;
	u64 writeback_raced;
	u64 evicted;
	u64 duplicate;
};

/* Pools (zcache_tmem.c).  NULL on failure. */
struct zcache_pool *zcache_pool_create(enum zcache_pool_kind kind,
				       const char *name,
				       const struct zcache_pool_ops *ops,
				       void *owner);
/* Frees every page of the pool; waits for a running write-back. */
void zcache_pool_destroy(struct zcache_pool *pool);

/*
 * zcache_store - store a copy of @page under (@oid, @index).
 * Any page already stored under the key is dropped first, whatever the
 * result.  Returns 0 (stored), or, and the caller must then keep the page
 * elsewhere (the real device):
 *   -E2BIG   compressed worse than poor_compression_percent (a pool with
 *            ZCACHE_POOL_KEEP_RAW keeps such a page uncompressed instead)
 *   -ENOSPC  global pool at its limit (write-back has been kicked)
 *   -ENOMEM  an allocation failed
 *   -EIO     the compressor failed
 *   -EINVAL  bad argument
 * Never sleeps.
 */
int zcache_store(struct zcache_pool *pool, u64 oid, pgoff_t index,
		 struct page *page);
/*
 * zcache_load - copy the page stored under (@oid, @index) into @page.
 * With @invalidate, the key is dropped after a successful load.
 * Returns 0 or -ENOENT (nothing stored: read the real device), or -EIO when
 * the stored data does not decompress (never happens unless memory is
 * corrupted; the key is dropped).  Never sleeps.
 */
int zcache_load(struct zcache_pool *pool, u64 oid, pgoff_t index,
		struct page *page, bool invalidate);
void zcache_invalidate(struct zcache_pool *pool, u64 oid, pgoff_t index);
void zcache_invalidate_object(struct zcache_pool *pool, u64 oid);
/* Drops every page of the pool.  Process context: may sleep. */
void zcache_invalidate_pool(struct zcache_pool *pool);

/*
 * zcache_writeback_wait - sleep until no write-back of (@oid, @index) is in
 * flight.  A front end that writes a page of this key to its backing device
 * itself (after a refused store) calls it first, so that an older copy being
 * written back cannot land on the device after the newer one.
 */
void zcache_writeback_wait(struct zcache_pool *pool, u64 oid, pgoff_t index);
/*
 * zcache_pool_writeback - write back up to @nr of the pool's coldest pages
 * now (process context, sleeps).  Returns how many were written back, or
 * -EOPNOTSUPP when the pool has no ->writeback.
 */
long zcache_pool_writeback(struct zcache_pool *pool, unsigned long nr);

/*
 * zcache_pool_set_writeback - the owner allows write-back now, or not.
 * Off, no page of the pool is decompressed for ->writeback (neither by
 * the shrink worker nor by zcache_pool_writeback(), which returns 0), so
 * an owner whose device takes no write-back now says so here instead of
 * failing ->writeback page by page.  Cheap; any context; on at creation.
 */
void zcache_pool_set_writeback(struct zcache_pool *pool, bool on);

void zcache_pool_stats(struct zcache_pool *pool, struct zcache_stats *stats);
/* Counts a store a front end refused because it is switched off. */
void zcache_count_disabled(struct zcache_pool *pool);

/*
 * The two ratios of a snapshot, in hundredths (0 when empty), shown with
 * two decimals globally and per device:
 *  compression_ratio: bytes of the pages held compressed / their
 *	compressed bytes (what the compressor achieves; raw pages count 1:1)
 *  effective_ratio: pages held / page frames the pool uses (what RAM is
 *	saved, counting same-filled pages and the allocator's overhead)
 */
static inline u64 zcache_stats_compression_ratio(const struct zcache_stats *s)
{
	u64 orig = (s->stored_pages - s->same_filled_pages) * PAGE_SIZE;

	return s->compressed_bytes ?
		div64_u64(orig * 100, s->compressed_bytes) : 0;
}

static inline u64 zcache_stats_effective_ratio(const struct zcache_stats *s)
{
	return s->pool_pages ? div64_u64(s->stored_pages * 100, s->pool_pages) : 0;
}
void zcache_global_stats(struct zcache_stats *stats);
const char *zcache_pool_name(struct zcache_pool *pool);

/* The compressor new pages get now, e.g. "lz4" (zcache_comp.c). */
const char *zcache_comp_current(void);

/* Core setup (zcache_tmem.c, zcache_comp.c, zcache_sysfs.c). */
int zcache_comp_init(void);
void zcache_comp_exit(void);
int zcache_tmem_init(void);
void zcache_tmem_exit(void);
int zcache_sysfs_init(void);
void zcache_sysfs_exit(void);

/*
 * Front ends: frontswap and cleancache in zcache_frontend.h; the block
 * device front end (zcache_blk*.c):
 */
int zcache_blk_init(void);
void zcache_blk_exit(void);

/*
 * True when the master switch `enabled` is on (frontswap, cleancache;
 * zcache_frontend.c).
 */
bool zcache_is_enabled(void);

#endif /* _ZCACHE_H */
