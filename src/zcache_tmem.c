// SPDX-License-Identifier: GPL-2.0
/*
 * The zcache core: tmem pools of compressed pages, the
 * store/load/invalidate paths, the global pool limit with hysteresis,
 * write-back of the coldest pages and ephemeral eviction.
 *
 * A pool holds objects (u64 oid, in one of a few hashed buckets, each an
 * rbtree under a spinlock); an object holds entries in an xarray by page
 * index.  An entry is a compressed page (a handle of the pool's allocator,
 * zcache_alloc.h: zcsmalloc for a persistent pool, zbud for an ephemeral
 * one) or, for a page that repeats one word, just that word.  The core
 * reaches the allocator through its operations only.
 *
 * Entry lifetime: refcounted.  The index holds one reference; load and
 * write-back take another while they read the compressed data, so an
 * invalidate or a new store under the same key never frees data in use.
 * Invariant: an entry on a pool's LRU is in the index (so the write-back
 * worker may take a reference from the LRU under lru_lock).
 *
 * Write-back (persistent pools with ->writeback): the worker takes the
 * coldest entry off the LRU, decompresses it, hands it to ->writeback, and
 * then, under the bucket lock, frees it only if the index still holds this
 * very entry; a store or invalidate in between wins.  While one key is in
 * flight, zcache_writeback_wait() lets a front end order its own write of
 * that key after it.
 *
 * Eviction (ephemeral pools): the coldest zbud frame is taken and its (at
 * most two) entries are dropped from the index.
 *
 * Lock ordering:
 *   zcache_pools_mutex -> pool->wb_mutex
 *   bucket->lock -> pool->lru_lock
 *   bucket->lock -> allocator lock (entry free)
 *   allocator lock: eviction takes only entry references under it
 *
 * Interrupts: cleancache stores, loads and invalidates under the page
 * cache's IRQ-safe i_pages lock with interrupts off (5.10
 * delete_from_page_cache() and __remove_mapping() call cleancache_put_page()
 * inside xa_lock_irqsave(); writeback completion takes i_pages from
 * interrupt context).  A lock taken there must never be held with
 * interrupts on elsewhere, or an interrupt wanting i_pages on the CPU that
 * holds it deadlocks against the CPU waiting for it under i_pages.  So
 * the bucket and LRU locks (and zbud's, and the xarray locks taken under
 * a bucket lock) are always taken with interrupts saved, and ephemeral
 * pools compress in their own per-CPU context, taken with interrupts
 * saved (zcache_comp_get()).  zcsmalloc's locks are not: only persistent
 * pools use it, and no persistent pool is reached from cleancache.
 */
#undef pr_fmt			/* compat.h's headers defined the default */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/highmem.h>
#include <linux/rbtree.h>
#include <linux/xarray.h>
#include <linux/spinlock.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/completion.h>
#include <linux/rculist.h>
#include <linux/seq_file.h>
#include <linux/hash.h>
#include "zcache_internal.h"
#include "zcache_alloc.h"

/********************************
 * statistics
 ********************************/
enum zcache_stat_item {
	ZCACHE_STAT_STORED,		/* pages held now */
	ZCACHE_STAT_SAME,		/* of which same-filled */
	ZCACHE_STAT_RAW,		/* of which kept uncompressed */
	ZCACHE_STAT_COMP_BYTES,		/* compressed bytes held now */
	ZCACHE_STAT_STORES,		/* successful stores */
	ZCACHE_STAT_LOADS,		/* successful loads */
	ZCACHE_STAT_LOAD_MISSES,	/* loads that found nothing */
	ZCACHE_STAT_INVALIDATES,	/* pages invalidated */
	ZCACHE_STAT_REJ_POOR,		/* refused: compressed too badly */
	ZCACHE_STAT_REJ_LIMIT,		/* refused: pool limit */
	ZCACHE_STAT_REJ_ALLOC,		/* refused: allocation failed */
	ZCACHE_STAT_REJ_COMP,		/* refused: compressor error */
	ZCACHE_STAT_REJ_DISABLED,	/* refused: front end disabled */
	ZCACHE_STAT_WB,			/* written back and freed */
	ZCACHE_STAT_WB_FAILED,		/* ->writeback returned an error */
	ZCACHE_STAT_WB_RACED,		/* written back, replaced meanwhile */
	ZCACHE_STAT_EVICTED,		/* dropped by ephemeral eviction */
	ZCACHE_STAT_DUPLICATE,		/* stores over an existing key */
	ZCACHE_STAT_NR,
};

struct zcache_counters {
	atomic64_t v[ZCACHE_STAT_NR];
};

/* All pools, those destroyed included (the "now" ones go back to 0). */
static struct zcache_counters zcache_global;

/********************************
 * tunables
 ********************************/
/* Pool limit: all pools together, in percent of RAM. */
static unsigned int zcache_max_pool_percent = 20;
/* After hitting the limit, accept again below this percent of it. */
static unsigned int zcache_accept_threshold_percent = 90;
/* Store pages that repeat one word as that word only. */
static bool zcache_same_filled_pages = true;
/* Refuse pages that compress to more than this percent of a page. */
static unsigned int zcache_poor_compression_percent = 75;
/* Test hook: a limit in pages instead of the percent (0: off). */
static unsigned long zcache_limit_override;

/* The limit was hit and usage has not yet fallen below the threshold. */
static bool zcache_full;

/********************************
 * data structures
 ********************************/
#define ZCACHE_NR_BUCKETS	16

/*
 * struct zcache_entry - one stored page
 * @lru: in pool->lru (persistent pools), under pool->lru_lock
 * @oid, @index: the key
 * @handle: allocator handle, or the repeated word when @length is 0
 * @length: compressed length; 0 for a same-filled page
 * @ref: the index's reference plus one per reader
 * @comp: compressor id
 */
struct zcache_entry {
	struct list_head lru;
	u64 oid;
	pgoff_t index;
	unsigned long handle;
	unsigned int length;
	refcount_t ref;
	u8 comp;
};

/*
 * struct zcache_obj - the pages of one object
 * @node: in bucket->objs, under bucket->lock
 * @pages: entries by index (modified under bucket->lock)
 */
struct zcache_obj {
	struct rb_node node;
	u64 oid;
	struct xarray pages;
};

struct zcache_bucket {
	spinlock_t lock;
	struct rb_root objs;
};

/*
 * struct zcache_pool
 * @list: in zcache_pools (RCU for readers, zcache_pools_mutex for writers)
 * @users: 1 while listed, plus one per shrink worker pass using it
 * @gone: completed when @users drops to 0
 * @lru: entries, most recently stored/loaded first (persistent pools)
 * @alloc, @apool: the allocator and its pool (zcache_alloc.h)
 * @lru_lock: guards @lru and @wb_*
 * @id: creation order, for the shrink worker's walk
 * @irqsafe: the pool may be used with interrupts off (ephemeral pools:
 *	cleancache), so it compresses in the interrupt-safe context
 * @wb_off: the owner said "no write-back now" (zcache_pool_set_writeback)
 * @wb_mutex: one write-back at a time per pool
 * @wb_active, @wb_oid, @wb_index: the key in flight to ->writeback
 * @wb_wait: woken when a write-back ends
 */
