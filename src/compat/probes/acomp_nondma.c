// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_ACOMP_NONDMA: acomp_request_set_src_nondma() takes virtual addresses (6.15)
 * 6.15 API change: acomp requests may carry plain virtual buffers
 * (acomp_request_set_src_nondma/dst_nondma) instead of scatterlists.
 * config: CONFIG_CRYPTO
 */
#include <crypto/acompress.h>

static __maybe_unused void zc_probe(struct acomp_req *req, const u8 *src,
				     u8 *dst, unsigned int len)
{
	acomp_request_set_src_nondma(req, src, len);
	acomp_request_set_dst_nondma(req, dst, len);
}
