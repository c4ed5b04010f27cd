// SPDX-License-Identifier: GPL-2.0
/*
 * memstress: anonymous-memory pressure with verified, realistic content.
 *
 *   memstress --size-mb N [--passes P] [--procs K] [--mode seq|rand|mixed]
 *             [--incompressible-pct X] [--write-pct W] [--seed S] [-v]
 *   memstress ... --trace FILE
 *
 * N MiB in total (split evenly over K forked processes, which run at once)
 * are filled page by page with content that compresses like real memory:
 * text-like pages (words, numbers, line breaks), structured records with
 * zero-padded fields, sparse pages (a quarter data, the rest zero) and, at
 * X percent, pseudo-random incompressible pages.  No page is all zeros or
 * one repeated byte, so same-filled shortcuts do not flatter a backend.
 * Overall the mix compresses about 2-3x with lz4/lzo (see docs/benchmarks.md).
 *
 * Every page starts with a header (magic, page index, generation, process)
 * and its 64-bit checksum is kept in a side table.  After the first touch
 * (the fill; the processes then wait until all have filled their share, so
 * that the whole working set exists at once), each pass runs a sequential phase (every page in order), a random phase
 * (as many random touches as there are pages) or both (mixed: the random
 * phase is skewed, 80% of touches to a hot 20% of the pages).  Each touch
 * verifies the page and rewrites W percent of them with a new generation.
 * A mismatch prints the page, offset, expected and found bytes and exits 1.
 *
 * The parent prints one summary line of key=value pairs:
 *   memstress: ok procs=K size_mb=N pages_verified=... mib_verified=...
 *   elapsed_s=... user_s=... sys_s=... majflt=... minflt=...
 * A child killed by a signal (the OOM killer sends SIGKILL) is a failure,
 * reported with the signal; exit status 1.  Usage errors exit 2.
 *
 * --trace FILE touches no memory: it runs each process's loop in turn with
 * the same options and random streams and writes the page accesses it
 * would make, for the benchmark's trace model (tests/bench/floor.py).
 * Format, little-endian, per process: u64 process number, u64 pages,
 * u64 events, then one u32 per event: page index << 1 | 1 when the touch
 * rewrites the page (the fill always does), | 0 when it only reads it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "wl_content.h"

#define MS_MAGIC 0x215353455254534dULL /* "MSTRESS!" little-endian */

enum ms_mode { MS_SEQ, MS_RAND, MS_MIXED };

struct ms_opts {
	uint64_t size_mb;
	unsigned int passes;
	unsigned int procs;
	enum ms_mode mode;
	unsigned int incompressible_pct;
	unsigned int write_pct;
	uint64_t seed;
	int verbose;
	const char *dump;	/* write the first fill of process 0 here, exit */
	const char *trace;	/* write the access trace here, touch nothing */
};

/* The header at the start of every page. */
struct ms_hdr {
	uint64_t magic;
	uint64_t index;	/* page index within its process */
	uint32_t gen;	/* generation: bumped at each rewrite */
	uint32_t proc;	/* process number 0..K-1 */
	uint64_t kind;	/* content kind, for diagnostics */
};

/* What a child reports to the parent through its pipe. */
struct ms_result {
	uint64_t pages_verified;
	uint64_t pages_written;
	int failed;
};

static size_t ms_page_size;

/* Write the content of (proc, index, gen) into p (one page). */
static void ms_generate(const struct ms_opts *o, unsigned char *p,
			uint32_t proc, uint64_t index, uint32_t gen)
{
	struct ms_hdr h = {
		.magic = MS_MAGIC, .index = index, .gen = gen, .proc = proc,
	};
	enum wl_kind k = wl_kind(o->seed, o->incompressible_pct, proc, index);
	uint64_t s = wl_splitmix(o->seed + wl_splitmix(index * 65537 + gen) +
				 ((uint64_t)proc << 32)) | 1;

	h.kind = k;
	memcpy(p, &h, sizeof(h));
	wl_fill(k, p + sizeof(h), ms_page_size - sizeof(h), &s);
}

/* ---- one process's work ---- */

struct ms_proc {
	const struct ms_opts *o;
	uint32_t proc;
	uint64_t npages;
	unsigned char *mem;
	uint32_t *gen;		/* current generation of each page */
	uint64_t *sum;		/* checksum of each page */
	unsigned char *expect;	/* scratch page for diagnostics */
	struct ms_result res;
	FILE *trace;		/* --trace: record accesses instead */
	uint64_t nevents;
	int ready_fd, go_fd;	/* the barrier after the fill (-1: none) */
};

