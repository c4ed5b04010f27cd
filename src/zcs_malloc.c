// SPDX-License-Identifier: GPL-2.0
/*
 * zcsmalloc: the zcache project's zsmalloc, an allocator for compressed
 * pages (docs/zcsmalloc.md has the long form).
 *
 * Objects of 1 byte to PAGE_SIZE are grouped by size into classes of
 * ZCS_CLASS_DELTA steps.  A class keeps its objects in zspages: chains of
 * 1 to ZCS_MAX_ZSPAGE_PAGES order-0 pages, the chain length chosen per
 * class for little waste (zcs_class_geometry()); objects are laid out back
 * to back over the chain, so an object may span two pages.  Neighbouring
 * classes with the same pages-per-zspage and objects-per-zspage are merged
 * into one.
 * Classes that hold one object per page ("huge") store the object alone.
 *
 * Handles: a handle is the address of a word from a slab cache; the word
 * holds the object's location: the PFN of the zspage's first page, the
 * object's index in the zspage and its length - 1.  Compaction and page
 * migration move objects and rewrite the word; the handle stays.  Every
 * non-huge object starts with a header word: for an allocated object its
 * handle | ZCS_TAG_ALLOC (so that compaction finds the handle of what it
 * moves), for a free object the index of the next free one << 1.
 *
 * struct page fields used: ->private points to the zspage descriptor;
 * ->mapping is the kernel's movable-page marker where migration is built
 * (compat-mm.h).  No page flag of ours, no ->index, no ->lru.
 *
 * Fullness groups: a class lists its zspages in ZCS_NR_FG groups by the
 * share of objects in use (empty, four 25% steps, full).  Allocation takes
 * the fullest non-full zspage; compaction moves objects from the
 * emptiest to the fullest and frees the emptied zspages.
 *
 * Lock ordering:
 *	pool->migrate_lock (rwlock: readers look a handle up, writers move
 *			    objects: compaction, migration)
 *	  class->lock (spinlock: lists, free lists, counters of the class)
 *	    zspage->lock (rwlock: readers access object bytes, the writer
 *			  moves them)
 *	pool->deferred_lock (spinlock, taken alone)
 * A reader holds zspage->lock alone from zcs_read_begin() to
 * zcs_read_end(); it must make no other call to the pool in between.
 */
#undef pr_fmt			/* compat.h's headers defined the default */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/highmem.h>
#include <linux/spinlock.h>
#include <linux/list.h>
#include <linux/atomic.h>
#include <linux/workqueue.h>
#include <linux/wait.h>
#include <linux/pagemap.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/err.h>
#include <linux/string.h>
#include <linux/sched.h>

#include "zcsmalloc.h"

/* Geometry. */
#define ZCS_MIN_SIZE		32	/* smallest class (header included) */
#define ZCS_CLASS_DELTA		16	/* class step, also object alignment */
#define ZCS_NR_CLASSES \
	(DIV_ROUND_UP(PAGE_SIZE - ZCS_MIN_SIZE, ZCS_CLASS_DELTA) + 1)
#define ZCS_HDR_SIZE		sizeof(unsigned long)
#define ZCS_TAG_ALLOC		1UL
#define ZCS_MAX_OBJS \
	(ZCS_MAX_ZSPAGE_PAGES * PAGE_SIZE / ZCS_MIN_SIZE)

/* Location word: | pfn | index (ZCS_IDX_BITS) | length - 1 (PAGE_SHIFT) | */
#define ZCS_IDX_BITS		11
#define ZCS_LEN_BITS		PAGE_SHIFT
#define ZCS_IDX_MASK		((1UL << ZCS_IDX_BITS) - 1)
#define ZCS_LEN_MASK		((1UL << ZCS_LEN_BITS) - 1)
#define ZCS_PFN_SHIFT		(ZCS_IDX_BITS + ZCS_LEN_BITS)

/*
 * Fullness groups: 0 empty (never listed), 1..ZCS_FG_PARTIAL partial (in
 * equal steps of the share of objects in use), then full.  Few partial
 * groups mean fewer list moves on the hot paths; four are enough to pick
 * good compaction sources and allocation targets.
 */
#define ZCS_FG_PARTIAL		4
#define ZCS_FG_EMPTY		0
#define ZCS_FG_FULL		(ZCS_FG_PARTIAL + 1)
#define ZCS_NR_FG		(ZCS_FG_PARTIAL + 2)

/* Highest accepted fail_alloc_every. */
#define ZCS_FAIL_EVERY_MAX	1000000

/* Statistics (module-wide, read in debugfs zcsmalloc/stats). */
static atomic_long_t zcs_stat_compacted;	/* pages freed by compaction */
static atomic_long_t zcs_stat_migrated;		/* pages moved by migration */
static atomic_long_t zcs_stat_injected;		/* failures injected */
static atomic_long_t zcs_stat_leaked;		/* objects left at destroy */

/* Tunables. */
static unsigned int zcs_fail_every;	/* every Nth zcs_malloc() fails; 0 off */
static atomic_t zcs_fail_count;		/* calls since fail_alloc_every was set */

/**
 * struct zcs_class - one size class of a pool
 * @lock:	guards everything below that is not constant
 * @fg_list:	zspages by fullness group (group 0 is never listed)
 * @fg_count:	zspages in each group
 * @nr_zspages:	zspages of the class
 * @objs_inuse:	allocated objects
 * @payload:	sum of the allocated objects' lengths
 * @size:	object size, header included (constant)
 * @index:	index of the largest size this class serves (constant)
 * @pages_per_zspage: pages in a zspage (constant)
 * @objs_per_zspage: objects in a zspage (constant)
 * @huge:	one object per page, stored without header (constant)
 * @fg_mul:	(ZCS_FG_PARTIAL << 24) / objs_per_zspage, rounded up:
 *		fullness group without a division (constant)
 */
struct zcs_class {
	spinlock_t lock;
	struct list_head fg_list[ZCS_NR_FG];
	unsigned long fg_count[ZCS_NR_FG];
	unsigned long nr_zspages;
	unsigned long objs_inuse;
	unsigned long payload;
	unsigned int size;
	unsigned int index;
	unsigned int pages_per_zspage;
	unsigned int objs_per_zspage;
	bool huge;
	u64 fg_mul;
};

/**
 * struct zcs_zspage - descriptor of a chain of pages
 * @list:	in class->fg_list[@fg], or in pool->deferred (class->lock,
 *		pool->deferred_lock once dead)
 * @class:	owning class (constant)
 * @pool:	owning pool (constant)
 * @lock:	object access (read) against object moves (write)
 * @inuse:	allocated objects (class->lock)
 * @freeobj:	index of the first free object, objs_per_zspage if none
 *		(class->lock)
 * @isolated:	pages of the zspage isolated for migration (class->lock)
 * @fg:		fullness group (class->lock)
 * @dead:	emptied; freed when no page is isolated any more
 *		(class->lock)
 * @huge_handle: the handle of the one object of a huge class
 *		(class->lock)
 * @pages:	the chain; changed by migration under pool->migrate_lock
 *		(write), class->lock and @lock (write)
 */
