// SPDX-License-Identifier: GPL-2.0
/*
 * zcache_selftest.c - zcache_test.ko: the zcache core's self-test.
 *
 * Runs at load, prints KTAP to the kernel log, and fails the load (-EINVAL)
 * if any case fails, so `modprobe zcache_test` is the test.  Cases: zbud
 * packing and LRU eviction, round trips with every available compressor
 * (old pages stay readable after a switch), same-filled pages, the
 * poor-compression reject, the pool limit and its hysteresis, ephemeral
 * eviction at the limit, write-back (coldest first, a load warms a page),
 * and stores/loads/invalidates/write-backs from every CPU at once.
 *
 * The module links its own copy of the core (tmem, compression, the
 * allocator interface, zbud; src/Kbuild with ZC_TESTS=1): its pools, limit
 * and counters are its own, apart from a loaded zcache.ko's, and zcache.ko
 * exports nothing for it.  Since issue 19 also: raw_pages after a failed
 * allocation, write-back switched off, the shrink worker over 40 pools.
 */
#undef pr_fmt			/* compat.h's headers defined the default */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/highmem.h>
#include <linux/random.h>
#include <linux/kthread.h>
#include <linux/completion.h>
#include <linux/xarray.h>
#include <linux/delay.h>
#include <linux/cpumask.h>
#include "zcache_internal.h"
#include "zcache_zbud.h"
#include "zcsmalloc.h"

ZC_IMPORT_NS();

static unsigned int zct_nr;
static unsigned int zct_failed;

/* True (and one "#" line in the log) when @cond does not hold. */
#define ZCT_FAILED(cond, fmt, ...)					\
	({								\
		bool __failed = !(cond);				\
									\
		if (__failed)						\
			pr_err("# %s:%d: %s: " fmt "\n", __func__,	\
			       __LINE__, #cond, ##__VA_ARGS__);		\
		__failed;						\
	})

static void zct_report(const char *name, int ret)
{
	zct_nr++;
	if (ret == -EOPNOTSUPP) {
		pr_info("ok %u %s # SKIP\n", zct_nr, name);
		return;
	}
	if (ret)
		zct_failed++;
	pr_info("%sok %u %s\n", ret ? "not " : "", zct_nr, name);
}

/*
 * Page contents: text-like data that compresses about 2-4x, derived from
 * (key, version), with the key and a checksum inside so that any page read
 * back can be checked on its own.
 */
struct zct_hdr {
	u64 key;
	u64 version;
	u32 sum;
};

static u32 zct_sum(const u8 *p, size_t len)
{
	u32 s = 0x12345678;
	size_t i;

	for (i = 0; i < len; i++)
		s = (s << 5) + s + p[i];
	return s;
}

static void zct_fill(void *buf, u64 key, u64 version)
{
	static const char * const words[] = {
		"zcache ", "stores ", "compressed ", "pages ", "in ", "RAM ",
		"swap ", "0123 ", "tmem ", "pool ", "\n",
	};
	struct zct_hdr *h = buf;
	u8 *p = buf;
	size_t pos = sizeof(*h), len;
	u64 x = key * 0x9e3779b97f4a7c15ULL + version + 1;

	while (pos < PAGE_SIZE) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		len = min(strlen(words[x % ARRAY_SIZE(words)]),
			  PAGE_SIZE - pos);
		memcpy(p + pos, words[x % ARRAY_SIZE(words)], len);
		pos += len;
		if (pos < PAGE_SIZE && !(x & 0x70))
			p[pos++] = (u8)(x >> 24);
	}
	h->key = key;
	h->version = version;
	h->sum = zct_sum(p + sizeof(*h), PAGE_SIZE - sizeof(*h));
}

static void zct_fill_page(struct page *page, u64 key, u64 version)
{
	void *p = zc_kmap_local(page);

	zct_fill(p, key, version);
	zc_kunmap_local(p);
}

/* 0 if @page is a consistent page of @key (any version, stored in *ver). */
static int zct_check_page(struct page *page, u64 key, u64 *ver)
{
	struct zct_hdr *h;
	u8 *p = zc_kmap_local(page);
	int ret = 0;

	h = (struct zct_hdr *)p;
	if (h->key != key ||
	    h->sum != zct_sum(p + sizeof(*h), PAGE_SIZE - sizeof(*h)))
		ret = -EINVAL;
	if (ver)
		*ver = h->version;
	zc_kunmap_local(p);
	return ret;
}

/* A page verified against the exact (key, version). */
static int zct_check_exact(struct page *page, u64 key, u64 version)
{
	u64 ver;

	if (zct_check_page(page, key, &ver) || ver != version)
		return -EINVAL;
	return 0;
}