/*
 * All processes hold their whole share before any goes on: without this, a
 * process scheduled late (seen under emulation on a loaded host) could
 * start after another had finished, and the working set never existed at
 * once.  Each process writes a byte to "ready" and closes it; the parent
 * reads until every process has done so or died (end of file), then closes
 * "go", which ends every process's wait (end of file too).
 */
static void ms_barrier(struct ms_proc *w)
{
	char c = 'r';

	if (w->ready_fd < 0)
		return;
	if (write(w->ready_fd, &c, 1) != 1)
		exit(1);
	close(w->ready_fd);
	while (read(w->go_fd, &c, 1) < 0 && errno == EINTR)
		;
	close(w->go_fd);
}

static void ms_trace(struct ms_proc *w, uint64_t i, int write)
{
	uint32_t ev = (uint32_t)(i << 1) | (write ? 1 : 0);

	if (fwrite(&ev, sizeof(ev), 1, w->trace) != 1) {
		fprintf(stderr, "memstress: writing the trace failed\n");
		exit(1);
	}
	w->nevents++;
}

static void ms_write_page(struct ms_proc *w, uint64_t i)
{
	unsigned char *p = w->mem + i * ms_page_size;

	if (w->trace) {
		ms_trace(w, i, 1);
		return;
	}
	ms_generate(w->o, p, w->proc, i, w->gen[i]);
	w->sum[i] = wl_checksum(p, ms_page_size);
	w->res.pages_written++;
}

/* Verify page i; on a mismatch say where and exit 1. */
static void ms_verify_page(struct ms_proc *w, uint64_t i, const char *phase)
{
	unsigned char *p = w->mem + i * ms_page_size;
	struct ms_hdr h;
	size_t off, bad = 0, first = 0;

	if (w->trace) {
		if (strcmp(phase, "final"))
			return;	/* ms_touch records the touch */
		ms_trace(w, i, 0);
		return;
	}
	if (wl_checksum(p, ms_page_size) == w->sum[i]) {
		w->res.pages_verified++;
		return;
	}
	ms_generate(w->o, w->expect, w->proc, i, w->gen[i]);
	for (off = 0; off < ms_page_size; off++) {
		if (p[off] != w->expect[off]) {
			if (!bad)
				first = off;
			bad++;
		}
	}
	memcpy(&h, p, sizeof(h));
	if (!bad) {
		/* content is right: the side table was corrupted */
		fprintf(stderr, "memstress: MISMATCH proc=%u page=%" PRIu64
			" phase=%s: checksum table entry wrong, page content correct\n",
			w->proc, i, phase);
	} else {
		fprintf(stderr,
			"memstress: MISMATCH proc=%u page=%" PRIu64 " phase=%s kind=%s gen=%u"
			" offset=%zu expected=0x%02x got=0x%02x bad_bytes=%zu"
			" (page header says magic=%#" PRIx64 " page=%" PRIu64 " gen=%u proc=%u)\n",
			w->proc, i, phase,
			wl_kind_names[wl_kind(w->o->seed, w->o->incompressible_pct, w->proc, i)], w->gen[i],
			first, w->expect[first], p[first], bad, h.magic, h.index,
			h.gen, h.proc);
	}
	exit(1);
}

static void ms_touch(struct ms_proc *w, uint64_t i, uint64_t *rng,
		     const char *phase)
{
	int write;

	ms_verify_page(w, i, phase);
	write = wl_next(rng) % 100 < w->o->write_pct;
	if (w->trace) {
		ms_trace(w, i, write);
		return;
	}
	if (write) {
		w->gen[i]++;
		ms_write_page(w, i);
	}
}

static void ms_phase_done(struct ms_proc *w, const char *name,
			  unsigned int pass, double t0)
{
	if (w->o->verbose)
		fprintf(stderr, "memstress: proc=%u pass=%u phase=%s %.2fs\n",
			w->proc, pass, name, wl_now() - t0);
}

