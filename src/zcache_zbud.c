// SPDX-License-Identifier: GPL-2.0
/*
 * zbud for zcache's ephemeral pools: at most two
 * compressed objects ("buddies") per page frame, one packed at the start
 * of the frame after a small header, one packed at its end.
 *
 * Simple and predictable: a frame is freed as soon as both its buddies
 * are, so evicting a frame (dropping its two objects) gives back a whole
 * page at once, which is what an ephemeral cache wants under pressure.
 *
 * Frame layout (one order-0 lowmem page, address = handle & PAGE_MASK):
 *
 *   | header (1 chunk) | first buddy ... free ... last buddy |
 *
 * Sizes are counted in 64-byte chunks.  A handle is the frame's address
 * with bit 0 telling the buddy (0 first, 1 last).
 *
 * Lists (all under pool->lock, taken with interrupts saved: cleancache
 * stores and frees under the page cache's IRQ-safe i_pages lock):
 *   unbuddied[n]  frames with one buddy in use and n free chunks
 *   buddied       frames with both buddies in use
 *   lru           every frame not being evicted, most recently used first
 * A frame being evicted is on none of them; its last free releases it.
 */
#undef pr_fmt			/* compat.h's headers defined the default */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/list.h>
#include <linux/atomic.h>
#include "zcache_alloc.h"
#include "zcache_zbud.h"

#define ZCACHE_ZBUD_CHUNK_SHIFT	6
#define ZCACHE_ZBUD_CHUNK	(1UL << ZCACHE_ZBUD_CHUNK_SHIFT)
#define ZCACHE_ZBUD_NCHUNKS	(PAGE_SIZE >> ZCACHE_ZBUD_CHUNK_SHIFT)

/*
 * struct zcache_zbud_frame - header at the start of each frame
 * @buddy: link in an unbuddied list or the buddied list
 * @lru: link in the pool's LRU
 * @priv: the owner's value for each buddy (0: buddy free)
 * @chunks: size of each buddy in chunks (0: free)
 * @evicting: taken off the lists by eviction; freed with its last buddy
 */
struct zcache_zbud_frame {
	struct list_head buddy;
	struct list_head lru;
	unsigned long priv[2];
	unsigned short chunks[2];
	bool evicting;
};

#define ZCACHE_ZBUD_HDR_CHUNKS \
	DIV_ROUND_UP(sizeof(struct zcache_zbud_frame), ZCACHE_ZBUD_CHUNK)
#define ZCACHE_ZBUD_FREE_CHUNKS	(ZCACHE_ZBUD_NCHUNKS - ZCACHE_ZBUD_HDR_CHUNKS)

enum { ZCACHE_ZBUD_FIRST, ZCACHE_ZBUD_LAST };

/*
 * struct zcache_zbud_pool
 * @lock: guards every list and every frame header of the pool
 * @unbuddied: frames with one free buddy, by number of free chunks
 * @buddied: full frames
 * @lru: frames, most recently allocated from first
 * @pages: frames owned by the pool
 */
struct zcache_zbud_pool {
	spinlock_t lock;
	struct list_head unbuddied[ZCACHE_ZBUD_NCHUNKS];
	struct list_head buddied;
	struct list_head lru;
	atomic_long_t pages;
};

/* Frames in all zbud pools together. */
static atomic_long_t zcache_zbud_total = ATOMIC_LONG_INIT(0);

static struct zcache_zbud_frame *zcache_zbud_handle_frame(unsigned long handle)
{
	return (struct zcache_zbud_frame *)(handle & PAGE_MASK);
}

static unsigned int zcache_zbud_free_chunks(struct zcache_zbud_frame *f)
{
	return ZCACHE_ZBUD_FREE_CHUNKS - f->chunks[0] - f->chunks[1];
}

/**
 * zcache_zbud_max_size - the largest object a frame takes
 */
size_t zcache_zbud_max_size(void)
{
	return ZCACHE_ZBUD_FREE_CHUNKS * ZCACHE_ZBUD_CHUNK;
}

struct zcache_zbud_pool *zcache_zbud_create(void)
{
	struct zcache_zbud_pool *pool;
	unsigned int i;

