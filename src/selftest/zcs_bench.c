// SPDX-License-Identifier: GPL-2.0
/*
 * zcsmalloc_bench: zcsmalloc against the kernel's own zsmalloc, same
 * workload, same boot, run at load time; results in the kernel log.
 *
 * The workload: objects whose sizes follow the LZ4-compressed sizes of
 * real 4 KiB pages (histogram below) plus a share of near-PAGE_SIZE
 * objects; per round, for each allocator in turn:
 *   fill   allocate and write nr_objs objects
 *   churn  churn_ops times: read (verified) and free a random object,
 *          allocate and write a new one
 *   read   read (verified) every object
 *   thin   free half of the objects at random, compact
 *   drain  read (verified) and free the rest
 * Both allocators see the same sequence of sizes and slots (a seeded
 * generator) and run side by side: both pools live at once, and the two
 * take turns every ZCS_BENCH_SLICE iterations of a phase (who goes first
 * alternates), so that noise from the rest of the machine (TCG, shared
 * hosts) falls on both alike.  Throughput counts every alloc, write, read and free per
 * second of the timed phases (compaction excluded, reported apart);
 * density is payload bytes / pool bytes, summed over two snapshots: after
 * churn (steady state) and after thin + compaction.
 *
 * The load succeeds when no object was corrupted; rmmod afterwards.
 */
#undef pr_fmt			/* compat.h's headers defined the default */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/err.h>
#include <linux/zsmalloc.h>

#include "zcsmalloc.h"
#include "test/compat-zsmalloc.h"

ZC_IMPORT_NS();

static unsigned int nr_objs = 20000;
module_param(nr_objs, uint, 0444);
MODULE_PARM_DESC(nr_objs, "objects live at once (default 20000)");

static unsigned int churn_ops = 100000;
module_param(churn_ops, uint, 0444);
MODULE_PARM_DESC(churn_ops, "free + allocate operations per round (default 100000)");

static unsigned int rounds = 4;
module_param(rounds, uint, 0444);
MODULE_PARM_DESC(rounds, "rounds, each allocator once per round, who goes first alternates (default 4)");

static unsigned int huge_pct = 5;
module_param(huge_pct, uint, 0444);
MODULE_PARM_DESC(huge_pct, "extra share of near-PAGE_SIZE objects, percent (default 5)");

/*
 * LZ4 (LZ4_compress_default) sizes of 84684 4 KiB pages of a Debian 12
 * system: executables and shared libraries in /usr/bin and
 * /usr/lib/x86_64-linux-gnu, text (docs, sources, HTML, JSON) and some
 * already-compressed .gz files under /usr/share; same-filled pages left
 * out (zcache stores those without the allocator).  Bucket b holds the
 * sizes b * 64 + 1 .. (b + 1) * 64, in 1/10000 of the pages.
 */
static const u16 zcs_bench_hist[64] = {
	7, 4, 4, 6, 8, 20, 18, 22, 28, 36, 57, 93, 118, 115, 105, 117,
	106, 117, 137, 160, 182, 211, 230, 173, 172, 167, 179, 173, 181, 196, 196, 199,
	227, 215, 206, 202, 211, 234, 243, 259, 314, 328, 336, 361, 315, 268, 267, 265,
	260, 267, 266, 252, 224, 176, 114, 64, 30, 19, 19, 22, 17, 12, 24, 413,
};

/* One allocator behind the workload. */
struct zcs_bench_ops {
	const char *name;
	void *(*create)(void);
	void (*destroy)(void *pool);
	unsigned long (*alloc)(void *pool, size_t len);
	void (*free)(void *pool, unsigned long h);
	void (*write)(void *pool, unsigned long h, const void *src, size_t len);
	const void *(*read_begin)(void *pool, unsigned long h, size_t len,
				  void *copy);
	void (*read_end)(void *pool, unsigned long h, size_t len,
			 const void *addr);
	unsigned long (*pages)(void *pool);
	unsigned long (*compact)(void *pool);
};

