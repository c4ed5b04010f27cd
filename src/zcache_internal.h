/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the core's own files share: compression, tunables, the debugfs
 * table, test hooks.  Front ends use zcache.h (and zcache_frontend.h);
 * the module's init (zcache_main.c) and zcache_sysfs.c read it too.
 */
#ifndef _ZCACHE_INTERNAL_H
#define _ZCACHE_INTERNAL_H

#include <linux/types.h>
#include <linux/gfp.h>
#include <linux/local_lock.h>
#include <linux/percpu.h>
#include "zcache.h"

/*
 * Allocation flags of the store path: never block.  A store in reclaim
 * context may use the reserves, as zram's and zswap's do: the pool limit
 * still bounds the pool.
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
 *  @irq, @flags: the context of callers that may run with interrupts off,
 *	and the interrupt state zcache_comp_get() saved
 */
struct zcache_comp_ctx {
	u8 *buf;
	u8 *copy;
	bool irq;
	unsigned long flags;
};

struct zcache_comp_pcpu {
	local_lock_t lock;
	struct zcache_comp_ctx ctx;
};
/*
 * Two contexts per CPU, with two lock classes: zcache_comp_pcpu for
 * callers that run with interrupts on (block device, frontswap), and
 * zcache_comp_pcpu_irq, taken with interrupts saved, for ephemeral pools
 * (cleancache stores under the page cache's IRQ-safe i_pages lock).  One
 * shared lock would be held under i_pages and, elsewhere, with interrupts
 * on around zcsmalloc's locks: lockdep reports that chain.
 */
DECLARE_PER_CPU(struct zcache_comp_pcpu, zcache_comp_pcpu);
DECLARE_PER_CPU(struct zcache_comp_pcpu, zcache_comp_pcpu_irq);

/**
 * zcache_comp_get - this CPU's compression context
 * @irq: the caller may run with interrupts off (an ephemeral pool)
 *
 * Context: any; returns with the CPU's local lock held (and, for @irq,
 * interrupts off): no sleeping until zcache_comp_put().  Inline, so that
 * the lock and the unlock sit in the caller for sparse, whatever context
 * the kernel's local_lock carries (none; a spinlock's on PREEMPT_RT).
 */
static inline struct zcache_comp_ctx *zcache_comp_get(bool irq)
{
	struct zcache_comp_ctx *ctx;
	unsigned long flags;

	if (!irq) {
		local_lock(&zcache_comp_pcpu.lock);
		return this_cpu_ptr(&zcache_comp_pcpu.ctx);
	}
	local_lock_irqsave(&zcache_comp_pcpu_irq.lock, flags);
	ctx = this_cpu_ptr(&zcache_comp_pcpu_irq.ctx);
	ctx->flags = flags;
	return ctx;
}

static inline void zcache_comp_put(struct zcache_comp_ctx *ctx)
{
	if (ctx->irq)
		local_unlock_irqrestore(&zcache_comp_pcpu_irq.lock, ctx->flags);
	else
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

/* Tunables (zcache_tmem.c) and their state, for sysfs. */
unsigned long zcache_total_pages(void);
unsigned long zcache_limit_pages(void);
unsigned long zcache_accept_pages(void);
bool zcache_pool_is_full(void);
unsigned long zcache_nr_pools(void);
struct seq_file;
void zcache_pools_show(struct seq_file *m);

/* Validated bool parameters under the parameter mutex (zcache_tmem.c). */
struct kernel_param;
extern const struct kernel_param_ops zcache_param_bool_ops;
int zcache_param_bool_set(const char *val, const struct kernel_param *kp);

/*
 * Test hooks for zcache_test.ko, which links its own copy of the core
 * (src/Kbuild, ZC_TESTS=1): nothing is exported.  A limit in pages
 * instead of max_pool_percent (0: off; returns the previous one), and
 * one run of the shrink worker, waited for.
 */
unsigned long zcache_test_set_limit_pages(unsigned long pages);
void zcache_shrink_sync(void);

#endif /* _ZCACHE_INTERNAL_H */
