/* sam_out.h — the alignment writer: SAM, BAM or CRAM through htslib.
 *
 * The format follows the output path's extension (".sam", ".bam", ".cram",
 * case-insensitive); any other name, and NULL or "-" (standard output), is
 * SAM.  The header is
 *
 *   @HD VN:1.6 SO:unsorted
 *   @SQ SN:<contig> LN:<length>     one per contig, in reference order
 *   @RG ...                         only when a read group line is given
 *   ...                             the -H lines, when given
 *   @PG ID:scanmap PN:scanmap VN:<version> CL:<command line>
 *
 * Nothing in it depends on the time or the machine, so a run's output is a
 * function of its inputs and command line.
 *
 * SAM text is written by the writer itself (write(2), in blocks), and its
 * close leaves the writeback to the system, as bwa's and minimap2's output
 * does (htslib's close would fdatasync() the file); BAM and CRAM go through
 * htslib.  Every write is checked, and so is the final flush and close: a
 * full disk (try -o /dev/full) makes sm_sam_out_close() return -1.  When a run fails,
 * sm_sam_out_abort() closes the writer and removes the output if it is a
 * regular file created by this run, so nothing that looks complete is left
 * behind; on standard output the non-zero exit status is the signal. */
#ifndef SM_SAM_OUT_H
#define SM_SAM_OUT_H

#include <htslib/kstring.h>
#include <htslib/sam.h>

#include "io/ref.h"

typedef struct {
	const char *path;      /* NULL or "-": SAM on standard output */
	const char *rg_line;   /* a line from sm_rg_parse(), or NULL */
	const char *hdr_lines; /* lines from sm_hdr_lines_add() ('\n'-separated), or NULL */
	const char *version;   /* @PG VN */
	const char *cmdline;   /* @PG CL (tabs and newlines are replaced by spaces) */
	int threads;           /* BAM and CRAM: htslib threads compressing the output
				* (hts_set_threads), 0: none; SAM ignores it */
	int level;             /* BAM and CRAM: compression level 0 (none) to 9, or
				* -1 for htslib's default (set it: 0 is a level);
				* SAM ignores it */
} sm_sam_out_opt_t;

typedef struct sm_sam_out_s sm_sam_out_t;

/* Parses a -R argument: a read group header line "@RG\tID:x\t..." whose
 * fields are separated by real tabs or by the two characters '\' 't'.
 * It must start with "@RG", have an ID field and no empty field or newline.
 * Returns 0 and sets *line (the line with real tabs) and *id (the ID value),
 * both malloc'ed and freed by the caller; or -1 after logging what is wrong. */
int sm_rg_parse(const char *arg, char **line, char **id);

/* Adds a -H argument (bwa mem's): a header line when it starts with '@'
 * (fields separated by real tabs or the two characters '\' 't'), else a
 * file whose non-empty lines are header lines, to *lines (malloc'ed,
 * '\n'-separated, NULL at first; the caller frees it).  Each line must be
 * @XX<tab>..., without control characters, and not @HD or @SQ (which
 * scanmap writes); htslib checks the rest when the header is made.
 * Returns 0, or -1 after logging what is wrong (naming the file). */
int sm_hdr_lines_add(const char *arg, char **lines);

/* Opens the output and writes the header for ref (which must outlive the
 * writer: CRAM output reads its reference file, ref->path, when that file
 * can be indexed with samtools faidx, and otherwise is written without a
 * reference).  Returns NULL after logging why. */
sm_sam_out_t *sm_sam_out_open(const sm_sam_out_opt_t *opt, const sm_ref_t *ref);

/* Appends the header's first lines to s: @HD and one @SQ per contig of
 * ref, then `lines` (header lines separated by '\n', without a final
 * newline) unless NULL.  Returns 0, or -1 when out of memory. */
int sm_sam_header_text(const sm_ref_t *ref, const char *lines, kstring_t *s);

/* The header the records refer to (tid = contig index of ref). */
sam_hdr_t *sm_sam_out_header(sm_sam_out_t *w);

/* Writes one record.  Returns 0, or -1 after logging the failure. */
int sm_sam_out_write(sm_sam_out_t *w, const bam1_t *b);

/* SAM output can be formatted away from the writer: several threads turn
 * records into text with sm_sam_out_format() while one writes the text in
 * order with sm_sam_out_write_text().  The bytes and the write failures
 * (which record they name) are those of sm_sam_out_write() on the same
 * records.  BAM and CRAM go through sm_sam_out_write() only. */

/* 1 if the output is SAM text, for sm_sam_out_format/sm_sam_out_write_text. */
int sm_sam_out_is_text(const sm_sam_out_t *w);

/* Appends b to s as one SAM line, newline included, using tmp (caller's,
 * reused between calls; free tmp->s when done) as scratch.  Reads the header
 * only: any number of threads may call it at once while another writes.
 * Returns 0, or -1 after logging (a record htslib cannot format, or out of
 * memory). */
int sm_sam_out_format(const sm_sam_out_t *w, const bam1_t *b, kstring_t *s, kstring_t *tmp);

/* Writes text[0..len), the line sm_sam_out_format() made of record b, which
 * only names the record in a message.  Returns 0, or -1 after logging. */
int sm_sam_out_write_text(sm_sam_out_t *w, const char *text, size_t len, const bam1_t *b);

/* Flushes and closes the output and frees w.  Returns 0, or -1 after
 * logging that the output is incomplete (and removing it, as
 * sm_sam_out_abort() does). */
int sm_sam_out_close(sm_sam_out_t *w);

/* Closes w after a failed run, ignoring further errors, removes the output
 * if it is a regular file this run created or truncated, and frees w. */
void sm_sam_out_abort(sm_sam_out_t *w);

#endif
