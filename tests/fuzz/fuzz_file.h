/* fuzz_file.h — the parsers read files, so each fuzz input is written to
 * one temporary file per process (rewritten for every input). */
#ifndef SM_FUZZ_FILE_H
#define SM_FUZZ_FILE_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Level below every message: the parsers' errors are expected here. */
#define SM_LOG_QUIET ((enum sm_log_level)0)

static const char *fuzz_file_write(const uint8_t *data, size_t size)
{
	static char path[64];
	FILE *fp;

	if (!path[0]) {
		snprintf(path, sizeof path, "/tmp/scanmap-fuzz-%d", (int)getpid());
	}
	fp = fopen(path, "wb");
	if (!fp || fwrite(data, 1, size, fp) != size || fclose(fp) != 0)
		abort();
	return path;
}

#endif
