// SPDX-License-Identifier: GPL-2.0
/*
 * zcsmalloc_test: self-test of zcsmalloc, run at load time.
 *
 * Prints KTAP to the kernel log (each line prefixed "zcsmalloc_test: "),
 * one line per case, and fails the load (-EINVAL) when a case fails.
 * Every object written is verified byte by byte when read back.
 *
 * Parameters: ops (operations of the stress cases), quick (1: shorter).
 */
#undef pr_fmt			/* compat.h's headers defined the default */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/random.h>
#include <linux/kthread.h>
#include <linux/cpumask.h>
#include <linux/sched/task.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/spinlock.h>
#include <linux/err.h>
#include <linux/sched.h>

#include "zcsmalloc.h"

ZC_IMPORT_NS();

static unsigned int ops = 200000;
module_param(ops, uint, 0444);
MODULE_PARM_DESC(ops, "operations of the randomized stress cases");

static bool quick;
module_param(quick, bool, 0444);
MODULE_PARM_DESC(quick, "shorter run (fewer objects and operations)");

struct zcs_test_obj {
	unsigned long handle;
	u32 seed;
	u16 len;
};

static u8 *zcs_test_buf;	/* PAGE_SIZE scratch, single-threaded cases */
static u8 *zcs_test_copy;	/* PAGE_SIZE local copy, single-threaded cases */

/* Content of an object: a cheap generator seeded per object. */
static void zcs_test_fill(u8 *buf, unsigned int len, u32 seed)
{
	u32 x = seed | 1;
	unsigned int i;

	for (i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		buf[i] = (u8)x;
	}
}

static int zcs_test_check(const u8 *buf, unsigned int len, u32 seed)
{
	u32 x = seed | 1;
	unsigned int i;

	for (i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		if (buf[i] != (u8)x)
			return -EIO;
	}
	return 0;
}

static int zcs_test_store(struct zcs_pool *pool, struct zcs_test_obj *o,
			  unsigned int len, gfp_t gfp, u8 *scratch)
{
	unsigned long h = zcs_malloc(pool, len, gfp);

	if (IS_ERR_VALUE(h))
		return (int)h;
	o->handle = h;
	o->len = len;
	o->seed = get_random_u32();
	zcs_test_fill(scratch, len, o->seed);
	zcs_write(pool, h, scratch, len);
	return 0;
}

/* Returns 0, or -EIO on a mismatch; *spanned counts copied reads. */
static int zcs_test_verify(struct zcs_pool *pool, struct zcs_test_obj *o,
			   u8 *copy, unsigned long *spanned)
{
	const u8 *p = zcs_read_begin(pool, o->handle, copy);
	int ret = zcs_test_check(p, o->len, o->seed);

	if (spanned && p == copy)
		(*spanned)++;
	zcs_read_end(pool, o->handle, p);
	return ret;
}

static int zcs_test_verify_all(struct zcs_pool *pool, struct zcs_test_obj *objs,
			       unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (objs[i].handle &&
		    zcs_test_verify(pool, &objs[i], zcs_test_copy, NULL)) {
			pr_info("# object %u (len %u) corrupted\n", i, objs[i].len);
			return -EIO;
		}
	}
	return 0;
}

static void zcs_test_free_all(struct zcs_pool *pool, struct zcs_test_obj *objs,
			      unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		zcs_free(pool, objs[i].handle);
		objs[i].handle = 0;
	}
}

/* A size like a compressed page's: mostly mid-sized, some tiny, some huge. */
static unsigned int zcs_test_rand_len(void)
{
	u32 r = get_random_u32_below(100);

	if (r < 15)
		return 1 + get_random_u32_below(256);
	if (r < 90)
		return 256 + get_random_u32_below(PAGE_SIZE * 3 / 4 - 256);
	return PAGE_SIZE * 3 / 4 + 1 + get_random_u32_below(PAGE_SIZE / 4);
}

/* Cases. */

