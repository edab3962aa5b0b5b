/* clock.h — the one wall clock of scanmap's timings (summary lines,
 * engine profiles, benchmarks): monotonic seconds. */
#ifndef SM_CLOCK_H
#define SM_CLOCK_H

#include <time.h>

static inline double sm_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#endif
