// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_EXPORT_NS_STRING: symbol namespaces are string literals (6.13)
 * 6.13 API change: EXPORT_SYMBOL_NS*() and MODULE_IMPORT_NS() take a string
 * literal (MODULE_IMPORT_NS("NS")); before they stringified an identifier.
 * The probe catches what MODULE_IMPORT_NS() hands to MODULE_INFO().
 */
#include <linux/module.h>

#undef MODULE_INFO
#define MODULE_INFO(tag, info) \
	_Static_assert(sizeof(info) == sizeof("ZCPROBE"), "namespace is stringified")

MODULE_IMPORT_NS("ZCPROBE");