struct zcs_zspage {
	struct list_head list;
	struct zcs_class *class;
	struct zcs_pool *pool;
	rwlock_t lock;
	unsigned int inuse;
	unsigned int freeobj;
	unsigned int isolated;
	u8 fg;
	bool dead;
	unsigned long huge_handle;
	struct page *pages[ZCS_MAX_ZSPAGE_PAGES];
};

/**
 * struct zcs_pool - a pool of objects
 * @name:		name given at creation (debugfs, shrinker)
 * @classes:		class of each size step; merged classes repeat
 * @migrate_lock:	handle lookups (read) against object moves (write)
 * @pages:		pages held by the pool's zspages
 * @compacted:		pages freed by compaction
 * @migrated:		pages moved by migration
 * @alloc_fail:		failed zcs_malloc() calls
 * @isolated:		zspage pages isolated for migration
 * @isolated_wq:	destroy waits here for @isolated to drop to 0
 * @deferred_lock:	guards @deferred
 * @deferred:		zspages whose pages could not be locked at free
 *			time, freed by @free_work
 * @free_work:		frees @deferred
 * @shrinker:		compaction under memory pressure
 * @debugfs:		the pool's debugfs directory
 * @huge_size:		smallest length stored one object per page
 */
struct zcs_pool {
	char *name;
	struct zcs_class *classes[ZCS_NR_CLASSES];
	rwlock_t migrate_lock;
	atomic_long_t pages;
	atomic_long_t compacted;
	atomic_long_t migrated;
	atomic_long_t alloc_fail;
	atomic_t isolated;
	wait_queue_head_t isolated_wq;
	spinlock_t deferred_lock;
	struct list_head deferred;
	struct work_struct free_work;
	struct zc_shrinker *shrinker;
	struct dentry *debugfs;
	size_t huge_size;
};

static struct kmem_cache *zcs_handle_cache;
static struct kmem_cache *zcs_zspage_cache;
static struct dentry *zcs_debugfs_root;
static atomic_t zcs_pool_ids;

static void zcs_zspage_free(struct zcs_pool *pool, struct zcs_zspage *zspage,
			    bool can_sleep);

#if ZC_CAN_MIGRATE
static bool zcs_page_isolate(struct page *page, isolate_mode_t mode);
static int zcs_page_migrate(struct page *newpage, struct page *page,
			    enum migrate_mode mode);
static void zcs_page_putback(struct page *page);
ZC_DEFINE_MOVABLE(zcs_movable, zcs_page_isolate, zcs_page_migrate,
		  zcs_page_putback);
#endif

/* Helpers: locations, headers, object bytes. */

static inline unsigned long zcs_loc(struct zcs_zspage *zspage,
				    unsigned int idx, unsigned int len)
{
	return (page_to_pfn(zspage->pages[0]) << ZCS_PFN_SHIFT) |
	       ((unsigned long)idx << ZCS_LEN_BITS) | (len - 1);
}

static inline struct zcs_zspage *zcs_loc_zspage(unsigned long loc)
{
	struct page *page = pfn_to_page(loc >> ZCS_PFN_SHIFT);

	return (struct zcs_zspage *)page_private(page);
}

static inline unsigned int zcs_loc_idx(unsigned long loc)
{
	return (loc >> ZCS_LEN_BITS) & ZCS_IDX_MASK;
}

static inline unsigned int zcs_loc_len(unsigned long loc)
{
	return (loc & ZCS_LEN_MASK) + 1;
}

static inline unsigned int zcs_class_index(size_t size)
{
	if (size <= ZCS_MIN_SIZE)
		return 0;
	return min_t(unsigned int, ZCS_NR_CLASSES - 1,
		     DIV_ROUND_UP(size - ZCS_MIN_SIZE, ZCS_CLASS_DELTA));
}

/* Byte offset of the object's payload in the zspage. */
static inline unsigned int zcs_obj_offset(struct zcs_class *class,
					  unsigned int idx)
{
	return idx * class->size + (class->huge ? 0 : ZCS_HDR_SIZE);
}

static unsigned long zcs_hdr_get(struct zcs_class *class,
				 struct zcs_zspage *zspage, unsigned int idx)
{
	unsigned int off = idx * class->size;
	unsigned long *addr, val;

	addr = zc_kmap_local(zspage->pages[off >> PAGE_SHIFT]);
	val = *(unsigned long *)((char *)addr + offset_in_page(off));
	zc_kunmap_local(addr);
	return val;
}

static void zcs_hdr_set(struct zcs_class *class, struct zcs_zspage *zspage,
			unsigned int idx, unsigned long val)
{
	unsigned int off = idx * class->size;
	unsigned long *addr;

	addr = zc_kmap_local(zspage->pages[off >> PAGE_SHIFT]);
	*(unsigned long *)((char *)addr + offset_in_page(off)) = val;
	zc_kunmap_local(addr);
}

/* Copies @len bytes between zspage offsets, each side maybe spanning. */
static void zcs_copy(struct zcs_zspage *dst, unsigned int doff,
		     struct zcs_zspage *src, unsigned int soff, unsigned int len)
{
	while (len) {
		unsigned int n = min3(len,
				      (unsigned int)(PAGE_SIZE - offset_in_page(soff)),
				      (unsigned int)(PAGE_SIZE - offset_in_page(doff)));
		char *s = zc_kmap_local(src->pages[soff >> PAGE_SHIFT]);
		char *d = zc_kmap_local(dst->pages[doff >> PAGE_SHIFT]);

		memcpy(d + offset_in_page(doff), s + offset_in_page(soff), n);
		zc_kunmap_local(d);
		zc_kunmap_local(s);
		soff += n;
		doff += n;
		len -= n;
	}
}

/* Fullness groups (class->lock held). */

static inline u8 zcs_fg_of(struct zcs_class *class, struct zcs_zspage *zspage)
{
	if (!zspage->inuse)
		return ZCS_FG_EMPTY;
	if (zspage->inuse == class->objs_per_zspage)
		return ZCS_FG_FULL;
	return 1 + min_t(unsigned int, ZCS_FG_PARTIAL - 1,
			 (zspage->inuse * class->fg_mul) >> 24);
}

static void zcs_fg_del(struct zcs_class *class, struct zcs_zspage *zspage)
{
	if (zspage->fg != ZCS_FG_EMPTY) {
		list_del_init(&zspage->list);
		class->fg_count[zspage->fg]--;
		zspage->fg = ZCS_FG_EMPTY;
	}
}

static void zcs_fg_update(struct zcs_class *class, struct zcs_zspage *zspage)
{
	u8 fg = zcs_fg_of(class, zspage);

	if (fg == zspage->fg)
		return;
	zcs_fg_del(class, zspage);
	if (fg != ZCS_FG_EMPTY) {
		list_add(&zspage->list, &class->fg_list[fg]);
		class->fg_count[fg]++;
		zspage->fg = fg;
	}
}

/* The fullest zspage with a free object, or NULL. */
static struct zcs_zspage *zcs_fg_alloc_target(struct zcs_class *class)
{
	int fg;

