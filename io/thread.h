/* thread.h — names the calling thread for the operating system.
 *
 * `top -H`, `ps -L` and /proc/PID/task/TID/comm then tell scanmap's threads
 * apart (sm-worker, sm-reader, sm-parse, ...), and so can
 * benchmarks/thread_stats.py, which sums each kind's CPU and run-queue
 * wait.  Linux keeps 15 characters; elsewhere this does nothing. */
#ifndef SM_THREAD_H
#define SM_THREAD_H

#ifdef __linux__
#include <sys/prctl.h>
#endif

static inline void sm_thread_name(const char *name)
{
#ifdef __linux__
	prctl(PR_SET_NAME, (unsigned long)name, 0UL, 0UL, 0UL);
#else
	(void)name;
#endif
}

#endif
