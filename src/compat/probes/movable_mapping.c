// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_MOVABLE_MAPPING: __SetPageMovable(page, struct address_space *) (up to 5.19)
 * Driver-owned movable pages up to 5.19: page->mapping points to an
 * address_space whose a_ops migrate the page; 6.0 moved to
 * struct movable_operations.
 * symbol: __SetPageMovable
 * config: CONFIG_COMPACTION
 */
#include <linux/migrate.h>
#include <linux/fs.h>

static __maybe_unused void zc_probe(struct page *page, struct address_space *mapping)
{
	void (*set)(struct page *, struct address_space *) = __SetPageMovable;

	set(page, mapping);
}