struct zcache_pool {
	struct list_head list;
	atomic_t users;
	struct completion gone;
	enum zcache_pool_kind kind;
	char name[32];
	const struct zcache_pool_ops *ops;
	void *owner;
	const struct zcache_alloc_ops *alloc;
	void *apool;
	u64 id;
	bool irqsafe;
	bool wb_off;
	struct zcache_bucket buckets[ZCACHE_NR_BUCKETS];
	spinlock_t lru_lock;
	struct list_head lru;
	struct mutex wb_mutex;
	bool wb_active;
	u64 wb_oid;
	pgoff_t wb_index;
	wait_queue_head_t wb_wait;
	struct zcache_counters stats;
};

static LIST_HEAD(zcache_pools);
static DEFINE_MUTEX(zcache_pools_mutex);
static unsigned long zcache_pools_nr;
/* The id of the next pool (ids grow along the list: the shrink cursor). */
static u64 zcache_pools_next_id = 1;
static struct kmem_cache *zcache_entry_cache;

/*
 * Shrinking: the worker, its queue and the shrinker's request (pages).
 * The queue has a rescuer (WQ_MEM_RECLAIM): the worker frees memory, it
 * must run when no new worker thread can be created.
 */
static struct workqueue_struct *zcache_shrink_wq;
static struct work_struct zcache_shrink_work;
static atomic_long_t zcache_shrink_request = ATOMIC_LONG_INIT(0);
static struct zc_shrinker *zcache_shrinker;
static bool zcache_tmem_ready;

/********************************
 * helpers
 ********************************/
static void zcache_stat_add(struct zcache_pool *pool, enum zcache_stat_item i,
			    s64 v)
{
	atomic64_add(v, &pool->stats.v[i]);
	atomic64_add(v, &zcache_global.v[i]);
}

static void zcache_stat_inc(struct zcache_pool *pool, enum zcache_stat_item i)
{
	zcache_stat_add(pool, i, 1);
}

/* Whether poorly compressing pages are kept uncompressed, not refused. */
static bool zcache_pool_keeps_raw(struct zcache_pool *pool)
{
	return pool->kind == ZCACHE_POOL_PERSISTENT && pool->ops &&
	       (pool->ops->flags & ZCACHE_POOL_KEEP_RAW);
}

static unsigned long zcache_pool_pages(struct zcache_pool *pool)
{
	return pool->alloc->pages(pool->apool);
}

/* Whether the shrink worker may write the pool's pages back now. */
static bool zcache_pool_can_writeback(struct zcache_pool *pool)
{
	return pool->ops && pool->ops->writeback && !READ_ONCE(pool->wb_off);
}

/*
 * Page frames used by all pools; with @shrinkable, also whether any pool
 * can give frames back by itself (evicts, or writes back now).
 */
static unsigned long zcache_usage(bool *shrinkable)
{
	struct zcache_pool *pool;
	unsigned long total = 0;
	bool any = false;

	rcu_read_lock();
	list_for_each_entry_rcu(pool, &zcache_pools, list) {
		total += zcache_pool_pages(pool);
		any = any || pool->alloc->evict ||
		      zcache_pool_can_writeback(pool);
	}
	rcu_read_unlock();
	if (shrinkable)
		*shrinkable = any;
	return total;
}

/**
 * zcache_total_pages - page frames used by all pools
 *
 * Context: any.
 */
unsigned long zcache_total_pages(void)
{
	return zcache_usage(NULL);
}

/* The pool limit in pages (max_pool_percent of RAM). */
unsigned long zcache_limit_pages(void)
{
	unsigned long over = READ_ONCE(zcache_limit_override);

	if (over)
		return over;
	return totalram_pages() * READ_ONCE(zcache_max_pool_percent) / 100;
}

/* Below this, a full pool accepts again (accept_threshold_percent). */
unsigned long zcache_accept_pages(void)
{
	return zcache_limit_pages() *
		READ_ONCE(zcache_accept_threshold_percent) / 100;
}

bool zcache_pool_is_full(void)
{
	return READ_ONCE(zcache_full);
}

unsigned long zcache_nr_pools(void)
{
	return READ_ONCE(zcache_pools_nr);
}

/*
 * Whether a store must be refused for the limit.  Hysteresis: once the
 * limit is hit, refuse until usage is below the accept threshold, so that
 * the shrink worker evicts or writes back in batches.  Only while some
 * pool can do that: pools that cannot (write-through block devices,
 * frontswap) shrink only as their pages are loaded or freed, and refusing
 * below the limit would leave the room those frees made empty while
 * sending pages to the disk (a tenth of the pool, lost, under steady
 * swapping).
 *
 * The pool never crosses the limit: a store that passes this check adds
 * at most max_grow_pages frames (a zspage), and at most one store per CPU
 * is between the check and its allocation (zcache_comp_get() holds the
 * CPU), so the limit is reached when the pool is that many frames short
 * of it.
 */
static bool zcache_limit_hit(bool *shrinkable)
{
	unsigned int grow = max(zcache_alloc_zcsmalloc.max_grow_pages,
				zcache_alloc_zbud.max_grow_pages);
	unsigned long total = zcache_usage(shrinkable) +
			      (unsigned long)grow * num_online_cpus();

	if (READ_ONCE(zcache_full)) {
		if (*shrinkable && total >= zcache_accept_pages())
			return true;
		WRITE_ONCE(zcache_full, false);
	}
	if (total < zcache_limit_pages())
		return false;
	WRITE_ONCE(zcache_full, true);
	return true;
}

/*
 * Memory pressure (the shrinker) makes the pool give pages back down to
 * half its limit, no further: below that, writing pages back would turn
 * the pool into a write-through buffer (every swapped page written to the
 * disk anyway, and read back from it) under the constant pressure of a
 * swapping workload.
 */
static unsigned long zcache_pressure_floor(void)
{
	return zcache_limit_pages() / 2;
}

static bool zcache_should_shrink(void)
{
	unsigned long total = zcache_total_pages();

	return (READ_ONCE(zcache_full) && total >= zcache_accept_pages()) ||
		(atomic_long_read(&zcache_shrink_request) > 0 &&
		 total > zcache_pressure_floor());
}

/*
 * zcache_tmem_ready is cleared at exit under the module's parameter lock,
 * which a parameter write holds: a write that kicks after that sees it
 * cleared, one before has queued the work that exit then cancels.
 */
static void zcache_kick_shrink(void)
{
	if (READ_ONCE(zcache_tmem_ready))
		queue_work(zcache_shrink_wq, &zcache_shrink_work);
}

/* The repeated word of a same-filled page, if it is one. */
static bool zcache_page_same_filled(const void *ptr, unsigned long *value)
{
	const unsigned long *page = ptr;
	unsigned long val = page[0];
	unsigned int pos, last = PAGE_SIZE / sizeof(*page) - 1;

	if (val != page[last])
		return false;
	for (pos = 1; pos < last; pos++)
		if (page[pos] != val)
			return false;
	*value = val;
	return true;
}

static void zcache_fill_page(void *ptr, unsigned long value)
{
	unsigned long *page = ptr;
	unsigned int pos;

	if (!value) {
		memset(ptr, 0, PAGE_SIZE);
		return;
	}
	for (pos = 0; pos < PAGE_SIZE / sizeof(*page); pos++)
		page[pos] = value;
}

