/* ref.h — the reference: every contig of a FASTA file, concatenated.
 *
 * Contig c occupies seq[offset[c] .. offset[c]+len[c]) of one array of base
 * codes (io/base.h: A=0 C=1 G=2 T=3, other=4); positions in that array are
 * "global" coordinates, which every engine reports.  No alignment may span
 * two contigs: engines restart their recurrence at each contig's first
 * column.  Ambiguous reference letters (N, R, Y, ...) are coded 4 and their
 * original uppercase letters kept as runs, for the MD tag. */
#ifndef SM_REF_H
#define SM_REF_H

#include <stddef.h>
#include <stdint.h>

#include "io/hd.h"

typedef struct {
	int64_t start;   /* global coordinate of the run's first base */
	int32_t len;
	char base;       /* uppercase IUPAC letter of the whole run */
} sm_amb_run_t;

typedef struct {
	int32_t n_contig;
	char **name;       /* contig names, cut at the first whitespace */
	int64_t *len;      /* contig lengths (> 0) */
	int64_t *offset;   /* global coordinate of each contig's first base */
	int64_t total;     /* sum of len: the length of seq */
	uint8_t *seq;      /* host memory, total base codes */
	int32_t n_amb;
	sm_amb_run_t *amb; /* sorted by start */
	char *path;        /* the file it was read from */
	/* The file as it was when sm_ref_load opened it (0 for a reference
	 * from memory): what an index records to recognise its FASTA. */
	int64_t file_size, file_mtime_s, file_mtime_ns;
	/* Nonzero when seq belongs to someone else (an index file's mapping,
	 * mapper/index.h), who keeps it valid as long as the reference is used;
	 * sm_ref_destroy then leaves it alone. */
	int seq_borrowed;
} sm_ref_t;

/* Reads a FASTA file, plain or gzip, multi-line, any number of contigs.
 * Returns 0 and sets *out (free with sm_ref_destroy), or -1 after logging an
 * error naming the file and the record or line at fault: unreadable file,
 * truncated gzip, no contig, a contig with no sequence, duplicate names,
 * anything but an IUPAC DNA letter (U, '*' and '-' included). */
int sm_ref_load(const char *path, sm_ref_t **out);

/* The size and modification time of the file at path into *size, *mtime_s,
 * *mtime_ns; returns 0, or -1 (errno set) when it cannot be stat'ed. */
int sm_ref_file_stamp(const char *path, int64_t *size, int64_t *mtime_s, int64_t *mtime_ns);

/* Builds a reference from memory (tests, benchmarks): n contigs with the
 * given names and ASCII sequences.  Same validation; returns 0 or -1. */
int sm_ref_from_strings(int n, const char *const *names, const char *const *seqs,
			sm_ref_t **out);

void sm_ref_destroy(sm_ref_t *ref);

/* The last of offset[0..n) (ascending, offset[0] <= pos) that is <= pos:
 * the contig holding pos.  Inline for the GPU seeder too. */
SM_HD static inline int32_t sm_offset_find(const int64_t *offset, int32_t n, int64_t pos)
{
	int32_t lo = 0, hi = n - 1;

	while (lo < hi) {
		int32_t mid = lo + (hi - lo + 1) / 2;

		if (offset[mid] <= pos)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* Contig holding global coordinate pos (0 <= pos < total). */
int32_t sm_ref_contig_of(const sm_ref_t *ref, int64_t pos);

/* Uppercase letter of the reference base at global coordinate pos. */
char sm_ref_base_char(const sm_ref_t *ref, int64_t pos);

#endif
