/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the core's own files share (not for front ends:
 * they use zcache.h).
 */
#ifndef _ZCACHE_INTERNAL_H
#define _ZCACHE_INTERNAL_H

#include <linux/types.h>
#include <linux/gfp.h>
#include <linux/local_lock.h>
#include <linux/percpu.h>
#include "zcache.h"

/*
 * Allocation flags of the store path: never block.  No __GFP_NOMEMALLOC:
 * a store from reclaim (kswapd, direct reclaim: PF_MEMALLOC) frees a page
 * and may use the reserves to do it, as zram's and zswap's do; the pool
 * limit bounds what the pool takes.
 */
#define ZCACHE_GFP	(GFP_NOWAIT | __GFP_NOWARN)

/* Compression (zcache_comp.c). */
#define ZCACHE_COMP_NONE	0xff
/* A page kept uncompressed (ZCACHE_POOL_KEEP_RAW): PAGE_SIZE bytes. */
#define ZCACHE_COMP_RAW		0xfe

/*
 * Per-CPU compression context: zcache_comp_get() disables migration off
 * this CPU (a local lock); the caller must not sleep until
 * zcache_comp_put().
 *  @buf: output of compression, 2 * PAGE_SIZE
 *  @copy: a page for zcs_read_begin()'s copy of a split object
 */
struct zcache_comp_ctx {
	u8 *buf;
	u8 *copy;
};

struct zcache_comp_pcpu {
	local_lock_t lock;
	struct zcache_comp_ctx ctx;
};
DECLARE_PER_CPU(struct zcache_comp_pcpu, zcache_comp_pcpu);

/*
 * zcache_comp_get - this CPU's compression context
 *
 * Context: any; returns with the CPU's local lock held: no sleeping until
 * zcache_comp_put().  Inline, so that the lock and the unlock sit in the
 * caller for sparse, whatever context the kernel's local_lock carries
 * (none; a spinlock's on PREEMPT_RT).
 */
static inline struct zcache_comp_ctx *zcache_comp_get(void)
{
	local_lock(&zcache_comp_pcpu.lock);
	return this_cpu_ptr(&zcache_comp_pcpu.ctx);
}

static inline void zcache_comp_put(struct zcache_comp_ctx *ctx)
{
	local_unlock(&zcache_comp_pcpu.lock);
}
/* Compresses @src (a page) into ctx->buf with the current compressor. */
int zcache_comp_compress(struct zcache_comp_ctx *ctx, const void *src,
			 unsigned int *dlen, u8 *comp_id);
/* Decompresses into @dst (a page) with compressor @comp_id. */
int zcache_comp_decompress(struct zcache_comp_ctx *ctx, u8 comp_id,
			   const void *src, unsigned int slen, void *dst);
const char *zcache_comp_name(u8 comp_id);
int zcache_comp_set(const char *name);

/* zbud: two objects per page frame (zcache_zbud.c). */
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

/* Tunables (zcache_tmem.c) and their state, for sysfs. */
unsigned long zcache_total_pages(void);
unsigned long zcache_limit_pages(void);
unsigned long zcache_accept_pages(void);
bool zcache_pool_is_full(void);
unsigned long zcache_nr_pools(void);
struct seq_file;
void zcache_pools_show(struct seq_file *m);

/* Counts a store a front end refused because it is switched off. */
void zcache_count_disabled(struct zcache_pool *pool);
/* Validated bool parameters under the parameter mutex (zcache_tmem.c). */
struct kernel_param;
extern const struct kernel_param_ops zcache_param_bool_ops;
int zcache_param_bool_set(const char *val, const struct kernel_param *kp);

/* Test hooks, exported for zcache_test.ko. */
unsigned long zcache_test_set_limit_pages(unsigned long pages);

/* Front-end state for sysfs (zcache_frontswap.c, zcache_cleancache.c). */
bool zcache_frontswap_active(void);
bool zcache_cleancache_active(void);

#endif /* _ZCACHE_INTERNAL_H */
