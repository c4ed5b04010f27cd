// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_FRONTSWAP: frontswap_register_ops() is exported (5.10)
 * frontswap is a module-usable swap hook only on 5.10: 6.1 still builds it
 * for zswap but exports nothing, 6.2 removed the exports, 6.5 removed
 * frontswap altogether.
 * symbol: frontswap_register_ops
 * config: CONFIG_FRONTSWAP
 */
#include <linux/frontswap.h>

static __maybe_unused void *zc_probe(void)
{
	return frontswap_register_ops;
}
