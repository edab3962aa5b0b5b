#include "io/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

static enum sm_log_level log_level = SM_LOG_INFO;

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
	/* One write() per line keeps lines from different threads whole. */
	if (write(STDERR_FILENO, line, (size_t)len) < 0)
		return;
}
