/* clock.h — the one wall clock of scanmap's timings (summary lines,
 * engine profiles, benchmarks): monotonic seconds; and the process's peak
 * memory, which the same summary lines report. */
#ifndef SM_CLOCK_H
#define SM_CLOCK_H

#include <sys/resource.h>
#include <time.h>

static inline double sm_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Peak resident memory of this process so far, in MiB (mapped file pages
 * included); 0 when unknown.  Linux reports ru_maxrss in KiB. */
static inline double sm_peak_mib(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return 0.0;
	return (double)ru.ru_maxrss / 1024.0;
}

#endif
