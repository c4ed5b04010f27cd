// SPDX-License-Identifier: GPL-2.0
/*
 * zcache.ko: module init and exit and the master switch.
 *
 * Init order: compression, tmem core, sysfs/debugfs, then the front ends
 * (frontswap, cleancache, block device); exit in reverse.  A front end
 * that the kernel cannot offer compiles to a stub.
 */
#undef pr_fmt			/* compat.h's headers defined the default */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include "zcache_internal.h"

/* Master switch: frontswap and cleancache accept new pages. */
static bool zcache_enabled = true;
module_param_cb(enabled, &zcache_param_bool_ops, &zcache_enabled, 0644);
MODULE_PARM_DESC(enabled, "frontswap and cleancache accept new pages (default Y)");

/**
 * zcache_is_enabled - the master switch
 *
 * Context: any.
 */
bool zcache_is_enabled(void)
{
	return READ_ONCE(zcache_enabled);
}
ZC_EXPORT_SYMBOL(zcache_is_enabled);

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
	err = zcache_frontswap_init();
	if (err)
		goto out_sysfs;
	err = zcache_cleancache_init();
	if (err)
		goto out_frontswap;
	err = zcache_blk_init();
	if (err)
		goto out_cleancache;
	pr_info("loaded: compressor %s, pool limit %lu pages\n",
		zcache_comp_current(), zcache_limit_pages());
	return 0;

out_cleancache:
	zcache_cleancache_exit();
out_frontswap:
	zcache_frontswap_exit();
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
	zcache_blk_exit();
	zcache_cleancache_exit();
	zcache_frontswap_exit();
	zcache_sysfs_exit();
	zcache_tmem_exit();
	zcache_comp_exit();
	pr_info("unloaded\n");
}

module_init(zcache_init);
module_exit(zcache_exit);

ZC_IMPORT_NS();
MODULE_LICENSE("GPL");
MODULE_VERSION(ZCACHE_VERSION);
MODULE_DESCRIPTION("zcache: compressed page cache for swap and clean pages");
MODULE_SOFTDEP("pre: lz4 zstd");