static int zcs_test_size_classes(struct zcs_pool *pool)
{
	struct zcs_test_obj objs[3];
	unsigned int len, k, n = 0;
	int ret = 0;

	if (!IS_ERR_VALUE(zcs_malloc(pool, 0, GFP_KERNEL)) ||
	    !IS_ERR_VALUE(zcs_malloc(pool, PAGE_SIZE + 1, GFP_KERNEL))) {
		pr_info("# sizes 0 and PAGE_SIZE + 1 were accepted\n");
		return -EINVAL;
	}
	/* Every class boundary and its neighbours, 1 to PAGE_SIZE. */
	for (len = 1; len <= PAGE_SIZE && !ret; len++) {
		if (len > 2 && (len + 1) % 16 > 2 && len != PAGE_SIZE)
			continue;
		for (k = 0; k < ARRAY_SIZE(objs); k++) {
			ret = zcs_test_store(pool, &objs[k], len, GFP_KERNEL,
					     zcs_test_buf);
			if (ret) {
				pr_info("# zcs_malloc(%u) failed: %d\n", len, ret);
				while (k--)
					zcs_free(pool, objs[k].handle);
				return ret;
			}
		}
		for (k = 0; k < ARRAY_SIZE(objs) && !ret; k++) {
			ret = zcs_test_verify(pool, &objs[k], zcs_test_copy, NULL);
			if (ret)
				pr_info("# object of %u bytes corrupted\n", len);
		}
		for (k = 0; k < ARRAY_SIZE(objs); k++)
			zcs_free(pool, objs[k].handle);
		n++;
	}
	if (!ret && zcs_get_total_pages(pool)) {
		pr_info("# %lu pages left after freeing everything\n",
			zcs_get_total_pages(pool));
		ret = -EINVAL;
	}
	pr_info("# %u sizes, huge class from %zu bytes\n", n,
		zcs_huge_class_size(pool));
	return ret;
}

static int zcs_test_spanning(struct zcs_pool *pool)
{
	static const unsigned int lens[] = { 700, 1000, 1500, 2100, 2730, 3000 };
	unsigned int n = quick ? 300 : 1200, i;
	unsigned long spanned = 0;
	struct zcs_test_obj *objs;
	int ret = 0;

	objs = vzalloc(n * sizeof(*objs));
	if (!objs)
		return -ENOMEM;
	for (i = 0; i < n && !ret; i++)
		ret = zcs_test_store(pool, &objs[i], lens[i % ARRAY_SIZE(lens)],
				     GFP_KERNEL, zcs_test_buf);
	for (i = 0; i < n && !ret; i++) {
		ret = zcs_test_verify(pool, &objs[i], zcs_test_copy, &spanned);
		if (ret)
			pr_info("# object %u corrupted\n", i);
	}
	zcs_test_free_all(pool, objs, n);
	vfree(objs);
	if (!ret && !spanned) {
		pr_info("# no object spanned two pages\n");
		ret = -EINVAL;
	}
	if (!ret)
		pr_info("# %lu of %u objects spanned two pages\n", spanned, n);
	return ret;
}

static int zcs_test_compaction(struct zcs_pool *pool)
{
	unsigned int n = quick ? 2000 : 8000, i, kept = 0;
	unsigned long before, freed, after;
	struct zcs_test_obj *objs;
	int ret = 0;

	objs = vzalloc(n * sizeof(*objs));
	if (!objs)
		return -ENOMEM;
	for (i = 0; i < n && !ret; i++)
		ret = zcs_test_store(pool, &objs[i], zcs_test_rand_len(),
				     GFP_KERNEL, zcs_test_buf);
	if (ret)
		goto out;
	/* Free three objects in four, at random: sparse zspages everywhere. */
	for (i = 0; i < n; i++) {
		if (get_random_u32_below(4)) {
			zcs_free(pool, objs[i].handle);
			objs[i].handle = 0;
		} else {
			kept++;
		}
	}
	before = zcs_get_total_pages(pool);
	freed = zcs_compact(pool);
	after = zcs_get_total_pages(pool);
	ret = zcs_test_verify_all(pool, objs, n);
	if (!ret && (!freed || after != before - freed)) {
		pr_info("# compaction freed %lu pages, pool %lu -> %lu\n",
			freed, before, after);
		ret = -EINVAL;
	}
	if (!ret)
		pr_info("# %u objects kept, compaction freed %lu of %lu pages\n",
			kept, freed, before);
out:
	zcs_test_free_all(pool, objs, n);
	vfree(objs);
	return ret;
}