/********************************
 * entries and objects
 ********************************/
static struct zcache_bucket *zcache_bucket(struct zcache_pool *pool, u64 oid)
{
	return &pool->buckets[hash_64(oid, ilog2(ZCACHE_NR_BUCKETS))];
}

static void zcache_entry_free(struct zcache_pool *pool, struct zcache_entry *e)
{
	if (e->length) {
		pool->alloc->free(pool->apool, e->handle);
		zcache_stat_add(pool, ZCACHE_STAT_COMP_BYTES, -(s64)e->length);
		if (e->comp == ZCACHE_COMP_RAW)
			zcache_stat_add(pool, ZCACHE_STAT_RAW, -1);
	} else {
		zcache_stat_add(pool, ZCACHE_STAT_SAME, -1);
	}
	zcache_stat_add(pool, ZCACHE_STAT_STORED, -1);
	kmem_cache_free(zcache_entry_cache, e);
}

static void zcache_entry_put(struct zcache_pool *pool, struct zcache_entry *e)
{
	if (refcount_dec_and_test(&e->ref))
		zcache_entry_free(pool, e);
}

static struct zcache_obj *__zcache_obj_find(struct zcache_bucket *b, u64 oid)
{
	struct rb_node *n = b->objs.rb_node;
	struct zcache_obj *obj;

	lockdep_assert_held(&b->lock);
	while (n) {
		obj = rb_entry(n, struct zcache_obj, node);
		if (oid < obj->oid)
			n = n->rb_left;
		else if (oid > obj->oid)
			n = n->rb_right;
		else
			return obj;
	}
	return NULL;
}

/* Finds or creates the object; NULL when the allocation fails. */
static struct zcache_obj *__zcache_obj_get(struct zcache_bucket *b, u64 oid)
{
	struct rb_node **link = &b->objs.rb_node, *parent = NULL;
	struct zcache_obj *obj;

	lockdep_assert_held(&b->lock);
	while (*link) {
		parent = *link;
		obj = rb_entry(parent, struct zcache_obj, node);
		if (oid < obj->oid)
			link = &parent->rb_left;
		else if (oid > obj->oid)
			link = &parent->rb_right;
		else
			return obj;
	}
	obj = kmalloc(sizeof(*obj), ZCACHE_GFP);
	if (!obj)
		return NULL;
	obj->oid = oid;
	xa_init(&obj->pages);
	rb_link_node(&obj->node, parent, link);
	rb_insert_color(&obj->node, &b->objs);
	return obj;
}

static void __zcache_obj_put_if_empty(struct zcache_bucket *b,
				      struct zcache_obj *obj)
{
	lockdep_assert_held(&b->lock);
	if (!xa_empty(&obj->pages))
		return;
	rb_erase(&obj->node, &b->objs);
	xa_destroy(&obj->pages);
	kfree(obj);
}

static void zcache_lru_del(struct zcache_pool *pool, struct zcache_entry *e)
{
	unsigned long flags;

	if (pool->kind != ZCACHE_POOL_PERSISTENT)
		return;
	spin_lock_irqsave(&pool->lru_lock, flags);
	list_del_init(&e->lru);
	spin_unlock_irqrestore(&pool->lru_lock, flags);
}

/*
 * Removes @e from the index (and the LRU).  The caller then drops the
 * index's reference.  Bucket lock held.
 */
static void __zcache_unlink(struct zcache_pool *pool, struct zcache_bucket *b,
			    struct zcache_obj *obj, struct zcache_entry *e)
{
	lockdep_assert_held(&b->lock);
	xa_erase(&obj->pages, e->index);
	zcache_lru_del(pool, e);
	__zcache_obj_put_if_empty(b, obj);
}

/* Removes the key from the index; returns its entry (a reference) or NULL. */
static struct zcache_entry *zcache_unlink_key(struct zcache_pool *pool,
					      u64 oid, pgoff_t index)
{
	struct zcache_bucket *b = zcache_bucket(pool, oid);
	struct zcache_entry *e = NULL;
	struct zcache_obj *obj;
	unsigned long flags;

	spin_lock_irqsave(&b->lock, flags);
	obj = __zcache_obj_find(b, oid);
	if (obj)
		e = xa_load(&obj->pages, index);
	if (e)
		__zcache_unlink(pool, b, obj, e);
	spin_unlock_irqrestore(&b->lock, flags);
	return e;
}

/* Removes @e from the index if it is still there; true if it was. */
static bool zcache_unlink_entry(struct zcache_pool *pool,
				struct zcache_entry *e)
{
	struct zcache_bucket *b = zcache_bucket(pool, e->oid);
	struct zcache_obj *obj;
	bool unlinked = false;
	unsigned long flags;

	spin_lock_irqsave(&b->lock, flags);
	obj = __zcache_obj_find(b, e->oid);
	if (obj && xa_load(&obj->pages, e->index) == e) {
		__zcache_unlink(pool, b, obj, e);
		unlinked = true;
	}
	spin_unlock_irqrestore(&b->lock, flags);
	return unlinked;
}

/* Decompresses @e into @page.  The caller holds a reference on @e. */
static int zcache_entry_decompress(struct zcache_pool *pool,
				   struct zcache_entry *e, struct page *page)
{
	struct zcache_comp_ctx *ctx;
	const void *src;
	void *dst;
	int err;

	dst = zc_kmap_local(page);
	if (!e->length) {
		zcache_fill_page(dst, e->handle);
		zc_kunmap_local(dst);
		return 0;
	}
	ctx = zcache_comp_get(pool->irqsafe);
	src = pool->alloc->read_begin(pool->apool, e->handle, ctx->copy);
	err = zcache_comp_decompress(ctx, e->comp, src, e->length, dst);
	pool->alloc->read_end(pool->apool, e->handle, src);
	zcache_comp_put(ctx);
	zc_kunmap_local(dst);
	return err;
}

static unsigned long zcache_evict(struct zcache_pool *pool, unsigned long nr);

/********************************
 * pools
 ********************************/
/**
 * zcache_pool_create - a new tmem pool
 * @kind: ZCACHE_POOL_PERSISTENT (zcsmalloc) or ZCACHE_POOL_EPHEMERAL (zbud)
 * @name: for statistics and debugfs
 * @ops: ->writeback, or NULL (then a full pool refuses stores)
 * @owner: passed back to @ops
 *
 * Context: process, sleeps.  Returns NULL on failure.
 */
