// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_TIMER_DELETE: timer_delete() (6.2, in Debian 6.1)
 * 6.2 API change: timer_delete() replaces del_timer(), which 6.15
 * removed (backported to 6.1 stable).
 */
#include <linux/timer.h>

static __maybe_unused int zc_probe(struct timer_list *t)
{
	return timer_delete(t);
}
