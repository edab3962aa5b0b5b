#include "io/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static enum sm_log_level log_level = SM_LOG_INFO;
static __thread sm_log_held_t *log_held;

void sm_log_hold(sm_log_held_t *h) { log_held = h; }

void sm_log_release(sm_log_held_t *h)
{
	if (h->len > 0) {
		ssize_t w = write(STDERR_FILENO, h->text, h->len);  /* nowhere to report a failure */

		(void)w;
	}
	h->len = 0;
}

void sm_log_set_level(enum sm_log_level level) { log_level = level; }
enum sm_log_level sm_log_get_level(void) { return log_level; }

void sm_log(enum sm_log_level level, const char *fmt, ...)
{
	static const char *const tag[] = { "", "error: ", "warning: ", "", "debug: " };
	char line[2048];
	int len;
	va_list ap;

	if (level > log_level)
		return;
	len = snprintf(line, sizeof line, "[scanmap] %s", tag[level]);
	va_start(ap, fmt);
	len += vsnprintf(line + len, sizeof line - (size_t)len - 1, fmt, ap);
	va_end(ap);
	if (len > (int)sizeof line - 2)
		len = (int)sizeof line - 2;
	line[len++] = '\n';
	if (log_held) {
		if (log_held->len + (size_t)len <= sizeof log_held->text) {
			memcpy(log_held->text + log_held->len, line, (size_t)len);
			log_held->len += (size_t)len;
		}
		return;
	}
	/* One write() per line keeps lines from different threads whole. */
	if (write(STDERR_FILENO, line, (size_t)len) < 0)
		return;
}