static void *zcs_bench_ours_create(void)
{
	return zcs_create_pool("bench");
}

static void zcs_bench_ours_destroy(void *pool)
{
	zcs_destroy_pool(pool);
}

static unsigned long zcs_bench_ours_alloc(void *pool, size_t len)
{
	unsigned long h = zcs_malloc(pool, len, GFP_KERNEL | __GFP_NOWARN);

	return IS_ERR_VALUE(h) ? 0 : h;
}

static void zcs_bench_ours_free(void *pool, unsigned long h)
{
	zcs_free(pool, h);
}

static void zcs_bench_ours_write(void *pool, unsigned long h, const void *src,
				 size_t len)
{
	zcs_write(pool, h, src, len);
}

static const void *zcs_bench_ours_read_begin(void *pool, unsigned long h,
					     size_t len, void *copy)
{
	return zcs_read_begin(pool, h, copy);
}

static void zcs_bench_ours_read_end(void *pool, unsigned long h, size_t len,
				    const void *addr)
{
	zcs_read_end(pool, h, addr);
}

static unsigned long zcs_bench_ours_pages(void *pool)
{
	return zcs_get_total_pages(pool);
}

static unsigned long zcs_bench_ours_compact(void *pool)
{
	return zcs_compact(pool);
}

static const struct zcs_bench_ops zcs_bench_ours = {
	.name = "zcsmalloc",
	.create = zcs_bench_ours_create,
	.destroy = zcs_bench_ours_destroy,
	.alloc = zcs_bench_ours_alloc,
	.free = zcs_bench_ours_free,
	.write = zcs_bench_ours_write,
	.read_begin = zcs_bench_ours_read_begin,
	.read_end = zcs_bench_ours_read_end,
	.pages = zcs_bench_ours_pages,
	.compact = zcs_bench_ours_compact,
};

static void *zcs_bench_zs_create(void)
{
	return zs_create_pool("zcsmalloc_bench");
}

static void zcs_bench_zs_destroy(void *pool)
{
	zs_destroy_pool(pool);
}

static unsigned long zcs_bench_zs_alloc(void *pool, size_t len)
{
	unsigned long h = zc_zs_malloc(pool, len, GFP_KERNEL | __GFP_NOWARN |
				       __GFP_HIGHMEM | __GFP_MOVABLE);

	return IS_ERR_VALUE(h) ? 0 : h;
}

static void zcs_bench_zs_free(void *pool, unsigned long h)
{
	zs_free(pool, h);
}

static void zcs_bench_zs_write(void *pool, unsigned long h, const void *src,
			       size_t len)
{
	zc_zs_write(pool, h, src, len);
}

static const void *zcs_bench_zs_read_begin(void *pool, unsigned long h,
					   size_t len, void *copy)
{
	return zc_zs_read_begin(pool, h, len, copy);
}

static void zcs_bench_zs_read_end(void *pool, unsigned long h, size_t len,
				  const void *addr)
{
	zc_zs_read_end(pool, h, len, addr);
}

static unsigned long zcs_bench_zs_pages(void *pool)
{
	return zs_get_total_pages(pool);
}

static unsigned long zcs_bench_zs_compact(void *pool)
{
	return zs_compact(pool);
}

static const struct zcs_bench_ops zcs_bench_kernel = {
	.name = "zsmalloc",
	.create = zcs_bench_zs_create,
	.destroy = zcs_bench_zs_destroy,
	.alloc = zcs_bench_zs_alloc,
	.free = zcs_bench_zs_free,
	.write = zcs_bench_zs_write,
	.read_begin = zcs_bench_zs_read_begin,
	.read_end = zcs_bench_zs_read_end,
	.pages = zcs_bench_zs_pages,
	.compact = zcs_bench_zs_compact,
};

