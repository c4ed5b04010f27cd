// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_PAGE_INDEX: struct page has ->index (renamed __folio_index in 6.16)
 * 6.16 API change: page->index became page->__folio_index; modules should
 * keep their own metadata in page->private.
 */
#include <linux/mm_types.h>

static __maybe_unused pgoff_t zc_probe(struct page *page)
{
	return page->index;
}