static int zcs_test_migration(struct zcs_pool *pool, bool *skip)
{
	unsigned int n = quick ? 500 : 2000, i, moved = 0;
	struct zcs_test_obj *objs;
	struct zcs_pool_stats st;
	int ret = 0, r;

	objs = vzalloc(n * sizeof(*objs));
	if (!objs)
		return -ENOMEM;
	for (i = 0; i < n && !ret; i++)
		ret = zcs_test_store(pool, &objs[i], zcs_test_rand_len(),
				     GFP_KERNEL, zcs_test_buf);
	if (ret)
		goto out;
	for (i = 0; i < n; i += 3) {
		r = zcs_migrate_object_page(pool, objs[i].handle);
		if (r == -EOPNOTSUPP) {
			*skip = true;
			goto out;
		}
		if (!r)
			moved++;
		else if (r != -EBUSY)
			ret = r;
		/* Every few moves, check everything: other pages moved too. */
		if (!ret && !(i % 300))
			ret = zcs_test_verify_all(pool, objs, n);
		if (ret)
			break;
	}
	if (!ret)
		ret = zcs_test_verify_all(pool, objs, n);
	zcs_pool_stats(pool, &st);
	if (!ret && (!moved || st.migrated < moved)) {
		pr_info("# %u pages moved, pool counts %lu\n", moved, st.migrated);
		ret = -EINVAL;
	}
	if (!ret)
		pr_info("# %u pages moved by the module's migration callbacks (in-module trigger)\n",
			moved);
out:
	zcs_test_free_all(pool, objs, n);
	vfree(objs);
	return ret;
}

/* The kernel's own compaction: /proc/sys/vm/compact_memory. */
static int zcs_test_kernel_compaction(struct zcs_pool *pool)
{
	unsigned int n = quick ? 2000 : 6000, i;
	struct zcs_pool_stats before, after;
	struct zcs_test_obj *objs;
	struct file *f;
	loff_t pos = 0;
	int ret = 0;

	objs = vzalloc(n * sizeof(*objs));
	if (!objs)
		return -ENOMEM;
	for (i = 0; i < n && !ret; i++)
		ret = zcs_test_store(pool, &objs[i], zcs_test_rand_len(),
				     GFP_KERNEL, zcs_test_buf);
	if (ret)
		goto out;
	zcs_pool_stats(pool, &before);
	f = filp_open("/proc/sys/vm/compact_memory", O_WRONLY, 0);
	if (IS_ERR(f)) {
		pr_info("# cannot open compact_memory: %ld\n", PTR_ERR(f));
	} else {
		kernel_write(f, "1", 1, &pos);
		filp_close(f, NULL);
	}
	zcs_pool_stats(pool, &after);
	ret = zcs_test_verify_all(pool, objs, n);
	if (!ret)
		pr_info("# kernel compaction moved %lu of %lu pool pages\n",
			after.migrated - before.migrated, after.pages);
out:
	zcs_test_free_all(pool, objs, n);
	vfree(objs);
	return ret;
}