/* Results of one allocator over all rounds. */
struct zcs_bench_result {
	u64 ops;
	u64 ns;
	u64 payload;		/* density snapshots: payload bytes */
	u64 pool;		/* ... and pool bytes */
	u64 compacted;		/* pages freed by compaction */
	u64 compact_ns;
	u64 phase_ns[5];	/* fill, churn, read, thin, drain */
	unsigned long errors;
};

struct zcs_bench_obj {
	unsigned long handle;
	u32 off;		/* into the source buffer */
	u16 len;
};

static u8 *zcs_bench_src;	/* 2 * PAGE_SIZE of page-like content */
static u8 *zcs_bench_copy;

static u32 zcs_bench_rng;

static u32 zcs_bench_rand(void)
{
	u32 x = zcs_bench_rng;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	zcs_bench_rng = x;
	return x;
}

static unsigned int zcs_bench_len(void)
{
	unsigned int r = zcs_bench_rand() % 10000, b, acc = 0;

	if (zcs_bench_rand() % 100 < huge_pct)
		return PAGE_SIZE - 256 + 1 + zcs_bench_rand() % 256;
	for (b = 0; b < ARRAY_SIZE(zcs_bench_hist) - 1; b++) {
		acc += zcs_bench_hist[b];
		if (r < acc)
			break;
	}
	return min_t(unsigned int, PAGE_SIZE,
		     (b * 64 + 1 + zcs_bench_rand() % 64) * PAGE_SIZE / 4096);
}

static bool zcs_bench_store(const struct zcs_bench_ops *ops, void *pool,
			    struct zcs_bench_obj *o, u64 *payload)
{
	unsigned int len = zcs_bench_len();
	unsigned long h = ops->alloc(pool, len);

	if (!h)
		return false;
	o->handle = h;
	o->len = len;
	o->off = zcs_bench_rand() % PAGE_SIZE;
	ops->write(pool, h, zcs_bench_src + o->off, len);
	*payload += len;
	return true;
}

static bool zcs_bench_check(const struct zcs_bench_ops *ops, void *pool,
			    struct zcs_bench_obj *o)
{
	const void *p = ops->read_begin(pool, o->handle, o->len, zcs_bench_copy);
	bool ok = !memcmp(p, zcs_bench_src + o->off, o->len);

	ops->read_end(pool, o->handle, o->len, p);
	return ok;
}

/* One allocator's side of a round; both sides advance in turns. */
struct zcs_bench_run {
	const struct zcs_bench_ops *ops;
	struct zcs_bench_result *res;
	struct zcs_bench_obj *objs;
	void *pool;
	u32 rng;		/* the workload's generator, per side */
	u64 payload;
	unsigned int pos;	/* progress in the current phase */
};

enum { ZCS_FILL, ZCS_CHURN, ZCS_READ, ZCS_THIN, ZCS_DRAIN, ZCS_NR_PHASES };

#define ZCS_BENCH_SLICE	256	/* iterations per turn */

static void zcs_bench_snapshot(struct zcs_bench_run *r)
{
	r->res->payload += r->payload;
	r->res->pool += (u64)r->ops->pages(r->pool) * PAGE_SIZE;
}

