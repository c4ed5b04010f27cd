// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_TIMER_CONTAINER_OF: timer_container_of() (6.16)
 * 6.16 API change: timer_container_of() replaces from_timer().
 */
#include <linux/timer.h>

struct zc_probe_obj {
	struct timer_list timer;
};

static __maybe_unused struct zc_probe_obj *zc_probe(struct timer_list *t)
{
	struct zc_probe_obj *obj = timer_container_of(obj, t, timer);

	return obj;
}