struct zcache_pool *zcache_pool_create(enum zcache_pool_kind kind,
				       const char *name,
				       const struct zcache_pool_ops *ops,
				       void *owner)
{
	struct zcache_pool *pool;
	unsigned int i;

	if (kind != ZCACHE_POOL_PERSISTENT && kind != ZCACHE_POOL_EPHEMERAL)
		return NULL;
	pool = kzalloc(sizeof(*pool), GFP_KERNEL);
	if (!pool)
		return NULL;
	pool->kind = kind;
	strscpy(pool->name, name ? name : "zcache", sizeof(pool->name));
	pool->ops = ops;
	pool->owner = owner;
	pool->alloc = kind == ZCACHE_POOL_PERSISTENT ? &zcache_alloc_zcsmalloc :
						       &zcache_alloc_zbud;
	pool->irqsafe = kind == ZCACHE_POOL_EPHEMERAL;
	pool->apool = pool->alloc->create(pool->name);
	if (!pool->apool) {
		kfree(pool);
		return NULL;
	}
	for (i = 0; i < ZCACHE_NR_BUCKETS; i++) {
		spin_lock_init(&pool->buckets[i].lock);
		pool->buckets[i].objs = RB_ROOT;
	}
	spin_lock_init(&pool->lru_lock);
	INIT_LIST_HEAD(&pool->lru);
	mutex_init(&pool->wb_mutex);
	init_waitqueue_head(&pool->wb_wait);
	atomic_set(&pool->users, 1);
	init_completion(&pool->gone);

	mutex_lock(&zcache_pools_mutex);
	pool->id = zcache_pools_next_id++;
	list_add_tail_rcu(&pool->list, &zcache_pools);
	zcache_pools_nr++;
	mutex_unlock(&zcache_pools_mutex);
	return pool;
}

static void zcache_pool_put(struct zcache_pool *pool)
{
	if (atomic_dec_and_test(&pool->users))
		complete(&pool->gone);
}

/* Frees the entries of a detached object.  No lock held. */
static unsigned long zcache_obj_free(struct zcache_pool *pool,
				     struct zcache_obj *obj)
{
	struct zcache_entry *e;
	unsigned long index, n = 0;

	xa_for_each(&obj->pages, index, e) {
		zcache_lru_del(pool, e);
		zcache_entry_put(pool, e);
		n++;
	}
	xa_destroy(&obj->pages);
	kfree(obj);
	return n;
}

/**
 * zcache_invalidate_pool - drop every page of @pool
 * @pool: the pool (NULL: nothing)
 *
 * Context: process, may sleep.
 */
void zcache_invalidate_pool(struct zcache_pool *pool)
{
	struct zcache_bucket *b;
	struct zcache_obj *obj;
	unsigned long flags;
	struct rb_node *n;
	unsigned int i;

	if (!pool)
		return;
	for (i = 0; i < ZCACHE_NR_BUCKETS; i++) {
		b = &pool->buckets[i];
		for (;;) {
			spin_lock_irqsave(&b->lock, flags);
			n = rb_first(&b->objs);
			obj = n ? rb_entry(n, struct zcache_obj, node) : NULL;
			if (obj)
				rb_erase(&obj->node, &b->objs);
			spin_unlock_irqrestore(&b->lock, flags);
			if (!obj)
				break;
			zcache_stat_add(pool, ZCACHE_STAT_INVALIDATES,
					zcache_obj_free(pool, obj));
			cond_resched();
		}
	}
}

/**
 * zcache_pool_destroy - free a pool and every page in it
 * @pool: the pool (NULL: nothing)
 *
 * Waits for a write-back of the pool in progress.  Context: process.
 */
void zcache_pool_destroy(struct zcache_pool *pool)
{
	if (!pool)
		return;
	mutex_lock(&zcache_pools_mutex);
	list_del_rcu(&pool->list);
	zcache_pools_nr--;
	mutex_unlock(&zcache_pools_mutex);
	synchronize_rcu();
	zcache_pool_put(pool);
	wait_for_completion(&pool->gone);
	mutex_lock(&pool->wb_mutex);
	mutex_unlock(&pool->wb_mutex);

	zcache_invalidate_pool(pool);
	pool->alloc->destroy(pool->apool);
	mutex_destroy(&pool->wb_mutex);
	kfree(pool);
}

const char *zcache_pool_name(struct zcache_pool *pool)
{
	return pool->name;
}

static void zcache_counters_read(struct zcache_counters *c,
				 struct zcache_stats *s)
{
	s->stored_pages = atomic64_read(&c->v[ZCACHE_STAT_STORED]);
	s->same_filled_pages = atomic64_read(&c->v[ZCACHE_STAT_SAME]);
	s->raw_pages = atomic64_read(&c->v[ZCACHE_STAT_RAW]);
	s->compressed_bytes = atomic64_read(&c->v[ZCACHE_STAT_COMP_BYTES]);
	s->stores = atomic64_read(&c->v[ZCACHE_STAT_STORES]);
	s->loads = atomic64_read(&c->v[ZCACHE_STAT_LOADS]);
	s->load_misses = atomic64_read(&c->v[ZCACHE_STAT_LOAD_MISSES]);
	s->invalidates = atomic64_read(&c->v[ZCACHE_STAT_INVALIDATES]);
	s->reject_poor_compression = atomic64_read(&c->v[ZCACHE_STAT_REJ_POOR]);
	s->reject_pool_limit = atomic64_read(&c->v[ZCACHE_STAT_REJ_LIMIT]);
	s->reject_alloc_fail = atomic64_read(&c->v[ZCACHE_STAT_REJ_ALLOC]);
	s->reject_compressor = atomic64_read(&c->v[ZCACHE_STAT_REJ_COMP]);
	s->reject_disabled = atomic64_read(&c->v[ZCACHE_STAT_REJ_DISABLED]);
	s->written_back = atomic64_read(&c->v[ZCACHE_STAT_WB]);
	s->writeback_failed = atomic64_read(&c->v[ZCACHE_STAT_WB_FAILED]);
	s->writeback_raced = atomic64_read(&c->v[ZCACHE_STAT_WB_RACED]);
	s->evicted = atomic64_read(&c->v[ZCACHE_STAT_EVICTED]);
	s->duplicate = atomic64_read(&c->v[ZCACHE_STAT_DUPLICATE]);
}

/**
 * zcache_pool_stats - a snapshot of @pool's counters
 * @pool: the pool
 * @stats: filled in
 *
 * Context: any.
 */
void zcache_pool_stats(struct zcache_pool *pool, struct zcache_stats *stats)
{
	zcache_counters_read(&pool->stats, stats);
	stats->pool_pages = zcache_pool_pages(pool);
}

/**
 * zcache_global_stats - a snapshot of all pools' counters
 * @stats: filled in
 *
 * Context: any.
 */
void zcache_global_stats(struct zcache_stats *stats)
{
	zcache_counters_read(&zcache_global, stats);
	stats->pool_pages = zcache_total_pages();
}

/* Counts a store a front end refused because it is switched off. */
void zcache_count_disabled(struct zcache_pool *pool)
{
	zcache_stat_inc(pool, ZCACHE_STAT_REJ_DISABLED);
}

/********************************
 * store, load, invalidate
 ********************************/
/*
 * The steps of a store: room (the pool limit), same-filled, compress,
 * allocate, insert.  Each counts its own reject and returns the store's
 * error; zcache_store() unwinds in one place.
 */
static struct zcache_entry *zcache_entry_new(u64 oid, pgoff_t index)
{
	struct zcache_entry *e = kmem_cache_alloc(zcache_entry_cache,
						  ZCACHE_GFP);

	if (!e)
		return NULL;
	INIT_LIST_HEAD(&e->lru);
	e->oid = oid;
	e->index = index;
	e->handle = 0;
	e->comp = ZCACHE_COMP_NONE;
	e->length = 0;
	refcount_set(&e->ref, 1);
	return e;
}

/*
 * At the limit, a pool whose allocator evicts (ephemeral) makes room by
 * dropping its coldest frame: it stays a full LRU cache.  Others refuse,
 * and kick the shrink worker when some pool can give frames back.
 */
