// SPDX-License-Identifier: GPL-2.0
/*
 * zcache as a cleancache backend.  Built only where the kernel has
 * CONFIG_CLEANCACHE and exports it (no Debian kernel does: it is proven on
 * a test kernel); compat/probe.sh chooses it for Kbuild.
 *
 * Context: the kernel calls put_page and invalidate_page under the page
 * cache's IRQ-safe i_pages lock with interrupts off; the core takes its
 * locks with interrupts saved for this (zcache_tmem.c, "Interrupts").
 *
 * One ephemeral (zbud) pool per filesystem.  A file's key becomes the oid
 * when it fits 64 bits (an inode number, or a file handle of at most two
 * words, as ext4's); a longer key is refused rather than hashed, so that
 * two files can never share pages.  Gets are exclusive: the page moves
 * back to the page cache and leaves the pool.
 *
 * cleancache_register_ops() fails if another backend holds the hook; there
 * is no unregister, so registering pins the module (zcache_frontend.c).
 */
#undef pr_fmt			/* compat.h's headers defined the default */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/page-flags.h>
#include <linux/cleancache.h>
#include <linux/mutex.h>
#include "zcache_frontend.h"

#define ZCACHE_CC_MAX_POOLS	32

static int zcache_cleancache_register(void);
static ZCACHE_FRONTEND(zcache_cleancache_fe, "cleancache",
		       zcache_cleancache_register);

module_param_cb(cleancache, &zcache_frontend_param_ops, &zcache_cleancache_fe,
		0644);
MODULE_PARM_DESC(cleancache, "be a cleancache backend (registering pins the module; default N)");

/* Guards the pool table (init_fs runs inside cleancache_register_ops). */
static DEFINE_MUTEX(zcache_cc_pools_mutex);
static struct zcache_pool *zcache_cc_pools[ZCACHE_CC_MAX_POOLS];

static struct zcache_pool *zcache_cc_pool(int id)
{
	if (id < 0 || id >= ZCACHE_CC_MAX_POOLS)
		return NULL;
	return READ_ONCE(zcache_cc_pools[id]);
}

/* The oid of a file key, false when it does not fit 64 bits. */
static bool zcache_cc_oid(struct cleancache_filekey *key, u64 *oid)
{
	unsigned int i;

	for (i = 2; i < CLEANCACHE_KEY_MAX; i++)
		if (key->u.key[i])
			return false;
	*oid = (u64)key->u.key[1] << 32 | key->u.key[0];
	return true;
}

static int zcache_cc_init_fs(size_t pagesize)
{
	struct zcache_pool *pool;
	char name[24];
	int id;

	if (pagesize != PAGE_SIZE)
		return -EINVAL;
	mutex_lock(&zcache_cc_pools_mutex);
	for (id = 0; id < ZCACHE_CC_MAX_POOLS; id++)
		if (!zcache_cc_pools[id])
			break;
	if (id == ZCACHE_CC_MAX_POOLS) {
		mutex_unlock(&zcache_cc_pools_mutex);
		return -ENOSPC;
	}
	snprintf(name, sizeof(name), "cleancache-%d", id);
	pool = zcache_pool_create(ZCACHE_POOL_EPHEMERAL, name, NULL, NULL);
	WRITE_ONCE(zcache_cc_pools[id], pool);
	mutex_unlock(&zcache_cc_pools_mutex);
	return pool ? id : -ENOMEM;
}

static int zcache_cc_init_shared_fs(uuid_t *uuid, size_t pagesize)
{
	return zcache_cc_init_fs(pagesize);
}

static int zcache_cc_get_page(int id, struct cleancache_filekey key,
			      pgoff_t index, struct page *page)
{
	struct zcache_pool *pool = zcache_cc_pool(id);
	u64 oid;

	if (!pool || !zcache_cc_oid(&key, &oid))
		return -ENOENT;
	return zcache_load(pool, oid, index, page, true);
}

static void zcache_cc_put_page(int id, struct cleancache_filekey key,
			       pgoff_t index, struct page *page)
{
	struct zcache_pool *pool = zcache_cc_pool(id);
	u64 oid;

	if (!pool || !zcache_cc_oid(&key, &oid))
		return;
	/* One page per index: a huge page is not kept (its index drops). */
	if (PageTransHuge(page)) {
		zcache_invalidate(pool, oid, index);
		return;
	}
	if (!zcache_frontend_accepts(&zcache_cleancache_fe)) {
		zcache_invalidate(pool, oid, index);
		zcache_count_disabled(pool);
		return;
	}
	zcache_store(pool, oid, index, page);
}

static void zcache_cc_invalidate_page(int id, struct cleancache_filekey key,
				      pgoff_t index)
{
	u64 oid;

	if (zcache_cc_oid(&key, &oid))
		zcache_invalidate(zcache_cc_pool(id), oid, index);
}

static void zcache_cc_invalidate_inode(int id, struct cleancache_filekey key)
{
	u64 oid;

	if (zcache_cc_oid(&key, &oid))
		zcache_invalidate_object(zcache_cc_pool(id), oid);
}

static void zcache_cc_invalidate_fs(int id)
{
	struct zcache_pool *pool;

	if (id < 0 || id >= ZCACHE_CC_MAX_POOLS)
		return;
	mutex_lock(&zcache_cc_pools_mutex);
	pool = zcache_cc_pools[id];
	WRITE_ONCE(zcache_cc_pools[id], NULL);
	mutex_unlock(&zcache_cc_pools_mutex);
	zcache_pool_destroy(pool);
}

static const struct cleancache_ops zcache_cleancache_ops = {
	.init_fs = zcache_cc_init_fs,
	.init_shared_fs = zcache_cc_init_shared_fs,
	.get_page = zcache_cc_get_page,
	.put_page = zcache_cc_put_page,
	.invalidate_page = zcache_cc_invalidate_page,
	.invalidate_inode = zcache_cc_invalidate_inode,
	.invalidate_fs = zcache_cc_invalidate_fs,
};

static int zcache_cleancache_register(void)
{
	return cleancache_register_ops(&zcache_cleancache_ops);
}

void zcache_cleancache_init(void)
{
	zcache_frontend_start(&zcache_cleancache_fe);
}

void zcache_cleancache_exit(void)
{
	zcache_frontend_stop(&zcache_cleancache_fe);
}
