// SPDX-License-Identifier: GPL-2.0
/*
 * Compression for the zcache core through the kernel's
 * crypto API (compat-crypto.h hides comp versus acomp).
 *
 * Each compressor zcache knows gets an id that every stored entry records,
 * so pages stay readable after the `compressor` parameter changes: a
 * compressor, once loaded, keeps its per-CPU handles until the module
 * unloads.  The compressor's own module loads on demand (crypto_has_alg).
 *
 * Per CPU: one handle per loaded compressor and a context (output buffer
 * of two pages, a page for split-object copies) under a local lock, so
 * compression never sleeps and never allocates.
 *
 * Lock ordering: zcache_comp_mutex (parameter writes, loading) only.
 */
#undef pr_fmt			/* compat.h's headers defined the default */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/local_lock.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/crypto.h>
#include <linux/cpumask.h>
#include "zcache_internal.h"

/********************************
 * compressors
 ********************************/
/* The compressors zcache accepts, by id (the id is stored in entries). */
static const char * const zcache_comp_names[] = {
	"lzo", "lzo-rle", "lz4", "zstd",
};

#define ZCACHE_NR_COMP	ARRAY_SIZE(zcache_comp_names)

/* Per-CPU handles of each loaded compressor; NULL until loaded. */
static struct zc_comp * __percpu *zcache_comp_tfms[ZCACHE_NR_COMP];
/* Id of the compressor new pages get; ZCACHE_COMP_NONE before init. */
static u8 zcache_comp_cur = ZCACHE_COMP_NONE;
/* Serialises loading and the parameter. */
static DEFINE_MUTEX(zcache_comp_mutex);
/* Name asked for before module init (modprobe zcache compressor=...). */
static char zcache_comp_wanted[16];
static bool zcache_comp_ready;

DEFINE_PER_CPU(struct zcache_comp_pcpu, zcache_comp_pcpu) = {
	.lock = INIT_LOCAL_LOCK(lock),
};

DEFINE_PER_CPU(struct zcache_comp_pcpu, zcache_comp_pcpu_irq) = {
	.lock = INIT_LOCAL_LOCK(lock),
	.ctx.irq = true,
};

static int zcache_comp_lookup(const char *name)
{
	unsigned int i;

	for (i = 0; i < ZCACHE_NR_COMP; i++)
		if (!strcmp(name, zcache_comp_names[i]))
			return i;
	return -EINVAL;
}

const char *zcache_comp_name(u8 comp_id)
{
	if (comp_id >= ZCACHE_NR_COMP)
		return "none";
	return zcache_comp_names[comp_id];
}

/**
 * zcache_comp_current - the compressor new pages get
 *
 * Context: any.
 */
const char *zcache_comp_current(void)
{
	return zcache_comp_name(READ_ONCE(zcache_comp_cur));
}

static void zcache_comp_free_tfms(struct zc_comp * __percpu *tfms)
{
	int cpu;

	if (!tfms)
		return;
	for_each_possible_cpu(cpu)
		zc_comp_free(*per_cpu_ptr(tfms, cpu));
	free_percpu(tfms);
}

/* Loads compressor @id on every possible CPU.  Under zcache_comp_mutex. */
static int zcache_comp_load(unsigned int id)
{
	struct zc_comp * __percpu *tfms;
	struct zc_comp *c;
	int cpu;

	lockdep_assert_held(&zcache_comp_mutex);
	if (zcache_comp_tfms[id])
		return 0;
	if (!crypto_has_alg(zcache_comp_names[id], 0, 0))
		return -ENOENT;
	tfms = alloc_percpu(struct zc_comp *);
	if (!tfms)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		c = zc_comp_alloc(zcache_comp_names[id]);
		if (IS_ERR(c)) {
			zcache_comp_free_tfms(tfms);
			return PTR_ERR(c);
		}
		*per_cpu_ptr(tfms, cpu) = c;
	}
	/* Readers test the pointer without the mutex: publish it last. */
	smp_store_release(&zcache_comp_tfms[id], tfms);
	return 0;
}

