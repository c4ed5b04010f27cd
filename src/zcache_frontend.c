// SPDX-License-Identifier: GPL-2.0
/*
 * The home of zcache's kernel-hook front ends (zcache_frontend.h): the
 * master switch `enabled` and what frontswap and cleancache do alike:
 * register once and pin the module, switch on and off, show their state.
 */
#undef pr_fmt			/* compat.h's headers defined the default */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include "zcache_frontend.h"

/* Master switch: frontswap and cleancache accept new pages. */
static bool zcache_enabled = true;

static int zcache_enabled_set(const char *val, const struct kernel_param *kp)
{
	bool on;

	if (!val || kstrtobool(val, &on)) {
		pr_warn("enabled: \"%.16s\" is not a boolean (Y/N/1/0)\n",
			val ? val : "");
		return -EINVAL;
	}
	WRITE_ONCE(zcache_enabled, on);
	return 0;
}

static const struct kernel_param_ops zcache_enabled_ops = {
	.set = zcache_enabled_set,
	.get = param_get_bool,
};

module_param_cb(enabled, &zcache_enabled_ops, &zcache_enabled, 0644);
MODULE_PARM_DESC(enabled, "frontswap and cleancache accept new pages (default Y)");

/**
 * zcache_is_enabled - the master switch
 *
 * Context: any.
 */
bool zcache_is_enabled(void)
{
	return READ_ONCE(zcache_enabled);
}

bool zcache_frontend_accepts(struct zcache_frontend *fe)
{
	return READ_ONCE(fe->on) && zcache_is_enabled();
}

/* Registers the hook once and pins the module.  Under fe->lock. */
static int zcache_frontend_register(struct zcache_frontend *fe)
{
	int err;

	lockdep_assert_held(&fe->lock);
	if (fe->registered)
		return 0;
	err = fe->register_hook();
	if (err) {
		pr_warn("%s: another backend holds the hook (%d)\n",
			fe->name, err);
		return err;
	}
	__module_get(THIS_MODULE);
	WRITE_ONCE(fe->registered, true);
	pr_info("%s backend registered; the module stays loaded\n", fe->name);
	return 0;
}

static int zcache_frontend_param_set(const char *val,
				     const struct kernel_param *kp)
{
	struct zcache_frontend *fe = kp->arg;
	bool on;
	int err = 0;

	if (!val || kstrtobool(val, &on)) {
		pr_warn("%s: \"%.16s\" is not a boolean (Y/N/1/0)\n",
			fe->name, val ? val : "");
		return -EINVAL;
	}
	mutex_lock(&fe->lock);
	if (on && fe->ready)
		err = zcache_frontend_register(fe);
	if (!err)
		WRITE_ONCE(fe->on, on);
	mutex_unlock(&fe->lock);
	return err;
}

static int zcache_frontend_param_get(char *buf, const struct kernel_param *kp)
{
	struct zcache_frontend *fe = kp->arg;

	return sprintf(buf, "%c\n", READ_ONCE(fe->on) ? 'Y' : 'N');
}

const struct kernel_param_ops zcache_frontend_param_ops = {
	.set = zcache_frontend_param_set,
	.get = zcache_frontend_param_get,
};

ssize_t zcache_frontend_active_show(struct kobject *kobj,
				    struct kobj_attribute *attr, char *buf)
{
	struct zcache_frontend *fe =
		container_of(attr, struct zcache_frontend, active_attr);

	return sysfs_emit(buf, "%d\n", READ_ONCE(fe->registered) &&
			  READ_ONCE(fe->on));
}

void zcache_frontend_start(struct zcache_frontend *fe)
{
	if (zcache_sysfs_add_file(&fe->active_attr.attr))
		pr_warn("%s: no /sys/kernel/zcache/%s_active\n", fe->name,
			fe->name);
	mutex_lock(&fe->lock);
	fe->ready = true;
	if (fe->on && zcache_frontend_register(fe))
		WRITE_ONCE(fe->on, false);
	mutex_unlock(&fe->lock);
}

void zcache_frontend_stop(struct zcache_frontend *fe)
{
	mutex_lock(&fe->lock);
	fe->ready = false;
	mutex_unlock(&fe->lock);
	zcache_sysfs_remove_file(&fe->active_attr.attr);
}
