/* log.h — the one logging function of scanmap.
 *
 * Library code reports through sm_log() and returns an error code; only
 * main() decides to exit.  Messages go to stderr prefixed "[scanmap] ".
 * Errors name the file, record and line at fault. */
#ifndef SM_LOG_H
#define SM_LOG_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum sm_log_level {
	SM_LOG_ERROR = 1,
	SM_LOG_WARNING = 2,
	SM_LOG_INFO = 3,
	SM_LOG_DEBUG = 4,
};

/* Messages above this level are dropped (default SM_LOG_INFO). */
void sm_log_set_level(enum sm_log_level level);
enum sm_log_level sm_log_get_level(void);

/* printf-style; a trailing newline is added.  Thread-safe (one write per line). */
void sm_log(enum sm_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Messages a thread holds back instead of writing them (sm_log_hold): a
 * parser that runs ahead of its consumer holds what it logs until the
 * consumer reaches that point of the input, so messages keep input order.
 * Lines beyond the room are dropped. */
typedef struct {
	char text[4096];
	size_t len;
} sm_log_held_t;

/* From now on this thread's messages go to *h (NULL: to stderr again). */
void sm_log_hold(sm_log_held_t *h);

/* Writes the lines held in *h to stderr and empties it. */
void sm_log_release(sm_log_held_t *h);

#ifdef __cplusplus
}
#endif
#endif