static int zcs_test_stress(struct zcs_pool *pool)
{
	unsigned int n = quick ? 1000 : 4000, i, k, nops = quick ? ops / 4 : ops;
	struct zcs_test_obj *objs;
	int ret = 0;

	objs = vzalloc(n * sizeof(*objs));
	if (!objs)
		return -ENOMEM;
	for (k = 0; k < nops && !ret; k++) {
		i = get_random_u32_below(n);
		if (objs[i].handle) {
			ret = zcs_test_verify(pool, &objs[i], zcs_test_copy, NULL);
			if (ret)
				pr_info("# op %u: object %u (len %u) corrupted\n",
					k, i, objs[i].len);
			zcs_free(pool, objs[i].handle);
			objs[i].handle = 0;
		} else {
			ret = zcs_test_store(pool, &objs[i], zcs_test_rand_len(),
					     GFP_KERNEL, zcs_test_buf);
		}
		if (!ret && !(k % 20000)) {
			zcs_compact(pool);
			ret = zcs_test_verify_all(pool, objs, n);
		}
		if (!(k % 1024))
			cond_resched();
	}
	if (!ret)
		ret = zcs_test_verify_all(pool, objs, n);
	zcs_test_free_all(pool, objs, n);
	vfree(objs);
	if (!ret && zcs_get_total_pages(pool)) {
		pr_info("# %lu pages left after freeing everything\n",
			zcs_get_total_pages(pool));
		ret = -EINVAL;
	}
	if (!ret)
		pr_info("# %u random operations over %u slots\n", nops, n);
	return ret;
}

/* Concurrent use: one kthread per online CPU plus a compactor. */

struct zcs_test_worker {
	struct zcs_pool *pool;
	struct task_struct *task;
	unsigned int nops;
	spinlock_t lock;	/* stands for the caller's lock (zcache's) */
	int result;
	unsigned long migrated;
};

static atomic_t zcs_test_running;

static int zcs_test_worker_fn(void *data)
{
	struct zcs_test_worker *w = data;
	unsigned int n = 256, i, k;
	struct zcs_test_obj *objs;
	u8 *scratch, *copy;
	int ret = 0;

	objs = kcalloc(n, sizeof(*objs), GFP_KERNEL);
	scratch = kmalloc(PAGE_SIZE, GFP_KERNEL);
	copy = kmalloc(PAGE_SIZE, GFP_KERNEL);
	if (!objs || !scratch || !copy) {
		ret = -ENOMEM;
		goto out;
	}
	for (k = 0; k < w->nops && !ret; k++) {
		i = get_random_u32_below(n);
		if (objs[i].handle) {
			/* Read and free in atomic context, as zcache does. */
			spin_lock(&w->lock);
			ret = zcs_test_verify(w->pool, &objs[i], copy, NULL);
			zcs_free(w->pool, objs[i].handle);
			spin_unlock(&w->lock);
			objs[i].handle = 0;
		} else {
			unsigned int len = zcs_test_rand_len();

			spin_lock(&w->lock);
			ret = zcs_test_store(w->pool, &objs[i], len,
					     GFP_NOWAIT | __GFP_NOWARN, scratch);
			spin_unlock(&w->lock);
			if (ret == -ENOMEM)
				ret = zcs_test_store(w->pool, &objs[i], len,
						     GFP_KERNEL, scratch);
		}
		if (!ret && !(k % 512) && objs[i].handle) {
			int r = zcs_migrate_object_page(w->pool, objs[i].handle);

			if (!r)
				w->migrated++;
			else if (r != -EOPNOTSUPP && r != -EBUSY)
				ret = r;
		}
		if (!(k % 256))
			cond_resched();
	}
	for (i = 0; i < n && objs; i++) {
		if (objs[i].handle && !ret)
			ret = zcs_test_verify(w->pool, &objs[i], copy, NULL);
		zcs_free(w->pool, objs[i].handle);
	}
out:
	kfree(copy);
	kfree(scratch);
	kfree(objs);
	w->result = ret;
	atomic_dec(&zcs_test_running);
	return 0;
}

