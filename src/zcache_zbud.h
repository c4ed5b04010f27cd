/* SPDX-License-Identifier: GPL-2.0 */
/*
 * zbud: at most two compressed objects per page frame, for zcache's
 * ephemeral pools (zcache_zbud.c).  The core reaches it through the
 * allocator interface (zcache_alloc_zbud, zcache_alloc.h); the functions
 * below are its own API, for that adapter and for the self-test.
 *
 * Locking: one spinlock per pool, taken with interrupts saved (cleancache
 * frees and allocates under the page cache's IRQ-safe i_pages lock).
 */
#ifndef _ZCACHE_ZBUD_H
#define _ZCACHE_ZBUD_H

#include <linux/types.h>
#include <linux/gfp.h>

struct zcache_zbud_pool;

struct zcache_zbud_pool *zcache_zbud_create(void);
void zcache_zbud_destroy(struct zcache_zbud_pool *pool);
int zcache_zbud_alloc(struct zcache_zbud_pool *pool, size_t size, gfp_t gfp,
		      unsigned long priv, unsigned long *handle);
void zcache_zbud_free(struct zcache_zbud_pool *pool, unsigned long handle);
void *zcache_zbud_map(struct zcache_zbud_pool *pool, unsigned long handle);
unsigned long zcache_zbud_pages(struct zcache_zbud_pool *pool);
size_t zcache_zbud_max_size(void);
/*
 * Takes the least recently used frame off the pool's lists and calls
 * @grab(priv, arg) for each object still in it, with the pool lock held
 * (@grab must not sleep).  The frame is freed when its last object is
 * freed.  Returns the number of objects passed to @grab, or -ENOENT when
 * the pool has no frame to evict.
 */
int zcache_zbud_evict_lru(struct zcache_zbud_pool *pool,
			  bool (*grab)(unsigned long priv, void *arg),
			  void *arg);
/* Total frames in all zbud pools. */
unsigned long zcache_zbud_total_pages(void);

#endif /* _ZCACHE_ZBUD_H */
