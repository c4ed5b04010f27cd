/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat/test/compat-zsmalloc.h: the kernel's own zsmalloc across kernels,
 * for the allocator benchmark (selftest/zcs_bench.c) only.  Test-only
 * compat lives in compat/test/: its probes (compat/test/probes/) run only
 * where this directory is, and make install-src ships neither, so the
 * package neither probes nor builds anything for the benchmark.
 */
#ifndef ZCACHE_COMPAT_ZSMALLOC_H
#define ZCACHE_COMPAT_ZSMALLOC_H

#include <linux/zsmalloc.h>

/*
 * The kernel's own zsmalloc, for the allocator benchmark (which includes
 * <linux/zsmalloc.h> itself; these are macros, expanded where used):
 *   zc_zs_malloc(pool, size, gfp)
 *   zc_zs_write(pool, handle, src, len)
 *   zc_zs_read_begin(pool, handle, len, local_copy) -> const void *
 *   zc_zs_read_end(pool, handle, len, addr)
 * 6.17 added a node argument to zs_malloc() and replaced zs_map_object()
 * with zs_obj_read_begin()/_end() and zs_obj_write().  zs_malloc() fails
 * with 0 up to 5.x and with an error value later: test both.
 */
#ifdef HAVE_ZS_MALLOC_NID
#define zc_zs_malloc(pool, size, gfp)	zs_malloc(pool, size, gfp, NUMA_NO_NODE)
#else
#define zc_zs_malloc(pool, size, gfp)	zs_malloc(pool, size, gfp)
#endif

#if defined(HAVE_ZS_OBJ_READ_BEGIN)
#define zc_zs_write(pool, h, src, len) \
	zs_obj_write(pool, h, (void *)(src), len)
#define zc_zs_read_begin(pool, h, len, copy) \
	((const void *)zs_obj_read_begin(pool, h, len, copy))
#define zc_zs_read_end(pool, h, len, addr) \
	zs_obj_read_end(pool, h, len, (void *)(addr))
#elif defined(HAVE_ZS_MAP_OBJECT)
#define zc_zs_write(pool, h, src, len)					\
	do {								\
		memcpy(zs_map_object(pool, h, ZS_MM_WO), src, len);	\
		zs_unmap_object(pool, h);				\
	} while (0)
#define zc_zs_read_begin(pool, h, len, copy) \
	((const void *)zs_map_object(pool, h, ZS_MM_RO))
#define zc_zs_read_end(pool, h, len, addr)	zs_unmap_object(pool, h)
#endif

#endif /* ZCACHE_COMPAT_ZSMALLOC_H */
