// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_MOVABLE_OPS: __SetPageMovable(page, const struct movable_operations *) (6.0-6.16)
 * 6.0 API change: movable pages carry a movable_operations pointer;
 * 6.17 replaced __SetPageMovable() with set_movable_ops() and page types.
 * symbol: __SetPageMovable
 * config: CONFIG_COMPACTION
 */
#include <linux/migrate.h>

static __maybe_unused void zc_probe(struct page *page,
				     const struct movable_operations *ops)
{
	void (*set)(struct page *, const struct movable_operations *) = __SetPageMovable;

	set(page, ops);
}