	for (fg = ZCS_FG_FULL - 1; fg > ZCS_FG_EMPTY; fg--) {
		if (!list_empty(&class->fg_list[fg]))
			return list_first_entry(&class->fg_list[fg],
						struct zcs_zspage, list);
	}
	return NULL;
}

/* Objects: take and release a slot (class->lock held). */

static unsigned int zcs_obj_take(struct zcs_class *class,
				 struct zcs_zspage *zspage, unsigned long *slot)
{
	unsigned int idx = zspage->freeobj;

	if (class->huge) {
		zspage->huge_handle = (unsigned long)slot;
		zspage->freeobj = class->objs_per_zspage;
	} else {
		unsigned int off = idx * class->size;
		char *addr = zc_kmap_local(zspage->pages[off >> PAGE_SHIFT]);
		unsigned long *hdr = (unsigned long *)(addr + offset_in_page(off));

		zspage->freeobj = *hdr >> 1;
		*hdr = (unsigned long)slot | ZCS_TAG_ALLOC;
		zc_kunmap_local(addr);
	}
	zspage->inuse++;
	class->objs_inuse++;
	return idx;
}

static void zcs_obj_release(struct zcs_class *class, struct zcs_zspage *zspage,
			    unsigned int idx)
{
	if (class->huge)
		zspage->huge_handle = 0;
	else
		zcs_hdr_set(class, zspage, idx, (unsigned long)zspage->freeobj << 1);
	zspage->freeobj = idx;
	zspage->inuse--;
	class->objs_inuse--;
}

/*
 * Takes an emptied zspage out of its class.  Returns true when the caller
 * must free it now, false when a page of it is isolated for migration (the
 * migration callbacks free it later).
 */
static bool zcs_zspage_retire(struct zcs_pool *pool, struct zcs_class *class,
			      struct zcs_zspage *zspage)
{
	zcs_fg_del(class, zspage);
	zspage->dead = true;
	class->nr_zspages--;
	atomic_long_sub(class->pages_per_zspage, &pool->pages);
	return !zspage->isolated;
}

/* zspages: creation and freeing. */

static struct zcs_zspage *zcs_zspage_create(struct zcs_pool *pool,
					    struct zcs_class *class, gfp_t gfp)
{
	struct zcs_zspage *zspage;
	unsigned int i, idx;
	gfp_t pgfp;

	zspage = kmem_cache_zalloc(zcs_zspage_cache,
				   gfp & ~(__GFP_HIGHMEM | __GFP_MOVABLE));
	if (!zspage)
		return NULL;
	pgfp = gfp & ~__GFP_MOVABLE;
	if (ZC_CAN_MIGRATE)
		pgfp |= __GFP_MOVABLE;
	for (i = 0; i < class->pages_per_zspage; i++) {
		zspage->pages[i] = alloc_page(pgfp);
		if (!zspage->pages[i]) {
			while (i--)
				__free_page(zspage->pages[i]);
			kmem_cache_free(zcs_zspage_cache, zspage);
			return NULL;
		}
		set_page_private(zspage->pages[i], (unsigned long)zspage);
	}
	INIT_LIST_HEAD(&zspage->list);
	rwlock_init(&zspage->lock);
	zspage->class = class;
	zspage->pool = pool;
	zspage->fg = ZCS_FG_EMPTY;
	zspage->freeobj = 0;
	if (!class->huge) {
		for (idx = 0; idx < class->objs_per_zspage; idx++)
			zcs_hdr_set(class, zspage, idx, (unsigned long)(idx + 1) << 1);
	}
#if ZC_CAN_MIGRATE
	for (i = 0; i < class->pages_per_zspage; i++) {
		struct page *page = zspage->pages[i];

		/* A page nobody else knows of yet: the lock is ours. */
		WARN_ON(!trylock_page(page));
		zc_page_set_movable(&zcs_movable, page);
		unlock_page(page);
	}
#endif
	return zspage;
}

static void zcs_zspage_release_pages(struct zcs_zspage *zspage)
{
	unsigned int i;

	for (i = 0; i < zspage->class->pages_per_zspage; i++) {
		struct page *page = zspage->pages[i];

#if ZC_CAN_MIGRATE
		zc_page_clear_movable(page);
		set_page_private(page, 0);
		unlock_page(page);
#else
		set_page_private(page, 0);
#endif
		__free_page(page);
	}
	kmem_cache_free(zcs_zspage_cache, zspage);
}

#if ZC_CAN_MIGRATE
static bool zcs_zspage_trylock(struct zcs_zspage *zspage)
{
	unsigned int i;

	for (i = 0; i < zspage->class->pages_per_zspage; i++) {
		if (!trylock_page(zspage->pages[i])) {
			while (i--)
				unlock_page(zspage->pages[i]);
			return false;
		}
	}
	return true;
}
#endif

/*
 * Frees a retired zspage.  Where pages are movable, the page locks keep
 * the migration core away while the pages stop being movable; when one
 * is busy and the caller cannot sleep, a work item frees the zspage.
 */
static void zcs_zspage_free(struct zcs_pool *pool, struct zcs_zspage *zspage,
			    bool can_sleep)
{
#if ZC_CAN_MIGRATE
	unsigned int i;

	if (!zcs_zspage_trylock(zspage)) {
		if (!can_sleep) {
			spin_lock(&pool->deferred_lock);
			list_add_tail(&zspage->list, &pool->deferred);
			spin_unlock(&pool->deferred_lock);
			schedule_work(&pool->free_work);
			return;
		}
		for (i = 0; i < zspage->class->pages_per_zspage; i++)
			lock_page(zspage->pages[i]);
	}
#endif
	zcs_zspage_release_pages(zspage);
}

static void zcs_free_work(struct work_struct *work)
{
	struct zcs_pool *pool = container_of(work, struct zcs_pool, free_work);
	struct zcs_zspage *zspage, *tmp;
	LIST_HEAD(list);

	spin_lock(&pool->deferred_lock);
	list_splice_init(&pool->deferred, &list);
	spin_unlock(&pool->deferred_lock);
	list_for_each_entry_safe(zspage, tmp, &list, list) {
		list_del(&zspage->list);
		zcs_zspage_free(pool, zspage, true);
	}
}

/* Fault injection. */

static bool zcs_fail_now(void)
{
	unsigned int every = READ_ONCE(zcs_fail_every);

	if (likely(!every))
		return false;
	if ((unsigned int)atomic_inc_return(&zcs_fail_count) % every)
		return false;
	atomic_long_inc(&zcs_stat_injected);
	return true;
}

/* The allocator API. */

/**
 * zcs_malloc - allocate an object
 * @pool: the pool
 * @size: its length in bytes, 1 to PAGE_SIZE
 * @gfp: allocation flags for new pages and the handle; sleeps only if
 *	 they allow it
 *
 * Return: a handle, or an error value (IS_ERR_VALUE()): -EINVAL for a bad
 * size, -ENOMEM, -ENOSPC when fault injection (fail_alloc_every) fires.
 */
