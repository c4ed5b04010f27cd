/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat-mm.h: short-term page mappings, shrinkers and driver-owned
 * movable pages across the kernels zcache serves (5.10 to 7.2).
 *
 * Included by compat.h after the probe results (zcache_config.h).
 *
 *   zc_kmap_local(page) / zc_kunmap_local(addr)
 *	kmap_local_page() where it exists (5.11), else (5.10, 64-bit, no
 *	highmem) page_address().  Callers must not sleep in between.
 *
 *   zc_shrinker_create(name, count, scan, private_data) / _destroy(s)
 *   zc_shrinker_private(struct shrinker *) in the callbacks
 *	register_shrinker(s) (5.10), register_shrinker(s, fmt, ...) (6.0),
 *	shrinker_alloc()/shrinker_register()/shrinker_free() (6.7).
 *
 *   ZC_CAN_MIGRATE (0 or 1), ZC_DEFINE_MOVABLE(name, isolate, migrate,
 *   putback), zc_movable_init(&name) / zc_movable_exit(&name),
 *   zc_page_set_movable(&name, page) / zc_page_clear_movable(page)
 *	Driver-owned movable pages.  The callbacks have one shape:
 *	  bool isolate(struct page *page, isolate_mode_t mode);
 *	  int migrate(struct page *dst, struct page *src, enum migrate_mode);
 *	  void putback(struct page *page);
 *	5.10: page->mapping is an anon inode's mapping on a private pseudo
 *	filesystem whose address_space_operations call them (the migratepage
 *	callback is wrapped).  6.0 to 6.16: __SetPageMovable(page, &ops).
 *	6.17 and later (Debian 7.2) let only the kernel's own zsmalloc and the
 *	balloon driver own movable pages: ZC_CAN_MIGRATE is 0 and the callers
 *	compile their migration code out.  Both setters need the page lock.
 *
 *   zc_read_lock_held(lock) / zc_read_unlock_held(lock)
 *	read_lock()/read_unlock() of an rwlock held across a function's
 *	return (annotated __acquires/__releases there).  Under sparse they
 *	are the context annotation alone: PREEMPT_RT kernels before 6.12
 *	declare rt_read_lock()/rt_read_unlock() without one, so the count
 *	sparse sees would depend on the kernel's flavour.
 */
#ifndef ZCACHE_COMPAT_MM_H
#define ZCACHE_COMPAT_MM_H

#include <linux/highmem.h>
#include <linux/shrinker.h>
#include <linux/slab.h>

/* Short-term mappings. */
#ifdef HAVE_KMAP_LOCAL_PAGE
#define zc_kmap_local(page)	kmap_local_page(page)
#ifdef HAVE_KUNMAP_LOCAL_CONST
#define zc_kunmap_local(addr)	kunmap_local(addr)
#else
/* Its __kunmap_local() takes void *; the mapping is ours to drop. */
#define zc_kunmap_local(addr)	kunmap_local((void *)(addr))
#endif
#elif !defined(CONFIG_HIGHMEM)
/* 5.10 on 64-bit: every page has a kernel address. */
#define zc_kmap_local(page)	page_address(page)
#define zc_kunmap_local(addr)	((void)(addr))
#else
#error "zcache needs kmap_local_page() on kernels with CONFIG_HIGHMEM"
#endif

/* Shrinkers. */
struct zc_shrinker {
#ifdef HAVE_SHRINKER_ALLOC
	struct shrinker *shrinker;	/* allocated by the core */
#else
	struct shrinker shrinker;	/* embedded, registered by us */
#endif
	void *private_data;
};

static inline struct zc_shrinker *
zc_shrinker_create(const char *name,
		   unsigned long (*count)(struct shrinker *, struct shrink_control *),
		   unsigned long (*scan)(struct shrinker *, struct shrink_control *),
		   void *private_data)
{
	struct zc_shrinker *zs = kzalloc(sizeof(*zs), GFP_KERNEL);
	struct shrinker *s;

	if (!zs)
		return NULL;
	zs->private_data = private_data;
#ifdef HAVE_SHRINKER_ALLOC
	s = shrinker_alloc(0, "%s", name);
	if (!s) {
		kfree(zs);
		return NULL;
	}
	zs->shrinker = s;
	s->private_data = private_data;
#else
	s = &zs->shrinker;
#endif
	s->count_objects = count;
	s->scan_objects = scan;
	s->seeks = DEFAULT_SEEKS;
#ifdef HAVE_SHRINKER_ALLOC
	shrinker_register(s);
#elif defined(HAVE_REGISTER_SHRINKER_NAME)
	if (register_shrinker(s, "%s", name)) {
		kfree(zs);
		return NULL;
	}
#else
	if (register_shrinker(s)) {
		kfree(zs);
		return NULL;
	}
#endif
	return zs;
}