static void ms_run_proc(struct ms_proc *w)
{
	const struct ms_opts *o = w->o;
	uint64_t rng = wl_splitmix(o->seed ^ (0x1234567ULL + w->proc)) | 1;
	uint64_t i, n = w->npages, hot = n / 5 ? n / 5 : 1;
	unsigned int pass;
	double t0 = wl_now();

	for (i = 0; i < n; i++)
		ms_write_page(w, i);
	ms_phase_done(w, "fill", 0, t0);
	ms_barrier(w);

	for (pass = 1; pass <= o->passes; pass++) {
		if (o->mode == MS_SEQ || o->mode == MS_MIXED) {
			t0 = wl_now();
			for (i = 0; i < n; i++)
				ms_touch(w, i, &rng, "seq");
			ms_phase_done(w, "seq", pass, t0);
		}
		if (o->mode == MS_RAND || o->mode == MS_MIXED) {
			t0 = wl_now();
			for (i = 0; i < n; i++) {
				uint64_t r = wl_next(&rng), j;

				if (o->mode == MS_MIXED && r % 10 < 8)
					j = (r >> 8) % hot;
				else
					j = (r >> 8) % n;
				ms_touch(w, j, &rng, "rand");
			}
			ms_phase_done(w, "rand", pass, t0);
		}
	}
	/* a last sequential check of everything */
	t0 = wl_now();
	for (i = 0; i < n; i++)
		ms_verify_page(w, i, "final");
	ms_phase_done(w, "final", o->passes, t0);
}

static void *ms_map(size_t bytes, const char *what)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		fprintf(stderr, "memstress: mmap of %zu bytes for %s failed: %s\n",
			bytes, what, strerror(errno));
		exit(1);
	}
	return p;
}

static void ms_child(const struct ms_opts *o, uint32_t proc, uint64_t npages,
		     int fd, int ready_fd, int go_fd)
{
	struct ms_proc w = { .o = o, .proc = proc, .npages = npages,
			     .ready_fd = ready_fd, .go_fd = go_fd };

	w.mem = ms_map(npages * ms_page_size, "pages");
	w.gen = ms_map(npages * sizeof(*w.gen), "generations");
	w.sum = ms_map(npages * sizeof(*w.sum), "checksums");
	w.expect = ms_map(ms_page_size, "scratch");
	ms_run_proc(&w);
	if (write(fd, &w.res, sizeof(w.res)) != (ssize_t)sizeof(w.res))
		exit(1);
	exit(0);
}

/* ---- options, parent ---- */

static void ms_usage(FILE *f)
{
	fprintf(f,
		"usage: memstress --size-mb N [--passes P] [--procs K]\n"
		"                 [--mode seq|rand|mixed] [--incompressible-pct X]\n"
		"                 [--write-pct W] [--seed S] [-v]\n"
		"       memstress --size-mb N [--incompressible-pct X] --dump FILE\n"
		"       memstress ... --trace FILE (the access trace; touches nothing)\n"
		"  N MiB in total over K processes (default K=1, P=2, mixed, X=10, W=50);\n"
		"  --dump writes the pages of the first fill to FILE (to measure how\n"
		"  the content compresses) and runs nothing\n");
}

static uint64_t ms_num(const char *arg, const char *name, uint64_t max)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(arg, &end, 0);
	if (errno || *end || end == arg || arg[0] == '-' || v > max) {
		fprintf(stderr, "memstress: bad value for %s: '%s'\n", name, arg);
		ms_usage(stderr);
		exit(2);
	}
	return v;
}