unsigned long zcs_malloc(struct zcs_pool *pool, size_t size, gfp_t gfp)
{
	struct zcs_zspage *zspage;
	struct zcs_class *class;
	unsigned long *slot;
	unsigned int idx;

	if (unlikely(!size || size > PAGE_SIZE))
		return (unsigned long)-EINVAL;
	if (unlikely(zcs_fail_now())) {
		atomic_long_inc(&pool->alloc_fail);
		return (unsigned long)-ENOSPC;
	}
	slot = kmem_cache_alloc(zcs_handle_cache,
				gfp & ~(__GFP_HIGHMEM | __GFP_MOVABLE));
	if (unlikely(!slot))
		goto nomem;
	class = pool->classes[zcs_class_index(size + ZCS_HDR_SIZE)];

	spin_lock(&class->lock);
	zspage = zcs_fg_alloc_target(class);
	if (likely(zspage))
		goto found;
	spin_unlock(&class->lock);

	zspage = zcs_zspage_create(pool, class, gfp);
	if (unlikely(!zspage)) {
		kmem_cache_free(zcs_handle_cache, slot);
		goto nomem;
	}
	spin_lock(&class->lock);
	class->nr_zspages++;
	atomic_long_add(class->pages_per_zspage, &pool->pages);
found:
	idx = zcs_obj_take(class, zspage, slot);
	*slot = zcs_loc(zspage, idx, size);
	class->payload += size;
	zcs_fg_update(class, zspage);
	spin_unlock(&class->lock);
	return (unsigned long)slot;

nomem:
	atomic_long_inc(&pool->alloc_fail);
	return (unsigned long)-ENOMEM;
}
ZC_EXPORT_SYMBOL(zcs_malloc);

/**
 * zcs_free - free an object
 * @pool: the pool
 * @handle: from zcs_malloc(); error values and 0 are ignored
 *
 * Context: any; never sleeps.
 */
void zcs_free(struct zcs_pool *pool, unsigned long handle)
{
	unsigned long *slot = (unsigned long *)handle;
	struct zcs_zspage *zspage;
	struct zcs_class *class;
	unsigned long loc;
	bool release = false;

	if (unlikely(!handle || IS_ERR_VALUE(handle)))
		return;
	read_lock(&pool->migrate_lock);
	loc = READ_ONCE(*slot);
	zspage = zcs_loc_zspage(loc);
	class = zspage->class;
	spin_lock(&class->lock);
	read_unlock(&pool->migrate_lock);

	zcs_obj_release(class, zspage, zcs_loc_idx(loc));
	class->payload -= zcs_loc_len(loc);
	if (!zspage->inuse)
		release = zcs_zspage_retire(pool, class, zspage);
	else
		zcs_fg_update(class, zspage);
	spin_unlock(&class->lock);

	if (release)
		zcs_zspage_free(pool, zspage, false);
	kmem_cache_free(zcs_handle_cache, slot);
}
ZC_EXPORT_SYMBOL(zcs_free);

/*
 * Looks @slot up and returns its zspage with zspage->lock held for read:
 * the object stays where it is until zcs_obj_unlock().  Inline, so that
 * sparse sees the lock and the unlock in the caller; the zc_*_held()
 * helpers give sparse the same context on every kernel flavour.
 */
static inline struct zcs_zspage *zcs_obj_lock(struct zcs_pool *pool,
					      unsigned long *slot,
					      unsigned long *loc)
{
	struct zcs_zspage *zspage;

	read_lock(&pool->migrate_lock);
	*loc = READ_ONCE(*slot);
	zspage = zcs_loc_zspage(*loc);
	zc_read_lock_held(&zspage->lock);
	read_unlock(&pool->migrate_lock);
	return zspage;
}

static inline void zcs_obj_unlock(struct zcs_zspage *zspage)
{
	zc_read_unlock_held(&zspage->lock);
}

/**
 * zcs_write - write an object's bytes
 * @pool: the pool
 * @handle: from zcs_malloc()
 * @src: the bytes
 * @len: how many, at most the size given to zcs_malloc()
 *
 * Context: any; never sleeps.
 */
void zcs_write(struct zcs_pool *pool, unsigned long handle,
	       const void *src, size_t len)
{
	struct zcs_zspage *zspage;
	unsigned int off, n;
	unsigned long loc;
	char *addr;

	zspage = zcs_obj_lock(pool, (unsigned long *)handle, &loc);
	if (WARN_ON_ONCE(len > zcs_loc_len(loc)))
		len = zcs_loc_len(loc);
	off = zcs_obj_offset(zspage->class, zcs_loc_idx(loc));
	n = min_t(unsigned int, len, PAGE_SIZE - offset_in_page(off));
	addr = zc_kmap_local(zspage->pages[off >> PAGE_SHIFT]);
	memcpy(addr + offset_in_page(off), src, n);
	zc_kunmap_local(addr);
	if (n < len) {
		addr = zc_kmap_local(zspage->pages[(off >> PAGE_SHIFT) + 1]);
		memcpy(addr, (const char *)src + n, len - n);
		zc_kunmap_local(addr);
	}
	zcs_obj_unlock(zspage);
}
ZC_EXPORT_SYMBOL(zcs_write);

/**
 * zcs_read_begin - start reading an object
 * @pool: the pool
 * @handle: from zcs_malloc()
 * @local_copy: a buffer of at least the object's size, used when the
 *		object spans two pages
 *
 * The object cannot move until zcs_read_end(); the caller must not sleep
 * and must make no other call to the pool in between.
 *
 * Return: the object's bytes (in its page, or copied to @local_copy).
 */
const void *zcs_read_begin(struct zcs_pool *pool, unsigned long handle,
			   void *local_copy)
	__acquires(zspage_lock)
{
	struct zcs_zspage *zspage;
	unsigned int off, len, n;
	unsigned long loc;
	char *addr;

	zspage = zcs_obj_lock(pool, (unsigned long *)handle, &loc);
	len = zcs_loc_len(loc);
	off = zcs_obj_offset(zspage->class, zcs_loc_idx(loc));
	addr = zc_kmap_local(zspage->pages[off >> PAGE_SHIFT]);
	if (likely(offset_in_page(off) + len <= PAGE_SIZE))
		return addr + offset_in_page(off);

	n = PAGE_SIZE - offset_in_page(off);
	memcpy(local_copy, addr + offset_in_page(off), n);
	zc_kunmap_local(addr);
	addr = zc_kmap_local(zspage->pages[(off >> PAGE_SHIFT) + 1]);
	memcpy((char *)local_copy + n, addr, len - n);
	zc_kunmap_local(addr);
	return local_copy;
}
ZC_EXPORT_SYMBOL(zcs_read_begin);

/**
 * zcs_read_end - end reading an object
 * @pool: the pool
 * @handle: as given to zcs_read_begin()
 * @addr: what zcs_read_begin() returned
 */
void zcs_read_end(struct zcs_pool *pool, unsigned long handle,
		  const void *addr)
	__releases(zspage_lock)
{
	unsigned long loc = READ_ONCE(*(unsigned long *)handle);
	struct zcs_zspage *zspage = zcs_loc_zspage(loc);
	unsigned int off;

	off = zcs_obj_offset(zspage->class, zcs_loc_idx(loc));
	if (likely(offset_in_page(off) + zcs_loc_len(loc) <= PAGE_SIZE))
		zc_kunmap_local(addr);
	zcs_obj_unlock(zspage);
}
ZC_EXPORT_SYMBOL(zcs_read_end);

