/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The allocator interface under the tmem core (zcache_tmem.c): what a
 * pool's allocator offers, whatever it is.  Two implementations:
 *   zcache_alloc_zcsmalloc  zcsmalloc.ko, size classes (zcache_alloc.c)
 *   zcache_alloc_zbud       two objects per page frame (zcache_zbud.c)
 * The core calls only these operations; it never names an allocator.
 */
#ifndef _ZCACHE_ALLOC_H
#define _ZCACHE_ALLOC_H

#include <linux/types.h>
#include <linux/gfp.h>

/**
 * struct zcache_alloc_ops - one allocator
 * @name: for debugfs
 * @max_size: the largest object it takes, in bytes
 * @max_grow_pages: the most page frames one @malloc can add to a pool
 * @create: a new allocator pool named @name, NULL on failure (sleeps)
 * @destroy: frees the pool; the owner has freed every object (sleeps)
 * @malloc: room for @size bytes; @priv (not 0) is the owner's value for
 *	the object, handed back by @evict.  0 and *@handle, -EINVAL (size)
 *	or -ENOMEM.  Never sleeps unless @gfp allows.
 * @free: frees an object.  Never sleeps; any context the core's locks
 *	allow (interrupts may be off).
 * @write: copies @len bytes into the object (right after @malloc)
 * @read_begin: the object's bytes for reading; @copy is a PAGE_SIZE
 *	buffer the allocator may copy a split object into.  No sleeping
 *	until @read_end.
 * @read_end: ends @read_begin
 * @pages: page frames the pool uses now
 * @evict: optional: takes the coldest page frame off the pool's lists and
 *	calls @grab(priv, arg) for each object in it, under the allocator's
 *	lock (@grab must not sleep); the frame is freed with its last object.
 *	Returns the number of objects @grab took, -ENOENT when there is no
 *	frame.  An allocator with @evict backs ephemeral pools.
 * @compact: optional: gives page frames back after frees (sleeps)
 */
struct zcache_alloc_ops {
	const char *name;
	size_t max_size;
	unsigned int max_grow_pages;
	void *(*create)(const char *name);
	void (*destroy)(void *apool);
	int (*malloc)(void *apool, size_t size, gfp_t gfp, unsigned long priv,
		      unsigned long *handle);
	void (*free)(void *apool, unsigned long handle);
	void (*write)(void *apool, unsigned long handle, const void *src,
		      size_t len);
	const void *(*read_begin)(void *apool, unsigned long handle,
				  void *copy);
	void (*read_end)(void *apool, unsigned long handle, const void *addr);
	unsigned long (*pages)(void *apool);
	int (*evict)(void *apool, bool (*grab)(unsigned long priv, void *arg),
		     void *arg);
	void (*compact)(void *apool);
};

extern const struct zcache_alloc_ops zcache_alloc_zcsmalloc;
extern const struct zcache_alloc_ops zcache_alloc_zbud;

#endif /* _ZCACHE_ALLOC_H */
