/* fastq_bench.c — the FASTQ reader alone, as the mapper's reader thread
 * drives it: records of one file, or pairs alternately from two files.
 *
 *   build/benchmarks/fastq_bench [-@ THREADS] [-a] R1.fq[.gz] [R2.fq[.gz]]
 *
 * -@: inflate threads per BGZF file (io/inflate.h; scanmap map uses a
 * quarter of -t); -a: each file parsed on a thread of its own
 * (sm_fastq_ahead, as scanmap map reads).
 * Prints the records and bases read, the wall seconds, the CPU seconds of
 * the calling thread (the parser: what the mapper's reader thread would
 * spend) and of the whole process (the parser plus any inflate threads). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "io/fastq.h"
#include "io/inflate.h"
#include "io/clock.h"

static double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	sm_fastq_t *f[2] = { NULL, NULL };
	sm_read_t r[2] = { { 0 }, { 0 } };
	int n_files, rc = 0, ahead = 0, c;
	long long n_rec = 0, n_base = 0;
	double t0, c0, p0;

	while ((c = getopt(argc, argv, "@:a")) != -1) {
		if (c == '@')
			sm_inflate_set_threads(atoi(optarg));
		else if (c == 'a')
			ahead = 1;
		else
			return 1;
	}
	argv += optind - 1;
	n_files = argc - optind;
	if (n_files < 1 || n_files > 2) {
		fprintf(stderr, "usage: fastq_bench [-@ THREADS] [-a] R1.fq[.gz] [R2.fq[.gz]]\n");
		return 1;
	}
	t0 = sm_seconds();
	c0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
	p0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	for (int k = 0; k < n_files; k++)
		if (!(f[k] = sm_fastq_open(argv[1 + k])) || (ahead && sm_fastq_ahead(f[k]) < 0))
			return 1;
	for (;;) {
		int got = 0;

		for (int k = 0; k < n_files; k++) {
			int ret = sm_fastq_next(f[k], &r[k]);

			if (ret < 0) {
				rc = 1;
				goto out;
			}
			if (ret > 0) {
				got++;
				n_base += r[k].len;
			}
		}
		if (!got)
			break;
		n_rec += got;
	}
out:
	printf("%lld records, %lld bases: %.3f s wall, %.3f s CPU in the parsing thread, "
	       "%.3f s CPU in the process\n", n_rec, n_base, sm_seconds() - t0,
	       clock_s(CLOCK_THREAD_CPUTIME_ID) - c0, clock_s(CLOCK_PROCESS_CPUTIME_ID) - p0);
	for (int k = 0; k < n_files; k++) {
		sm_fastq_close(f[k]);
		sm_read_free(&r[k]);
	}
	return rc;
}