/********************************
 * zbud
 ********************************/
static unsigned long zct_evicted[4];
static int zct_nr_evicted;

static bool zct_grab(unsigned long priv, void *arg)
{
	if (zct_nr_evicted < ARRAY_SIZE(zct_evicted))
		zct_evicted[zct_nr_evicted++] = priv;
	return true;
}

static int zct_zbud(void)
{
	struct zcache_zbud_pool *zp = zcache_zbud_create();
	unsigned long h[6];
	int i, n;
	u8 *p;

	if (ZCT_FAILED(zp, "no pool"))
		return -EINVAL;
	/* Two buddies share a frame; a third object needs a second frame. */
	if (ZCT_FAILED(!zcache_zbud_alloc(zp, 1000, GFP_KERNEL, 1, &h[0]), "alloc"))
		return -EINVAL;
	if (ZCT_FAILED(!zcache_zbud_alloc(zp, 2500, GFP_KERNEL, 2, &h[1]), "alloc"))
		return -EINVAL;
	if (ZCT_FAILED(zcache_zbud_pages(zp) == 1, "pages %lu",
		       zcache_zbud_pages(zp)))
		return -EINVAL;
	if (ZCT_FAILED(!zcache_zbud_alloc(zp, 3000, GFP_KERNEL, 3, &h[2]), "alloc"))
		return -EINVAL;
	if (ZCT_FAILED(zcache_zbud_pages(zp) == 2, "pages %lu",
		       zcache_zbud_pages(zp)))
		return -EINVAL;
	if (ZCT_FAILED(zcache_zbud_alloc(zp, zcache_zbud_max_size() + 1, GFP_KERNEL,
				    4, &h[3]) == -EINVAL, "oversize accepted"))
		return -EINVAL;
	/* Contents do not overlap. */
	for (i = 0; i < 3; i++)
		memset(zcache_zbud_map(zp, h[i]), 0xa0 + i,
		       i == 0 ? 1000 : i == 1 ? 2500 : 3000);
	for (i = 0; i < 3; i++) {
		size_t len = i == 0 ? 1000 : i == 1 ? 2500 : 3000;

		p = zcache_zbud_map(zp, h[i]);
		if (ZCT_FAILED(p[0] == 0xa0 + i && p[len - 1] == 0xa0 + i,
			       "object %d overwritten", i))
			return -EINVAL;
	}
	/* Freeing both buddies frees the frame. */
	zcache_zbud_free(zp, h[0]);
	zcache_zbud_free(zp, h[1]);
	if (ZCT_FAILED(zcache_zbud_pages(zp) == 1, "pages %lu",
		       zcache_zbud_pages(zp)))
		return -EINVAL;

	/* LRU eviction: the oldest frame's objects come out first. */
	if (ZCT_FAILED(!zcache_zbud_alloc(zp, 3000, GFP_KERNEL, 5, &h[4]), "alloc"))
		return -EINVAL;
	if (ZCT_FAILED(zcache_zbud_pages(zp) == 2, "pages %lu",
		       zcache_zbud_pages(zp)))
		return -EINVAL;
	zct_nr_evicted = 0;
	n = zcache_zbud_evict_lru(zp, zct_grab, NULL);
	if (ZCT_FAILED(n == 1 && zct_evicted[0] == 3, "evicted %d (%lu)", n,
		       zct_evicted[0]))
		return -EINVAL;
	zcache_zbud_free(zp, h[2]);
	if (ZCT_FAILED(zcache_zbud_pages(zp) == 1, "frame not freed"))
		return -EINVAL;
	zct_nr_evicted = 0;
	n = zcache_zbud_evict_lru(zp, zct_grab, NULL);
	if (ZCT_FAILED(n == 1 && zct_evicted[0] == 5, "evicted %d", n))
		return -EINVAL;
	zcache_zbud_free(zp, h[4]);
	if (ZCT_FAILED(zcache_zbud_evict_lru(zp, zct_grab, NULL) == -ENOENT,
		       "empty pool evicted"))
		return -EINVAL;
	if (ZCT_FAILED(zcache_zbud_pages(zp) == 0, "pages %lu",
		       zcache_zbud_pages(zp)))
		return -EINVAL;
	zcache_zbud_destroy(zp);
	return 0;
}

/********************************
 * compression
 ********************************/
static const char * const zct_comps[] = { "lzo", "lzo-rle", "lz4", "zstd" };

