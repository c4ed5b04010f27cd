// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_FOLIO_TEST_SWAPCACHE: folio_test_swapcache() and folio_set_dirty() (5.16)
 * 5.16 API change: page flags are tested and set on folios; 6.12 removed
 * PageSwapCache(), so a page is asked through page_folio().
 */
#include <linux/mm.h>
#include <linux/page-flags.h>

static __maybe_unused bool zc_probe(struct page *page)
{
	struct folio *folio = page_folio(page);

	if (!folio_test_swapcache(folio))
		return false;
	folio_set_dirty(folio);
	return true;
}
