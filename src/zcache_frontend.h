/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What zcache's kernel-hook front ends (frontswap, cleancache) share
 * (zcache_frontend.c): the master switch `enabled`, and one
 * struct zcache_frontend each, which registers the kernel's hook once
 * (there is no unregister: registering pins the module), turns the front
 * end on and off with its module parameter, and shows
 * /sys/kernel/zcache/<name>_active.
 *
 * A front end whose hook the kernel lacks is not built (compat/probe.sh
 * chooses the objects for Kbuild); compat/compat-frontends.h then stands
 * in for its init and exit.
 */
#ifndef _ZCACHE_FRONTEND_H
#define _ZCACHE_FRONTEND_H

#include <linux/types.h>
#include <linux/mutex.h>
#include <linux/kobject.h>
#include <linux/sysfs.h>
#include <linux/moduleparam.h>
#include "zcache.h"

/**
 * struct zcache_frontend - one front end on a kernel hook
 * @name: its parameter's name ("frontswap", "cleancache")
 * @register_hook: registers the kernel's ops: 0 or an error.  Called at
 *	most once successfully, under @lock.
 * @on: the parameter: accept new pages (with `enabled`); 1 registers
 * @registered: the hook is registered, for good; the module is pinned
 * @ready: between zcache_frontend_start() and zcache_frontend_stop(): a
 *	write of 1 may register
 * @lock: guards @on's writes, @registered and @ready
 * @active_attr: /sys/kernel/zcache/<name>_active, 1 while registered
 *	and on
 */
struct zcache_frontend {
	const char *name;
	int (*register_hook)(void);
	bool on;
	bool registered;
	bool ready;
	struct mutex lock;
	struct kobj_attribute active_attr;
};

ssize_t zcache_frontend_active_show(struct kobject *kobj,
				    struct kobj_attribute *attr, char *buf);

#define ZCACHE_FRONTEND(var, fe_name, reg)				\
	struct zcache_frontend var = {					\
		.name = fe_name,					\
		.register_hook = reg,					\
		.lock = __MUTEX_INITIALIZER(var.lock),			\
		.active_attr = {					\
			.attr = { .name = fe_name "_active",		\
				  .mode = 0444 },			\
			.show = zcache_frontend_active_show,		\
		},							\
	}

/* The parameter of a front end: module_param_cb(name, &ops, &fe, 0644). */
extern const struct kernel_param_ops zcache_frontend_param_ops;

/* Whether @fe takes new pages now: its parameter and `enabled` are on. */
bool zcache_frontend_accepts(struct zcache_frontend *fe);
/*
 * At module init, after everything else: creates the sysfs file and
 * registers the hook if the parameter was given at load.  Never fails
 * the load (a hook registered cannot be taken back): a failed
 * registration leaves the front end off, with a warning.
 */
void zcache_frontend_start(struct zcache_frontend *fe);
/* At module exit (only reached when the hook was never registered). */
void zcache_frontend_stop(struct zcache_frontend *fe);

/* The front ends (absent ones: compat/compat-frontends.h). */
void zcache_frontswap_init(void);
void zcache_frontswap_exit(void);
void zcache_cleancache_init(void);
void zcache_cleancache_exit(void);

/* /sys/kernel/zcache/ (zcache_sysfs.c): a front end's own files. */
int zcache_sysfs_add_file(const struct attribute *attr);
void zcache_sysfs_remove_file(const struct attribute *attr);

#endif /* _ZCACHE_FRONTEND_H */
