// SPDX-License-Identifier: GPL-2.0
/*
 * pagecache: a file set larger than RAM, read again and again, every block
 * verified.  The clean page-cache side of a compressed cache (cleancache):
 * where a kernel has it, re-reads are served from the compressed pool
 * instead of the disk; where it has none, this is the baseline.
 *
 *   pagecache --dir DIR --size-mb N [--files F] [--passes P]
 *             [--mode seq|rand] [--incompressible-pct X] [--seed S]
 *             [--drop-caches] [--keep] [-v]
 *
 * Writes F files (default 8) of N/F MiB in DIR, with the content of
 * wl_content.h (about 2.2x with lz4 at the default X=10), fsyncs them,
 * optionally drops the page cache (root), then reads the whole set P times
 * (default 3), files in a new random order each pass, each file either in
 * order in 64 KiB reads (seq) or in as many random 4 KiB preads as it has
 * blocks (rand).  Every 4 KiB block carries a header (magic, file, block)
 * and is compared with the content it must have; a mismatch prints file,
 * block, offset, expected and found byte and exits 1.  The files are
 * removed at the end unless --keep.
 *
 * One summary line of key=value pairs, read_mib_storage from
 * /proc/self/io (bytes this process made the block layer read):
 *   pagecache: ok files=F size_mb=N passes=P blocks_verified=...
 *   mib_verified=... write_s=... read_s=... elapsed_s=... user_s=...
 *   sys_s=... majflt=... read_mib_storage=...
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "wl_content.h"

#define PC_MAGIC 0x2121454843414350ULL /* "PCACHE!!" little-endian */
#define PC_BLOCK 4096
#define PC_CHUNK (64 * 1024)

enum pc_mode { PC_SEQ, PC_RAND };

struct pc_opts {
	const char *dir;
	uint64_t size_mb;
	unsigned int files;
	unsigned int passes;
	enum pc_mode mode;
	unsigned int incompressible_pct;
	uint64_t seed;
	int drop_caches;
	int keep;
	int verbose;
};

struct pc_hdr {
	uint64_t magic;
	uint64_t file;
	uint64_t block;
	uint64_t kind;
};

static void pc_generate(const struct pc_opts *o, unsigned char *p,
			uint64_t file, uint64_t block)
{
	struct pc_hdr h = { .magic = PC_MAGIC, .file = file, .block = block };
	enum wl_kind k = wl_kind(o->seed, o->incompressible_pct, file, block);
	uint64_t s = wl_splitmix(o->seed ^ wl_splitmix((file << 40) + block)) | 1;

	h.kind = k;
	memcpy(p, &h, sizeof(h));
	wl_fill(k, p + sizeof(h), PC_BLOCK - sizeof(h), &s);
}

static void pc_path(const struct pc_opts *o, unsigned int f, char *buf,
		    size_t len)
{
	snprintf(buf, len, "%s/zc-pagecache-%03u.dat", o->dir, f);
}

static void pc_fail(const char *what, const char *path)
{
	fprintf(stderr, "pagecache: %s %s: %s\n", what, path, strerror(errno));
	exit(1);
}

static void pc_write_files(const struct pc_opts *o, uint64_t blocks)
{
	unsigned char *buf = malloc(PC_CHUNK);
	unsigned int f;

	if (!buf)
		exit(1);
	for (f = 0; f < o->files; f++) {
		char path[4096];
		uint64_t b = 0;
		int fd;

		pc_path(o, f, path, sizeof(path));
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0)
			pc_fail("cannot create", path);
		while (b < blocks) {
			size_t n = 0;

			while (n < PC_CHUNK && b < blocks) {
				pc_generate(o, buf + n, f, b++);
				n += PC_BLOCK;
			}
			if (write(fd, buf, n) != (ssize_t)n)
				pc_fail("cannot write", path);
		}
		if (fsync(fd) || close(fd))
			pc_fail("cannot sync", path);
	}
	free(buf);
}