static int zct_roundtrip(struct zcache_pool *pool, struct page *page,
			 const char *comp, u64 key)
{
	int err, i;

	for (i = 0; i < 8; i++) {
		zct_fill_page(page, key + i, 1);
		err = zcache_store(pool, 0, key + i, page);
		if (ZCT_FAILED(!err, "%s: store %d", comp, err))
			return -EINVAL;
	}
	for (i = 0; i < 8; i++) {
		clear_highpage(page);
		err = zcache_load(pool, 0, key + i, page, false);
		if (ZCT_FAILED(!err, "%s: load %d", comp, err))
			return -EINVAL;
		if (ZCT_FAILED(!zct_check_exact(page, key + i, 1),
			       "%s: data mismatch", comp))
			return -EINVAL;
	}
	return 0;
}

static int zct_compressors(void)
{
	struct zcache_pool *pool;
	struct page *page = alloc_page(GFP_KERNEL);
	const char *saved = zcache_comp_current();
	int i, j, err = 0, tested = 0;
	bool ok[ARRAY_SIZE(zct_comps)] = { false };

	if (!page)
		return -ENOMEM;
	pool = zcache_pool_create(ZCACHE_POOL_PERSISTENT, "test-comp", NULL,
				  NULL);
	if (!pool) {
		__free_page(page);
		return -ENOMEM;
	}
	for (i = 0; i < ARRAY_SIZE(zct_comps) && !err; i++) {
		if (zcache_comp_set(zct_comps[i])) {
			pr_info("# compressor %s not available\n", zct_comps[i]);
			continue;
		}
		err = zct_roundtrip(pool, page, zct_comps[i], i * 100);
		ok[i] = !err;
		tested++;
	}
	/* After all the switches, every page is still readable. */
	for (i = 0; i < ARRAY_SIZE(zct_comps) && !err; i++) {
		if (!ok[i])
			continue;
		for (j = 0; j < 8 && !err; j++) {
			err = zcache_load(pool, 0, i * 100 + j, page, true);
			if (!err)
				err = zct_check_exact(page, i * 100 + j, 1);
			if (err)
				pr_err("# %s page %d unreadable after switch\n",
				       zct_comps[i], j);
		}
	}
	if (!err && zcache_comp_set("no-such-compressor") != -EINVAL) {
		pr_err("# unknown compressor accepted\n");
		err = -EINVAL;
	}
	zcache_comp_set(saved);
	zcache_pool_destroy(pool);
	__free_page(page);
	if (!err && tested < 2) {
		pr_err("# only %d compressors available\n", tested);
		err = -EINVAL;
	}
	return err;
}

/********************************
 * policy
 ********************************/
static int zct_same_filled(void)
{
	struct zcache_pool *pool;
	struct zcache_stats s;
	struct page *page = alloc_page(GFP_KERNEL);
	unsigned long *p;
	int err = -EINVAL, i;

	if (!page)
		return -ENOMEM;
	pool = zcache_pool_create(ZCACHE_POOL_PERSISTENT, "test-same", NULL,
				  NULL);
	if (!pool)
		goto out_page;
	p = zc_kmap_local(page);
	for (i = 0; i < PAGE_SIZE / sizeof(*p); i++)
		p[i] = 0x5a5a5a5a12345678UL;
	zc_kunmap_local(p);
	if (zcache_store(pool, 7, 1, page))
		goto out;
	clear_highpage(page);
	if (zcache_store(pool, 7, 2, page))
		goto out;
	zcache_pool_stats(pool, &s);
	if (s.same_filled_pages != 2 || s.pool_pages || s.compressed_bytes) {
		pr_err("# same %llu pages %llu bytes %llu\n",
		       s.same_filled_pages, s.pool_pages, s.compressed_bytes);
		goto out;
	}
	if (zcache_load(pool, 7, 1, page, false))
		goto out;
	p = zc_kmap_local(page);
	for (i = 0; i < PAGE_SIZE / sizeof(*p); i++)
		if (p[i] != 0x5a5a5a5a12345678UL)
			break;
	zc_kunmap_local(p);
	if (i != PAGE_SIZE / sizeof(*p)) {
		pr_err("# same-filled page read back wrong at word %d\n", i);
		goto out;
	}
	if (zcache_load(pool, 7, 2, page, true))
		goto out;
	p = zc_kmap_local(page);
	err = memchr_inv(p, 0, PAGE_SIZE) ? -EINVAL : 0;
	zc_kunmap_local(p);
	if (!err && zcache_load(pool, 7, 2, page, false) != -ENOENT)
		err = -EINVAL;
out:
	zcache_pool_destroy(pool);
out_page:
	__free_page(page);
	return err;
}