/* Waits for running callbacks; tolerates NULL. */
static inline void zc_shrinker_destroy(struct zc_shrinker *zs)
{
	if (!zs)
		return;
#ifdef HAVE_SHRINKER_ALLOC
	shrinker_free(zs->shrinker);
#else
	unregister_shrinker(&zs->shrinker);
#endif
	kfree(zs);
}

static inline void *zc_shrinker_private(struct shrinker *s)
{
#ifdef HAVE_SHRINKER_ALLOC
	return s->private_data;
#else
	return container_of(s, struct zc_shrinker, shrinker)->private_data;
#endif
}

/* An rwlock read-held across a function boundary; see the header. */
#ifdef __CHECKER__
#define zc_read_lock_held(lock)		__acquire(lock)
#define zc_read_unlock_held(lock)	__release(lock)
#else
#define zc_read_lock_held(lock)		read_lock(lock)
#define zc_read_unlock_held(lock)	read_unlock(lock)
#endif

/* Driver-owned movable pages. */
#if defined(HAVE_MOVABLE_OPS)
#include <linux/migrate.h>

#define ZC_CAN_MIGRATE 1

struct zc_movable {
	const struct movable_operations *ops;
};

#define ZC_DEFINE_MOVABLE(name, isolate, migrate, putback)		\
	static const struct movable_operations name##_mops = {		\
		.isolate_page = isolate,				\
		.migrate_page = migrate,				\
		.putback_page = putback,				\
	};								\
	static struct zc_movable name = { .ops = &name##_mops }

static inline int zc_movable_init(struct zc_movable *m)
{
	return 0;
}

static inline void zc_movable_exit(struct zc_movable *m)
{
}

static inline void zc_page_set_movable(struct zc_movable *m, struct page *page)
{
	__SetPageMovable(page, m->ops);
}

static inline void zc_page_clear_movable(struct page *page)
{
	__ClearPageMovable(page);
}

#elif defined(HAVE_MOVABLE_MAPPING)
#include <linux/migrate.h>
#include <linux/fs.h>
#include <linux/mount.h>
#include <linux/pseudo_fs.h>
#include <linux/err.h>

#define ZC_CAN_MIGRATE 1
#define ZC_MOVABLE_MAGIC 0x7a63736d	/* "zcsm" */

struct zc_movable {
	const struct address_space_operations *aops;
	struct file_system_type *fs_type;
	struct vfsmount *mnt;
	struct inode *inode;
};

#define ZC_DEFINE_MOVABLE(zcmv, isolate, migrate, putback)		\
	static int zcmv##_migratepage(struct address_space *mapping,	\
				      struct page *newpage,		\
				      struct page *page,		\
				      enum migrate_mode mode)		\
	{								\
		return migrate(newpage, page, mode);			\
	}								\
	static const struct address_space_operations zcmv##_aops = {	\
		.isolate_page = isolate,				\
		.migratepage = zcmv##_migratepage,			\
		.putback_page = putback,				\
	};								\
	static int zcmv##_init_fs_context(struct fs_context *fc)	\
	{								\
		return init_pseudo(fc, ZC_MOVABLE_MAGIC) ? 0 : -ENOMEM; \
	}								\
	static struct file_system_type zcmv##_fs = {			\
		.name = KBUILD_MODNAME "_movable",			\
		.init_fs_context = zcmv##_init_fs_context,		\
		.kill_sb = kill_anon_super,				\
	};								\
	static struct zc_movable zcmv = {				\
		.aops = &zcmv##_aops,					\
		.fs_type = &zcmv##_fs,					\
	}

static inline int zc_movable_init(struct zc_movable *m)
{
	m->mnt = kern_mount(m->fs_type);
	if (IS_ERR(m->mnt))
		return PTR_ERR(m->mnt);
	m->inode = alloc_anon_inode(m->mnt->mnt_sb);
	if (IS_ERR(m->inode)) {
		kern_unmount(m->mnt);
		return PTR_ERR(m->inode);
	}
	m->inode->i_mapping->a_ops = m->aops;
	return 0;
}

static inline void zc_movable_exit(struct zc_movable *m)
{
	iput(m->inode);
	kern_unmount(m->mnt);
}

static inline void zc_page_set_movable(struct zc_movable *m, struct page *page)
{
	__SetPageMovable(page, m->inode->i_mapping);
}

static inline void zc_page_clear_movable(struct page *page)
{
	__ClearPageMovable(page);
}

#else
#define ZC_CAN_MIGRATE 0
#endif

#endif /* ZCACHE_COMPAT_MM_H */