/* Prints the one line naming what is available.  Under the mutex. */
static void zcache_comp_warn_unavailable(const char *name)
{
	char list[64] = "";
	unsigned int i, len = 0;

	for (i = 0; i < ZCACHE_NR_COMP; i++) {
		if (!crypto_has_alg(zcache_comp_names[i], 0, 0))
			continue;
		len += scnprintf(list + len, sizeof(list) - len, " %s",
				 zcache_comp_names[i]);
	}
	pr_warn("compressor \"%s\" is not available; available:%s\n",
		name, list[0] ? list : " none");
}

/* Under zcache_comp_mutex, after init. */
static int __zcache_comp_set(const char *name, bool warn)
{
	int id = zcache_comp_lookup(name);

	lockdep_assert_held(&zcache_comp_mutex);
	if (id < 0 || zcache_comp_load(id)) {
		if (warn)
			zcache_comp_warn_unavailable(name);
		return -EINVAL;
	}
	if (zcache_comp_cur != id)
		pr_info("compressor %s for new pages\n", zcache_comp_names[id]);
	WRITE_ONCE(zcache_comp_cur, id);
	return 0;
}

/**
 * zcache_comp_set - choose the compressor of new pages
 * @name: one of lzo, lzo-rle, lz4, zstd
 *
 * Loads the compressor's module if needed.  Pages already stored keep the
 * compressor they were stored with.  Returns 0 or -EINVAL (one dmesg line
 * lists what is available).
 *
 * Context: process, sleeps.
 */
int zcache_comp_set(const char *name)
{
	int err;

	mutex_lock(&zcache_comp_mutex);
	err = zcache_comp_ready ? __zcache_comp_set(name, true) : -EAGAIN;
	mutex_unlock(&zcache_comp_mutex);
	return err;
}

static struct zc_comp *zcache_comp_tfm(u8 comp_id)
{
	struct zc_comp * __percpu *tfms;

	if (comp_id >= ZCACHE_NR_COMP)
		return NULL;
	/* Pairs with smp_store_release() in zcache_comp_load(). */
	tfms = smp_load_acquire(&zcache_comp_tfms[comp_id]);
	if (!tfms)
		return NULL;
	return *this_cpu_ptr(tfms);
}

/**
 * zcache_comp_compress - compress one page with the current compressor
 * @ctx: from zcache_comp_get()
 * @src: the page's bytes
 * @dlen: the compressed length
 * @comp_id: the compressor used (to store with the entry)
 *
 * The output is in @ctx->buf.  Returns 0 or a negative errno.
 */
int zcache_comp_compress(struct zcache_comp_ctx *ctx, const void *src,
			 unsigned int *dlen, u8 *comp_id)
{
	u8 id = READ_ONCE(zcache_comp_cur);
	struct zc_comp *c = zcache_comp_tfm(id);

	if (!c)
		return -ENODEV;
	*comp_id = id;
	*dlen = 2 * PAGE_SIZE;
	return zc_comp_compress(c, src, PAGE_SIZE, ctx->buf, dlen);
}

/**
 * zcache_comp_decompress - decompress one page
 * @ctx: from zcache_comp_get()
 * @comp_id: the compressor the entry was stored with
 * @src: compressed bytes
 * @slen: their length
 * @dst: the page's bytes
 *
 * Returns 0, or -EIO when the output is not exactly one page.
 */
int zcache_comp_decompress(struct zcache_comp_ctx *ctx, u8 comp_id,
			   const void *src, unsigned int slen, void *dst)
{
	struct zc_comp *c;
	unsigned int dlen = PAGE_SIZE;
	int err;

	if (comp_id == ZCACHE_COMP_RAW) {
		if (slen != PAGE_SIZE)
			return -EIO;
		memcpy(dst, src, PAGE_SIZE);
		return 0;
	}
	c = zcache_comp_tfm(comp_id);
	if (!c)
		return -ENODEV;
	err = zc_comp_decompress(c, src, slen, dst, &dlen);
	if (err || dlen != PAGE_SIZE)
		return -EIO;
	return 0;
}

/********************************
 * parameter
 ********************************/