/**
 * zcs_huge_class_size - the smallest length stored one object per page
 * @pool: the pool
 */
size_t zcs_huge_class_size(struct zcs_pool *pool)
{
	return pool->huge_size;
}
ZC_EXPORT_SYMBOL(zcs_huge_class_size);

/**
 * zcs_get_total_pages - pages the pool holds
 * @pool: the pool
 */
unsigned long zcs_get_total_pages(struct zcs_pool *pool)
{
	return atomic_long_read(&pool->pages);
}
ZC_EXPORT_SYMBOL(zcs_get_total_pages);

static inline bool zcs_is_first(struct zcs_pool *pool, unsigned int i)
{
	return pool->classes[i]->index == i;
}

/**
 * zcs_pool_stats - a snapshot of a pool's counters
 * @pool: the pool
 * @stats: filled in
 */
void zcs_pool_stats(struct zcs_pool *pool, struct zcs_pool_stats *stats)
{
	unsigned int i;

	memset(stats, 0, sizeof(*stats));
	for (i = 0; i < ZCS_NR_CLASSES; i++) {
		struct zcs_class *class = pool->classes[i];

		if (!zcs_is_first(pool, i))
			continue;
		spin_lock(&class->lock);
		stats->objs_inuse += class->objs_inuse;
		stats->payload_bytes += class->payload;
		spin_unlock(&class->lock);
	}
	stats->pages = atomic_long_read(&pool->pages);
	stats->compacted = atomic_long_read(&pool->compacted);
	stats->migrated = atomic_long_read(&pool->migrated);
	stats->alloc_fail = atomic_long_read(&pool->alloc_fail);
}
ZC_EXPORT_SYMBOL(zcs_pool_stats);

/* Compaction. */

/* zspages compaction could free in @class (class->lock held). */
static unsigned long zcs_class_freeable(struct zcs_class *class)
{
	unsigned long free_objs;

	if (class->objs_per_zspage == 1)
		return 0;
	free_objs = class->nr_zspages * class->objs_per_zspage - class->objs_inuse;
	return free_objs / class->objs_per_zspage;
}

static struct zcs_zspage *zcs_pick(struct zcs_class *class, bool sparsest,
				   struct zcs_zspage *not)
{
	struct zcs_zspage *zspage;
	int fg;

	for (fg = sparsest ? 1 : ZCS_FG_FULL - 1;
	     fg > ZCS_FG_EMPTY && fg < ZCS_FG_FULL; fg += sparsest ? 1 : -1) {
		list_for_each_entry(zspage, &class->fg_list[fg], list) {
			if (zspage != not && !zspage->isolated)
				return zspage;
		}
	}
	return NULL;
}

/*
 * Moves objects of @src into @dst until one is empty or the other full.
 * Called with pool->migrate_lock (write), class->lock and src->lock (write).
 */
static void zcs_move_objects(struct zcs_class *class, struct zcs_zspage *dst,
			     struct zcs_zspage *src)
{
	unsigned int idx, didx, len;
	unsigned long hdr, *slot;

	for (idx = 0; idx < class->objs_per_zspage; idx++) {
		if (!src->inuse || dst->inuse == class->objs_per_zspage)
			break;
		hdr = zcs_hdr_get(class, src, idx);
		if (!(hdr & ZCS_TAG_ALLOC))
			continue;
		slot = (unsigned long *)(hdr & ~ZCS_TAG_ALLOC);
		len = zcs_loc_len(*slot);
		didx = zcs_obj_take(class, dst, slot);
		zcs_copy(dst, zcs_obj_offset(class, didx),
			 src, zcs_obj_offset(class, idx), len);
		WRITE_ONCE(*slot, zcs_loc(dst, didx, len));
		zcs_obj_release(class, src, idx);
	}
}

static unsigned long zcs_compact_class(struct zcs_pool *pool,
				       struct zcs_class *class)
{
	struct zcs_zspage *src, *dst;
	unsigned long freed = 0;
	bool release;

	for (;;) {
		write_lock(&pool->migrate_lock);
		spin_lock(&class->lock);
		if (!zcs_class_freeable(class)) {
			src = NULL;
			dst = NULL;
		} else {
			src = zcs_pick(class, true, NULL);
			dst = src ? zcs_pick(class, false, src) : NULL;
		}
		if (!src || !dst) {
			spin_unlock(&class->lock);
			write_unlock(&pool->migrate_lock);
			break;
		}
		write_lock(&src->lock);
		zcs_move_objects(class, dst, src);
		write_unlock(&src->lock);
		zcs_fg_update(class, dst);
		release = false;
		if (!src->inuse) {
			release = zcs_zspage_retire(pool, class, src);
			freed += class->pages_per_zspage;
		} else {
			zcs_fg_update(class, src);
		}
		spin_unlock(&class->lock);
		write_unlock(&pool->migrate_lock);
		if (release)
			zcs_zspage_free(pool, src, true);
		cond_resched();
	}
	return freed;
}

/**
 * zcs_compact - move objects out of sparse zspages and free those
 * @pool: the pool
 *
 * Context: process; sleeps.
 * Return: pages freed.
 */
unsigned long zcs_compact(struct zcs_pool *pool)
{
	unsigned long freed = 0;
	int i;

	for (i = ZCS_NR_CLASSES - 1; i >= 0; i--) {
		if (zcs_is_first(pool, i))
			freed += zcs_compact_class(pool, pool->classes[i]);
	}
	atomic_long_add(freed, &pool->compacted);
	atomic_long_add(freed, &zcs_stat_compacted);
	return freed;
}
ZC_EXPORT_SYMBOL(zcs_compact);

static unsigned long zcs_shrink_count(struct shrinker *s,
				      struct shrink_control *sc)
{
	struct zcs_pool *pool = zc_shrinker_private(s);
	unsigned long pages = 0;
	unsigned int i;

	for (i = 0; i < ZCS_NR_CLASSES; i++) {
		struct zcs_class *class = pool->classes[i];

		if (!zcs_is_first(pool, i))
			continue;
		/* A racy read is fine for an estimate. */
		pages += data_race(zcs_class_freeable(class)) *
			 class->pages_per_zspage;
	}
	return pages;
}

static unsigned long zcs_shrink_scan(struct shrinker *s,
				     struct shrink_control *sc)
{
	unsigned long freed = zcs_compact(zc_shrinker_private(s));

	return freed ? freed : SHRINK_STOP;
}

/* Page migration (kernels that let a module own movable pages). */
#if ZC_CAN_MIGRATE

static bool zcs_page_isolate(struct page *page, isolate_mode_t mode)
{
	struct zcs_zspage *zspage = (struct zcs_zspage *)page_private(page);
	struct zcs_class *class;
	bool ok = false;

	if (!zspage)
		return false;
	class = zspage->class;
	spin_lock(&class->lock);
	if (!zspage->dead) {
		zspage->isolated++;
		atomic_inc(&zspage->pool->isolated);
		ok = true;
	}
	spin_unlock(&class->lock);
	return ok;
}

