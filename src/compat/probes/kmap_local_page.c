// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_KMAP_LOCAL_PAGE: kmap_local_page()/kunmap_local() (5.11)
 * 5.11 API change: kmap_local_page() is the preferred short-term mapping;
 * 5.10 only has kmap_atomic().
 */
#include <linux/highmem.h>

static __maybe_unused u8 zc_probe(struct page *page)
{
	u8 *addr = kmap_local_page(page);
	u8 val = addr[0];

	kunmap_local(addr);
	return val;
}
