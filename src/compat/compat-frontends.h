/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat-frontends.h: the kernel hooks zcache's front ends sit on.
 *
 * frontswap (5.10 exports it; 6.1 has it but exports nothing; gone in
 * 6.12) and cleancache (5.10 with CONFIG_CLEANCACHE only; gone in 6.1):
 * where the hook is missing, compat/probe.sh leaves its front end out of
 * Kbuild (compat/zcache_config.mk) and the stubs below stand in for its
 * init and exit (declared in zcache_frontend.h).
 */
#ifndef ZCACHE_COMPAT_FRONTENDS_H
#define ZCACHE_COMPAT_FRONTENDS_H

#ifdef HAVE_FRONTSWAP
/*
 * 5.10 chains backends (ops->next) and returns nothing; the kernels that
 * returned an error when the hook was taken (5.19 to 6.1) never export it
 * to modules, so the second form is here for completeness.
 */
#include <linux/frontswap.h>
#ifdef HAVE_FRONTSWAP_OPS_NEXT
static inline int zc_frontswap_register_ops(struct frontswap_ops *ops)
{
	frontswap_register_ops(ops);
	return 0;
}
#else
static inline int zc_frontswap_register_ops(struct frontswap_ops *ops)
{
	return frontswap_register_ops(ops);
}
#endif
#else
static inline void zcache_frontswap_init(void)
{
}

static inline void zcache_frontswap_exit(void)
{
}
#endif /* HAVE_FRONTSWAP */

#ifndef HAVE_CLEANCACHE
static inline void zcache_cleancache_init(void)
{
}

static inline void zcache_cleancache_exit(void)
{
}
#endif /* HAVE_CLEANCACHE */

#endif /* ZCACHE_COMPAT_FRONTENDS_H */