static int zcs_test_concurrent(struct zcs_pool *pool)
{
	unsigned int nr = num_online_cpus(), i = 0, cpu, compactions = 0;
	struct zcs_test_worker *workers;
	unsigned long migrated = 0;
	int ret = 0;

	workers = kcalloc(nr, sizeof(*workers), GFP_KERNEL);
	if (!workers)
		return -ENOMEM;
	atomic_set(&zcs_test_running, 0);
	for_each_online_cpu(cpu) {
		struct zcs_test_worker *w = &workers[i];
		struct task_struct *t;

		if (i >= nr)
			break;
		w->pool = pool;
		w->nops = quick ? ops / 8 : ops / 2;
		spin_lock_init(&w->lock);
		t = kthread_create(zcs_test_worker_fn, w, "zcs_test/%u", cpu);
		if (IS_ERR(t)) {
			ret = PTR_ERR(t);
			break;
		}
		kthread_bind(t, cpu);
		get_task_struct(t);
		w->task = t;
		atomic_inc(&zcs_test_running);
		wake_up_process(t);
		i++;
	}
	/* Compact while they work. */
	while (atomic_read(&zcs_test_running)) {
		zcs_compact(pool);
		compactions++;
		usleep_range(5000, 10000);
	}
	nr = i;
	for (i = 0; i < nr; i++) {
		/* The thread has returned; this reaps it. */
		kthread_stop(workers[i].task);
		put_task_struct(workers[i].task);
		if (workers[i].result && !ret) {
			pr_info("# worker %u: %d\n", i, workers[i].result);
			ret = workers[i].result;
		}
		migrated += workers[i].migrated;
	}
	kfree(workers);
	if (!ret && zcs_get_total_pages(pool)) {
		pr_info("# %lu pages left\n", zcs_get_total_pages(pool));
		ret = -EINVAL;
	}
	if (!ret)
		pr_info("# %u threads, %u compactions, %lu migrations meanwhile\n",
			nr, compactions, migrated);
	return ret;
}

static int zcs_test_fault_injection(struct zcs_pool *pool)
{
	struct zcs_pool_stats before, after;
	struct zcs_test_obj objs[30];
	unsigned int i, failed = 0, old;
	int ret = 0, r;

	zcs_pool_stats(pool, &before);
	old = zcs_set_fail_alloc_every(3);
	for (i = 0; i < ARRAY_SIZE(objs); i++) {
		objs[i].handle = 0;
		r = zcs_test_store(pool, &objs[i], 100 + i * 100, GFP_KERNEL,
				   zcs_test_buf);
		if (r == -ENOSPC)
			failed++;
		else if (r)
			ret = r;
	}
	zcs_set_fail_alloc_every(old);
	if (!ret)
		ret = zcs_test_verify_all(pool, objs, ARRAY_SIZE(objs));
	zcs_test_free_all(pool, objs, ARRAY_SIZE(objs));
	zcs_pool_stats(pool, &after);
	if (!ret && (failed != ARRAY_SIZE(objs) / 3 ||
		     after.alloc_fail - before.alloc_fail != failed)) {
		pr_info("# %u injected failures (expected %zu), pool counted %lu\n",
			failed, ARRAY_SIZE(objs) / 3,
			after.alloc_fail - before.alloc_fail);
		ret = -EINVAL;
	}
	if (!ret)
		pr_info("# %u of %zu allocations failed with -ENOSPC as injected\n",
			failed, ARRAY_SIZE(objs));
	return ret;
}

