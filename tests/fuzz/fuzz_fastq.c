/* fuzz_fastq.c — libFuzzer target for io/fastq.c: any byte string, plain or
 * gzip, must parse to records or to an error, never crash, leak or read out
 * of bounds; every record it returns must satisfy fastq.h's promises; and
 * where the build has ISA-L, zlib must end the same way, with the same
 * records when both end cleanly, and when both fail, one's records a prefix
 * of the other's (how much of a damaged member comes before the error
 * differs: io/inflate.h); with BGZF inflate threads the records must be a
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

/* What one reading of the input gave: how it ended (the last
 * sm_fastq_next() value), the records, and a running hash of them (hash[i]
 * covers records 0..i-1). */
typedef struct {
	int rc;
	int64_t n;
	uint64_t *hash;
	size_t cap;
} reading_t;

/* Sets g->hash[i] = h, growing the array. */
static void set_hash(reading_t *g, int64_t i, uint64_t h)
{
	if ((size_t)i >= g->cap) {
		g->cap = g->cap ? 2 * g->cap : 64;
		if (!(g->hash = realloc(g->hash, g->cap * sizeof *g->hash)))
			abort();
	}
	g->hash[i] = h;
}

/* Reads every record of path with inflater which into *g. */
static void read_all(const char *path, sm_inflater_t which, int threads, reading_t *g)
{
	sm_read_t r = { 0 };
	sm_fastq_t *f;
	uint64_t sum = 0;

	sm_inflate_set_default(which);
	sm_inflate_set_threads(threads);
	f = sm_fastq_open(path);
	if (!f)
		abort();  /* the file exists: open must succeed */
	g->n = 0;
	set_hash(g, 0, 0);
	while ((g->rc = sm_fastq_next(f, &r)) == 1) {
		/* len 0: a read trimmed to nothing; qual NULL: a FASTA record */
		if (r.len < 0 || r.index != g->n || strlen(r.seq) != (size_t)r.len ||
		    (r.qual && strlen(r.qual) != (size_t)r.len) || r.name[0] == '\0' ||
		    strcmp(r.name, "*") == 0 || strchr(r.seq, '.'))
			abort();
		for (const char *p = r.seq; *p; p++)
			sum = sum * 31 + (uint8_t)*p;
		sum = sum * 31 + (r.qual != NULL);
		set_hash(g, ++g->n, sum);
	}
	sm_fastq_close(f);
	sm_read_free(&r);
}

/* Whether a's records are a prefix of b's. */
static int is_prefix(const reading_t *a, const reading_t *b)
{
	return a->n <= b->n && a->hash[a->n] == b->hash[a->n];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file_write(data, size);
	static reading_t zlib, isal, threaded;

	sm_log_set_level(SM_LOG_QUIET);
	read_all(path, SM_INFLATER_ZLIB, 0, &zlib);
	if (sm_inflate_have_isal()) {
		read_all(path, SM_INFLATER_ISAL, 0, &isal);
		if (isal.rc != zlib.rc ||
		    (zlib.rc == 0 ? isal.n != zlib.n || !is_prefix(&isal, &zlib)
				  : !is_prefix(&isal, &zlib) && !is_prefix(&zlib, &isal)))
			abort();
	}
	/* size picks the inflater, so both see threads across a campaign */
	read_all(path, size % 2 ? SM_INFLATER_ISAL : SM_INFLATER_ZLIB, 2, &threaded);
	if (!is_prefix(&threaded, size % 2 && sm_inflate_have_isal() ? &isal : &zlib) ||
	    (threaded.rc == 0 && (zlib.rc != 0 || threaded.n != zlib.n)))
		abort();
	return 0;
}
