// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_ZS_MAP_OBJECT: the kernel's zs_map_object()/zs_unmap_object() (up to 6.16)
 * 6.17 API change: zs_map_object() and enum zs_mapmode are gone, objects
 * are read with zs_obj_read_begin()/_end() and written with zs_obj_write().
 * Used by the allocator benchmark.
 * symbol: zs_map_object
 * symbol: zs_unmap_object
 */
#include <linux/atomic.h>
#include <linux/zsmalloc.h>

static __maybe_unused void *zc_probe(struct zs_pool *pool, unsigned long h)
{
	void *p = zs_map_object(pool, h, ZS_MM_RO);

	zs_unmap_object(pool, h);
	return p;
}
