// SPDX-License-Identifier: GPL-2.0
/*
 * zcache's global state and counters:
 *   /sys/kernel/zcache/            read-only, one value a file (README)
 *   /sys/kernel/debug/zcache/      per-pool table and limit details
 * Tunables live in /sys/module/zcache/parameters/.  A front end adds its
 * own files (zcache_sysfs_add_file(), zcache_frontend.c).
 */
#undef pr_fmt			/* compat.h's headers defined the default */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kobject.h>
#include <linux/sysfs.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/mm.h>
#include "zcache_internal.h"
#include "zcache_frontend.h"

static struct kobject *zcache_kobj;
static struct dentry *zcache_debugfs;

#define ZCACHE_STAT_ATTR(field)						\
static ssize_t zcache_sysfs_##field##_show(struct kobject *kobj,	\
					   struct kobj_attribute *attr,	\
					   char *buf)			\
{									\
	struct zcache_stats s;						\
									\
	zcache_global_stats(&s);					\
	return sysfs_emit(buf, "%llu\n", s.field);			\
}									\
static struct kobj_attribute zcache_attr_##field =			\
	__ATTR(field, 0444, zcache_sysfs_##field##_show, NULL)

ZCACHE_STAT_ATTR(stored_pages);
ZCACHE_STAT_ATTR(same_filled_pages);
ZCACHE_STAT_ATTR(raw_pages);
ZCACHE_STAT_ATTR(compressed_bytes);
ZCACHE_STAT_ATTR(pool_pages);
ZCACHE_STAT_ATTR(stores);
ZCACHE_STAT_ATTR(loads);
ZCACHE_STAT_ATTR(load_misses);
ZCACHE_STAT_ATTR(invalidates);
ZCACHE_STAT_ATTR(reject_poor_compression);
ZCACHE_STAT_ATTR(reject_pool_limit);
ZCACHE_STAT_ATTR(reject_alloc_fail);
ZCACHE_STAT_ATTR(reject_compressor);
ZCACHE_STAT_ATTR(reject_disabled);
ZCACHE_STAT_ATTR(written_back);
ZCACHE_STAT_ATTR(writeback_failed);
ZCACHE_STAT_ATTR(writeback_raced);
ZCACHE_STAT_ATTR(evicted);
ZCACHE_STAT_ATTR(duplicate);

/* The ratios of zcache.h, two decimals. */
#define ZCACHE_RATIO_ATTR(name)						\
static ssize_t zcache_sysfs_##name##_show(struct kobject *kobj,	\
					  struct kobj_attribute *attr,	\
					  char *buf)			\
{									\
	struct zcache_stats s;						\
	u64 r;								\
									\
	zcache_global_stats(&s);					\
	r = zcache_stats_##name(&s);					\
	return sysfs_emit(buf, "%llu.%02llu\n", r / 100, r % 100);	\
}									\
static struct kobj_attribute zcache_attr_##name =			\
	__ATTR(name, 0444, zcache_sysfs_##name##_show, NULL)

ZCACHE_RATIO_ATTR(compression_ratio);
ZCACHE_RATIO_ATTR(effective_ratio);

/* A read-only file showing one value of the core. */
#define ZCACHE_VALUE_ATTR(name, fmt, expr)				\
static ssize_t zcache_sysfs_##name##_show(struct kobject *kobj,	\
					  struct kobj_attribute *attr,	\
					  char *buf)			\
{									\
	return sysfs_emit(buf, fmt "\n", expr);				\
}									\
static struct kobj_attribute zcache_attr_##name =			\
	__ATTR(name, 0444, zcache_sysfs_##name##_show, NULL)

ZCACHE_VALUE_ATTR(pool_limit_pages, "%lu", zcache_limit_pages());
ZCACHE_VALUE_ATTR(pool_full, "%d", zcache_pool_is_full());
ZCACHE_VALUE_ATTR(pools, "%lu", zcache_nr_pools());
ZCACHE_VALUE_ATTR(compressor, "%s", zcache_comp_current());

static struct attribute *zcache_attrs[] = {
	&zcache_attr_stored_pages.attr,
	&zcache_attr_same_filled_pages.attr,
	&zcache_attr_raw_pages.attr,
	&zcache_attr_compressed_bytes.attr,
	&zcache_attr_pool_pages.attr,
	&zcache_attr_stores.attr,
	&zcache_attr_loads.attr,
	&zcache_attr_load_misses.attr,
	&zcache_attr_invalidates.attr,
	&zcache_attr_reject_poor_compression.attr,
	&zcache_attr_reject_pool_limit.attr,
	&zcache_attr_reject_alloc_fail.attr,
	&zcache_attr_reject_compressor.attr,
	&zcache_attr_reject_disabled.attr,
	&zcache_attr_written_back.attr,
	&zcache_attr_writeback_failed.attr,
	&zcache_attr_writeback_raced.attr,
	&zcache_attr_evicted.attr,
	&zcache_attr_duplicate.attr,
	&zcache_attr_compression_ratio.attr,
	&zcache_attr_effective_ratio.attr,
	&zcache_attr_pool_limit_pages.attr,
	&zcache_attr_pool_full.attr,
	&zcache_attr_pools.attr,
	&zcache_attr_compressor.attr,
	NULL,
};

static const struct attribute_group zcache_attr_group = {
	.attrs = zcache_attrs,
};

static int zcache_debugfs_pools_show(struct seq_file *m, void *v)
{
	seq_printf(m, "total_pages %lu limit_pages %lu full %d\n",
		   zcache_total_pages(), zcache_limit_pages(),
		   zcache_pool_is_full());
	zcache_pools_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(zcache_debugfs_pools);

int zcache_sysfs_init(void)
{
	int err;

	zcache_kobj = kobject_create_and_add("zcache", kernel_kobj);
	if (!zcache_kobj)
		return -ENOMEM;
	err = sysfs_create_group(zcache_kobj, &zcache_attr_group);
	if (err) {
		kobject_put(zcache_kobj);
		zcache_kobj = NULL;
		return err;
	}
	/* debugfs is optional: failures are not errors. */
	zcache_debugfs = debugfs_create_dir("zcache", NULL);
	debugfs_create_file("pools", 0444, zcache_debugfs, NULL,
			    &zcache_debugfs_pools_fops);
	return 0;
}

/**
 * zcache_sysfs_add_file - a front end's own file in /sys/kernel/zcache/
 * @attr: the attribute (static; removed with zcache_sysfs_remove_file())
 *
 * Context: process, after zcache_sysfs_init().
 */
int zcache_sysfs_add_file(const struct attribute *attr)
{
	if (!zcache_kobj)
		return -ENODEV;
	return sysfs_create_file(zcache_kobj, attr);
}

void zcache_sysfs_remove_file(const struct attribute *attr)
{
	if (zcache_kobj)
		sysfs_remove_file(zcache_kobj, attr);
}

void zcache_sysfs_exit(void)
{
	debugfs_remove_recursive(zcache_debugfs);
	if (zcache_kobj) {
		sysfs_remove_group(zcache_kobj, &zcache_attr_group);
		kobject_put(zcache_kobj);
		zcache_kobj = NULL;
	}
}
