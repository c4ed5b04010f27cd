// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_ZS_MALLOC_NID: the kernel's zs_malloc(pool, size, gfp, nid) (6.17)
 * 6.17 API change: zs_malloc() takes the NUMA node to allocate pages on.
 * Used by the allocator benchmark, which runs the kernel's zsmalloc too.
 * symbol: zs_malloc
 */
#include <linux/atomic.h>
#include <linux/zsmalloc.h>
#include <linux/gfp.h>
#include <linux/numa.h>

static __maybe_unused unsigned long zc_probe(struct zs_pool *pool)
{
	return zs_malloc(pool, 64, GFP_KERNEL, NUMA_NO_NODE);
}