static int zcache_store_room(struct zcache_pool *pool)
{
	bool shrinkable;

	if (!zcache_limit_hit(&shrinkable))
		return 0;
	if (pool->alloc->evict && zcache_evict(pool, 1))
		return 0;
	zcache_stat_inc(pool, ZCACHE_STAT_REJ_LIMIT);
	if (shrinkable)
		zcache_kick_shrink();
	return -ENOSPC;
}

/* True when the page repeats one word: @e then holds just that word. */
static bool zcache_store_same(struct zcache_entry *e, const void *src)
{
	return READ_ONCE(zcache_same_filled_pages) &&
	       zcache_page_same_filled(src, &e->handle);
}

/*
 * Compresses @src into ctx->buf and sets e->length and e->comp; *@out is
 * what the allocator gets: the compressed bytes, or @src itself for a
 * pool that keeps poorly compressing pages raw.
 */
static int zcache_store_compress(struct zcache_pool *pool,
				 struct zcache_entry *e,
				 struct zcache_comp_ctx *ctx, const void *src,
				 const void **out)
{
	unsigned int dlen;
	u8 comp;

	if (zcache_comp_compress(ctx, src, &dlen, &comp)) {
		zcache_stat_inc(pool, ZCACHE_STAT_REJ_COMP);
		return -EIO;
	}
	if (dlen && dlen <= pool->alloc->max_size &&
	    dlen <= PAGE_SIZE * READ_ONCE(zcache_poor_compression_percent) / 100) {
		*out = ctx->buf;
		e->length = dlen;
		e->comp = comp;
		return 0;
	}
	if (!zcache_pool_keeps_raw(pool)) {
		zcache_stat_inc(pool, ZCACHE_STAT_REJ_POOR);
		return -E2BIG;
	}
	/* Nowhere else to go: keep it as it is. */
	*out = src;
	e->length = PAGE_SIZE;
	e->comp = ZCACHE_COMP_RAW;
	return 0;
}

/*
 * Room in the allocator for e->length bytes of @data.  From here on the
 * allocator may hand @e to an eviction (zcache_evict_grab()): @e is only
 * ever released by zcache_entry_put().
 */
static int zcache_store_alloc(struct zcache_pool *pool,
			      struct zcache_entry *e, const void *data)
{
	unsigned long handle;

	if (pool->alloc->malloc(pool->apool, e->length, ZCACHE_GFP,
				(unsigned long)e, &handle)) {
		zcache_stat_inc(pool, ZCACHE_STAT_REJ_ALLOC);
		return -ENOMEM;
	}
	pool->alloc->write(pool->apool, handle, data, e->length);
	e->handle = handle;
	return 0;
}

/* The "now" counters of a stored entry; zcache_entry_free() undoes them. */
static void zcache_entry_account(struct zcache_pool *pool,
				 struct zcache_entry *e)
{
	zcache_stat_inc(pool, ZCACHE_STAT_STORED);
	if (!e->length) {
		zcache_stat_inc(pool, ZCACHE_STAT_SAME);
		return;
	}
	zcache_stat_add(pool, ZCACHE_STAT_COMP_BYTES, e->length);
	if (e->comp == ZCACHE_COMP_RAW)
		zcache_stat_inc(pool, ZCACHE_STAT_RAW);
}

/* Puts @e in the index; a concurrent store of the same key: last wins. */
static int zcache_store_insert(struct zcache_pool *pool,
			       struct zcache_entry *e)
{
	struct zcache_bucket *b = zcache_bucket(pool, e->oid);
	struct zcache_entry *old;
	struct zcache_obj *obj;
	unsigned long flags;

	spin_lock_irqsave(&b->lock, flags);
	obj = __zcache_obj_get(b, e->oid);
	old = obj ? xa_store(&obj->pages, e->index, e, ZCACHE_GFP) : NULL;
	if (!obj || xa_is_err(old)) {
		if (obj)
			__zcache_obj_put_if_empty(b, obj);
		spin_unlock_irqrestore(&b->lock, flags);
		zcache_stat_inc(pool, ZCACHE_STAT_REJ_ALLOC);
		return -ENOMEM;
	}
	if (old)
		zcache_lru_del(pool, old);
	if (pool->kind == ZCACHE_POOL_PERSISTENT) {
		spin_lock(&pool->lru_lock);
		list_add(&e->lru, &pool->lru);
		spin_unlock(&pool->lru_lock);
	}
	spin_unlock_irqrestore(&b->lock, flags);
	if (old) {
		zcache_stat_inc(pool, ZCACHE_STAT_DUPLICATE);
		zcache_entry_put(pool, old);
	}
	return 0;
}

/**
 * zcache_store - store a compressed copy of @page under (@oid, @index)
 * @pool: the pool
 * @oid: object id
 * @index: page index in the object
 * @page: the page (not changed)
 *
 * A copy already stored under the key is dropped first, whatever the
 * result.  Returns 0, or -E2BIG (compresses too badly), -ENOSPC (pool
 * limit; shrinking has been kicked), -ENOMEM, -EIO (compressor error),
 * -EINVAL: the caller must then keep the page elsewhere.
 *
 * Context: any but hard irq, interrupts on or off; never sleeps.
 */
int zcache_store(struct zcache_pool *pool, u64 oid, pgoff_t index,
		 struct page *page)
{
	struct zcache_comp_ctx *ctx;
	struct zcache_entry *e, *old;
	const void *out;
	void *src;
	int err;

	if (!pool || !page)
		return -EINVAL;

	old = zcache_unlink_key(pool, oid, index);
	if (old) {
		zcache_stat_inc(pool, ZCACHE_STAT_DUPLICATE);
		zcache_entry_put(pool, old);
	}

	e = zcache_entry_new(oid, index);
	if (!e) {
		zcache_stat_inc(pool, ZCACHE_STAT_REJ_ALLOC);
		return -ENOMEM;
	}
	src = zc_kmap_local(page);
	if (zcache_store_same(e, src)) {
		err = 0;
	} else {
		ctx = zcache_comp_get(pool->irqsafe);
		err = zcache_store_room(pool);
		if (!err)
			err = zcache_store_compress(pool, e, ctx, src, &out);
		if (!err)
			err = zcache_store_alloc(pool, e, out);
		zcache_comp_put(ctx);
	}
	zc_kunmap_local(src);
	if (err) {
		/* Not allocated: no one else can know @e. */
		kmem_cache_free(zcache_entry_cache, e);
		return err;
	}

	zcache_entry_account(pool, e);
	err = zcache_store_insert(pool, e);
	if (err) {
		/*
		 * Allocated: an eviction may hold a reference already, so
		 * drop ours; the last one frees the entry and its handle.
		 */
		zcache_entry_put(pool, e);
		return err;
	}
	zcache_stat_inc(pool, ZCACHE_STAT_STORES);
	return 0;
}

/**
 * zcache_load - copy the page stored under (@oid, @index) into @page
 * @pool: the pool
 * @oid: object id
 * @index: page index
 * @page: destination
 * @invalidate: drop the key after a successful load
 *
 * Returns 0, -ENOENT (not stored), -EIO (stored data does not decompress:
 * the key is dropped), -EINVAL.
 *
 * Context: any but hard irq; never sleeps.
 */