/* Compare one block read from file f at block b with what it must hold. */
static void pc_verify(const struct pc_opts *o, const unsigned char *got,
		      unsigned int f, uint64_t b, unsigned char *expect)
{
	struct pc_hdr h;
	size_t off, bad = 0, first = 0;

	pc_generate(o, expect, f, b);
	if (!memcmp(got, expect, PC_BLOCK))
		return;
	for (off = 0; off < PC_BLOCK; off++) {
		if (got[off] != expect[off]) {
			if (!bad)
				first = off;
			bad++;
		}
	}
	memcpy(&h, got, sizeof(h));
	fprintf(stderr,
		"pagecache: MISMATCH file=%u block=%" PRIu64 " kind=%s offset=%zu"
		" expected=0x%02x got=0x%02x bad_bytes=%zu (block header says"
		" magic=%#" PRIx64 " file=%" PRIu64 " block=%" PRIu64 ")\n",
		f, b, wl_kind_names[wl_kind(o->seed, o->incompressible_pct, f, b)],
		first, expect[first], got[first], bad, h.magic, h.file, h.block);
	exit(1);
}

static uint64_t pc_read_file(const struct pc_opts *o, unsigned int f,
			     uint64_t blocks, uint64_t *rng, unsigned char *buf,
			     unsigned char *expect)
{
	char path[4096];
	uint64_t b, done = 0;
	int fd;

	pc_path(o, f, path, sizeof(path));
	fd = open(path, O_RDONLY);
	if (fd < 0)
		pc_fail("cannot open", path);
	if (o->mode == PC_SEQ) {
		for (b = 0; b < blocks;) {
			ssize_t n = read(fd, buf, PC_CHUNK);
			ssize_t off;

			if (n <= 0 || n % PC_BLOCK) {
				errno = n < 0 ? errno : EIO;
				pc_fail("short read from", path);
			}
			for (off = 0; off < n; off += PC_BLOCK, b++, done++)
				pc_verify(o, buf + off, f, b, expect);
		}
	} else {
		for (done = 0; done < blocks; done++) {
			b = wl_next(rng) % blocks;
			if (pread(fd, buf, PC_BLOCK, (off_t)(b * PC_BLOCK)) != PC_BLOCK) {
				errno = errno ? errno : EIO;
				pc_fail("short read from", path);
			}
			pc_verify(o, buf, f, b, expect);
		}
	}
	close(fd);
	return done;
}

/* Bytes this process caused to be read from storage (/proc/self/io). */
static uint64_t pc_storage_read_bytes(void)
{
	FILE *f = fopen("/proc/self/io", "r");
	char line[128];
	unsigned long long v = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "read_bytes: %llu", &v) == 1)
			break;
	fclose(f);
	return v;
}

static void pc_drop_caches(void)
{
	int fd;

	sync();
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
	if (fd < 0 || write(fd, "3\n", 2) != 2)
		fprintf(stderr, "pagecache: cannot drop caches (%s), going on\n",
			strerror(errno));
	if (fd >= 0)
		close(fd);
}

static void pc_usage(FILE *f)
{
	fprintf(f,
		"usage: pagecache --dir DIR --size-mb N [--files F] [--passes P]\n"
		"                 [--mode seq|rand] [--incompressible-pct X] [--seed S]\n"
		"                 [--drop-caches] [--keep] [-v]\n"
		"  N MiB in F files (default F=8, P=3, seq, X=10)\n");
}

static uint64_t pc_num(const char *arg, const char *name, uint64_t max)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(arg, &end, 0);
	if (errno || *end || end == arg || arg[0] == '-' || v > max) {
		fprintf(stderr, "pagecache: bad value for %s: '%s'\n", name, arg);
		pc_usage(stderr);
		exit(2);
	}
	return v;
}

