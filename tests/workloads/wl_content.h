/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wl_content.h: the page content shared by the workloads (memstress,
 * pagecache): deterministic pseudo-random blocks that compress like real
 * memory, and a fast checksum.  Included by each workload's single .c file.
 *
 * Kinds of block, measured with lz4 / lzo1x-1 on 4 KiB blocks (gcc 12,
 * x86-64): text 1.97x / 2.22x, records 2.56x / 2.78x, sparse 8.4x / 8.6x,
 * random 1.00x.  The default mix with 10% random blocks: 2.16x / 2.33x
 * (0%: 2.49x / 2.76x; 25%: 1.81x / 1.91x).  No block is all zeros or one
 * repeated byte.
 */
#ifndef WL_CONTENT_H
#define WL_CONTENT_H

#include <stdint.h>
#include <string.h>
#include <time.h>

/* ---- pseudo-random numbers: splitmix64 seeds xorshift64* ---- */

static inline uint64_t wl_splitmix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static inline uint64_t wl_next(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dULL;
}

/* ---- page content ---- */

static const char *const wl_words[] = {
	"the", "of", "and", "to", "in", "is", "that", "for", "it", "as",
	"was", "with", "be", "by", "on", "not", "he", "this", "are", "or",
	"his", "from", "at", "which", "but", "have", "an", "had", "they",
	"you", "were", "their", "one", "all", "we", "can", "her", "has",
	"there", "been", "if", "more", "when", "will", "would", "who", "so",
	"no", "memory", "page", "kernel", "swap", "compressed", "cache",
	"device", "request", "error", "value", "struct", "return", "buffer",
	"timeout", "connection", "user", "session", "status", "ok", "failed",
	"GET", "POST", "/index.html", "/api/v1/items", "200", "404", "INFO",
	"WARN", "DEBUG", "localhost", "Mozilla/5.0", "application/json",
};
#define WL_NWORDS (sizeof(wl_words) / sizeof(wl_words[0]))

enum wl_kind { WL_TEXT, WL_RECORDS, WL_SPARSE, WL_RANDOM };
static const char *const wl_kind_names[] __attribute__((unused)) = {
	"text", "records", "sparse", "random",
};

/* The kind of block `index` of stream `stream` (a process, a file):
 * incompressible at incompressible_pct percent, else text 45%, records 40%,
 * sparse 15%. */
static inline enum wl_kind wl_kind(uint64_t seed,
				   unsigned int incompressible_pct,
				   uint64_t stream, uint64_t index)
{
	uint64_t h = wl_splitmix(seed ^ wl_splitmix((stream << 48) ^ index));
	unsigned int r = (unsigned int)(h % 1000);

	if (r < incompressible_pct * 10)
		return WL_RANDOM;
	r = (unsigned int)((h >> 20) % 100);
	if (r < 45)
		return WL_TEXT;
	if (r < 85)
		return WL_RECORDS;
	return WL_SPARSE;
}

/* Append the decimal digits of v (at least width of them) at p. */
static inline size_t wl_utoa(char *p, unsigned long v, int width)
{
	char tmp[24];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v || n < width);
	for (width = 0; width < n; width++)
		p[width] = tmp[n - 1 - width];
	return (size_t)n;
}

/* Log-like text: a line number, a time, words and numbers, line breaks. */
static inline void wl_fill_text(unsigned char *p, size_t len, uint64_t *s)
{
	size_t off = 0;
	unsigned long line = (unsigned long)(wl_next(s) % 100000);
	unsigned long sec = (unsigned long)(wl_next(s) % 86000);

	while (off < len) {
		char buf[320]; /* 6+12+8+1 + 13 words of <= 20 */
		size_t n;
		uint64_t r = wl_next(s);
		unsigned int words = 4 + (unsigned int)(r % 10);

		sec += (r >> 8) % 3;
		n = wl_utoa(buf, line++, 6);
		memcpy(buf + n, " 2026-12-03T", 12);
		n += 12;
		n += wl_utoa(buf + n, sec / 3600 % 24, 2);
		buf[n++] = ':';
		n += wl_utoa(buf + n, sec / 60 % 60, 2);
		buf[n++] = ':';
		n += wl_utoa(buf + n, sec % 60, 2);
		buf[n++] = ' ';
		while (words--) {
			r = wl_next(s);
			if ((r & 15) == 0) {
				n += wl_utoa(buf + n, (r >> 40) % 1000, 1);
			} else {
				const char *w = wl_words[(r >> 8) % WL_NWORDS];
				size_t wl = strlen(w);

				memcpy(buf + n, w, wl);
				n += wl;
			}
			buf[n++] = ' ';
		}
		buf[n - 1] = '\n';
		if (n > len - off)
			n = len - off;
		memcpy(p + off, buf, n);
		off += n;
	}
}

/* Fixed-size records as a program keeps them: ids, times, a name padded
 * with zeros, counters, flags. */
static inline void wl_fill_records(unsigned char *p, size_t len, uint64_t *s)
{
	uint32_t id = (uint32_t)wl_next(s);
	uint64_t t = 1795000000000ULL + (wl_next(s) % 1000000);
	size_t off;

	for (off = 0; off + 64 <= len; off += 64) {
		unsigned char *r = p + off;
		uint64_t x = wl_next(s);
		const char *name = wl_words[48 + x % 16];
		uint32_t v32;
		uint64_t v64;

		memset(r, 0, 64);
		v32 = id++;
		memcpy(r, &v32, 4);
		t += x >> 60;
		memcpy(r + 4, &t, 8);
		memcpy(r + 12, name, strlen(name)); /* <= 16 bytes, zero-padded */
		v64 = (x >> 16) & 0xfff;
		memcpy(r + 32, &v64, 8);
		v32 = (uint32_t)(x >> 36) & 0x3f;
		memcpy(r + 40, &v32, 4);
		r[44] = (unsigned char)(x & 3);
		r[48] = (unsigned char)((x >> 8) & 1);
	}
	memset(p + off, 0, len - off);	/* the tail short of a record */
}

/* A quarter of the page holds data, the rest is zero (a mostly empty
 * table or buffer). */
static inline void wl_fill_sparse(unsigned char *p, size_t len, uint64_t *s)
{
	size_t used = len / 4;

	memset(p, 0, len);
	wl_fill_records(p, used, s);
}

static inline void wl_fill_random(unsigned char *p, size_t len, uint64_t *s)
{
	size_t off;

	for (off = 0; off + 8 <= len; off += 8) {
		uint64_t x = wl_next(s);

		memcpy(p + off, &x, 8);
	}
}

/* Fill len bytes at p with content of the given kind from the stream s. */
static inline void wl_fill(enum wl_kind k, unsigned char *p, size_t len,
			   uint64_t *s)
{
	switch (k) {
	case WL_TEXT:
		wl_fill_text(p, len, s);
		break;
	case WL_RECORDS:
		wl_fill_records(p, len, s);
		break;
	case WL_SPARSE:
		wl_fill_sparse(p, len, s);
		break;
	case WL_RANDOM:
		wl_fill_random(p, len, s);
		break;
	}
}

static inline uint64_t wl_checksum(const unsigned char *p, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t off;

	for (off = 0; off < len; off += 8) {
		uint64_t w;

		memcpy(&w, p + off, 8);
		h = (h ^ w) * 0x100000001b3ULL;
		h ^= h >> 29;
	}
	return h;
}

static inline double wl_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#endif /* WL_CONTENT_H */