int zcache_load(struct zcache_pool *pool, u64 oid, pgoff_t index,
		struct page *page, bool invalidate)
{
	struct zcache_bucket *b;
	struct zcache_entry *e = NULL;
	struct zcache_obj *obj;
	unsigned long flags;
	int err;

	if (!pool || !page)
		return -EINVAL;
	b = zcache_bucket(pool, oid);
	spin_lock_irqsave(&b->lock, flags);
	obj = __zcache_obj_find(b, oid);
	if (obj)
		e = xa_load(&obj->pages, index);
	if (!e) {
		spin_unlock_irqrestore(&b->lock, flags);
		zcache_stat_inc(pool, ZCACHE_STAT_LOAD_MISSES);
		return -ENOENT;
	}
	if (invalidate) {
		/* The index's reference becomes ours. */
		__zcache_unlink(pool, b, obj, e);
	} else {
		refcount_inc(&e->ref);
		if (pool->kind == ZCACHE_POOL_PERSISTENT) {
			spin_lock(&pool->lru_lock);
			/* Not on the LRU: being written back, leave it. */
			if (!list_empty(&e->lru))
				list_move(&e->lru, &pool->lru);
			spin_unlock(&pool->lru_lock);
		}
	}
	spin_unlock_irqrestore(&b->lock, flags);

	err = zcache_entry_decompress(pool, e, page);
	if (err) {
		pr_err_ratelimited("pool %s: page %llu:%lu does not decompress (%d)\n",
				   pool->name, oid, index, err);
		if (!invalidate && zcache_unlink_entry(pool, e))
			zcache_entry_put(pool, e);
		zcache_entry_put(pool, e);
		return -EIO;
	}
	zcache_entry_put(pool, e);
	zcache_stat_inc(pool, ZCACHE_STAT_LOADS);
	if (invalidate)
		zcache_stat_inc(pool, ZCACHE_STAT_INVALIDATES);
	return 0;
}

/**
 * zcache_invalidate - drop the page stored under (@oid, @index), if any
 * @pool: the pool (NULL: nothing)
 * @oid: object id
 * @index: page index
 *
 * Context: any but hard irq; never sleeps.
 */
void zcache_invalidate(struct zcache_pool *pool, u64 oid, pgoff_t index)
{
	struct zcache_entry *e;

	if (!pool)
		return;
	e = zcache_unlink_key(pool, oid, index);
	if (!e)
		return;
	zcache_stat_inc(pool, ZCACHE_STAT_INVALIDATES);
	zcache_entry_put(pool, e);
}

/**
 * zcache_invalidate_object - drop every page of object @oid
 * @pool: the pool (NULL: nothing)
 * @oid: object id
 *
 * Context: any but hard irq; never sleeps.
 */
void zcache_invalidate_object(struct zcache_pool *pool, u64 oid)
{
	struct zcache_bucket *b;
	struct zcache_obj *obj;
	unsigned long flags;

	if (!pool)
		return;
	b = zcache_bucket(pool, oid);
	spin_lock_irqsave(&b->lock, flags);
	obj = __zcache_obj_find(b, oid);
	if (obj)
		rb_erase(&obj->node, &b->objs);
	spin_unlock_irqrestore(&b->lock, flags);
	if (obj)
		zcache_stat_add(pool, ZCACHE_STAT_INVALIDATES,
				zcache_obj_free(pool, obj));
}

/********************************
 * write-back and eviction
 ********************************/
static bool zcache_wb_busy(struct zcache_pool *pool, u64 oid, pgoff_t index)
{
	unsigned long flags;
	bool busy;

	spin_lock_irqsave(&pool->lru_lock, flags);
	busy = pool->wb_active && pool->wb_oid == oid &&
	       pool->wb_index == index;
	spin_unlock_irqrestore(&pool->lru_lock, flags);
	return busy;
}

/**
 * zcache_writeback_wait - wait until (@oid, @index) is not being written back
 * @pool: the pool
 * @oid: object id
 * @index: page index
 *
 * Context: process, sleeps.
 */
void zcache_writeback_wait(struct zcache_pool *pool, u64 oid, pgoff_t index)
{
	if (!pool)
		return;
	wait_event(pool->wb_wait, !zcache_wb_busy(pool, oid, index));
}

/*
 * Writes back the coldest entry.  Returns 1 when one was written back and
 * freed, 0 when one was tried without freeing anything, -ENOENT when the
 * LRU is empty.  Under pool->wb_mutex.
 */
static int zcache_writeback_one(struct zcache_pool *pool, struct page *page)
{
	struct zcache_bucket *b;
	struct zcache_entry *e, *cur = NULL;
	struct zcache_obj *obj;
	bool unlinked = false;
	unsigned long flags;
	int err;

	lockdep_assert_held(&pool->wb_mutex);
	spin_lock_irqsave(&pool->lru_lock, flags);
	if (list_empty(&pool->lru)) {
		spin_unlock_irqrestore(&pool->lru_lock, flags);
		return -ENOENT;
	}
	e = list_last_entry(&pool->lru, struct zcache_entry, lru);
	refcount_inc(&e->ref);
	list_del_init(&e->lru);
	pool->wb_active = true;
	pool->wb_oid = e->oid;
	pool->wb_index = e->index;
	spin_unlock_irqrestore(&pool->lru_lock, flags);

	err = zcache_entry_decompress(pool, e, page);
	if (!err)
		err = pool->ops->writeback(pool, pool->owner, e->oid, e->index,
					   page);

	b = zcache_bucket(pool, e->oid);
	spin_lock_irqsave(&b->lock, flags);
	obj = __zcache_obj_find(b, e->oid);
	if (obj)
		cur = xa_load(&obj->pages, e->index);
	if (cur == e && !err) {
		__zcache_unlink(pool, b, obj, e);
		unlinked = true;
	} else if (cur == e) {
		/* Keep it, warm, so that the next attempt tries another. */
		spin_lock(&pool->lru_lock);
		list_add(&e->lru, &pool->lru);
		spin_unlock(&pool->lru_lock);
	}
	spin_unlock_irqrestore(&b->lock, flags);

	spin_lock_irqsave(&pool->lru_lock, flags);
	pool->wb_active = false;
	spin_unlock_irqrestore(&pool->lru_lock, flags);
	wake_up_all(&pool->wb_wait);

	if (err)
		zcache_stat_inc(pool, ZCACHE_STAT_WB_FAILED);
	else if (unlinked)
		zcache_stat_inc(pool, ZCACHE_STAT_WB);
	else
		zcache_stat_inc(pool, ZCACHE_STAT_WB_RACED);
	if (unlinked)
		zcache_entry_put(pool, e);
	zcache_entry_put(pool, e);
	return unlinked ? 1 : 0;
}

static long __zcache_pool_writeback(struct zcache_pool *pool,
				    unsigned long nr, struct page *page)
{
	unsigned long tried;
	long done = 0;
	int ret;

	mutex_lock(&pool->wb_mutex);
	for (tried = 0; tried < nr && !READ_ONCE(pool->wb_off); tried++) {
		ret = zcache_writeback_one(pool, page);
		if (ret < 0)
			break;
		done += ret;
		cond_resched();
	}
	mutex_unlock(&pool->wb_mutex);
	return done;
}