static int zct_poor_compression(void)
{
	struct zcache_pool *pool;
	struct zcache_stats s;
	struct page *page = alloc_page(GFP_KERNEL);
	void *p;
	int err;

	if (!page)
		return -ENOMEM;
	pool = zcache_pool_create(ZCACHE_POOL_PERSISTENT, "test-poor", NULL,
				  NULL);
	if (!pool) {
		__free_page(page);
		return -ENOMEM;
	}
	p = zc_kmap_local(page);
	get_random_bytes(p, PAGE_SIZE);
	zc_kunmap_local(p);
	err = zcache_store(pool, 1, 1, page);
	zcache_pool_stats(pool, &s);
	zcache_pool_destroy(pool);
	__free_page(page);
	if (ZCT_FAILED(err == -E2BIG, "random page: store returned %d", err))
		return -EINVAL;
	if (ZCT_FAILED(s.reject_poor_compression == 1 && !s.stored_pages,
		       "rejects %llu stored %llu", s.reject_poor_compression,
		       s.stored_pages))
		return -EINVAL;
	return 0;
}

#define ZCT_LIMIT	64

static int zct_limit(void)
{
	struct zcache_pool *pool;
	struct page *page = alloc_page(GFP_KERNEL);
	unsigned long key, stored = 0, freed, accept;
	int err = 0, ret;

	if (!page)
		return -ENOMEM;
	pool = zcache_pool_create(ZCACHE_POOL_PERSISTENT, "test-limit", NULL,
				  NULL);
	if (!pool) {
		__free_page(page);
		return -ENOMEM;
	}
	zcache_test_set_limit_pages(zcache_total_pages() + ZCT_LIMIT);
	accept = zcache_accept_pages();
	for (key = 0; key < 100 * ZCT_LIMIT; key++) {
		zct_fill_page(page, key, 2);
		ret = zcache_store(pool, 0, key, page);
		if (ret == -ENOSPC)
			break;
		if (ret) {
			pr_err("# store %lu: %d\n", key, ret);
			err = -EINVAL;
			goto out;
		}
		stored++;
	}
	if (key == 100 * ZCT_LIMIT ||
	    zcache_total_pages() > zcache_limit_pages() + 2) {
		pr_err("# limit not enforced: %lu pages, limit %lu\n",
		       zcache_total_pages(), zcache_limit_pages());
		err = -EINVAL;
		goto out;
	}
	/* Hysteresis: refused until usage falls below the accept threshold. */
	for (freed = 0; freed < stored; freed++) {
		zct_fill_page(page, 1000000, 2);
		ret = zcache_store(pool, 1, 0, page);
		if (zcache_total_pages() >= accept && ret != -ENOSPC) {
			pr_err("# accepted at %lu pages, threshold %lu\n",
			       zcache_total_pages(), accept);
			err = -EINVAL;
			goto out;
		}
		if (!ret)
			break;
		zcache_invalidate(pool, 0, freed);
	}
	if (freed == stored) {
		pr_err("# never accepted again\n");
		err = -EINVAL;
	}
out:
	zcache_test_set_limit_pages(0);
	zcache_pool_destroy(pool);
	__free_page(page);
	return err;
}

static int zct_ephemeral(void)
{
	struct zcache_pool *pool;
	struct zcache_stats s;
	struct page *page = alloc_page(GFP_KERNEL);
	unsigned long key, n = 40 * ZCT_LIMIT;
	int err = 0, ret;

	if (!page)
		return -ENOMEM;
	pool = zcache_pool_create(ZCACHE_POOL_EPHEMERAL, "test-eph", NULL,
				  NULL);
	if (!pool) {
		__free_page(page);
		return -ENOMEM;
	}
	zcache_test_set_limit_pages(zcache_total_pages() + ZCT_LIMIT);
	for (key = 0; key < n; key++) {
		zct_fill_page(page, key, 3);
		ret = zcache_store(pool, 5, key, page);
		if (ret) {
			pr_err("# ephemeral store %lu: %d\n", key, ret);
			err = -EINVAL;
			goto out;
		}
	}
	zcache_pool_stats(pool, &s);
	if (!s.evicted || s.pool_pages > ZCT_LIMIT + 2) {
		pr_err("# evicted %llu, pool pages %llu\n", s.evicted,
		       s.pool_pages);
		err = -EINVAL;
		goto out;
	}
	/* The newest pages are there, the oldest were evicted. */
	if (zcache_load(pool, 5, n - 1, page, false) ||
	    zct_check_exact(page, n - 1, 3) ||
	    zcache_load(pool, 5, 0, page, false) != -ENOENT) {
		pr_err("# eviction was not LRU-first\n");
		err = -EINVAL;
	}
out:
	zcache_test_set_limit_pages(0);
	zcache_pool_destroy(pool);
	__free_page(page);
	return err;
}

/********************************
 * write-back
 ********************************/