/* Up to ZCS_BENCH_SLICE iterations of @phase; true when it is done. */
static bool zcs_bench_step(struct zcs_bench_run *r, int phase)
{
	const struct zcs_bench_ops *ops = r->ops;
	unsigned int end, n = phase == ZCS_CHURN ? churn_ops : nr_objs;
	struct zcs_bench_obj *o;
	u64 ops_n = 0;

	end = min(n, r->pos + ZCS_BENCH_SLICE);
	zcs_bench_rng = r->rng;
	for (; r->pos < end; r->pos++) {
		o = &r->objs[phase == ZCS_CHURN ? zcs_bench_rand() % nr_objs : r->pos];
		switch (phase) {
		case ZCS_FILL:
			if (zcs_bench_store(ops, r->pool, o, &r->payload))
				ops_n += 2;
			break;
		case ZCS_CHURN:
			if (o->handle) {
				if (!zcs_bench_check(ops, r->pool, o))
					r->res->errors++;
				ops->free(r->pool, o->handle);
				r->payload -= o->len;
				o->handle = 0;
				ops_n += 2;
			}
			if (zcs_bench_store(ops, r->pool, o, &r->payload))
				ops_n += 2;
			break;
		case ZCS_READ:
			if (!o->handle)
				break;
			if (!zcs_bench_check(ops, r->pool, o))
				r->res->errors++;
			ops_n++;
			break;
		case ZCS_THIN:
			if (!o->handle || zcs_bench_rand() % 2)
				break;
			ops->free(r->pool, o->handle);
			r->payload -= o->len;
			o->handle = 0;
			ops_n++;
			break;
		case ZCS_DRAIN:
			if (!o->handle)
				break;
			if (!zcs_bench_check(ops, r->pool, o))
				r->res->errors++;
			ops->free(r->pool, o->handle);
			o->handle = 0;
			ops_n += 2;
			break;
		}
	}
	r->rng = zcs_bench_rng;
	r->res->ops += ops_n;
	return r->pos == n;
}

/*
 * One round: both allocators run the same workload (same seed) side by
 * side, taking turns every ZCS_BENCH_SLICE iterations, so that whatever
 * else the machine does falls on both alike.
 */
static int zcs_bench_round(struct zcs_bench_run *runs, u32 seed, unsigned int round)
{
	int phase, k, ret = 0;
	unsigned int turn = round;
	u64 t;

	for (k = 0; k < 2; k++) {
		runs[k].pool = runs[k].ops->create();
		runs[k].rng = seed;
		runs[k].payload = 0;
		memset(runs[k].objs, 0, nr_objs * sizeof(*runs[k].objs));
		if (!runs[k].pool)
			ret = -ENOMEM;
	}
	for (phase = 0; phase < ZCS_NR_PHASES && !ret; phase++) {
		bool done[2] = { false, false };

		runs[0].pos = 0;
		runs[1].pos = 0;
		while (!done[0] || !done[1]) {
			for (k = 0; k < 2; k++) {
				struct zcs_bench_run *r = &runs[(turn + k) % 2];

				if (done[r == &runs[1]])
					continue;
				t = ktime_get_ns();
				done[r == &runs[1]] = zcs_bench_step(r, phase);
				t = ktime_get_ns() - t;
				r->res->ns += t;
				r->res->phase_ns[phase] += t;
			}
			turn++;
			cond_resched();
		}
		if (phase == ZCS_READ) {
			zcs_bench_snapshot(&runs[0]);
			zcs_bench_snapshot(&runs[1]);
		}
		if (phase == ZCS_THIN) {
			for (k = 0; k < 2; k++) {
				struct zcs_bench_run *r = &runs[(round + k) % 2];

				t = ktime_get_ns();
				r->res->compacted += r->ops->compact(r->pool);
				r->res->compact_ns += ktime_get_ns() - t;
				zcs_bench_snapshot(r);
			}
		}
	}
	for (k = 0; k < 2; k++) {
		if (runs[k].pool)
			runs[k].ops->destroy(runs[k].pool);
	}
	return ret;
}

static u64 zcs_bench_per_sec(u64 n, u64 ns)
{
	return ns ? div64_u64(n * NSEC_PER_SEC, ns) : 0;
}

/* Prints a ratio a / b as x.yy. */
static void zcs_bench_ratio(char *buf, size_t sz, u64 a, u64 b)
{
	u64 r = b ? div64_u64(a * 100 + b / 2, b) : 0;

	snprintf(buf, sz, "%llu.%02llux", r / 100, r % 100);
}

