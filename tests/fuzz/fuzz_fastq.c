/* fuzz_fastq.c — libFuzzer target for io/fastq.c: any byte string, plain or
 * gzip, must parse to records or to an error, never crash, leak or read out
 * of bounds; every record it returns must satisfy fastq.h's promises.
 * Build and run: tests/fuzz/README.md. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/fastq.h"
#include "io/log.h"
#include "tests/fuzz/fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file_write(data, size);
	sm_read_t r = { 0 };
	sm_fastq_t *f;
	int64_t n = 0;

	sm_log_set_level(SM_LOG_QUIET);
	f = sm_fastq_open(path);
	if (!f)
		abort();  /* the file exists: open must succeed */
	while (sm_fastq_next(f, &r) == 1) {
		if (r.len <= 0 || r.index != n++ || strlen(r.seq) != (size_t)r.len ||
		    strlen(r.qual) != (size_t)r.len || r.name[0] == '\0')
			abort();
	}
	sm_fastq_close(f);
	sm_read_free(&r);
	return 0;
}