struct zct_wb {
	struct xarray written;		/* index -> version + 1 */
	bool fail;
};

static int zct_writeback_cb(struct zcache_pool *pool, void *owner, u64 oid,
			    pgoff_t index, struct page *page)
{
	struct zct_wb *wb = owner;
	u64 ver;

	if (wb->fail)
		return -EIO;
	if (zct_check_page(page, index, &ver))
		return -EINVAL;
	xa_store(&wb->written, index, xa_mk_value(ver + 1), GFP_KERNEL);
	return 0;
}

static const struct zcache_pool_ops zct_wb_ops = {
	.writeback = zct_writeback_cb,
};

static int zct_writeback(void)
{
	struct zct_wb wb = { .fail = false };
	struct zcache_pool *pool;
	struct zcache_stats s;
	struct page *page = alloc_page(GFP_KERNEL);
	unsigned long i;
	long done;
	int err = -EINVAL;

	if (!page)
		return -ENOMEM;
	xa_init(&wb.written);
	pool = zcache_pool_create(ZCACHE_POOL_PERSISTENT, "test-wb",
				  &zct_wb_ops, &wb);
	if (!pool)
		goto out_page;
	for (i = 0; i < 32; i++) {
		zct_fill_page(page, i, 4);
		if (zcache_store(pool, 0, i, page))
			goto out;
	}
	/* Coldest first: 0..7. */
	done = zcache_pool_writeback(pool, 8);
	if (done != 8) {
		pr_err("# wrote back %ld of 8\n", done);
		goto out;
	}
	for (i = 0; i < 8; i++)
		if (xa_to_value(xa_load(&wb.written, i)) != 5 ||
		    zcache_load(pool, 0, i, page, false) != -ENOENT) {
			pr_err("# page %lu not written back\n", i);
			goto out;
		}
	if (xa_load(&wb.written, 8)) {
		pr_err("# page 8 written back too early\n");
		goto out;
	}
	/* A load warms page 8: the next cold one is 9. */
	if (zcache_load(pool, 0, 8, page, false) ||
	    zct_check_exact(page, 8, 4))
		goto out;
	if (zcache_pool_writeback(pool, 1) != 1 || !xa_load(&wb.written, 9) ||
	    xa_load(&wb.written, 8)) {
		pr_err("# a load did not warm the page\n");
		goto out;
	}
	/* A failing device keeps the pages. */
	wb.fail = true;
	done = zcache_pool_writeback(pool, 4);
	zcache_pool_stats(pool, &s);
	if (done != 0 || s.writeback_failed != 4 || s.stored_pages != 23 ||
	    s.written_back != 9) {
		pr_err("# failing write-back: done %ld failed %llu stored %llu wb %llu\n",
		       done, s.writeback_failed, s.stored_pages,
		       s.written_back);
		goto out;
	}
	for (i = 10; i < 32; i++)
		if (zcache_load(pool, 0, i, page, false) ||
		    zct_check_exact(page, i, 4)) {
			pr_err("# page %lu lost\n", i);
			goto out;
		}
	err = 0;
out:
	zcache_pool_destroy(pool);
	xa_destroy(&wb.written);
out_page:
	__free_page(page);
	return err;
}

/*
 * Issue 19: a raw (KEEP_RAW) page whose allocation fails must leave
 * raw_pages as it was (it was counted before the allocation and never
 * given back).  zcsmalloc's fault injection fails the allocation.
 */
static const struct zcache_pool_ops zct_raw_ops = {
	.flags = ZCACHE_POOL_KEEP_RAW,
};

static int zct_raw_alloc_fail(void)
{
	struct zcache_pool *pool;
	struct zcache_stats s;
	struct page *page = alloc_page(GFP_KERNEL);
	unsigned int old;
	void *p;
	int err;

	if (!page)
		return -ENOMEM;
	pool = zcache_pool_create(ZCACHE_POOL_PERSISTENT, "test-raw-fail",
				  &zct_raw_ops, NULL);
	if (!pool) {
		__free_page(page);
		return -ENOMEM;
	}
	p = zc_kmap_local(page);
	get_random_bytes(p, PAGE_SIZE);
	zc_kunmap_local(p);
	old = zcs_set_fail_alloc_every(1);
	err = zcache_store(pool, 1, 1, page);
	zcs_set_fail_alloc_every(old);
	zcache_pool_stats(pool, &s);
	if (ZCT_FAILED(err == -ENOMEM && s.reject_alloc_fail == 1,
		       "store %d, alloc rejects %llu", err,
		       s.reject_alloc_fail) ||
	    ZCT_FAILED(!s.raw_pages && !s.stored_pages,
		       "raw_pages %llu stored %llu after a failed store",
		       s.raw_pages, s.stored_pages)) {
		err = -EINVAL;
		goto out;
	}
	/* And a raw page that does get stored is counted once, then not. */
	err = zcache_store(pool, 1, 1, page);
	zcache_pool_stats(pool, &s);
	if (ZCT_FAILED(!err && s.raw_pages == 1, "store %d raw_pages %llu",
		       err, s.raw_pages)) {
		err = -EINVAL;
		goto out;
	}
	zcache_invalidate(pool, 1, 1);
	zcache_pool_stats(pool, &s);
	err = ZCT_FAILED(!s.raw_pages, "raw_pages %llu after invalidate",
			 s.raw_pages) ? -EINVAL : 0;
out:
	zcache_pool_destroy(pool);
	__free_page(page);
	return err;
}