	pool = kzalloc(sizeof(*pool), GFP_KERNEL);
	if (!pool)
		return NULL;
	spin_lock_init(&pool->lock);
	for (i = 0; i < ZCACHE_ZBUD_NCHUNKS; i++)
		INIT_LIST_HEAD(&pool->unbuddied[i]);
	INIT_LIST_HEAD(&pool->buddied);
	INIT_LIST_HEAD(&pool->lru);
	atomic_long_set(&pool->pages, 0);
	return pool;
}

/* The owner must have freed every object: frames left are reported. */
void zcache_zbud_destroy(struct zcache_zbud_pool *pool)
{
	if (!pool)
		return;
	WARN_ON(atomic_long_read(&pool->pages));
	kfree(pool);
}

/* Puts a frame with one used buddy on its unbuddied list.  Pool lock held. */
static void __zcache_zbud_file(struct zcache_zbud_pool *pool,
			       struct zcache_zbud_frame *f)
{
	lockdep_assert_held(&pool->lock);
	if (f->chunks[0] && f->chunks[1])
		list_add(&f->buddy, &pool->buddied);
	else
		list_add(&f->buddy,
			 &pool->unbuddied[zcache_zbud_free_chunks(f)]);
}

/**
 * zcache_zbud_alloc - room for an object of @size bytes
 * @pool: the pool
 * @size: 1 .. zcache_zbud_max_size()
 * @gfp: for a new frame (must not allow highmem)
 * @priv: the owner's value for this object, not 0 (eviction passes it back)
 * @handle: the object's handle
 *
 * Returns 0, -EINVAL (size) or -ENOMEM.  Never sleeps unless @gfp allows.
 */
int zcache_zbud_alloc(struct zcache_zbud_pool *pool, size_t size, gfp_t gfp,
		      unsigned long priv, unsigned long *handle)
{
	unsigned int chunks, i;
	struct zcache_zbud_frame *f = NULL;
	unsigned long flags;
	struct page *page;
	int bud;

	if (!size || size > zcache_zbud_max_size() || !priv)
		return -EINVAL;
	chunks = DIV_ROUND_UP(size, ZCACHE_ZBUD_CHUNK);

	spin_lock_irqsave(&pool->lock, flags);
	for (i = chunks; i < ZCACHE_ZBUD_NCHUNKS; i++) {
		f = list_first_entry_or_null(&pool->unbuddied[i],
					     struct zcache_zbud_frame, buddy);
		if (f)
			break;
	}
	if (f) {
		list_del(&f->buddy);
		bud = f->chunks[ZCACHE_ZBUD_FIRST] ? ZCACHE_ZBUD_LAST :
						     ZCACHE_ZBUD_FIRST;
		goto found;
	}
	spin_unlock_irqrestore(&pool->lock, flags);

	page = alloc_page(gfp & ~__GFP_HIGHMEM);
	if (!page)
		return -ENOMEM;
	f = page_address(page);
	memset(f, 0, sizeof(*f));
	INIT_LIST_HEAD(&f->buddy);
	INIT_LIST_HEAD(&f->lru);
	atomic_long_inc(&pool->pages);
	atomic_long_inc(&zcache_zbud_total);
	bud = ZCACHE_ZBUD_FIRST;
	spin_lock_irqsave(&pool->lock, flags);

found:
	f->chunks[bud] = chunks;
	f->priv[bud] = priv;
	__zcache_zbud_file(pool, f);
	list_move(&f->lru, &pool->lru);
	spin_unlock_irqrestore(&pool->lock, flags);
	*handle = (unsigned long)f | bud;
	return 0;
}

/**
 * zcache_zbud_free - free an object; frees its frame if the other buddy is
 * free too
 * @pool: the pool
 * @handle: from zcache_zbud_alloc()
 *
 * Context: any; never sleeps.
 */
void zcache_zbud_free(struct zcache_zbud_pool *pool, unsigned long handle)
{
	struct zcache_zbud_frame *f = zcache_zbud_handle_frame(handle);
	int bud = handle & 1;
	unsigned long flags;

	spin_lock_irqsave(&pool->lock, flags);
	WARN_ON_ONCE(!f->chunks[bud]);
	f->chunks[bud] = 0;
	f->priv[bud] = 0;
	if (!f->evicting)
		list_del(&f->buddy);
	if (!f->chunks[0] && !f->chunks[1]) {
		if (!f->evicting)
			list_del(&f->lru);
		spin_unlock_irqrestore(&pool->lock, flags);
		__free_page(virt_to_page(f));
		atomic_long_dec(&pool->pages);
		atomic_long_dec(&zcache_zbud_total);
		return;
	}
	if (!f->evicting)
		__zcache_zbud_file(pool, f);
	spin_unlock_irqrestore(&pool->lock, flags);
}

