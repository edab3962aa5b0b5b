/* index_load.c — what the index file's checksums and structural checks add
 * to loading it (mapper/index.h).
 *
 *   build/benchmarks/index_load REF.smi [ROUNDS [THREADS [cold]]]
 *
 * The file is in the page cache (a first untimed load puts it there), or
 * with `cold` dropped from it before each load (posix_fadvise DONTNEED:
 * no root needed; the file's pages must be clean), so that each load
 * reads it from the disk, as the first run after copying an index does.
 * Once:
 *   read:      read() of the whole file into memory, what a loader that
 *              copies it pays at least;
 *   checksum:  sm_index_checksum's speed on a 256 KiB buffer in the cache
 *              (the portable chains, best of 2,000 rounds);
 * then per round:
 *   unchecked: sm_index_load without the checks (mapping, bucket table,
 *              the held reference), then one read of every page, which
 *              mapping pays before or during the first reads;
 *   structure: sm_index_load with its structural checks alone, no checksum
 *              (SM_INDEX_VERIFY_STRUCTURE): they read every byte but the
 *              names' and lengths';
 *   checked:   sm_index_load with every check, checksums included;
 *   touch, stream: the file mapped (no scanmap) and one byte of each page
 *              read, or every byte read once (a sum of its words): stream -
 *              touch is the least that any check of every byte adds to the
 *              unchecked load on this machine.
 * The checks' cost is checked - unchecked, the checksum's checked -
 * structure, in wall-clock seconds and in the process's CPU seconds (user +
 * system, all threads: on a shared machine the steadier measure); the last
 * line gives the medians over the rounds (medians resist the rounds that
 * another job slowed down). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "io/ref.h"
#include "mapper/index.h"

#define DEFAULT_ROUNDS 3
#define MAX_ROUNDS 1000
#define PAGE 4096

static double clock_s(clockid_t c)
{
	struct timespec t;

	clock_gettime(c, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double now(void)
{
	return clock_s(CLOCK_MONOTONIC);
}

static double cpu_now(void)
{
	return clock_s(CLOCK_PROCESS_CPUTIME_ID);
}

static sm_index_t *load(const char *path, int threads, int verify)
{
	sm_index_load_opt_t o;
	sm_ref_t *ref = NULL;
	sm_index_t *idx;

	sm_index_load_opt_init(&o);
	o.n_threads = threads;
	o.verify = verify;
	idx = sm_index_load(path, &o, &ref);
	sm_ref_destroy(ref);
	return idx;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of v[0..n) (sorts v). */
static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Keeps the reads of map_read from being optimised away. */
static volatile uint64_t sink_sum;

/* Seconds to map the file and read one word of every page (every = 0) or
 * every word of it (every = 1). */
static double map_read(const char *path, int every)
{
	double t0 = now();
	int fd = open(path, O_RDONLY);
	size_t n = (size_t)lseek(fd, 0, SEEK_END), words = n / sizeof(uint64_t);
	size_t step = every ? 4 : PAGE / sizeof(uint64_t);
	const uint64_t *w = mmap(NULL, n, PROT_READ, MAP_PRIVATE, fd, 0);
	uint64_t s[4] = { 0 };

	close(fd);
	if (w == MAP_FAILED)
		return -1;
	for (size_t i = 0; i + 4 <= words; i += step)
		for (int l = 0; l < 4; l++)
			s[l] += w[i + l];
	munmap((void *)w, n);
	sink_sum = s[0] ^ s[1] ^ s[2] ^ s[3];
	return now() - t0;
}

/* Seconds to read() the whole file into one buffer. */
static double read_file(const char *path, size_t *n)
{
	double t0 = now();
	int fd = open(path, O_RDONLY);
	size_t cap = (size_t)lseek(fd, 0, SEEK_END), at = 0;
	char *buf = malloc(cap + 1);
	ssize_t got;

	lseek(fd, 0, SEEK_SET);
	while (buf && (got = read(fd, buf + at, cap - at)) > 0)
		at += (size_t)got;
	close(fd);
	free(buf);
	*n = at;
	return now() - t0;
}

/* Drops path's pages from the page cache (cold loads). */
static void evict(const char *path)
{
	int fd = open(path, O_RDONLY);

	if (fd >= 0) {
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		close(fd);
	}
}

/* Bytes a second that sm_index_checksum sums from a buffer in the cache. */
static double checksum_speed(void)
{
	enum { BYTES = 1 << 18, ROUNDS = 2000 };
	static uint8_t buf[BYTES];
	double best = 1e30;

	for (size_t i = 0; i < BYTES; i++)
		buf[i] = (uint8_t)(i * 7);
	for (int r = 0; r < ROUNDS; r++) {
		double t0 = now();

		sink_sum ^= sm_index_checksum(buf, BYTES);
		if (now() - t0 < best)
			best = now() - t0;
	}
	return BYTES / best;
}