/*
 * Issue 19: with write-back off (zcache_pool_set_writeback()), neither
 * zcache_pool_writeback() nor the shrink worker decompresses a page for
 * ->writeback; on again, write-back works.
 */
struct zct_wb_count {
	atomic_t calls;
};

static int zct_wb_count_cb(struct zcache_pool *pool, void *owner, u64 oid,
			   pgoff_t index, struct page *page)
{
	struct zct_wb_count *c = owner;

	atomic_inc(&c->calls);
	return zct_check_exact(page, index, 6);
}

static const struct zcache_pool_ops zct_wb_count_ops = {
	.writeback = zct_wb_count_cb,
};

static int zct_writeback_off(void)
{
	struct zct_wb_count c = { .calls = ATOMIC_INIT(0) };
	struct zcache_pool *pool;
	struct page *page = alloc_page(GFP_KERNEL);
	unsigned long i;
	bool full;
	long done;
	int err = -EINVAL, ret;

	if (!page)
		return -ENOMEM;
	pool = zcache_pool_create(ZCACHE_POOL_PERSISTENT, "test-wb-off",
				  &zct_wb_count_ops, &c);
	if (!pool)
		goto out_page;
	for (i = 0; i < 16; i++) {
		zct_fill_page(page, i, 6);
		if (zcache_store(pool, 0, i, page))
			goto out;
	}
	zcache_pool_set_writeback(pool, false);
	done = zcache_pool_writeback(pool, 8);
	/*
	 * At the limit (a refused store sets the pool full and kicks the
	 * worker): the worker runs, and must leave the pool alone.
	 */
	zcache_test_set_limit_pages(zcache_total_pages());
	zct_fill_page(page, 100, 6);
	ret = zcache_store(pool, 0, 100, page);
	full = zcache_pool_is_full();
	zcache_shrink_sync();
	zcache_test_set_limit_pages(0);
	if (ZCT_FAILED(ret == -ENOSPC && full, "store at the limit: %d, full %d",
		       ret, full))
		goto out;
	if (ZCT_FAILED(done == 0 && !atomic_read(&c.calls),
		       "write-back off: done %ld, ->writeback called %d times",
		       done, atomic_read(&c.calls)))
		goto out;
	zcache_pool_set_writeback(pool, true);
	done = zcache_pool_writeback(pool, 8);
	if (ZCT_FAILED(done == 8 && atomic_read(&c.calls) == 8,
		       "write-back on: done %ld, calls %d", done,
		       atomic_read(&c.calls)))
		goto out;
	err = 0;
out:
	zcache_test_set_limit_pages(0);
	zcache_pool_destroy(pool);
out_page:
	__free_page(page);
	return err;
}

/*
 * Issue 19: the shrink worker sees every pool, not only the first 32.
 * 40 ephemeral pools, the pages in the last one; over the limit, the
 * worker must bring the total below the accept threshold.
 */
#define ZCT_MANY_POOLS	40