/* Drops an isolation (class->lock held); true if the zspage must go. */
static bool zcs_isolation_end(struct zcs_zspage *zspage)
{
	zspage->isolated--;
	return zspage->dead && !zspage->isolated;
}

/*
 * The last step of a migration callback: the pool may go once isolated
 * drops to 0, deferred_lock holds zcs_destroy_pool() until we are done.
 */
static void zcs_isolation_done(struct zcs_pool *pool)
{
	spin_lock(&pool->deferred_lock);
	if (atomic_dec_and_test(&pool->isolated))
		wake_up_all(&pool->isolated_wq);
	spin_unlock(&pool->deferred_lock);
}

/* Rewrites the location of every object: the first page moved. */
static void zcs_relocate_all(struct zcs_class *class, struct zcs_zspage *zspage)
{
	unsigned long hdr, *slot;
	unsigned int idx;

	if (class->huge) {
		slot = (unsigned long *)zspage->huge_handle;
		if (slot)
			WRITE_ONCE(*slot, zcs_loc(zspage, 0, zcs_loc_len(*slot)));
		return;
	}
	for (idx = 0; idx < class->objs_per_zspage; idx++) {
		hdr = zcs_hdr_get(class, zspage, idx);
		if (!(hdr & ZCS_TAG_ALLOC))
			continue;
		slot = (unsigned long *)(hdr & ~ZCS_TAG_ALLOC);
		WRITE_ONCE(*slot, zcs_loc(zspage, idx, zcs_loc_len(*slot)));
	}
}

/* Both pages are locked by the caller (the migration core). */
static int zcs_page_migrate(struct page *newpage, struct page *page,
			    enum migrate_mode mode)
{
	struct zcs_zspage *zspage = (struct zcs_zspage *)page_private(page);
	struct zcs_class *class = zspage->class;
	struct zcs_pool *pool = zspage->pool;
	unsigned int i;
	void *s, *d;
	bool release;

	write_lock(&pool->migrate_lock);
	spin_lock(&class->lock);
	write_lock(&zspage->lock);
	for (i = 0; i < class->pages_per_zspage; i++)
		if (zspage->pages[i] == page)
			break;
	if (WARN_ON_ONCE(i == class->pages_per_zspage)) {
		write_unlock(&zspage->lock);
		spin_unlock(&class->lock);
		write_unlock(&pool->migrate_lock);
		return -EINVAL;
	}
	s = zc_kmap_local(page);
	d = zc_kmap_local(newpage);
	memcpy(d, s, PAGE_SIZE);
	zc_kunmap_local(d);
	zc_kunmap_local(s);

	get_page(newpage);
	set_page_private(newpage, (unsigned long)zspage);
	zc_page_set_movable(&zcs_movable, newpage);
	zspage->pages[i] = newpage;
	if (i == 0 && !zspage->dead)
		zcs_relocate_all(class, zspage);
	write_unlock(&zspage->lock);
	release = zcs_isolation_end(zspage);
	spin_unlock(&class->lock);
	write_unlock(&pool->migrate_lock);

	zc_page_clear_movable(page);
	set_page_private(page, 0);
	put_page(page);
	atomic_long_inc(&pool->migrated);
	atomic_long_inc(&zcs_stat_migrated);
	if (release)
		zcs_zspage_free(pool, zspage, false);
	zcs_isolation_done(pool);
	return 0;	/* MIGRATEPAGE_SUCCESS */
}

static void zcs_page_putback(struct page *page)
{
	struct zcs_zspage *zspage = (struct zcs_zspage *)page_private(page);
	struct zcs_class *class = zspage->class;
	struct zcs_pool *pool = zspage->pool;
	bool release;

	spin_lock(&class->lock);
	release = zcs_isolation_end(zspage);
	spin_unlock(&class->lock);
	if (release)
		zcs_zspage_free(pool, zspage, false);
	zcs_isolation_done(pool);
}

/**
 * zcs_migrate_object_page - move the page holding an object's start
 * @pool: the pool
 * @handle: from zcs_malloc()
 *
 * Runs the module's migration callbacks the way the kernel's migration
 * core does (page locks, isolate, migrate or put back).  A test hook.
 *
 * Context: process; sleeps.
 * Return: 0, -ENOMEM, -EBUSY (could not isolate) or the callback's error.
 */
int zcs_migrate_object_page(struct zcs_pool *pool, unsigned long handle)
{
	struct zcs_zspage *zspage;
	struct page *page, *newpage;
	unsigned long loc;
	unsigned int off;
	int ret;

	newpage = alloc_page(GFP_KERNEL | __GFP_MOVABLE);
	if (!newpage)
		return -ENOMEM;
	read_lock(&pool->migrate_lock);
	loc = READ_ONCE(*(unsigned long *)handle);
	zspage = zcs_loc_zspage(loc);
	off = zcs_obj_offset(zspage->class, zcs_loc_idx(loc));
	page = zspage->pages[off >> PAGE_SHIFT];
	get_page(page);
	read_unlock(&pool->migrate_lock);

	lock_page(page);
	if (!page_private(page) || !zcs_page_isolate(page, 0)) {
		ret = -EBUSY;
		goto out;
	}
	WARN_ON(!trylock_page(newpage));
	ret = zcs_page_migrate(newpage, page, MIGRATE_SYNC);
	unlock_page(newpage);
	if (ret)
		zcs_page_putback(page);
out:
	unlock_page(page);
	put_page(page);
	put_page(newpage);
	return ret;
}

#else /* !ZC_CAN_MIGRATE */

int zcs_migrate_object_page(struct zcs_pool *pool, unsigned long handle)
{
	return -EOPNOTSUPP;
}

#endif /* ZC_CAN_MIGRATE */
ZC_EXPORT_SYMBOL(zcs_migrate_object_page);

/* Fault injection knob. */

/**
 * zcs_set_fail_alloc_every - make every Nth zcs_malloc() fail
 * @every: N, 0 turns injection off
 *
 * Return: the previous value.
 */
unsigned int zcs_set_fail_alloc_every(unsigned int every)
{
	atomic_set(&zcs_fail_count, 0);
	return xchg(&zcs_fail_every, every);
}
ZC_EXPORT_SYMBOL(zcs_set_fail_alloc_every);

static int zcs_fail_every_set(const char *val, const struct kernel_param *kp)
{
	unsigned int v;

	if (kstrtouint(val, 0, &v) || v > ZCS_FAIL_EVERY_MAX) {
		pr_warn("fail_alloc_every: invalid value '%.*s' (0..%u)\n",
			(int)min_t(size_t, strcspn(val, "\n"), 32), val,
			ZCS_FAIL_EVERY_MAX);
		return -EINVAL;
	}
	zcs_set_fail_alloc_every(v);
	return 0;
}

static const struct kernel_param_ops zcs_fail_every_ops = {
	.set = zcs_fail_every_set,
	.get = param_get_uint,
};
module_param_cb(fail_alloc_every, &zcs_fail_every_ops, &zcs_fail_every, 0644);
MODULE_PARM_DESC(fail_alloc_every,
		 "fault injection: every Nth zcs_malloc() fails with -ENOSPC (0: off)");