/**
 * zcache_zbud_map - the address of an object's bytes
 * @pool: the pool
 * @handle: from zcache_zbud_alloc()
 *
 * Frames are lowmem: the address stays valid until the object is freed.
 */
void *zcache_zbud_map(struct zcache_zbud_pool *pool, unsigned long handle)
{
	struct zcache_zbud_frame *f = zcache_zbud_handle_frame(handle);

	if ((handle & 1) == ZCACHE_ZBUD_FIRST)
		return (u8 *)f + ZCACHE_ZBUD_HDR_CHUNKS * ZCACHE_ZBUD_CHUNK;
	return (u8 *)f + PAGE_SIZE -
		f->chunks[ZCACHE_ZBUD_LAST] * ZCACHE_ZBUD_CHUNK;
}

unsigned long zcache_zbud_pages(struct zcache_zbud_pool *pool)
{
	return atomic_long_read(&pool->pages);
}

unsigned long zcache_zbud_total_pages(void)
{
	return atomic_long_read(&zcache_zbud_total);
}

int zcache_zbud_evict_lru(struct zcache_zbud_pool *pool,
			  bool (*grab)(unsigned long priv, void *arg),
			  void *arg)
{
	struct zcache_zbud_frame *f;
	unsigned long flags;
	int bud, n = 0;

	spin_lock_irqsave(&pool->lock, flags);
	if (list_empty(&pool->lru)) {
		spin_unlock_irqrestore(&pool->lock, flags);
		return -ENOENT;
	}
	f = list_last_entry(&pool->lru, struct zcache_zbud_frame, lru);
	list_del_init(&f->lru);
	list_del_init(&f->buddy);
	f->evicting = true;
	for (bud = ZCACHE_ZBUD_FIRST; bud <= ZCACHE_ZBUD_LAST; bud++)
		if (f->priv[bud] && grab(f->priv[bud], arg))
			n++;
	spin_unlock_irqrestore(&pool->lock, flags);
	return n;
}

/* The allocator interface (zcache_alloc.h) over zbud. */
static void *zcache_zbud_op_create(const char *name)
{
	return zcache_zbud_create();
}

static void zcache_zbud_op_destroy(void *apool)
{
	zcache_zbud_destroy(apool);
}

static int zcache_zbud_op_malloc(void *apool, size_t size, gfp_t gfp,
				 unsigned long priv, unsigned long *handle)
{
	return zcache_zbud_alloc(apool, size, gfp, priv, handle);
}

static void zcache_zbud_op_free(void *apool, unsigned long handle)
{
	zcache_zbud_free(apool, handle);
}

static void zcache_zbud_op_write(void *apool, unsigned long handle,
				 const void *src, size_t len)
{
	memcpy(zcache_zbud_map(apool, handle), src, len);
}

static const void *zcache_zbud_op_read_begin(void *apool,
					     unsigned long handle, void *copy)
{
	return zcache_zbud_map(apool, handle);
}

static void zcache_zbud_op_read_end(void *apool, unsigned long handle,
				    const void *addr)
{
}

static unsigned long zcache_zbud_op_pages(void *apool)
{
	return zcache_zbud_pages(apool);
}

static int zcache_zbud_op_evict(void *apool,
				bool (*grab)(unsigned long priv, void *arg),
				void *arg)
{
	return zcache_zbud_evict_lru(apool, grab, arg);
}

const struct zcache_alloc_ops zcache_alloc_zbud = {
	.name = "zbud",
	.max_size = ZCACHE_ZBUD_FREE_CHUNKS * ZCACHE_ZBUD_CHUNK,
	.max_grow_pages = 1,
	.create = zcache_zbud_op_create,
	.destroy = zcache_zbud_op_destroy,
	.malloc = zcache_zbud_op_malloc,
	.free = zcache_zbud_op_free,
	.write = zcache_zbud_op_write,
	.read_begin = zcache_zbud_op_read_begin,
	.read_end = zcache_zbud_op_read_end,
	.pages = zcache_zbud_op_pages,
	.evict = zcache_zbud_op_evict,
};
