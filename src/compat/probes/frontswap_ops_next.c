// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_FRONTSWAP_OPS_NEXT: frontswap_ops has ->next and register returns void (5.10)
 * Up to 5.12 backends chain through ops->next and frontswap_register_ops()
 * returns void; 5.13 dropped ->next and made register return int (-EINVAL
 * when a backend is already registered).
 * symbol: frontswap_register_ops
 */
#include <linux/frontswap.h>

static __maybe_unused void zc_probe(struct frontswap_ops *ops)
{
	void (*reg)(struct frontswap_ops *) = frontswap_register_ops;

	ops->next = NULL;
	reg(ops);
}