/* debugfs. */

static int zcs_classes_show(struct seq_file *m, void *v)
{
	struct zcs_pool *pool = m->private;
	unsigned long t_zspages = 0, t_alloc = 0, t_used = 0, t_pages = 0;
	unsigned long t_payload = 0;
	unsigned int i, fg;

	seq_printf(m, "%5s %5s %4s %4s %8s %10s %10s %9s %10s",
		   "class", "size", "ppz", "opz", "zspages", "objs_alloc",
		   "objs_used", "pages", "payload");
	for (fg = 1; fg < ZCS_FG_FULL; fg++)
		seq_printf(m, " %5s%d", "<", fg * 100 / ZCS_FG_PARTIAL);
	seq_printf(m, " %6s\n", "full");

	for (i = 0; i < ZCS_NR_CLASSES; i++) {
		struct zcs_class *class = pool->classes[i];
		unsigned long zspages, used, payload, fgc[ZCS_NR_FG];

		if (!zcs_is_first(pool, i))
			continue;
		spin_lock(&class->lock);
		zspages = class->nr_zspages;
		used = class->objs_inuse;
		payload = class->payload;
		memcpy(fgc, class->fg_count, sizeof(fgc));
		spin_unlock(&class->lock);

		seq_printf(m, "%5u %5u %4u %4u %8lu %10lu %10lu %9lu %10lu",
			   i, class->size, class->pages_per_zspage,
			   class->objs_per_zspage, zspages,
			   zspages * class->objs_per_zspage, used,
			   zspages * class->pages_per_zspage, payload);
		for (fg = 1; fg < ZCS_FG_FULL; fg++)
			seq_printf(m, " %6lu", fgc[fg]);
		seq_printf(m, " %6lu\n", fgc[ZCS_FG_FULL]);
		t_zspages += zspages;
		t_alloc += zspages * class->objs_per_zspage;
		t_used += used;
		t_pages += zspages * class->pages_per_zspage;
		t_payload += payload;
	}
	seq_printf(m, "%5s %5s %4s %4s %8lu %10lu %10lu %9lu %10lu\n",
		   "total", "", "", "", t_zspages, t_alloc, t_used, t_pages,
		   t_payload);
	seq_printf(m, "compacted %lu migrated %lu alloc_fail %lu huge_size %zu\n",
		   atomic_long_read(&pool->compacted),
		   atomic_long_read(&pool->migrated),
		   atomic_long_read(&pool->alloc_fail), pool->huge_size);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(zcs_classes);

static ssize_t zcs_compact_write(struct file *file, const char __user *buf,
				 size_t len, loff_t *ppos)
{
	struct zcs_pool *pool = file->private_data;

	zcs_compact(pool);
	return len;
}

static const struct file_operations zcs_compact_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = zcs_compact_write,
};