static int zct_shrink_many_pools(void)
{
	struct zcache_pool **pools;
	struct page *page = alloc_page(GFP_KERNEL);
	unsigned long key, total, accept;
	char name[24];
	int i, err = -EINVAL;

	pools = kcalloc(ZCT_MANY_POOLS, sizeof(*pools), GFP_KERNEL);
	if (!pools || !page) {
		err = -ENOMEM;
		goto out_free;
	}
	for (i = 0; i < ZCT_MANY_POOLS; i++) {
		snprintf(name, sizeof(name), "test-many-%d", i);
		pools[i] = zcache_pool_create(ZCACHE_POOL_EPHEMERAL, name, NULL,
					      NULL);
		if (!pools[i]) {
			err = -ENOMEM;
			goto out;
		}
	}
	for (key = 0; key < 4 * ZCT_LIMIT; key++) {
		zct_fill_page(page, key, 7);
		if (zcache_store(pools[ZCT_MANY_POOLS - 1], 3, key, page))
			break;
	}
	/* The limit where the pool is now: the next store hits it. */
	zcache_test_set_limit_pages(zcache_total_pages());
	zct_fill_page(page, key, 7);
	zcache_store(pools[ZCT_MANY_POOLS - 1], 3, key, page);
	if (ZCT_FAILED(zcache_pool_is_full(), "limit never hit: %lu pages",
		       zcache_total_pages()))
		goto out;
	zcache_shrink_sync();
	total = zcache_total_pages();
	accept = zcache_accept_pages();
	if (ZCT_FAILED(total < accept,
		       "worker left %lu pages with %d pools (accept %lu)",
		       total, ZCT_MANY_POOLS, accept))
		goto out;
	err = 0;
out:
	zcache_test_set_limit_pages(0);
	for (i = 0; i < ZCT_MANY_POOLS; i++)
		zcache_pool_destroy(pools[i]);
out_free:
	kfree(pools);
	if (page)
		__free_page(page);
	return err;
}

/********************************
 * concurrency
 ********************************/
#define ZCT_SHARED_KEYS	64
#define ZCT_PRIV_KEYS	32
#define ZCT_ITERS	3000

struct zct_thread {
	struct zcache_pool *shared, *priv;
	struct completion done;
	unsigned int id;
	int err;
};

static atomic_t zct_stop;

static int zct_thread_fn(void *arg)
{
	struct zct_thread *t = arg;
	struct page *page = alloc_page(GFP_KERNEL);
	u64 version[ZCT_PRIV_KEYS] = { 0 };
	unsigned int i, r, k;
	u64 key;
	int ret;

	if (!page) {
		t->err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < ZCT_ITERS && !t->err; i++) {
		r = get_random_u32();
		/* Shared keys: any version, but a consistent page. */
		key = r % ZCT_SHARED_KEYS;
		switch ((r >> 8) % 4) {
		case 0:
		case 1:
			zct_fill_page(page, key, ((u64)t->id << 32) | i);
			ret = zcache_store(t->shared, 0, key, page);
			if (ret && ret != -ENOSPC && ret != -ENOMEM)
				t->err = ret;
			break;
		case 2:
			ret = zcache_load(t->shared, 0, key, page, r & 1);
			if (!ret && zct_check_page(page, key, NULL)) {
				pr_err("# thread %u: shared key %llu corrupt\n",
				       t->id, key);
				t->err = -EINVAL;
			}
			break;
		default:
			zcache_invalidate(t->shared, 0, key);
			break;
		}
		/* Own keys: exactly the last version stored. */
		k = (r >> 16) % ZCT_PRIV_KEYS;
		key = (u64)t->id * 1000 + k;
		if (version[k] && ((r >> 24) & 1)) {
			ret = zcache_load(t->priv, t->id, key, page, false);
			if (ret == -ENOENT)
				version[k] = 0;	/* refused at the limit */
			else if (ret || zct_check_exact(page, key, version[k])) {
				pr_err("# thread %u: key %llu v%llu: %d\n",
				       t->id, key, version[k], ret);
				t->err = -EINVAL;
			}
		} else {
			zct_fill_page(page, key, i + 1);
			ret = zcache_store(t->priv, t->id, key, page);
			version[k] = ret ? 0 : i + 1;
			if (ret && ret != -ENOSPC && ret != -ENOMEM)
				t->err = ret;
		}
		if (!(i % 64))
			cond_resched();
	}
	if (!t->err)
		zcache_invalidate_object(t->priv, t->id);
	__free_page(page);
out:
	complete(&t->done);
	return 0;
}

struct zct_wb_thread {
	struct zcache_pool *pool;
	struct completion done;
};

static int zct_wb_thread_fn(void *arg)
{
	struct zct_wb_thread *w = arg;

	while (!atomic_read(&zct_stop)) {
		zcache_pool_writeback(w->pool, 4);
		usleep_range(100, 200);
	}
	complete(&w->done);
	return 0;
}

static int zct_check_wb_cb(struct zcache_pool *pool, void *owner, u64 oid,
			   pgoff_t index, struct page *page)
{
	return zct_check_page(page, index, NULL);
}

static const struct zcache_pool_ops zct_check_wb_ops = {
	.writeback = zct_check_wb_cb,
};

