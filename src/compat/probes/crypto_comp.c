// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_CRYPTO_COMP: synchronous crypto_comp API (removed in 6.15)
 * crypto_alloc_comp()/crypto_comp_compress() are the synchronous
 * compression API; 6.15 removed them, leaving acomp only.
 * symbol: crypto_comp_compress
 * symbol: crypto_comp_decompress
 * symbol: crypto_alloc_base
 * config: CONFIG_CRYPTO
 */
#include <linux/crypto.h>
#include <linux/err.h>

static __maybe_unused int zc_probe(const u8 *src, unsigned int slen, u8 *dst)
{
	struct crypto_comp *tfm = crypto_alloc_comp("lzo", 0, 0);
	unsigned int dlen = slen;
	int ret;

	if (IS_ERR(tfm))
		return PTR_ERR(tfm);
	ret = crypto_comp_compress(tfm, src, slen, dst, &dlen);
	crypto_free_comp(tfm);
	return ret;
}