static double pct(double base, double x)
{
	return 100.0 * (x - base) / base;
}

int main(int argc, char **argv)
{
	int rounds = argc > 2 ? atoi(argv[2]) : DEFAULT_ROUNDS;
	int threads = argc > 3 ? atoi(argv[3]) : 1;
	int cold = argc > 4 && strcmp(argv[4], "cold") == 0;
	/* Per round: wall and CPU seconds of each load. */
	static double plain[MAX_ROUNDS], checked[MAX_ROUNDS], plain_cpu[MAX_ROUNDS],
		      checked_cpu[MAX_ROUNDS], touch[MAX_ROUNDS], stream[MAX_ROUNDS],
		      shape[MAX_ROUNDS], shape_cpu[MAX_ROUNDS];
	sm_index_t *idx;
	double t_read;
	size_t n;

	if (argc < 2 || rounds < 1 || rounds > MAX_ROUNDS || threads < 1) {
		fprintf(stderr, "usage: index_load REF.smi [ROUNDS (1..%d) [THREADS [cold]]]\n",
			MAX_ROUNDS);
		return 2;
	}
	if (!(idx = load(argv[1], threads, 1)))
		return 1;
	sm_index_destroy(idx);
	t_read = read_file(argv[1], &n);
	printf("%.1f MB: read %.3f s; checksum %.1f GB/s in the cache\n", (double)n / 1e6, t_read,
	       checksum_speed() / 1e9);
	for (int r = 0; r < rounds; r++) {
		double t0, c0;
		volatile uint8_t sink = 0;

		if (cold)
			evict(argv[1]);
		touch[r] = map_read(argv[1], 0);
		if (cold)
			evict(argv[1]);
		stream[r] = map_read(argv[1], 1);
		if (cold)
			evict(argv[1]);
		t0 = now();
		c0 = cpu_now();
		if (!(idx = load(argv[1], threads, 0)))
			return 1;
		for (size_t at = 0; at < idx->map_len; at += PAGE)
			sink ^= ((const uint8_t *)idx->map)[at];
		plain[r] = now() - t0;
		plain_cpu[r] = cpu_now() - c0;
		sm_index_destroy(idx);
		if (cold)
			evict(argv[1]);
		t0 = now();
		c0 = cpu_now();
		if (!(idx = load(argv[1], threads, SM_INDEX_VERIFY_STRUCTURE)))
			return 1;
		shape[r] = now() - t0;
		shape_cpu[r] = cpu_now() - c0;
		sm_index_destroy(idx);
		if (cold)
			evict(argv[1]);
		t0 = now();
		c0 = cpu_now();
		if (!(idx = load(argv[1], threads, 1)))
			return 1;
		checked[r] = now() - t0;
		checked_cpu[r] = cpu_now() - c0;
		sm_index_destroy(idx);
		printf("%s%d thread(s): unchecked load %.4f s (CPU %.4f s), structure %.4f s (CPU "
		       "%.4f s), checked load %.4f s (CPU %.4f s): checks %+.1f%% (CPU %+.1f%%), "
		       "checksum %+.1f%% (CPU %+.1f%%); touch %.4f s, stream %.4f s\n",
		       cold ? "cold, " : "", threads, plain[r], plain_cpu[r], shape[r], shape_cpu[r],
		       checked[r], checked_cpu[r], pct(plain[r], checked[r]),
		       pct(plain_cpu[r], checked_cpu[r]), pct(shape[r], checked[r]),
		       pct(shape_cpu[r], checked_cpu[r]), touch[r], stream[r]);
	}
	{
		double mp = median(plain, rounds), mc = median(checked, rounds);
		double mpc = median(plain_cpu, rounds), mcc = median(checked_cpu, rounds);
		double mt = median(touch, rounds), ms = median(stream, rounds);
		double msh = median(shape, rounds), mshc = median(shape_cpu, rounds);

		printf("median of %d rounds, %s%d thread(s): unchecked load %.4f s (CPU %.4f s), "
		       "structure %.4f s (CPU %.4f s), checked load %.4f s (CPU %.4f s): checks "
		       "%+.1f%% (CPU %+.1f%%), checksum %+.1f%% of the structurally checked load (CPU "
		       "%+.1f%%); reading every byte instead of one per page adds %.4f s (touch %.4f s, "
		       "stream %.4f s), %+.1f%% of the unchecked load\n", rounds, cold ? "cold, " : "",
		       threads, mp, mpc, msh, mshc, mc, mcc, pct(mp, mc), pct(mpc, mcc), pct(msh, mc),
		       pct(mshc, mcc), ms - mt, mt, ms, 100.0 * (ms - mt) / mp);
	}
	return 0;
}