/**
 * zcache_pool_writeback - write back up to @nr of the coldest pages now
 * @pool: a persistent pool with ->writeback
 * @nr: how many pages to try
 *
 * Returns how many were written back and freed (0 while the owner has
 * write-back off, zcache_pool_set_writeback()), -EOPNOTSUPP (no
 * ->writeback) or -ENOMEM.  Context: process, sleeps.
 */
long zcache_pool_writeback(struct zcache_pool *pool, unsigned long nr)
{
	struct page *page;
	long done;

	if (!pool || pool->kind != ZCACHE_POOL_PERSISTENT ||
	    !pool->ops || !pool->ops->writeback)
		return -EOPNOTSUPP;
	if (READ_ONCE(pool->wb_off))
		return 0;
	page = alloc_page(GFP_KERNEL);
	if (!page)
		return -ENOMEM;
	done = __zcache_pool_writeback(pool, nr, page);
	__free_page(page);
	return done;
}

/**
 * zcache_pool_set_writeback - the owner allows write-back now, or not
 * @pool: the pool
 * @on: false: neither the shrink worker nor zcache_pool_writeback()
 *	decompresses a page of @pool for ->writeback until it is true again
 *	(a full pool then refuses stores); a write-back in progress ends
 *	after its current page
 *
 * Cheap (one flag); any context.  Pools start with write-back on.
 */
void zcache_pool_set_writeback(struct zcache_pool *pool, bool on)
{
	if (pool)
		WRITE_ONCE(pool->wb_off, !on);
}

struct zcache_evict_batch {
	struct zcache_entry *e[2];
	int n;
};

/* Under the allocator's lock: the entry's memory is valid, maybe dying. */
static bool zcache_evict_grab(unsigned long priv, void *arg)
{
	struct zcache_evict_batch *batch = arg;
	struct zcache_entry *e = (struct zcache_entry *)priv;

	if (batch->n >= ARRAY_SIZE(batch->e) || !refcount_inc_not_zero(&e->ref))
		return false;
	batch->e[batch->n++] = e;
	return true;
}

/*
 * Evicts up to @nr frames of an allocator with ->evict, coldest first.
 * Returns the entries dropped.  Any context but hard irq.
 */
static unsigned long zcache_evict(struct zcache_pool *pool, unsigned long nr)
{
	struct zcache_evict_batch batch;
	unsigned long done = 0;
	int i;

	if (!pool->alloc->evict)
		return 0;
	while (nr--) {
		batch.n = 0;
		if (pool->alloc->evict(pool->apool, zcache_evict_grab,
				       &batch) < 0)
			break;
		for (i = 0; i < batch.n; i++) {
			struct zcache_entry *e = batch.e[i];

			if (zcache_unlink_entry(pool, e)) {
				zcache_stat_inc(pool, ZCACHE_STAT_EVICTED);
				zcache_entry_put(pool, e);
				done++;
			}
			zcache_entry_put(pool, e);
		}
	}
	return done;
}

#define ZCACHE_SHRINK_POOLS	32
#define ZCACHE_SHRINK_BATCH	32
#define ZCACHE_SHRINK_BACKLOG	(8 * ZCACHE_SHRINK_BATCH)

/*
 * Takes a reference on up to ZCACHE_SHRINK_POOLS pools listed after the
 * one with id *@cursor (ids grow along the list) and moves the cursor:
 * called until it returns fewer, it visits every pool.
 */
static int zcache_pools_snapshot(struct zcache_pool **snap, u64 *cursor)
{
	struct zcache_pool *pool;
	int n = 0;

	mutex_lock(&zcache_pools_mutex);
	list_for_each_entry(pool, &zcache_pools, list) {
		if (pool->id <= *cursor)
			continue;
		if (n == ZCACHE_SHRINK_POOLS)
			break;
		atomic_inc(&pool->users);
		snap[n++] = pool;
		*cursor = pool->id;
	}
	mutex_unlock(&zcache_pools_mutex);
	return n;
}

/* Step 0: evict from ephemeral pools; step 1: write back persistent ones. */
static unsigned long zcache_shrink_pool(struct zcache_pool *pool, int step,
					struct page *page)
{
	long ret;

	if (step == 0)
		return zcache_evict(pool, ZCACHE_SHRINK_BATCH);
	if (!page || pool->kind != ZCACHE_POOL_PERSISTENT ||
	    !zcache_pool_can_writeback(pool))
		return 0;
	ret = __zcache_pool_writeback(pool, ZCACHE_SHRINK_BATCH, page);
	if (ret <= 0)
		return 0;
	/* Freed objects free page frames once packed. */
	if (pool->alloc->compact)
		pool->alloc->compact(pool->apool);
	return ret;
}

/*
 * One shrink pass over every pool: ephemeral pages go first (clean page
 * cache is cheap to drop), then, if that freed nothing, the coldest
 * persistent pages of the first pool that can write any back.
 */
static unsigned long zcache_shrink_pass(struct page *page)
{
	struct zcache_pool *snap[ZCACHE_SHRINK_POOLS];
	unsigned long done = 0;
	int i, n, step;
	u64 cursor;

	for (step = 0; step < 2 && !done; step++) {
		cursor = 0;
		do {
			n = zcache_pools_snapshot(snap, &cursor);
			for (i = 0; i < n; i++) {
				if (step == 0 || !done)
					done += zcache_shrink_pool(snap[i], step,
								   page);
				zcache_pool_put(snap[i]);
			}
		} while (n == ZCACHE_SHRINK_POOLS);
	}
	return done;
}

static void zcache_shrink_work_fn(struct work_struct *work)
{
	struct page *page = alloc_page(GFP_KERNEL);
	unsigned long done;

	while (zcache_should_shrink()) {
		done = zcache_shrink_pass(page);
		if (!done) {
			atomic_long_set(&zcache_shrink_request, 0);
			break;
		}
		if (atomic_long_sub_return(done, &zcache_shrink_request) < 0)
			atomic_long_set(&zcache_shrink_request, 0);
		cond_resched();
	}
	if (page)
		__free_page(page);
}

static unsigned long zcache_shrinker_count(struct shrinker *s,
					   struct shrink_control *sc)
{
	unsigned long n = 0, wb = 0, floor = zcache_pressure_floor();
	struct zcache_pool *pool;

	rcu_read_lock();
	list_for_each_entry_rcu(pool, &zcache_pools, list) {
		if (pool->alloc->evict)
			n += zcache_pool_pages(pool);
		else if (zcache_pool_can_writeback(pool))
			wb += zcache_pool_pages(pool);
	}
	rcu_read_unlock();
	/* Page frames that can be given back: written-back ones above the floor. */
	return n + (wb > floor ? wb - floor : 0);
}

/*
 * Under memory pressure: ephemeral frames are dropped here and now; the
 * write-back of persistent pages (I/O) is left to the worker.
 */
static unsigned long zcache_shrinker_scan(struct shrinker *s,
					  struct shrink_control *sc)
{
	struct zcache_pool *pool;
	unsigned long freed = 0;

