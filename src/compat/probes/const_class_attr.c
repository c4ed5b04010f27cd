// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_CONST_CLASS_ATTR: class attribute show/store take const pointers (6.4)
 * 6.4 API change: class_attribute show()/store() receive
 * const struct class * and const struct class_attribute *.
 */
#include <linux/device.h>
#include <linux/device/class.h>

static ssize_t zc_probe_show(const struct class *class,
			     const struct class_attribute *attr, char *buf)
{
	return 0;
}

static struct class_attribute zc_probe_attr __maybe_unused =
	__ATTR(probe, 0444, zc_probe_show, NULL);
