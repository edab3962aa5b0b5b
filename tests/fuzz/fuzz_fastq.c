/* fuzz_fastq.c — libFuzzer target for io/fastq.c: any byte string, plain or
 * gzip, must parse to records or to an error, never crash, leak or read out
 * of bounds; every record it returns must satisfy fastq.h's promises; and
 * where the build has ISA-L, zlib must read the same records and end the
 * same way (io/inflate.h); with BGZF inflate threads the records must be a
 * prefix of those read without (all of them when the threads end cleanly).
 * Build and run: tests/fuzz/README.md. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/fastq.h"
#include "io/inflate.h"
#include "io/log.h"
#include "tests/fuzz/fuzz_file.h"

/* Reads every record of path with inflater which; returns the last
 * sm_fastq_next() value and sets *n and *sum (a hash of the records). */
static int read_all(const char *path, sm_inflater_t which, int threads, int64_t *n,
		    uint64_t *sum)
{
	sm_read_t r = { 0 };
	sm_fastq_t *f;
	int rc;

	sm_inflate_set_default(which);
	sm_inflate_set_threads(threads);
	f = sm_fastq_open(path);
	if (!f)
		abort();  /* the file exists: open must succeed */
	*n = 0;
	*sum = 0;
	while ((rc = sm_fastq_next(f, &r)) == 1) {
		/* len 0: a read trimmed to nothing; qual NULL: a FASTA record */
		if (r.len < 0 || r.index != (*n)++ || strlen(r.seq) != (size_t)r.len ||
		    (r.qual && strlen(r.qual) != (size_t)r.len) || r.name[0] == '\0' ||
		    strcmp(r.name, "*") == 0 || strchr(r.seq, '.'))
			abort();
		for (const char *p = r.seq; *p; p++)
			*sum = *sum * 31 + (uint8_t)*p;
		*sum = *sum * 31 + (r.qual != NULL);
	}
	sm_fastq_close(f);
	sm_read_free(&r);
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file_write(data, size);
	int64_t n[3];
	uint64_t sum[3];
	int rc[3];

	sm_log_set_level(SM_LOG_QUIET);
	rc[0] = read_all(path, SM_INFLATER_ZLIB, 0, &n[0], &sum[0]);
	if (sm_inflate_have_isal()) {
		rc[1] = read_all(path, SM_INFLATER_ISAL, 0, &n[1], &sum[1]);
		if (rc[0] != rc[1] || n[0] != n[1] || sum[0] != sum[1])
			abort();
	}
	/* size picks the inflater, so both see threads across a campaign */
	rc[2] = read_all(path, size % 2 ? SM_INFLATER_ISAL : SM_INFLATER_ZLIB, 2, &n[2], &sum[2]);
	if (n[2] > n[0] || (rc[2] == 0 && (rc[0] != 0 || n[2] != n[0] || sum[2] != sum[0])))
		abort();
	return 0;
}