	rcu_read_lock();
	list_for_each_entry_rcu(pool, &zcache_pools, list) {
		if (freed >= sc->nr_to_scan)
			break;
		freed += zcache_evict(pool, sc->nr_to_scan / 2 + 1);
	}
	rcu_read_unlock();
	if (freed < sc->nr_to_scan) {
		/* A bounded backlog: the worker writes back in batches. */
		if (atomic_long_add_return(sc->nr_to_scan - freed,
					   &zcache_shrink_request) >
		    ZCACHE_SHRINK_BACKLOG)
			atomic_long_set(&zcache_shrink_request,
					ZCACHE_SHRINK_BACKLOG);
		zcache_kick_shrink();
	}
	return freed ? freed : SHRINK_STOP;
}

/********************************
 * parameters
 ********************************/
struct zcache_uint_param {
	unsigned int *val;
	unsigned int min, max;
};

static DEFINE_MUTEX(zcache_param_mutex);

static int zcache_param_uint_set(const char *val, const struct kernel_param *kp)
{
	const struct zcache_uint_param *p = kp->arg;
	unsigned int v;

	if (kstrtouint(val, 0, &v) || v < p->min || v > p->max) {
		pr_warn("%s: \"%.16s\" is not a number in %u..%u\n",
			kp->name, val, p->min, p->max);
		return -EINVAL;
	}
	mutex_lock(&zcache_param_mutex);
	WRITE_ONCE(*p->val, v);
	mutex_unlock(&zcache_param_mutex);
	/* A lower limit takes effect now: shrink down to it. */
	if (zcache_total_pages() >= zcache_limit_pages()) {
		WRITE_ONCE(zcache_full, true);
		zcache_kick_shrink();
	}
	return 0;
}

static int zcache_param_uint_get(char *buf, const struct kernel_param *kp)
{
	const struct zcache_uint_param *p = kp->arg;

	return sprintf(buf, "%u\n", READ_ONCE(*p->val));
}

static const struct kernel_param_ops zcache_param_uint_ops = {
	.set = zcache_param_uint_set,
	.get = zcache_param_uint_get,
};

/**
 * zcache_param_bool_set - a bool parameter, validated, under the mutex
 * @val: the text written
 * @kp: the parameter (->arg points to the bool)
 *
 * Shared with the front ends.
 */
int zcache_param_bool_set(const char *val, const struct kernel_param *kp)
{
	bool v;

	if (!val || kstrtobool(val, &v)) {
		pr_warn("%s: \"%.16s\" is not a boolean (Y/N/1/0)\n",
			kp->name, val ? val : "");
		return -EINVAL;
	}
	mutex_lock(&zcache_param_mutex);
	WRITE_ONCE(*(bool *)kp->arg, v);
	mutex_unlock(&zcache_param_mutex);
	return 0;
}

const struct kernel_param_ops zcache_param_bool_ops = {
	.set = zcache_param_bool_set,
	.get = param_get_bool,
};

static struct zcache_uint_param zcache_max_pool_param = {
	&zcache_max_pool_percent, 1, 90,
};

static struct zcache_uint_param zcache_accept_param = {
	&zcache_accept_threshold_percent, 1, 100,
};

static struct zcache_uint_param zcache_poor_param = {
	&zcache_poor_compression_percent, 10, 100,
};

module_param_cb(max_pool_percent, &zcache_param_uint_ops,
		&zcache_max_pool_param, 0644);
MODULE_PARM_DESC(max_pool_percent, "all pools together at most this percent of RAM (1..90, default 20)");
module_param_cb(accept_threshold_percent, &zcache_param_uint_ops,
		&zcache_accept_param, 0644);
MODULE_PARM_DESC(accept_threshold_percent, "after the limit is hit, accept again below this percent of it (1..100, default 90)");
module_param_cb(poor_compression_percent, &zcache_param_uint_ops,
		&zcache_poor_param, 0644);
MODULE_PARM_DESC(poor_compression_percent, "refuse pages compressing to more than this percent of a page (10..100, default 75)");
module_param_cb(same_filled_pages, &zcache_param_bool_ops,
		&zcache_same_filled_pages, 0644);
MODULE_PARM_DESC(same_filled_pages, "store pages repeating one word as that word (default Y)");

/**
 * zcache_test_set_limit_pages - test hook: the pool limit in pages
 * @pages: the limit, 0 to go back to max_pool_percent
 *
 * Returns the previous override.
 */
unsigned long zcache_test_set_limit_pages(unsigned long pages)
{
	unsigned long old = xchg(&zcache_limit_override, pages);

	WRITE_ONCE(zcache_full, false);
	return old;
}

/**
 * zcache_shrink_sync - run the shrink worker now and wait for it
 *
 * For the self-test.  Context: process, sleeps.
 */
void zcache_shrink_sync(void)
{
	zcache_kick_shrink();
	flush_work(&zcache_shrink_work);
}

/********************************
 * debugfs helper
 ********************************/
void zcache_pools_show(struct seq_file *m)
{
	struct zcache_pool *pool;
	struct zcache_stats s;

	seq_printf(m, "%-24s %-10s %-10s %10s %10s %12s %10s %10s %10s %10s\n",
		   "pool", "kind", "allocator", "stored", "same", "comp_bytes", "pages",
		   "wb", "evicted", "rej_limit");
	mutex_lock(&zcache_pools_mutex);
	list_for_each_entry(pool, &zcache_pools, list) {
		zcache_pool_stats(pool, &s);
		seq_printf(m, "%-24s %-10s %-10s %10llu %10llu %12llu %10llu %10llu %10llu %10llu\n",
			   pool->name,
			   pool->kind == ZCACHE_POOL_PERSISTENT ?
			   "persistent" : "ephemeral", pool->alloc->name,
			   s.stored_pages, s.same_filled_pages,
			   s.compressed_bytes, s.pool_pages, s.written_back,
			   s.evicted, s.reject_pool_limit);
	}
	mutex_unlock(&zcache_pools_mutex);
}

/********************************
 * init
 ********************************/
int zcache_tmem_init(void)
{
	zcache_entry_cache = KMEM_CACHE(zcache_entry, 0);
	if (!zcache_entry_cache)
		return -ENOMEM;
	zcache_shrink_wq = alloc_workqueue("zcache_shrink",
					   WQ_UNBOUND | WQ_MEM_RECLAIM, 1);
	if (!zcache_shrink_wq) {
		kmem_cache_destroy(zcache_entry_cache);
		return -ENOMEM;
	}
	INIT_WORK(&zcache_shrink_work, zcache_shrink_work_fn);
	zcache_shrinker = zc_shrinker_create("zcache", zcache_shrinker_count,
					     zcache_shrinker_scan, NULL);
	if (!zcache_shrinker)
		pr_warn("no shrinker: pools shrink only at their limit\n");
	WRITE_ONCE(zcache_tmem_ready, true);
	return 0;
}

void zcache_tmem_exit(void)
{
	/*
	 * Module exit runs before the parameters' sysfs files go: a write
	 * may be running now.  It holds the module's parameter lock; after
	 * this section no write can queue the worker again.
	 */
	kernel_param_lock(THIS_MODULE);
	WRITE_ONCE(zcache_tmem_ready, false);
	kernel_param_unlock(THIS_MODULE);
	zc_shrinker_destroy(zcache_shrinker);
	cancel_work_sync(&zcache_shrink_work);
	destroy_workqueue(zcache_shrink_wq);
	WARN_ON(!list_empty(&zcache_pools));
	kmem_cache_destroy(zcache_entry_cache);
}
