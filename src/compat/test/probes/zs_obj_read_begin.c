// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_ZS_OBJ_READ_BEGIN: the kernel's zs_obj_read_begin(pool, h, len, copy) (6.17)
 * 6.17 API change: zs_obj_read_begin()/_end() and zs_obj_write() replace
 * zs_map_object(); the length of the object is passed in.
 * Used by the allocator benchmark.
 * symbol: zs_obj_read_begin
 * symbol: zs_obj_read_end
 * symbol: zs_obj_write
 */
#include <linux/atomic.h>
#include <linux/zsmalloc.h>

static __maybe_unused void zc_probe(struct zs_pool *pool, unsigned long h,
				    void *buf)
{
	void *p = zs_obj_read_begin(pool, h, 64, buf);

	zs_obj_read_end(pool, h, 64, p);
	zs_obj_write(pool, h, buf, 64);
}