static int zct_concurrency(void)
{
	struct zcache_pool *shared, *priv;
	struct zct_thread *t;
	struct zct_wb_thread wbt;
	struct task_struct *task;
	struct zcache_stats s;
	unsigned int cpu, n = 0, i;
	int err = 0;

	t = kcalloc(nr_cpu_ids, sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	shared = zcache_pool_create(ZCACHE_POOL_PERSISTENT, "test-shared",
				    &zct_check_wb_ops, NULL);
	priv = zcache_pool_create(ZCACHE_POOL_PERSISTENT, "test-priv", NULL,
				  NULL);
	if (!shared || !priv) {
		err = -ENOMEM;
		goto out;
	}
	atomic_set(&zct_stop, 0);
	wbt.pool = shared;
	init_completion(&wbt.done);
	task = kthread_run(zct_wb_thread_fn, &wbt, "zcache_test_wb");
	if (IS_ERR(task)) {
		err = PTR_ERR(task);
		goto out;
	}
	for_each_online_cpu(cpu) {
		t[n].shared = shared;
		t[n].priv = priv;
		t[n].id = cpu;
		init_completion(&t[n].done);
		task = kthread_create(zct_thread_fn, &t[n], "zcache_test/%u",
				      cpu);
		if (IS_ERR(task)) {
			err = PTR_ERR(task);
			break;
		}
		kthread_bind(task, cpu);
		wake_up_process(task);
		n++;
	}
	for (i = 0; i < n; i++) {
		wait_for_completion(&t[i].done);
		if (t[i].err)
			err = t[i].err;
	}
	atomic_set(&zct_stop, 1);
	wait_for_completion(&wbt.done);
	zcache_pool_stats(shared, &s);
	pr_info("# %u CPUs: shared stores %llu loads %llu written back %llu raced %llu failed %llu\n",
		n, s.stores, s.loads, s.written_back, s.writeback_raced,
		s.writeback_failed);
	if (s.writeback_failed) {
		pr_err("# write-back saw inconsistent pages\n");
		err = -EINVAL;
	}
	zcache_pool_stats(priv, &s);
	if (!err && s.stored_pages) {
		pr_err("# %llu private pages left after invalidation\n",
		       s.stored_pages);
		err = -EINVAL;
	}
out:
	zcache_pool_destroy(shared);
	zcache_pool_destroy(priv);
	kfree(t);
	return err;
}

static int zct_pools_empty(void)
{
	struct zcache_stats s;

	zcache_global_stats(&s);
	/* Every case destroyed its pools: nothing may be left. */
	if (ZCT_FAILED(zcache_total_pages() == 0 && !s.stored_pages &&
		       !s.raw_pages && !s.same_filled_pages &&
		       !s.compressed_bytes,
		       "pages %lu, stored %llu, raw %llu, same %llu, bytes %llu left",
		       zcache_total_pages(), s.stored_pages, s.raw_pages,
		       s.same_filled_pages, s.compressed_bytes))
		return -EINVAL;
	return 0;
}

static const struct {
	const char *name;
	int (*fn)(void);
} zct_cases[] = {
	{ "zbud_pack_free_evict", zct_zbud },
	{ "compressor_roundtrip_and_switch", zct_compressors },
	{ "same_filled_pages", zct_same_filled },
	{ "poor_compression_reject", zct_poor_compression },
	{ "pool_limit_hysteresis", zct_limit },
	{ "ephemeral_eviction_at_limit", zct_ephemeral },
	{ "writeback_coldest_first", zct_writeback },
	{ "raw_pages_alloc_failure", zct_raw_alloc_fail },
	{ "writeback_off_no_decompress", zct_writeback_off },
	{ "shrink_worker_sees_every_pool", zct_shrink_many_pools },
	{ "concurrency_all_cpus", zct_concurrency },
	{ "no_pages_leaked", zct_pools_empty },
};

static int __init zct_init(void)
{
	unsigned int i;
	int err;

	/* This module's own copy of the core (src/Kbuild, ZC_TESTS=1). */
	err = zcache_comp_init();
	if (err)
		return err;
	err = zcache_tmem_init();
	if (err) {
		zcache_comp_exit();
		return err;
	}
	pr_info("KTAP version 1\n");
	pr_info("1..%zu\n", ARRAY_SIZE(zct_cases));
	for (i = 0; i < ARRAY_SIZE(zct_cases); i++)
		zct_report(zct_cases[i].name, zct_cases[i].fn());
	pr_info("# zcache_test: %u passed, %u failed\n", zct_nr - zct_failed,
		zct_failed);
	if (!zct_failed)
		return 0;
	zcache_tmem_exit();
	zcache_comp_exit();
	return -EINVAL;
}

static void __exit zct_exit(void)
{
	zcache_tmem_exit();
	zcache_comp_exit();
}

module_init(zct_init);
module_exit(zct_exit);

MODULE_LICENSE("GPL");
MODULE_VERSION(ZCACHE_VERSION);
MODULE_DESCRIPTION("zcache core self-test (KTAP in the kernel log)");
