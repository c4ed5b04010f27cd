// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_CLASS_CREATE_NAME: class_create(name) without an owner (6.4)
 * 6.4 API change: class_create() lost its struct module *owner argument.
 */
#include <linux/device.h>
#include <linux/device/class.h>

static __maybe_unused struct class *zc_probe(void)
{
	return class_create("zcache-probe");
}