static void pc_parse(int argc, char **argv, struct pc_opts *o)
{
	static const struct option lo[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "size-mb", required_argument, NULL, 'm' },
		{ "files", required_argument, NULL, 'f' },
		{ "passes", required_argument, NULL, 'p' },
		{ "mode", required_argument, NULL, 'M' },
		{ "incompressible-pct", required_argument, NULL, 'x' },
		{ "seed", required_argument, NULL, 's' },
		{ "drop-caches", no_argument, NULL, 'C' },
		{ "keep", no_argument, NULL, 'K' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*o = (struct pc_opts){ .files = 8, .passes = 3, .mode = PC_SEQ,
			       .incompressible_pct = 10, .seed = 1 };
	while ((c = getopt_long(argc, argv, "d:m:f:p:M:x:s:CKvh", lo, NULL)) != -1) {
		switch (c) {
		case 'd':
			o->dir = optarg;
			break;
		case 'm':
			o->size_mb = pc_num(optarg, "--size-mb", 1ULL << 24);
			break;
		case 'f':
			o->files = (unsigned int)pc_num(optarg, "--files", 999);
			break;
		case 'p':
			o->passes = (unsigned int)pc_num(optarg, "--passes", 100000);
			break;
		case 'M':
			if (!strcmp(optarg, "seq")) {
				o->mode = PC_SEQ;
			} else if (!strcmp(optarg, "rand")) {
				o->mode = PC_RAND;
			} else {
				fprintf(stderr, "pagecache: bad --mode '%s'\n", optarg);
				pc_usage(stderr);
				exit(2);
			}
			break;
		case 'x':
			o->incompressible_pct =
				(unsigned int)pc_num(optarg, "--incompressible-pct", 100);
			break;
		case 's':
			o->seed = pc_num(optarg, "--seed", UINT64_MAX);
			break;
		case 'C':
			o->drop_caches = 1;
			break;
		case 'K':
			o->keep = 1;
			break;
		case 'v':
			o->verbose = 1;
			break;
		case 'h':
			pc_usage(stdout);
			exit(0);
		default:
			pc_usage(stderr);
			exit(2);
		}
	}
	if (optind != argc || !o->dir || !o->size_mb || !o->files) {
		fprintf(stderr, "pagecache: --dir DIR and --size-mb N (N > 0) are required\n");
		pc_usage(stderr);
		exit(2);
	}
}

static double pc_tv(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

int main(int argc, char **argv)
{
	struct pc_opts o;
	uint64_t blocks, verified = 0, io0, rng;
	unsigned int pass, f, *order;
	unsigned char *buf, *expect;
	double t0, t1, t2;
	struct rusage ru;

	pc_parse(argc, argv, &o);
	blocks = o.size_mb * (1024 * 1024 / PC_BLOCK) / o.files;
	if (!blocks) {
		fprintf(stderr, "pagecache: fewer blocks than files\n");
		return 2;
	}
	buf = malloc(PC_CHUNK);
	expect = malloc(PC_BLOCK);
	order = calloc(o.files, sizeof(*order));
	if (!buf || !expect || !order)
		return 1;
	rng = wl_splitmix(o.seed ^ 0xfeedULL) | 1;

	t0 = wl_now();
	pc_write_files(&o, blocks);
	if (o.drop_caches)
		pc_drop_caches();
	t1 = wl_now();
	io0 = pc_storage_read_bytes();
	for (pass = 1; pass <= o.passes; pass++) {
		double tp = wl_now();

		for (f = 0; f < o.files; f++)
			order[f] = f;
		for (f = o.files - 1; f > 0; f--) {
			unsigned int j = (unsigned int)(wl_next(&rng) % (f + 1));
			unsigned int t = order[f];

			order[f] = order[j];
			order[j] = t;
		}
		for (f = 0; f < o.files; f++)
			verified += pc_read_file(&o, order[f], blocks, &rng, buf,
						 expect);
		if (o.verbose)
			fprintf(stderr, "pagecache: pass=%u %.2fs\n", pass,
				wl_now() - tp);
	}
	t2 = wl_now();
	if (!o.keep) {
		for (f = 0; f < o.files; f++) {
			char path[4096];

			pc_path(&o, f, path, sizeof(path));
			unlink(path);
		}
	}
	getrusage(RUSAGE_SELF, &ru);
	printf("pagecache: ok files=%u size_mb=%" PRIu64 " passes=%u mode=%s"
	       " incompressible_pct=%u blocks_verified=%" PRIu64
	       " mib_verified=%.1f write_s=%.2f read_s=%.2f elapsed_s=%.2f"
	       " user_s=%.2f sys_s=%.2f majflt=%ld read_mib_storage=%.1f\n",
	       o.files, (uint64_t)(blocks * o.files * PC_BLOCK >> 20), o.passes,
	       o.mode == PC_SEQ ? "seq" : "rand", o.incompressible_pct, verified,
	       (double)verified * PC_BLOCK / 1048576.0, t1 - t0, t2 - t1,
	       wl_now() - t0, pc_tv(ru.ru_utime), pc_tv(ru.ru_stime),
	       ru.ru_majflt,
	       (double)(pc_storage_read_bytes() - io0) / 1048576.0);
	free(buf);
	free(expect);
	free(order);
	return 0;
}
