// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_TIMER_DELETE_SYNC: timer_delete_sync() (6.2, in Debian 5.10 and 6.1)
 * 6.2 API change: timer_delete_sync() replaces del_timer_sync(), which
 * 6.15 removed; stable kernels got it early (Debian 5.10.223 has it).
 */
#include <linux/timer.h>

static __maybe_unused int zc_probe(struct timer_list *t)
{
	return timer_delete_sync(t);
}
