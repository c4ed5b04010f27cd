// SPDX-License-Identifier: GPL-2.0
/*
 * swaptorture: swap paths a swap device must get right, every page
 * verified (tests/guest/suites/36-zcache-swap-paths.sh).
 *
 *   swaptorture fork SIZE_MB
 *	fill SIZE_MB, fork: the pages are shared.  The child reads them all
 *	(twice), then rewrites every odd page and checks its own view; the
 *	parent reads them all meanwhile (three times) and must still see
 *	the old data.  Run it in a memory cgroup smaller than SIZE_MB so that
 *	shared pages are swapped out and read back by either process.
 *   swaptorture readahead SIZE_MB
 *	fill, push everything out (MADV_PAGEOUT), touch every 16th page (swap
 *	reads ahead around each fault: pages nobody touched come in), push
 *	out again (those pages must be written again if the device dropped
 *	its copy), verify all, rewrite a third, push out, verify all.
 *   swaptorture hold SIZE_MB READYFILE
 *	fill, push out, create READYFILE, wait for SIGUSR1 (e.g. after a
 *	swapoff), verify all.
 *
 * Exit status 0 when every page verified, 1 on a mismatch (printed: page,
 * word, expected, found), 2 on a usage or system error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif

#define WORDS_PER_PAGE(p)	((p) / sizeof(uint64_t))

static size_t page_size;
static size_t nr_pages;
static unsigned char *mem;
static volatile sig_atomic_t got_usr1;

/*
 * A word of page @p at generation @gen.  Three pages in four repeat 64
 * distinct words (they compress well and stay in a pool); every fourth
 * page has no repeat at all (it does not compress: a swap device with a
 * backing device sends it there).
 */
static uint64_t word(size_t p, unsigned int gen, size_t i)
{
	size_t k = p % 4 ? i % 64 : i;
	uint64_t x = (uint64_t)p * 0x9e3779b97f4a7c15ULL ^
		     ((uint64_t)gen << 56) ^ (k + 1) * 0xbf58476d1ce4e5b9ULL;

	x ^= x >> 31;
	x *= 0x94d049bb133111ebULL;
	return x ^ (x >> 29);
}

static void fill_page(size_t p, unsigned int gen)
{
	uint64_t *w = (uint64_t *)(mem + p * page_size);
	size_t i;

	for (i = 0; i < WORDS_PER_PAGE(page_size); i++)
		w[i] = word(p, gen, i);
}

/* 0 when page @p holds generation @gen; else prints the first bad word. */
static int check_page(const char *who, size_t p, unsigned int gen)
{
	const uint64_t *w = (const uint64_t *)(mem + p * page_size);
	size_t i;

	for (i = 0; i < WORDS_PER_PAGE(page_size); i++) {
		if (w[i] != word(p, gen, i)) {
			fprintf(stderr,
				"%s: MISMATCH page %zu word %zu: expected %016llx (generation %u), found %016llx\n",
				who, p, i, (unsigned long long)word(p, gen, i),
				gen, (unsigned long long)w[i]);
			return 1;
		}
	}
	return 0;
}

/* Verify pages [0, nr_pages) against gen_of(p); count of bad pages. */
static size_t verify_all(const char *who, unsigned int (*gen_of)(size_t))
{
	size_t p, bad = 0;

	for (p = 0; p < nr_pages; p++)
		if (check_page(who, p, gen_of(p)) && ++bad >= 8)
			break;
	return bad;
}

static unsigned int gen_zero(size_t p) { (void)p; return 0; }
static unsigned int gen_odd_one(size_t p) { return p & 1; }
static unsigned int gen_third(size_t p) { return p % 3 == 0; }

static void pageout(void)
{
	if (madvise(mem, nr_pages * page_size, MADV_PAGEOUT))
		fprintf(stderr, "madvise(MADV_PAGEOUT): %s (pressure only)\n",
			strerror(errno));
}

static int do_fork(void)
{
	size_t p, bad = 0;
	pid_t pid;
	int status, pass;

	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 2;
	}
	if (pid == 0) {
		for (pass = 0; pass < 2; pass++)
			bad += verify_all("child", gen_zero);
		for (p = 1; p < nr_pages; p += 2)
			fill_page(p, 1);
		pageout();
		bad += verify_all("child after rewrite", gen_odd_one);
		_exit(bad ? 1 : 0);
	}
	for (pass = 0; pass < 3; pass++) {
		bad += verify_all("parent", gen_zero);
		pageout();
	}
	if (waitpid(pid, &status, 0) < 0) {
		perror("waitpid");
		return 2;
	}
	if (WIFSIGNALED(status)) {
		fprintf(stderr, "child killed by signal %d\n", WTERMSIG(status));
		return 1;
	}
	bad += verify_all("parent after the child", gen_zero);
	printf("fork: %zu pages shared, parent %s, child exit %d\n", nr_pages,
	       bad ? "MISMATCH" : "verified", WEXITSTATUS(status));
	return bad || WEXITSTATUS(status) ? 1 : 0;
}

static int do_readahead(void)
{
	size_t p, bad = 0;

	pageout();
	for (p = 0; p < nr_pages; p += 16)
		bad += check_page("sparse touch", p, 0);
	pageout();
	bad += verify_all("after readahead", gen_zero);
	for (p = 0; p < nr_pages; p += 3)
		fill_page(p, 1);
	pageout();
	bad += verify_all("after rewrite", gen_third);
	printf("readahead: %zu pages, %s\n", nr_pages,
	       bad ? "MISMATCH" : "verified");
	return bad ? 1 : 0;
}

static void on_usr1(int sig)
{
	(void)sig;
	got_usr1 = 1;
}

static int do_hold(const char *ready)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	sigset_t block, old;
	size_t bad;
	FILE *f;

	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigprocmask(SIG_BLOCK, &block, &old);
	sigaction(SIGUSR1, &sa, NULL);
	pageout();
	f = fopen(ready, "w");
	if (!f || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f)) {
		perror(ready);
		return 2;
	}
	while (!got_usr1)
		sigsuspend(&old);
	bad = verify_all("hold", gen_zero);
	printf("hold: %zu pages, %s\n", nr_pages, bad ? "MISMATCH" : "verified");
	return bad ? 1 : 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: swaptorture fork|readahead SIZE_MB\n"
			"       swaptorture hold SIZE_MB READYFILE\n");
	return 2;
}

int main(int argc, char **argv)
{
	unsigned long mb;
	char *end;
	size_t p;

	if (argc < 3)
		return usage();
	mb = strtoul(argv[2], &end, 10);
	if (*end || mb == 0)
		return usage();
	page_size = (size_t)sysconf(_SC_PAGESIZE);
	nr_pages = (mb << 20) / page_size;
	mem = mmap(NULL, nr_pages * page_size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	/* Base pages: swap handles each on its own (no THP swap-out). */
	madvise(mem, nr_pages * page_size, MADV_NOHUGEPAGE);
	for (p = 0; p < nr_pages; p++)
		fill_page(p, 0);
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (!strcmp(argv[1], "fork") && argc == 3)
		return do_fork();
	if (!strcmp(argv[1], "readahead") && argc == 3)
		return do_readahead();
	if (!strcmp(argv[1], "hold") && argc == 4)
		return do_hold(argv[3]);
	return usage();
}
