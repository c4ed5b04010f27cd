// SPDX-License-Identifier: GPL-2.0
/*
 * zcache as a frontswap backend.  Built only where the kernel exports
 * frontswap to modules (Debian 5.10): compat/probe.sh chooses it for
 * Kbuild.  Registering, pinning and the on/off switch are the front-end
 * home's (zcache_frontend.c).
 *
 * One persistent pool per swap area (oid 0, index = swap offset), created
 * at swapon and destroyed at swapoff.  A page zcache refuses (compresses
 * badly, pool full, allocation failure, `enabled` or `frontswap` off) goes
 * to the swap device as usual.  The pools have no ->writeback: frontswap
 * has no way to push a page down once it holds it.
 *
 * The kernel offers no unregister: once the ops are registered (frontswap=1
 * at load or later), the module pins itself and stays loaded; writing 0
 * then stops new stores.  Several backends chain on 5.10 (zswap registers
 * too): ours come first, and a page we refuse is offered to the next.
 */
#undef pr_fmt			/* compat.h's headers defined the default */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/page-flags.h>
#include <linux/frontswap.h>
#include <linux/swap.h>
#include "zcache_frontend.h"

static int zcache_frontswap_register(void);
static ZCACHE_FRONTEND(zcache_frontswap_fe, "frontswap",
		       zcache_frontswap_register);

module_param_cb(frontswap, &zcache_frontend_param_ops, &zcache_frontswap_fe,
		0644);
MODULE_PARM_DESC(frontswap, "be a frontswap backend (registering pins the module; default N)");

/* One pool per swap type; set at swapon before any store of that type. */
static struct zcache_pool *zcache_frontswap_pools[MAX_SWAPFILES];

static struct zcache_pool *zcache_frontswap_pool(unsigned int type)
{
	if (type >= MAX_SWAPFILES)
		return NULL;
	return READ_ONCE(zcache_frontswap_pools[type]);
}

static void zcache_frontswap_init_area(unsigned int type)
{
	struct zcache_pool *pool;
	char name[24];

	if (type >= MAX_SWAPFILES || zcache_frontswap_pools[type])
		return;
	snprintf(name, sizeof(name), "frontswap-%u", type);
	pool = zcache_pool_create(ZCACHE_POOL_PERSISTENT, name, NULL, NULL);
	if (!pool)
		pr_warn("swap area %u: no pool, its pages go to disk\n", type);
	WRITE_ONCE(zcache_frontswap_pools[type], pool);
}

static int zcache_frontswap_store(unsigned int type, pgoff_t offset,
				  struct page *page)
{
	struct zcache_pool *pool = zcache_frontswap_pool(type);

	if (!pool)
		return -ENODEV;
	/*
	 * A transparent huge page swapped out whole (swap on a non-rotational
	 * device allocates a cluster for it): the store would keep its first
	 * subpage only and frontswap would find nothing for the other 511,
	 * which then read as zeroes from the device.  Refuse it; the device
	 * gets it.
	 */
	if (PageTransHuge(page)) {
		zcache_invalidate(pool, 0, offset);
		return -EINVAL;
	}
	if (!zcache_frontend_accepts(&zcache_frontswap_fe)) {
		/* An older copy must not be found by a later load. */
		zcache_invalidate(pool, 0, offset);
		zcache_count_disabled(pool);
		return -EPERM;
	}
	return zcache_store(pool, 0, offset, page);
}

static int zcache_frontswap_load(unsigned int type, pgoff_t offset,
				 struct page *page)
{
	struct zcache_pool *pool = zcache_frontswap_pool(type);

	if (!pool)
		return -ENOENT;
	return zcache_load(pool, 0, offset, page, false);
}

static void zcache_frontswap_invalidate_page(unsigned int type,
					     pgoff_t offset)
{
	zcache_invalidate(zcache_frontswap_pool(type), 0, offset);
}

static void zcache_frontswap_invalidate_area(unsigned int type)
{
	struct zcache_pool *pool = zcache_frontswap_pool(type);

	if (!pool)
		return;
	WRITE_ONCE(zcache_frontswap_pools[type], NULL);
	zcache_pool_destroy(pool);
}

static struct frontswap_ops zcache_frontswap_ops = {
	.init = zcache_frontswap_init_area,
	.store = zcache_frontswap_store,
	.load = zcache_frontswap_load,
	.invalidate_page = zcache_frontswap_invalidate_page,
	.invalidate_area = zcache_frontswap_invalidate_area,
};

/*
 * Several backends chain on 5.10 (zswap registers too): ours come first,
 * and a page we refuse is offered to the next.
 */
static int zcache_frontswap_register(void)
{
	return zc_frontswap_register_ops(&zcache_frontswap_ops);
}

void zcache_frontswap_init(void)
{
	zcache_frontend_start(&zcache_frontswap_fe);
}

void zcache_frontswap_exit(void)
{
	zcache_frontend_stop(&zcache_frontswap_fe);
}
