/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat-misc.h: symbol namespaces, class and sysfs, debugfs, random,
 * timers and page fields across the kernels zcache serves (5.10 to 7.2).
 *
 * Included by compat.h after the probe results (zcache_config.h).  A shim
 * that reuses a kernel name includes the kernel's header first, so that
 * it can never rename the kernel's own declaration.
 */
#ifndef ZCACHE_COMPAT_MISC_H
#define ZCACHE_COMPAT_MISC_H

/*
 * Symbol namespace of zcsmalloc's exports.  6.13 made the namespace a
 * string literal; before, the macros stringified an identifier.
 *   ZC_EXPORT_SYMBOL(sym)   exports sym (GPL) in namespace ZCACHE
 *   ZC_IMPORT_NS()          lets a module use namespace ZCACHE
 */
#ifdef HAVE_EXPORT_NS_STRING
#define ZC_EXPORT_SYMBOL(sym)	EXPORT_SYMBOL_NS_GPL(sym, "ZCACHE")
#define ZC_IMPORT_NS()		MODULE_IMPORT_NS("ZCACHE")
#else
#define ZC_EXPORT_SYMBOL(sym)	EXPORT_SYMBOL_NS_GPL(sym, ZCACHE)
#define ZC_IMPORT_NS()		MODULE_IMPORT_NS(ZCACHE)
#endif

/*
 * Device classes.  6.4 dropped the owner argument of class_create() and
 * made class attribute callbacks take const pointers:
 *   zc_class_create(name)
 *   static ssize_t x_show(ZC_CLASS_CONST struct class *class,
 *                         ZC_CLASS_CONST struct class_attribute *attr,
 *                         char *buf);
 */
#ifdef HAVE_CLASS_CREATE_NAME
#define zc_class_create(name)	class_create(name)
#else
#define zc_class_create(name)	class_create(THIS_MODULE, name)
#endif

#ifdef HAVE_CONST_CLASS_ATTR
#define ZC_CLASS_CONST const
#else
#define ZC_CLASS_CONST
#endif

/*
 * debugfs: 5.10 returns a dentry from debugfs_create_ulong/_bool, later
 * kernels return nothing.  Callers never need the dentry.
 */
#ifdef HAVE_DEBUGFS_ULONG_VOID
#define zc_debugfs_create_ulong(name, mode, dir, val) \
	debugfs_create_ulong(name, mode, dir, val)
#define zc_debugfs_create_bool(name, mode, dir, val) \
	debugfs_create_bool(name, mode, dir, val)
#else
#define zc_debugfs_create_ulong(name, mode, dir, val) \
	((void)debugfs_create_ulong(name, mode, dir, val))
#define zc_debugfs_create_bool(name, mode, dir, val) \
	((void)debugfs_create_bool(name, mode, dir, val))
#endif

/* Random numbers: get_random_u32_below() arrived in 6.2 (and 6.1.y). */
#ifndef HAVE_GET_RANDOM_U32_BELOW
#include <linux/types.h>
#include <linux/random.h>
#define get_random_u32_below zc_get_random_u32_below
static inline u32 zc_get_random_u32_below(u32 ceil)
{
	/* Lemire's multiply-shift: uniform enough for test and policy use. */
	return (u32)(((u64)get_random_u32() * ceil) >> 32);
}
#endif

/*
 * Timers: timer_delete*() arrived in 6.2 (earlier in stable kernels: Debian
 * 5.10 has timer_delete_sync() only); 6.15 removed del_timer*(), 6.16
 * renamed from_timer() to timer_container_of().  The kernel's header comes
 * first, so that these names never rename its own declarations.
 */
#include <linux/timer.h>
#ifndef HAVE_TIMER_DELETE
#define timer_delete(timer)		del_timer(timer)
#endif
#ifndef HAVE_TIMER_DELETE_SYNC
#define timer_delete_sync(timer)	del_timer_sync(timer)
#endif
#ifndef HAVE_TIMER_CONTAINER_OF
#define timer_container_of(var, timer, field)	from_timer(var, timer, field)
#endif

/*
 * page->index: 6.16 renamed it __folio_index.  Prefer page->private for
 * new metadata; these keep old users compiling.
 */
#ifdef HAVE_PAGE_INDEX
#define zc_page_index(page)		((page)->index)
#else
#define zc_page_index(page)		((page)->__folio_index)
#endif
#define zc_set_page_index(page, idx)	(zc_page_index(page) = (idx))

#endif /* ZCACHE_COMPAT_MISC_H */
