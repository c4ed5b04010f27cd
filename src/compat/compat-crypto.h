/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat-crypto.h - one synchronous compressor handle over the kernel's
 * crypto API, whatever the kernel offers:
 *
 *   HAVE_CRYPTO_COMP    (5.10 .. 6.12) crypto_comp: buffer in, buffer out
 *   HAVE_ACOMP_NONDMA   (7.2)          acomp with virtual-address setters;
 *                                      only synchronous implementations
 *                                      are asked for (mask CRYPTO_ALG_ASYNC)
 *
 * struct zc_comp *zc_comp_alloc(const char *name)   ERR_PTR on failure;
 *                                                  may sleep
 * void zc_comp_free(struct zc_comp *c)
 * int zc_comp_compress(c, src, slen, dst, *dlen)    never sleeps
 * int zc_comp_decompress(c, src, slen, dst, *dlen)  never sleeps
 *
 * A handle is used by one CPU at a time (the caller serialises).
 */
#ifndef _ZC_COMPAT_CRYPTO_H
#define _ZC_COMPAT_CRYPTO_H

#include <linux/crypto.h>
#include <linux/err.h>
#include <linux/slab.h>

#if defined(HAVE_CRYPTO_COMP)

struct zc_comp {
	struct crypto_comp *tfm;
};

static inline struct zc_comp *zc_comp_alloc(const char *name)
{
	struct zc_comp *c = kzalloc(sizeof(*c), GFP_KERNEL);

	if (!c)
		return ERR_PTR(-ENOMEM);
	c->tfm = crypto_alloc_comp(name, 0, 0);
	if (IS_ERR(c->tfm)) {
		long err = PTR_ERR(c->tfm);

		kfree(c);
		return ERR_PTR(err);
	}
	return c;
}

static inline void zc_comp_free(struct zc_comp *c)
{
	if (IS_ERR_OR_NULL(c))
		return;
	crypto_free_comp(c->tfm);
	kfree(c);
}

static inline int zc_comp_compress(struct zc_comp *c, const u8 *src,
				   unsigned int slen, u8 *dst,
				   unsigned int *dlen)
{
	return crypto_comp_compress(c->tfm, src, slen, dst, dlen);
}

static inline int zc_comp_decompress(struct zc_comp *c, const u8 *src,
				     unsigned int slen, u8 *dst,
				     unsigned int *dlen)
{
	return crypto_comp_decompress(c->tfm, src, slen, dst, dlen);
}

#elif defined(HAVE_ACOMP_NONDMA)

#include <crypto/acompress.h>

struct zc_comp {
	struct crypto_acomp *tfm;
	struct acomp_req *req;
};

static inline struct zc_comp *zc_comp_alloc(const char *name)
{
	struct zc_comp *c = kzalloc(sizeof(*c), GFP_KERNEL);
	long err;

	if (!c)
		return ERR_PTR(-ENOMEM);
	c->tfm = crypto_alloc_acomp(name, 0, CRYPTO_ALG_ASYNC);
	if (IS_ERR(c->tfm)) {
		err = PTR_ERR(c->tfm);
		goto out_free;
	}
	c->req = acomp_request_alloc(c->tfm);
	if (!c->req) {
		err = -ENOMEM;
		goto out_tfm;
	}
	acomp_request_set_callback(c->req, 0, NULL, NULL);
	return c;

out_tfm:
	crypto_free_acomp(c->tfm);
out_free:
	kfree(c);
	return ERR_PTR(err);
}

static inline void zc_comp_free(struct zc_comp *c)
{
	if (IS_ERR_OR_NULL(c))
		return;
	acomp_request_free(c->req);
	crypto_free_acomp(c->tfm);
	kfree(c);
}

static inline int zc_comp_compress(struct zc_comp *c, const u8 *src,
				   unsigned int slen, u8 *dst,
				   unsigned int *dlen)
{
	int err;

	acomp_request_set_src_nondma(c->req, src, slen);
	acomp_request_set_dst_nondma(c->req, dst, *dlen);
	err = crypto_acomp_compress(c->req);
	*dlen = c->req->dlen;
	return err;
}

static inline int zc_comp_decompress(struct zc_comp *c, const u8 *src,
				     unsigned int slen, u8 *dst,
				     unsigned int *dlen)
{
	int err;

	acomp_request_set_src_nondma(c->req, src, slen);
	acomp_request_set_dst_nondma(c->req, dst, *dlen);
	err = crypto_acomp_decompress(c->req);
	*dlen = c->req->dlen;
	return err;
}

#else
#error "zcache: this kernel has neither crypto_comp nor acomp with virtual buffers (newest supported: 7.2)"
#endif

#endif /* _ZC_COMPAT_CRYPTO_H */
