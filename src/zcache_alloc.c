// SPDX-License-Identifier: GPL-2.0
/*
 * The zcsmalloc adapter of the allocator interface (zcache_alloc.h):
 * persistent pools keep their pages in zcsmalloc.ko.  zcsmalloc has no
 * eviction; a full persistent pool is shrunk by write-back instead.
 */
#include <linux/err.h>
#include <linux/mm.h>
#include "zcache_alloc.h"
#include "zcsmalloc.h"

ZC_IMPORT_NS();

static void *zcache_zcs_create(const char *name)
{
	return zcs_create_pool(name);
}

static void zcache_zcs_destroy(void *apool)
{
	zcs_destroy_pool(apool);
}

static int zcache_zcs_malloc(void *apool, size_t size, gfp_t gfp,
			     unsigned long priv, unsigned long *handle)
{
	unsigned long h;

	if (!size || size > PAGE_SIZE)
		return -EINVAL;
	h = zcs_malloc(apool, size, gfp);
	if (IS_ERR_VALUE(h))
		return -ENOMEM;
	*handle = h;
	return 0;
}

static void zcache_zcs_free(void *apool, unsigned long handle)
{
	zcs_free(apool, handle);
}

static void zcache_zcs_write(void *apool, unsigned long handle,
			     const void *src, size_t len)
{
	zcs_write(apool, handle, src, len);
}

static const void *zcache_zcs_read_begin(void *apool, unsigned long handle,
					 void *copy)
{
	return zcs_read_begin(apool, handle, copy);
}

static void zcache_zcs_read_end(void *apool, unsigned long handle,
				const void *addr)
{
	zcs_read_end(apool, handle, addr);
}

static unsigned long zcache_zcs_pages(void *apool)
{
	return zcs_get_total_pages(apool);
}

static void zcache_zcs_compact(void *apool)
{
	zcs_compact(apool);
}

const struct zcache_alloc_ops zcache_alloc_zcsmalloc = {
	.name = "zcsmalloc",
	.max_size = PAGE_SIZE,
	.max_grow_pages = ZCS_MAX_ZSPAGE_PAGES,
	.create = zcache_zcs_create,
	.destroy = zcache_zcs_destroy,
	.malloc = zcache_zcs_malloc,
	.free = zcache_zcs_free,
	.write = zcache_zcs_write,
	.read_begin = zcache_zcs_read_begin,
	.read_end = zcache_zcs_read_end,
	.pages = zcache_zcs_pages,
	.compact = zcache_zcs_compact,
};