static void zcs_bench_report(const char *name, struct zcs_bench_result *r)
{
	u64 d = r->pool ? div64_u64(r->payload * 10000, r->pool) : 0;

	pr_info("%s: %llu ops/s (%llu ops in %llu ms), density %llu.%04llu (payload %llu KiB / pool %llu KiB), compaction freed %llu pages in %llu ms, %lu errors\n",
		name, zcs_bench_per_sec(r->ops, r->ns), r->ops,
		div_u64(r->ns, NSEC_PER_MSEC), d / 10000, d % 10000,
		r->payload >> 10, r->pool >> 10, r->compacted,
		div_u64(r->compact_ns, NSEC_PER_MSEC), r->errors);
	pr_info("%s: phases (ms): fill %llu churn %llu read %llu thin %llu drain %llu\n",
		name, div_u64(r->phase_ns[0], NSEC_PER_MSEC),
		div_u64(r->phase_ns[1], NSEC_PER_MSEC),
		div_u64(r->phase_ns[2], NSEC_PER_MSEC),
		div_u64(r->phase_ns[3], NSEC_PER_MSEC),
		div_u64(r->phase_ns[4], NSEC_PER_MSEC));
}

static int __init zcs_bench_init(void)
{
	struct zcs_bench_result ours = {}, kern = {};
	struct zcs_bench_run runs[2] = {
		{ .ops = &zcs_bench_ours, .res = &ours },
		{ .ops = &zcs_bench_kernel, .res = &kern },
	};
	char tr[32], dr[32];
	unsigned int r, i;
	int ret = 0;

	if (!nr_objs || !rounds || huge_pct > 100) {
		pr_warn("nr_objs and rounds must be > 0, huge_pct <= 100\n");
		return -EINVAL;
	}
	runs[0].objs = vmalloc(array_size(nr_objs, sizeof(struct zcs_bench_obj)));
	runs[1].objs = vmalloc(array_size(nr_objs, sizeof(struct zcs_bench_obj)));
	zcs_bench_src = kmalloc(2 * PAGE_SIZE, GFP_KERNEL);
	zcs_bench_copy = kmalloc(PAGE_SIZE, GFP_KERNEL);
	if (!runs[0].objs || !runs[1].objs || !zcs_bench_src || !zcs_bench_copy) {
		ret = -ENOMEM;
		goto out;
	}
	zcs_bench_rng = 0x2545f491;
	for (i = 0; i < 2 * PAGE_SIZE; i++)
		zcs_bench_src[i] = (u8)zcs_bench_rand();

	pr_info("workload: %u objects, %u churn ops, %u rounds, LZ4 size mix + %u%% near-PAGE_SIZE; both allocators side by side, turns of %u iterations\n",
		nr_objs, churn_ops, rounds, huge_pct, ZCS_BENCH_SLICE);
	for (r = 0; r < rounds && !ret; r++)
		ret = zcs_bench_round(runs, 0x9e3779b9 * (r + 1), r);
	if (ret)
		goto out;
	zcs_bench_report("ours (zcsmalloc)", &ours);
	zcs_bench_report("kernel (zsmalloc)", &kern);
	zcs_bench_ratio(tr, sizeof(tr), zcs_bench_per_sec(ours.ops, ours.ns),
			zcs_bench_per_sec(kern.ops, kern.ns));
	zcs_bench_ratio(dr, sizeof(dr),
			ours.pool ? div64_u64(ours.payload * 1000000, ours.pool) : 0,
			kern.pool ? div64_u64(kern.payload * 1000000, kern.pool) : 0);
	pr_info("ratio ours/kernel: throughput %s density %s\n", tr, dr);
	if (ours.errors || kern.errors) {
		pr_err("objects corrupted: ours %lu, kernel %lu\n",
		       ours.errors, kern.errors);
		ret = -EIO;
	}
out:
	kfree(zcs_bench_copy);
	kfree(zcs_bench_src);
	vfree(runs[1].objs);
	vfree(runs[0].objs);
	return ret;
}

static void __exit zcs_bench_exit(void)
{
}

module_init(zcs_bench_init);
module_exit(zcs_bench_exit);

MODULE_LICENSE("GPL");
MODULE_VERSION(ZCACHE_VERSION);
MODULE_DESCRIPTION("zcsmalloc benchmark against the kernel's zsmalloc");