static int zcs_test_destroy_accounting(void)
{
	struct zcs_test_obj objs[64];
	unsigned long payload = 0;
	struct zcs_pool_stats st;
	struct zcs_pool *pool;
	unsigned int i;
	int ret = 0;

	pool = zcs_create_pool("selftest-leak");
	if (!pool)
		return -ENOMEM;
	for (i = 0; i < ARRAY_SIZE(objs) && !ret; i++) {
		ret = zcs_test_store(pool, &objs[i], 50 * (i + 1), GFP_KERNEL,
				     zcs_test_buf);
		payload += 50 * (i + 1);
	}
	if (ret)
		goto out;
	zcs_pool_stats(pool, &st);
	if (st.objs_inuse != ARRAY_SIZE(objs) || st.payload_bytes != payload ||
	    !st.pages) {
		pr_info("# stats: %lu objects, %lu bytes, %lu pages\n",
			st.objs_inuse, st.payload_bytes, st.pages);
		ret = -EINVAL;
		goto out;
	}
	/* Free all but 5: destroy must free and report those. */
	for (i = 5; i < ARRAY_SIZE(objs); i++)
		zcs_free(pool, objs[i].handle);
	zcs_pool_stats(pool, &st);
	if (st.objs_inuse != 5) {
		pr_info("# %lu objects in use, expected 5\n", st.objs_inuse);
		ret = -EINVAL;
	}
	pr_info("# destroying a pool with 5 objects left (a leak report follows)\n");
out:
	zcs_destroy_pool(pool);
	return ret;
}

struct zcs_test_case {
	const char *name;
	int (*fn)(struct zcs_pool *pool, bool *skip);
};

#define ZCS_CASE(n)							\
	static int zcs_case_##n(struct zcs_pool *pool, bool *skip)	\
	{								\
		return zcs_test_##n(pool);				\
	}
ZCS_CASE(size_classes)
ZCS_CASE(spanning)
ZCS_CASE(compaction)
ZCS_CASE(kernel_compaction)
ZCS_CASE(stress)
ZCS_CASE(concurrent)
ZCS_CASE(fault_injection)

static int zcs_case_destroy_accounting(struct zcs_pool *pool, bool *skip)
{
	return zcs_test_destroy_accounting();
}

static const struct zcs_test_case zcs_cases[] = {
	{ "size_classes", zcs_case_size_classes },
	{ "spanning_objects", zcs_case_spanning },
	{ "handles_across_compaction", zcs_case_compaction },
	{ "handles_across_migration", zcs_test_migration },
	{ "kernel_compaction_migration", zcs_case_kernel_compaction },
	{ "random_stress", zcs_case_stress },
	{ "concurrent_all_cpus", zcs_case_concurrent },
	{ "fault_injection", zcs_case_fault_injection },
	{ "destroy_accounting", zcs_case_destroy_accounting },
};

static int __init zcs_test_init(void)
{
	unsigned int i, failed = 0;
	struct zcs_pool *pool;

	zcs_test_buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	zcs_test_copy = kmalloc(PAGE_SIZE, GFP_KERNEL);
	pool = zcs_create_pool("selftest");
	if (!zcs_test_buf || !zcs_test_copy || !pool) {
		zcs_destroy_pool(pool);
		kfree(zcs_test_copy);
		kfree(zcs_test_buf);
		return -ENOMEM;
	}
	pr_info("KTAP version 1\n");
	pr_info("1..%zu\n", ARRAY_SIZE(zcs_cases));
	for (i = 0; i < ARRAY_SIZE(zcs_cases); i++) {
		bool skip = false;
		int ret = zcs_cases[i].fn(pool, &skip);

		if (skip)
			pr_info("ok %u %s # SKIP this kernel lets no module migrate pages\n",
				i + 1, zcs_cases[i].name);
		else if (ret)
			pr_info("not ok %u %s # error %d\n", i + 1,
				zcs_cases[i].name, ret);
		else
			pr_info("ok %u %s\n", i + 1, zcs_cases[i].name);
		if (ret)
			failed++;
	}
	zcs_destroy_pool(pool);
	kfree(zcs_test_copy);
	kfree(zcs_test_buf);
	pr_info("# %u passed, %u failed\n", (unsigned int)ARRAY_SIZE(zcs_cases) - failed,
		failed);
	return failed ? -EINVAL : 0;
}

static void __exit zcs_test_exit(void)
{
}

module_init(zcs_test_init);
module_exit(zcs_test_exit);

MODULE_LICENSE("GPL");
MODULE_VERSION(ZCACHE_VERSION);
MODULE_DESCRIPTION("zcsmalloc self-test (KTAP in the kernel log)");
