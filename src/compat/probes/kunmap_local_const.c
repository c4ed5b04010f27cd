// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_KUNMAP_LOCAL_CONST: kunmap_local() takes a const pointer (2022, Debian 6.1)
 * API change: __kunmap_local() takes const void *.  Kernels with
 * kmap_local_page() before that, and backports of it to older ones
 * (Debian bullseye's 5.10 -rt), take void *: a const address passed to
 * them warns (-Werror fails this probe).
 */
#include <linux/highmem.h>

static __maybe_unused u8 zc_probe(struct page *page)
{
	const u8 *addr = kmap_local_page(page);
	u8 val = addr[0];

	kunmap_local(addr);
	return val;
}