static int zcache_comp_param_set(const char *val, const struct kernel_param *kp)
{
	char name[sizeof(zcache_comp_wanted)];
	int err = 0;

	if (strscpy(name, val, sizeof(name)) < 0) {
		pr_warn("compressor: name too long\n");
		return -EINVAL;
	}
	strim(name);
	mutex_lock(&zcache_comp_mutex);
	if (zcache_comp_ready) {
		err = __zcache_comp_set(name, true);
	} else if (zcache_comp_lookup(name) < 0) {
		zcache_comp_warn_unavailable(name);
		err = -EINVAL;
	} else {
		strscpy(zcache_comp_wanted, name, sizeof(zcache_comp_wanted));
	}
	mutex_unlock(&zcache_comp_mutex);
	return err;
}

static int zcache_comp_param_get(char *buf, const struct kernel_param *kp)
{
	const char *name;

	mutex_lock(&zcache_comp_mutex);
	name = zcache_comp_ready ? zcache_comp_current() :
	       (zcache_comp_wanted[0] ? zcache_comp_wanted : "default");
	mutex_unlock(&zcache_comp_mutex);
	return sprintf(buf, "%s\n", name);
}

static const struct kernel_param_ops zcache_comp_param_ops = {
	.set = zcache_comp_param_set,
	.get = zcache_comp_param_get,
};

/* Compressor of new pages: lzo, lzo-rle, lz4, zstd (default lz4, else lzo-rle). */
module_param_cb(compressor, &zcache_comp_param_ops, NULL, 0644);
MODULE_PARM_DESC(compressor, "compressor of new pages: lzo, lzo-rle, lz4 or zstd (default lz4, else lzo-rle)");

/********************************
 * init
 ********************************/
static void zcache_comp_free_ctx(struct zcache_comp_ctx *ctx)
{
	kfree(ctx->buf);
	kfree(ctx->copy);
	ctx->buf = NULL;
	ctx->copy = NULL;
}

static void zcache_comp_free_buffers(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		zcache_comp_free_ctx(&per_cpu_ptr(&zcache_comp_pcpu, cpu)->ctx);
		zcache_comp_free_ctx(&per_cpu_ptr(&zcache_comp_pcpu_irq,
						  cpu)->ctx);
	}
}

static int zcache_comp_alloc_ctx(struct zcache_comp_ctx *ctx, int cpu)
{
	ctx->buf = kmalloc_node(2 * PAGE_SIZE, GFP_KERNEL, cpu_to_node(cpu));
	ctx->copy = kmalloc_node(PAGE_SIZE, GFP_KERNEL, cpu_to_node(cpu));
	return ctx->buf && ctx->copy ? 0 : -ENOMEM;
}

int zcache_comp_init(void)
{
	int cpu, err;

	for_each_possible_cpu(cpu) {
		if (zcache_comp_alloc_ctx(&per_cpu_ptr(&zcache_comp_pcpu,
						       cpu)->ctx, cpu) ||
		    zcache_comp_alloc_ctx(&per_cpu_ptr(&zcache_comp_pcpu_irq,
						       cpu)->ctx, cpu)) {
			zcache_comp_free_buffers();
			return -ENOMEM;
		}
	}

	mutex_lock(&zcache_comp_mutex);
	zcache_comp_ready = true;
	err = -EINVAL;
	if (zcache_comp_wanted[0])
		err = __zcache_comp_set(zcache_comp_wanted, true);
	if (err)
		err = __zcache_comp_set("lz4", false);
	if (err)
		err = __zcache_comp_set("lzo-rle", false);
	if (err)
		err = __zcache_comp_set("lzo", true);
	if (err)
		zcache_comp_ready = false;
	mutex_unlock(&zcache_comp_mutex);
	if (err) {
		pr_err("no compressor could be loaded\n");
		zcache_comp_free_buffers();
		return -ENODEV;
	}
	return 0;
}

void zcache_comp_exit(void)
{
	unsigned int i;

	mutex_lock(&zcache_comp_mutex);
	zcache_comp_ready = false;
	WRITE_ONCE(zcache_comp_cur, ZCACHE_COMP_NONE);
	for (i = 0; i < ZCACHE_NR_COMP; i++) {
		zcache_comp_free_tfms(zcache_comp_tfms[i]);
		zcache_comp_tfms[i] = NULL;
	}
	mutex_unlock(&zcache_comp_mutex);
	zcache_comp_free_buffers();
}
