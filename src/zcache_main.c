// SPDX-License-Identifier: GPL-2.0
/*
 * zcache.ko: module init and exit.
 *
 * Init order: compression, tmem core, sysfs/debugfs, the block device,
 * then the kernel-hook front ends (frontswap, cleancache) last: once a
 * hook is registered it cannot be taken back, so nothing after it may
 * fail the load (their start never does).  Exit in reverse; it runs only
 * if no hook was registered (registering pins the module).  A front end
 * the kernel cannot offer is not built (compat/compat-frontends.h).
 */
#undef pr_fmt			/* compat.h's headers defined the default */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include "zcache_internal.h"
#include "zcache_frontend.h"

static int __init zcache_init(void)
{
	int err;

	err = zcache_comp_init();
	if (err)
		return err;
	err = zcache_tmem_init();
	if (err)
		goto out_comp;
	err = zcache_sysfs_init();
	if (err)
		goto out_tmem;
	err = zcache_blk_init();
	if (err)
		goto out_sysfs;
	/* Last, and never failing: see above. */
	zcache_frontswap_init();
	zcache_cleancache_init();
	pr_info("loaded: compressor %s, pool limit %lu pages\n",
		zcache_comp_current(), zcache_limit_pages());
	return 0;

out_sysfs:
	zcache_sysfs_exit();
out_tmem:
	zcache_tmem_exit();
out_comp:
	zcache_comp_exit();
	return err;
}

static void __exit zcache_exit(void)
{
	zcache_cleancache_exit();
	zcache_frontswap_exit();
	zcache_blk_exit();
	zcache_sysfs_exit();
	zcache_tmem_exit();
	zcache_comp_exit();
	pr_info("unloaded\n");
}

module_init(zcache_init);
module_exit(zcache_exit);

MODULE_LICENSE("GPL");
MODULE_VERSION(ZCACHE_VERSION);
MODULE_DESCRIPTION("zcache: compressed page cache for swap and clean pages");
MODULE_SOFTDEP("pre: lz4 zstd");