static int zcs_stats_show(struct seq_file *m, void *v)
{
	seq_printf(m, "compacted_pages %ld\n", atomic_long_read(&zcs_stat_compacted));
	seq_printf(m, "migrated_pages %ld\n", atomic_long_read(&zcs_stat_migrated));
	seq_printf(m, "injected_failures %ld\n", atomic_long_read(&zcs_stat_injected));
	seq_printf(m, "leaked_objects %ld\n", atomic_long_read(&zcs_stat_leaked));
	seq_printf(m, "migration %s\n", ZC_CAN_MIGRATE ? "yes" : "no");
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(zcs_stats);

/* Pools. */

/*
 * Pages per zspage: the shortest chain whose fill is within
 * 1/ZCS_FILL_SLACK of the best fill of 1..ZCS_MAX_ZSPAGE_PAGES pages.  A
 * class's last zspage is partly empty, which costs up to a whole chain: in
 * small pools that tail outweighs the last percent of fill that a long
 * chain wins (docs/zcsmalloc.md, "Objects, classes, zspages").
 */
#define ZCS_FILL_SLACK		50

static void zcs_class_geometry(unsigned int size, unsigned int *pages,
			       unsigned int *objs)
{
	unsigned int used[ZCS_MAX_ZSPAGE_PAGES + 1];
	unsigned int p, best_p = 1;

	for (p = 1; p <= ZCS_MAX_ZSPAGE_PAGES; p++) {
		used[p] = (p * PAGE_SIZE / size) * size;
		/* Better fill: used[p] / p > used[best_p] / best_p. */
		if (used[p] * best_p > used[best_p] * p)
			best_p = p;
	}
	/* used[p] / p >= used[best_p] / best_p - PAGE_SIZE / ZCS_FILL_SLACK */
	for (p = 1; p < best_p; p++) {
		if (ZCS_FILL_SLACK * used[p] * best_p + p * best_p * PAGE_SIZE >=
		    ZCS_FILL_SLACK * used[best_p] * p)
			break;
	}
	*pages = p;
	*objs = p * PAGE_SIZE / size;
}

static int zcs_classes_init(struct zcs_pool *pool)
{
	struct zcs_class *prev = NULL;
	unsigned int pages, objs, size;
	int i, fg;

	for (i = ZCS_NR_CLASSES - 1; i >= 0; i--) {
		struct zcs_class *class;

		size = min_t(unsigned int, ZCS_MIN_SIZE + i * ZCS_CLASS_DELTA,
			     PAGE_SIZE);
		zcs_class_geometry(size, &pages, &objs);
		if (prev && prev->pages_per_zspage == pages &&
		    prev->objs_per_zspage == objs) {
			pool->classes[i] = prev;
			continue;
		}
		class = kzalloc(sizeof(*class), GFP_KERNEL);
		if (!class)
			return -ENOMEM;
		spin_lock_init(&class->lock);
		for (fg = 0; fg < ZCS_NR_FG; fg++)
			INIT_LIST_HEAD(&class->fg_list[fg]);
		class->size = size;
		class->index = i;
		class->pages_per_zspage = pages;
		class->objs_per_zspage = objs;
		class->huge = objs == 1;
		class->fg_mul = DIV_ROUND_UP_ULL((u64)ZCS_FG_PARTIAL << 24, objs);
		pool->classes[i] = class;
		prev = class;
	}
	/* The index of the first huge class's first size decides. */
	for (i = 0; i < ZCS_NR_CLASSES; i++) {
		if (pool->classes[i]->huge)
			break;
	}
	pool->huge_size = i ? ZCS_MIN_SIZE + (i - 1) * ZCS_CLASS_DELTA + 1 -
			      ZCS_HDR_SIZE : 1;
	return 0;
}

/* Frees what zcs_create_pool() built; tolerates a partial pool. */
static void zcs_pool_free(struct zcs_pool *pool)
{
	int i;

	/* Upwards: a merged class is freed at its own (highest) index. */
	for (i = 0; i < ZCS_NR_CLASSES; i++) {
		if (pool->classes[i] && zcs_is_first(pool, i))
			kfree(pool->classes[i]);
	}
	kfree(pool->name);
	kfree(pool);
}

/**
 * zcs_create_pool - create a pool
 * @name: shown in debugfs (zcsmalloc/NAME-ID) and the shrinker's name
 *
 * Context: process; sleeps.
 * Return: the pool, or NULL.
 */
struct zcs_pool *zcs_create_pool(const char *name)
{
	struct zcs_pool *pool;
	char buf[64];
	int id;

	pool = kzalloc(sizeof(*pool), GFP_KERNEL);
	if (!pool)
		return NULL;
	pool->name = kstrdup(name, GFP_KERNEL);
	if (!pool->name || zcs_classes_init(pool)) {
		zcs_pool_free(pool);
		return NULL;
	}
	rwlock_init(&pool->migrate_lock);
	atomic_long_set(&pool->pages, 0);
	atomic_long_set(&pool->compacted, 0);
	atomic_long_set(&pool->migrated, 0);
	atomic_long_set(&pool->alloc_fail, 0);
	atomic_set(&pool->isolated, 0);
	init_waitqueue_head(&pool->isolated_wq);
	spin_lock_init(&pool->deferred_lock);
	INIT_LIST_HEAD(&pool->deferred);
	INIT_WORK(&pool->free_work, zcs_free_work);

	id = atomic_inc_return(&zcs_pool_ids);
	snprintf(buf, sizeof(buf), "zcsmalloc-%s-%d", name, id);
	pool->shrinker = zc_shrinker_create(buf, zcs_shrink_count,
					    zcs_shrink_scan, pool);
	if (!pool->shrinker)
		pr_warn("pool %s: no shrinker, compaction only on request\n",
			name);
	snprintf(buf, sizeof(buf), "%s-%d", name, id);
	pool->debugfs = debugfs_create_dir(buf, zcs_debugfs_root);
	debugfs_create_file("classes", 0444, pool->debugfs, pool,
			    &zcs_classes_fops);
	debugfs_create_file("compact", 0200, pool->debugfs, pool,
			    &zcs_compact_fops);
	return pool;
}
ZC_EXPORT_SYMBOL(zcs_create_pool);

/* Frees the handles of a zspage's objects (destroy with leaks). */
static unsigned long zcs_zspage_drop_objects(struct zcs_class *class,
					     struct zcs_zspage *zspage)
{
	unsigned long hdr, n = 0;
	unsigned int idx;

	if (class->huge) {
		if (zspage->huge_handle)
			kmem_cache_free(zcs_handle_cache,
					(void *)zspage->huge_handle);
		return zspage->inuse;
	}
	for (idx = 0; idx < class->objs_per_zspage; idx++) {
		hdr = zcs_hdr_get(class, zspage, idx);
		if (hdr & ZCS_TAG_ALLOC) {
			kmem_cache_free(zcs_handle_cache,
					(void *)(hdr & ~ZCS_TAG_ALLOC));
			n++;
		}
	}
	return n;
}

/**
 * zcs_destroy_pool - destroy a pool
 * @pool: the pool
 *
 * Objects still allocated are freed and reported (one line in the kernel
 * log, and the module's leaked_objects counter).
 *
 * Context: process; sleeps.
 */
void zcs_destroy_pool(struct zcs_pool *pool)
{
	unsigned long leaked = 0, bytes = 0;
	struct zcs_zspage *zspage, *tmp;
	LIST_HEAD(dead);
	int i, fg;

	if (!pool)
		return;
	zc_shrinker_destroy(pool->shrinker);
	debugfs_remove_recursive(pool->debugfs);

	/*
	 * Retire every zspage first: from then on the migration core cannot
	 * isolate their pages, and those isolated already come back through
	 * migrate or putback, which free them.
	 */
	for (i = ZCS_NR_CLASSES - 1; i >= 0; i--) {
		struct zcs_class *class = pool->classes[i];

		if (!zcs_is_first(pool, i))
			continue;
		spin_lock(&class->lock);
		bytes += class->payload;
		for (fg = 1; fg < ZCS_NR_FG; fg++) {
			list_for_each_entry_safe(zspage, tmp,
						 &class->fg_list[fg], list) {
				leaked += zcs_zspage_drop_objects(class, zspage);
				if (zcs_zspage_retire(pool, class, zspage))
					list_add(&zspage->list, &dead);
			}
		}
		spin_unlock(&class->lock);
	}
	wait_event(pool->isolated_wq, !atomic_read(&pool->isolated));
	spin_lock(&pool->deferred_lock);	/* the waker is done with pool */
	spin_unlock(&pool->deferred_lock);
	list_for_each_entry_safe(zspage, tmp, &dead, list) {
		list_del(&zspage->list);
		zcs_zspage_free(pool, zspage, true);
	}
	flush_work(&pool->free_work);
	if (leaked) {
		atomic_long_add(leaked, &zcs_stat_leaked);
		pr_err("pool %s destroyed with %lu objects (%lu bytes) still allocated\n",
		       pool->name, leaked, bytes);
	}
	zcs_pool_free(pool);
}
ZC_EXPORT_SYMBOL(zcs_destroy_pool);

/* Module. */

static int __init zcs_init(void)
{
	int ret;

	BUILD_BUG_ON(ZCS_MAX_OBJS > ZCS_IDX_MASK);
	BUILD_BUG_ON(ZCS_PFN_SHIFT + 52 - PAGE_SHIFT > BITS_PER_LONG);
	BUILD_BUG_ON(ZCS_MIN_SIZE % ZCS_CLASS_DELTA ||
		     ZCS_CLASS_DELTA < 2 * ZCS_HDR_SIZE);

	zcs_handle_cache = kmem_cache_create("zcs_handle", sizeof(unsigned long),
					     0, 0, NULL);
	zcs_zspage_cache = kmem_cache_create("zcs_zspage",
					     sizeof(struct zcs_zspage), 0, 0,
					     NULL);
	if (!zcs_handle_cache || !zcs_zspage_cache) {
		ret = -ENOMEM;
		goto err_cache;
	}
#if ZC_CAN_MIGRATE
	ret = zc_movable_init(&zcs_movable);
	if (ret)
		goto err_cache;
#endif
	zcs_debugfs_root = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("stats", 0444, zcs_debugfs_root, NULL,
			    &zcs_stats_fops);
	pr_info("loaded: %u size classes, zspages of up to %u pages, migration %s\n",
		(unsigned int)ZCS_NR_CLASSES, ZCS_MAX_ZSPAGE_PAGES,
		ZC_CAN_MIGRATE ? "on" : "not available on this kernel");
	return 0;

err_cache:
	kmem_cache_destroy(zcs_zspage_cache);
	kmem_cache_destroy(zcs_handle_cache);
	return ret;
}

static void __exit zcs_exit(void)
{
	debugfs_remove_recursive(zcs_debugfs_root);
#if ZC_CAN_MIGRATE
	zc_movable_exit(&zcs_movable);
#endif
	kmem_cache_destroy(zcs_zspage_cache);
	kmem_cache_destroy(zcs_handle_cache);
}

module_init(zcs_init);
module_exit(zcs_exit);

MODULE_LICENSE("GPL");
MODULE_VERSION(ZCACHE_VERSION);
MODULE_DESCRIPTION("zcsmalloc: zsmalloc-style allocator for compressed pages (zcache)");