static void ms_parse(int argc, char **argv, struct ms_opts *o)
{
	static const struct option lo[] = {
		{ "size-mb", required_argument, NULL, 'm' },
		{ "passes", required_argument, NULL, 'p' },
		{ "procs", required_argument, NULL, 'k' },
		{ "mode", required_argument, NULL, 'M' },
		{ "incompressible-pct", required_argument, NULL, 'x' },
		{ "write-pct", required_argument, NULL, 'w' },
		{ "seed", required_argument, NULL, 's' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "dump", required_argument, NULL, 'D' },
		{ "trace", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*o = (struct ms_opts){ .passes = 2, .procs = 1, .mode = MS_MIXED,
			       .incompressible_pct = 10, .write_pct = 50,
			       .seed = 1 };
	while ((c = getopt_long(argc, argv, "m:p:k:M:x:w:s:vhD:T:", lo, NULL)) != -1) {
		switch (c) {
		case 'm':
			o->size_mb = ms_num(optarg, "--size-mb", 1ULL << 24);
			break;
		case 'p':
			o->passes = (unsigned int)ms_num(optarg, "--passes", 100000);
			break;
		case 'k':
			o->procs = (unsigned int)ms_num(optarg, "--procs", 1024);
			break;
		case 'M':
			if (!strcmp(optarg, "seq"))
				o->mode = MS_SEQ;
			else if (!strcmp(optarg, "rand"))
				o->mode = MS_RAND;
			else if (!strcmp(optarg, "mixed"))
				o->mode = MS_MIXED;
			else {
				fprintf(stderr, "memstress: bad --mode '%s'\n", optarg);
				ms_usage(stderr);
				exit(2);
			}
			break;
		case 'x':
			o->incompressible_pct =
				(unsigned int)ms_num(optarg, "--incompressible-pct", 100);
			break;
		case 'w':
			o->write_pct = (unsigned int)ms_num(optarg, "--write-pct", 100);
			break;
		case 's':
			o->seed = ms_num(optarg, "--seed", UINT64_MAX);
			break;
		case 'v':
			o->verbose = 1;
			break;
		case 'D':
			o->dump = optarg;
			break;
		case 'T':
			o->trace = optarg;
			break;
		case 'h':
			ms_usage(stdout);
			exit(0);
		default:
			ms_usage(stderr);
			exit(2);
		}
	}
	if (optind != argc || !o->size_mb || !o->procs) {
		fprintf(stderr, "memstress: --size-mb N (N > 0) is required\n");
		ms_usage(stderr);
		exit(2);
	}
}

static int ms_dump(const struct ms_opts *o, uint64_t npages)
{
	unsigned char *p = malloc(ms_page_size);
	FILE *f = fopen(o->dump, "wb");
	uint64_t i;

	if (!p || !f) {
		fprintf(stderr, "memstress: cannot write %s: %s\n", o->dump,
			strerror(errno));
		return 1;
	}
	for (i = 0; i < npages; i++) {
		ms_generate(o, p, 0, i, 0);
		if (fwrite(p, ms_page_size, 1, f) != 1) {
			fprintf(stderr, "memstress: write to %s failed\n", o->dump);
			return 1;
		}
	}
	free(p);
	return fclose(f) ? 1 : 0;
}

/* --trace: every process's accesses, one process after the other. */
static int ms_trace_all(const struct ms_opts *o, uint64_t per, uint64_t extra)
{
	FILE *f = fopen(o->trace, "wb");
	unsigned int k;

	if (!f) {
		fprintf(stderr, "memstress: cannot write %s: %s\n", o->trace,
			strerror(errno));
		return 1;
	}
	for (k = 0; k < o->procs; k++) {
		struct ms_proc w = { .o = o, .proc = k, .npages = per + (k < extra),
				     .trace = f, .ready_fd = -1, .go_fd = -1 };
		uint64_t hdr[3] = { k, w.npages, 0 };
		long at = ftell(f);

		if (w.npages >= (1ULL << 31)) {
			fprintf(stderr, "memstress: --trace: too many pages\n");
			return 1;
		}
		if (at < 0 || fwrite(hdr, sizeof(hdr), 1, f) != 1)
			goto fail;
		ms_run_proc(&w);
		hdr[2] = w.nevents;
		if (fseek(f, at, SEEK_SET) || fwrite(hdr, sizeof(hdr), 1, f) != 1 ||
		    fseek(f, 0, SEEK_END))
			goto fail;
	}
	if (fclose(f))
		goto fail_closed;
	printf("memstress: trace procs=%u written to %s\n", o->procs, o->trace);
	return 0;
fail:
	fclose(f);
fail_closed:
	fprintf(stderr, "memstress: writing %s failed\n", o->trace);
	return 1;
}

static double ms_tv(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

int main(int argc, char **argv)
{
	struct ms_opts o;
	uint64_t total_pages, per, extra;
	struct ms_result sum = { 0 };
	struct rusage ru_all = { 0 };
	pid_t *pids;
	int *fds;
	int ready[2], go[2];
	unsigned int k, failed = 0, running;
	double t0;

	ms_parse(argc, argv, &o);
	ms_page_size = (size_t)sysconf(_SC_PAGESIZE);
	total_pages = o.size_mb * (1024 * 1024 / ms_page_size);
	if (total_pages < o.procs) {
		fprintf(stderr, "memstress: fewer pages than processes\n");
		return 2;
	}
	if (o.dump)
		return ms_dump(&o, total_pages);
	per = total_pages / o.procs;
	extra = total_pages % o.procs;
	if (o.trace)
		return ms_trace_all(&o, per, extra);
	pids = calloc(o.procs, sizeof(*pids));
	fds = calloc(o.procs, sizeof(*fds));
	if (!pids || !fds)
		return 1;

	if (pipe(ready) || pipe(go)) {
		perror("memstress: pipe");
		return 1;
	}
	t0 = wl_now();
	for (k = 0; k < o.procs; k++) {
		int pfd[2];

		if (pipe(pfd)) {
			perror("memstress: pipe");
			return 1;
		}
		fflush(NULL);
		pids[k] = fork();
		if (pids[k] < 0) {
			perror("memstress: fork");
			/* stop the children already started */
			while (k--)
				kill(pids[k], SIGKILL);
			return 1;
		}
		if (pids[k] == 0) {
			close(pfd[0]);
			close(ready[0]);
			close(go[1]);
			ms_child(&o, k, per + (k < extra), pfd[1], ready[1], go[0]);
		}
		close(pfd[1]);
		fds[k] = pfd[0];
	}

	/* the barrier: every process filled its share (or died) */
	close(ready[1]);
	close(go[0]);
	{
		char buf[64];
		ssize_t n;

		while ((n = read(ready[0], buf, sizeof(buf))) != 0)
			if (n < 0 && errno != EINTR)
				break;
	}
	close(go[1]);
	close(ready[0]);

	for (running = o.procs; running; running--) {
		struct rusage ru;
		int status;
		pid_t pid = wait4(-1, &status, 0, &ru);

		if (pid < 0) {
			if (errno == EINTR) {
				running++;
				continue;
			}
			perror("memstress: wait4");
			return 1;
		}
		for (k = 0; k < o.procs && pids[k] != pid; k++)
			;
		if (k == o.procs) {
			running++;
			continue;
		}
		ru_all.ru_majflt += ru.ru_majflt;
		ru_all.ru_minflt += ru.ru_minflt;
		timeradd(&ru_all.ru_utime, &ru.ru_utime, &ru_all.ru_utime);
		timeradd(&ru_all.ru_stime, &ru.ru_stime, &ru_all.ru_stime);
		if (WIFSIGNALED(status)) {
			fprintf(stderr,
				"memstress: FAIL proc=%u pid=%d killed by signal %d (%s)%s\n",
				k, (int)pid, WTERMSIG(status), strsignal(WTERMSIG(status)),
				WTERMSIG(status) == SIGKILL ? ", probably the OOM killer" : "");
			failed++;
		} else if (WEXITSTATUS(status)) {
			fprintf(stderr, "memstress: FAIL proc=%u pid=%d exited with %d\n",
				k, (int)pid, WEXITSTATUS(status));
			failed++;
		} else {
			struct ms_result r;

			if (read(fds[k], &r, sizeof(r)) != (ssize_t)sizeof(r)) {
				fprintf(stderr, "memstress: FAIL proc=%u sent no result\n", k);
				failed++;
			} else {
				sum.pages_verified += r.pages_verified;
				sum.pages_written += r.pages_written;
			}
		}
		close(fds[k]);
	}

	printf("memstress: %s procs=%u size_mb=%" PRIu64 " passes=%u mode=%s"
	       " incompressible_pct=%u pages_verified=%" PRIu64
	       " mib_verified=%.1f pages_written=%" PRIu64 " elapsed_s=%.2f"
	       " user_s=%.2f sys_s=%.2f majflt=%ld minflt=%ld failed_procs=%u\n",
	       failed ? "FAIL" : "ok", o.procs, o.size_mb, o.passes,
	       o.mode == MS_SEQ ? "seq" : o.mode == MS_RAND ? "rand" : "mixed",
	       o.incompressible_pct, sum.pages_verified,
	       (double)sum.pages_verified * (double)ms_page_size / 1048576.0,
	       sum.pages_written, wl_now() - t0, ms_tv(ru_all.ru_utime),
	       ms_tv(ru_all.ru_stime), ru_all.ru_majflt, ru_all.ru_minflt, failed);
	free(pids);
	free(fds);
	return failed ? 1 : 0;
}
