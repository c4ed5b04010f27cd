/* SPDX-License-Identifier: GPL-2.0 */
/*
 * zcsmalloc: the zcache project's zsmalloc, a memory allocator for
 * compressed pages.  Objects of any size up to PAGE_SIZE are packed into
 * "zspages" (chains of order-0 pages); an object may span two pages.  A
 * caller gets an opaque handle, not a pointer: the allocator may move
 * the object (compaction, page migration) and the handle stays valid.
 *
 * Exported in symbol namespace ZCACHE (ZC_IMPORT_NS() in the user).
 * Design notes: docs/zcsmalloc.md.
 */
#ifndef ZCSMALLOC_H
#define ZCSMALLOC_H

#include <linux/types.h>
#include <linux/gfp.h>

struct zcs_pool;

/* The most pages one zcs_malloc() call can add to a pool (one zspage). */
#define ZCS_MAX_ZSPAGE_PAGES	8

/**
 * struct zcs_pool_stats - a snapshot of one pool's counters
 * @pages:          pages the pool holds now (zspages' pages)
 * @objs_inuse:     objects allocated and not yet freed
 * @payload_bytes:  sum of the sizes callers asked zcs_malloc() for
 * @compacted:      pages freed by compaction since the pool was created
 * @migrated:       pages moved by page migration since creation
 * @alloc_fail:     zcs_malloc() calls that failed (-ENOMEM or -ENOSPC)
 */
struct zcs_pool_stats {
	unsigned long pages;
	unsigned long objs_inuse;
	unsigned long payload_bytes;
	unsigned long compacted;
	unsigned long migrated;
	unsigned long alloc_fail;
};

/* Process context: pool creation and destruction may sleep. */
struct zcs_pool *zcs_create_pool(const char *name);	/* NULL on failure */
void zcs_destroy_pool(struct zcs_pool *pool);		/* reports leaks */

/*
 * zcs_malloc: returns a handle, or an error value (IS_ERR_VALUE(h)):
 * -EINVAL for size 0 or > PAGE_SIZE, -ENOMEM, -ENOSPC when fault
 * injection fires.  Sleeps only if @gfp allows it.
 */
unsigned long zcs_malloc(struct zcs_pool *pool, size_t size, gfp_t gfp);

/* Any context (atomic included); these never sleep. */
void zcs_free(struct zcs_pool *pool, unsigned long handle);
void zcs_write(struct zcs_pool *pool, unsigned long handle,
	       const void *src, size_t len);
/*
 * zcs_read_begin: a pointer to the object's bytes; an object that spans
 * two pages is copied into @local_copy (at least the object's size).
 * The caller must not sleep until zcs_read_end(); begin/end pairs nest
 * in LIFO order.
 */
const void *zcs_read_begin(struct zcs_pool *pool, unsigned long handle,
			   void *local_copy);
void zcs_read_end(struct zcs_pool *pool, unsigned long handle,
		  const void *addr);

/*
 * zcs_huge_class_size: objects of this size or larger are stored one per
 * page (no better than storing the page uncompressed).
 */
size_t zcs_huge_class_size(struct zcs_pool *pool);
unsigned long zcs_get_total_pages(struct zcs_pool *pool);
unsigned long zcs_compact(struct zcs_pool *pool);	/* pages freed; sleeps */
void zcs_pool_stats(struct zcs_pool *pool, struct zcs_pool_stats *stats);

/*
 * Test hooks (zcsmalloc_test.ko).  zcs_set_fail_alloc_every: every Nth
 * zcs_malloc() fails with -ENOSPC (0: off), as the module parameter
 * fail_alloc_every does; returns the previous value.
 * zcs_migrate_object_page: moves the page that holds the start of
 * @handle's object to a new page through the module's own migration
 * callbacks (as the kernel's compaction would); 0 or -errno (-EOPNOTSUPP
 * where the kernel lets no module migrate pages).
 */
unsigned int zcs_set_fail_alloc_every(unsigned int every);
int zcs_migrate_object_page(struct zcs_pool *pool, unsigned long handle);

#endif /* ZCSMALLOC_H */
