/* fastq.h — strict FASTQ reader (plain or gzip), one record at a time.
 *
 * Records are the four-line form (name line starting '@', sequence, '+'
 * line, quality) with sequence and quality possibly wrapped over several
 * lines as long as their lengths agree, or FASTA records (name line
 * starting '>', sequence lines), which carry no qualities.  Names are cut
 * at the first whitespace; the rest of the header line, after the
 * whitespace, is the record's comment. */
#ifndef SM_FASTQ_H
#define SM_FASTQ_H

#include <stdint.h>

typedef struct {
	char *name;     /* NUL-terminated, owned by the record */
	char *seq;      /* ASCII as given (IUPAC letters, either case; '.' read as N) */
	char *qual;     /* Phred+33, same length as seq; NULL for a FASTA record */
	int32_t len;    /* 0 for a read trimmed away (written unmapped) */
	int64_t index;  /* 0-based record number in its file */
	char *comment;  /* the header line after the name and its whitespace,
			   NUL-terminated, in name's allocation; NULL when empty */
} sm_read_t;

typedef struct sm_fastq_s sm_fastq_t;

/* Opens path ("-" is stdin).  Returns NULL after logging why. */
sm_fastq_t *sm_fastq_open(const char *path);

/* Reads the next record into r, reusing r's buffers (zero-initialise r
 * before the first call; free with sm_read_free).  Returns 1 for a record,
 * 0 at a clean end of file, -1 after logging an error that names the file,
 * the record number and the line: a header other than '@' or '>', a missing
 * '+', SEQ/QUAL length mismatch (reported on the quality line), truncated
 * record, truncated or corrupt gzip, characters that are not IUPAC DNA
 * letters (or '.') in SEQ or outside '!'..'~' in QUAL, a '+' line that
 * names another read, and read names SAM cannot hold (containing '@', or
 * over 254 characters).  FASTA records ('>' header, sequence lines up to
 * the next header) are reads without qualities, as bwa and minimap2 read
 * them; either kind may follow the other. */
int sm_fastq_next(sm_fastq_t *f, sm_read_t *r);

/* Moves parsing to a thread of f's own, which parses records ahead of
 * sm_fastq_next() (a few thousand, in chunks): the caller then only takes
 * them.  Records, their order and every error stay the same; an error's
 * messages are written when sm_fastq_next() reaches it, not when the
 * thread meets it.  Call once, before the first sm_fastq_next().  Returns
 * 0, or -1 after logging (f then parses on the caller's thread). */
int sm_fastq_ahead(sm_fastq_t *f);

/* CPU seconds of f's parsing thread so far (0 without one). */
double sm_fastq_parse_cpu(const sm_fastq_t *f);

const char *sm_fastq_path(const sm_fastq_t *f);
void sm_fastq_close(sm_fastq_t *f);
void sm_read_free(sm_read_t *r);

#endif
