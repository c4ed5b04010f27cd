// SPDX-License-Identifier: GPL-2.0
/*
 * failnth_load MODULE.ko PARAMS N|budget
 *
 * Load MODULE.ko (uncompressed) with init_module(2) and PARAMS, with the
 * N-th fault-injection point of the calling thread failing
 * (/proc/thread-self/fail-nth: kernels with CONFIG_FAULT_INJECTION; the
 * points are failslab's and fail_page_alloc's, as their debugfs settings
 * allow).  N = 0 injects nothing.
 *
 * Prints one line: "rc=R errno=E injected=I left=L": R and E of
 * init_module, I 1 when the fault was injected, L how many points were
 * left of N when none was (so N minus L is how many the load passed).
 *
 * With "budget" instead of N, the thread is marked for the fault
 * attributes' task filter (/proc/thread-self/make-it-fail) around the
 * load: the caller sets failslab's task-filter, probability, times and
 * space, so that every slab allocation of the load fails once the space
 * budget is spent.  Prints "rc=R errno=E".
 *
 * Exit 0 when the module loaded, 1 when the load failed, 2 on a usage or
 * setup error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static void *read_all(const char *path, size_t *len)
{
	struct stat st;
	char *buf;
	size_t got = 0;
	ssize_t r;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st) < 0)
		return NULL;
	buf = malloc(st.st_size ? st.st_size : 1);
	if (!buf)
		return NULL;
	while (got < (size_t)st.st_size) {
		r = read(fd, buf + got, st.st_size - got);
		if (r <= 0)
			return NULL;
		got += r;
	}
	close(fd);
	*len = got;
	return buf;
}

/*
 * One load with this thread marked for the task filter.  Both ends are
 * writes to a file opened beforehand: nothing between the marks allocates
 * but the load (an open would, and would fail).
 */
static int budget_load(void *image, size_t len, const char *params)
{
	int fd = open("/proc/thread-self/make-it-fail", O_WRONLY);
	int rc, err;

	if (fd < 0) {
		perror("/proc/thread-self/make-it-fail");
		return 2;
	}
	if (write(fd, "1", 1) < 0) {
		perror("make-it-fail");
		return 2;
	}
	rc = syscall(SYS_init_module, image, len, params);
	err = rc ? errno : 0;
	if (write(fd, "0", 1) < 0)
		return 2;
	printf("rc=%d errno=%d\n", rc, err);
	return rc ? 1 : 0;
}

int main(int argc, char **argv)
{
	char num[32];
	size_t len;
	void *image;
	long n, left;
	int fd, rc, err;
	ssize_t r;

	if (argc != 4) {
		fprintf(stderr, "usage: %s MODULE.ko PARAMS N|budget\n", argv[0]);
		return 2;
	}
	image = read_all(argv[1], &len);
	if (!image) {
		perror(argv[1]);
		return 2;
	}
	if (strcmp(argv[3], "budget") == 0)
		return budget_load(image, len, argv[2]);
	n = strtol(argv[3], NULL, 10);
	fd = open("/proc/thread-self/fail-nth", O_RDWR);
	if (fd < 0) {
		perror("/proc/thread-self/fail-nth");
		return 2;
	}
	snprintf(num, sizeof(num), "%ld", n);
	/* Armed last: nothing between here and the syscall allocates. */
	if (n > 0 && write(fd, num, strlen(num)) < 0) {
		perror("fail-nth");
		return 2;
	}
	rc = syscall(SYS_init_module, image, len, argv[2]);
	err = rc ? errno : 0;
	r = pread(fd, num, sizeof(num) - 1, 0);
	num[r > 0 ? r : 0] = '\0';
	left = strtol(num, NULL, 10);
	/* Disarm, whatever is left. */
	if (write(fd, "0", 1) < 0)
		return 2;
	printf("rc=%d errno=%d injected=%d left=%ld\n", rc, err,
	       n > 0 && left == 0, n > 0 ? left : 0);
	return rc ? 1 : 0;
}
