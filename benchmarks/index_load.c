/* index_load.c — what the index file's checksums and structural checks add
 * to loading it (mapper/index.h).
 *
 *   build/benchmarks/index_load REF.smi [ROUNDS [THREADS]]
 *
 * Per round, the file is already in the page cache (a first untimed load
 * puts it there):
 *   read:      read() of the whole file into memory, what a loader that
 *              copies it pays at least;
 *   unchecked: sm_index_load without the checks (mapping, bucket table,
 *              the held reference), then one read of every page, which
 *              mapping pays before or during the first reads;
 *   checked:   sm_index_load with its checks, which read every page.
 * The checks' cost is checked - unchecked. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "io/ref.h"
#include "mapper/index.h"

#define DEFAULT_ROUNDS 3
#define PAGE 4096

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
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

int main(int argc, char **argv)
{
	int rounds = argc > 2 ? atoi(argv[2]) : DEFAULT_ROUNDS;
	int threads = argc > 3 ? atoi(argv[3]) : 1;
	sm_index_t *idx;
	size_t n;

	if (argc < 2) {
		fprintf(stderr, "usage: index_load REF.smi [ROUNDS [THREADS]]\n");
		return 2;
	}
	if (!(idx = load(argv[1], threads, 1)))
		return 1;
	sm_index_destroy(idx);
	for (int r = 0; r < rounds; r++) {
		double t_read = read_file(argv[1], &n), t0 = now(), t_plain, t_checked;
		volatile uint8_t sink = 0;

		if (!(idx = load(argv[1], threads, 0)))
			return 1;
		for (size_t at = 0; at < idx->map_len; at += PAGE)
			sink ^= ((const uint8_t *)idx->map)[at];
		t_plain = now() - t0;
		sm_index_destroy(idx);
		t0 = now();
		if (!(idx = load(argv[1], threads, 1)))
			return 1;
		t_checked = now() - t0;
		sm_index_destroy(idx);
		printf("%.1f MB, %d thread(s): read %.3f s, unchecked load %.3f s, checked load "
		       "%.3f s (checks +%.1f%%)\n", (double)n / 1e6, threads, t_read, t_plain,
		       t_checked, 100.0 * (t_checked - t_plain) / t_plain);
	}
	return 0;
}
