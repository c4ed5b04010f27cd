// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_DEBUGFS_ULONG_VOID: debugfs_create_ulong() returns void (5.11)
 * 5.11 API change: debugfs_create_ulong() no longer returns a dentry.
 */
#include <linux/debugfs.h>

static __maybe_unused void zc_probe(struct dentry *dir, unsigned long *val)
{
	void (*create)(const char *, umode_t, struct dentry *, unsigned long *) =
		debugfs_create_ulong;

	create("probe", 0444, dir, val);
}
