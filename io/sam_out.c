/* sam_out.c — SAM/BAM/CRAM writer (see sam_out.h). */
#include "io/sam_out.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <htslib/hts.h>
#include <htslib/kstring.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/log.h"
#include "io/outfile.h"

#define SM_PG_ID "scanmap"
#define SM_STDOUT_NAME "standard output"
/* Bytes of SAM text gathered before each write to the output: 16 times
 * fewer system calls than htslib's usual 4 KiB, and small enough to stay in
 * cache (1 MiB made the writer's copy slower). */
#define SM_SAM_OUT_BLOCK (1 << 16)

/* SAM text goes to a file descriptor through the writer's own buffer:
 * the callers format it (sm_sam_out_format), and htslib's close would add
 * an fdatasync(), which on a file makes the run wait for the disk (2-3 s
 * per 3.5 GB on the GPU machine) where bwa and minimap2 leave the
 * writeback to the system.  BAM and CRAM go through htslib (fp). */
struct sm_sam_out_s {
	samFile *fp;      /* BAM, CRAM */
	int fd;           /* SAM text: the output's descriptor, -1 for none */
	char *buf;        /* SAM text not yet written, len of SM_SAM_OUT_BLOCK bytes */
	size_t len;
	sam_hdr_t *hdr;
	char *path;       /* NULL for standard output */
	sm_outfile_t out; /* path's temporary file (io/outfile.h) */
	int failed;       /* a write already failed and was logged */
};

static const char *out_name(const sm_sam_out_t *w)
{
	return w->path ? w->path : SM_STDOUT_NAME;
}

static int has_suffix(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lx = strlen(suffix);

	return ls >= lx && strcasecmp(s + ls - lx, suffix) == 0;
}

/* htslib open mode for the output name into mode: "w" SAM, "wb" BAM, "wc"
 * CRAM, the last two followed by the compression level's digit when it is
 * 0-9. */
static void open_mode(const char *path, int level, char mode[4])
{
	mode[0] = 'w';
	mode[1] = '\0';
	if (path && has_suffix(path, ".bam"))
		mode[1] = 'b';
	else if (path && has_suffix(path, ".cram"))
		mode[1] = 'c';
	mode[2] = mode[1] && level >= 0 && level <= 9 ? (char)('0' + level) : '\0';
	mode[3] = '\0';
}

/* Checks one -H line (real tabs, no newline) and appends it to *s,
 * newline-separated.  Returns 0 or -1 (logged; from: where it came from). */
static int hdr_line_add(const char *line, const char *from, kstring_t *s)
{
	if (line[0] != '@' || !isupper((unsigned char)line[1]) || !isalpha((unsigned char)line[2]) ||
	    line[3] != '\t' || !line[4]) {
		sm_log(SM_LOG_ERROR, "-H %s: '%s' is not a SAM header line (@XX<tab>...)", from, line);
		return -1;
	}
	if (strncmp(line, "@HD", 3) == 0 || strncmp(line, "@SQ", 3) == 0) {
		sm_log(SM_LOG_ERROR, "-H %s: '%.3s' lines come from scanmap itself (its @HD and "
		       "the reference's @SQ); they cannot be given", from, line);
		return -1;
	}
	for (const char *p = line; *p; p++)
		if ((unsigned char)*p < ' ' && *p != '\t') {
			sm_log(SM_LOG_ERROR, "-H %s: the line '%s' holds a control character", from, line);
			return -1;
		}
	if ((s->l && kputc('\n', s) < 0) || kputs(line, s) < 0) {
		sm_log(SM_LOG_ERROR, "out of memory reading -H");
		return -1;
	}
	return 0;
}

int sm_hdr_lines_add(const char *arg, char **lines)
{
	kstring_t s = KS_INITIALIZE, line = KS_INITIALIZE;
	int rc = 0;

	if (*lines && kputs(*lines, &s) < 0)
		goto oom;
	if (arg[0] == '@') {   /* one line, "\t" typed as two characters or a tab */
		for (const char *p = arg; *p; p++) {
			int c = p[0] == '\\' && p[1] == 't' ? (p++, '\t') : *p;

			if (kputc(c, &line) < 0)
				goto oom;
		}
		rc = hdr_line_add(line.s, "line", &s);
	} else {               /* a file of lines */
		FILE *fp = fopen(arg, "r");
		char *buf = NULL;
		size_t m = 0;
		ssize_t n;

		if (!fp) {
			sm_log(SM_LOG_ERROR, "-H %s: %s (a header line must start with '@')", arg,
			       strerror(errno));
			free(s.s);
			return -1;
		}
		while (rc == 0 && (n = getline(&buf, &m, fp)) >= 0) {
			while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
				buf[--n] = '\0';
			if (n > 0)
				rc = hdr_line_add(buf, arg, &s);
		}
		if (rc == 0 && ferror(fp)) {
			sm_log(SM_LOG_ERROR, "-H %s: %s", arg, strerror(errno));
			rc = -1;
		}
		free(buf);
		fclose(fp);
	}
	free(line.s);
	if (rc < 0) {
		free(s.s);
		return -1;
	}
	free(*lines);
	*lines = s.s;
	return 0;
oom:
	sm_log(SM_LOG_ERROR, "out of memory reading -H");
	free(s.s);
	free(line.s);
	return -1;
}

int sm_sam_header_text(const sm_ref_t *ref, const char *lines, kstring_t *s)
{
	int rc = 0;

	rc |= ksprintf(s, "@HD\tVN:1.6\tSO:unsorted\n") < 0;
	for (int32_t c = 0; c < ref->n_contig; c++)
		rc |= ksprintf(s, "@SQ\tSN:%s\tLN:%lld\n", ref->name[c],
			       (long long)ref->len[c]) < 0;
	if (lines)
		rc |= ksprintf(s, "%s\n", lines) < 0;
	return rc ? -1 : 0;
}

/* Header text: see sam_out.h. */
static int header_text(const sm_sam_out_opt_t *opt, const sm_ref_t *ref, kstring_t *s)
{
	int rc = sm_sam_header_text(ref, NULL, s);

	if (opt->rg_line)
		rc |= ksprintf(s, "%s\n", opt->rg_line) < 0;
	if (opt->hdr_lines)
		rc |= ksprintf(s, "%s\n", opt->hdr_lines) < 0;
	rc |= ksprintf(s, "@PG\tID:%s\tPN:%s\tVN:%s", SM_PG_ID, SM_PG_ID, opt->version) < 0;
	if (opt->cmdline) {
		rc |= kputs("\tCL:", s) < 0;
		for (const char *p = opt->cmdline; *p; p++)
			rc |= kputc(*p == '\t' || *p == '\n' || *p == '\r' ? ' ' : *p, s) < 0;
	}
	rc |= kputc('\n', s) < 0;
	return rc ? -1 : 0;
}

/* Whether htslib can index path for CRAM: plain or bgzip FASTA, not gzip. */
static int ref_indexable(const char *path)
{
	htsFile *f = path ? hts_open(path, "r") : NULL;
	int ok;

	if (!f)
		return 0;
	ok = hts_get_format(f)->compression == no_compression ||
	     hts_get_format(f)->compression == bgzf;
	hts_close(f);
	return ok;
}

/* CRAM encodes bases against the reference file, which htslib reads through
 * a .fai index it builds beside it if missing (as samtools does).  A
 * reference it cannot index (plain gzip) is not fatal: the CRAM then stores
 * the bases themselves. */
static int cram_reference(sm_sam_out_t *w, const sm_ref_t *ref)
{
	if (!ref_indexable(ref->path)) {
		sm_log(SM_LOG_WARNING, "%s: the reference '%s' cannot be indexed (gzip, not "
		       "bgzip); writing a reference-free CRAM", out_name(w), ref->path);
		if (hts_set_opt(w->fp, CRAM_OPT_NO_REF, 1) == 0)
			return 0;
	} else if (hts_set_fai_filename(w->fp, ref->path) == 0) {
		return 0;
	}
	sm_log(SM_LOG_ERROR, "%s: cannot set up CRAM output against the reference '%s'",
	       out_name(w), ref->path);
	return -1;
}

/* Writes all of text[0..len) to w->fd.  Returns 0, or -1 with errno set. */
static int write_all(const sm_sam_out_t *w, const char *text, size_t len)
{
	while (len > 0) {
		ssize_t n = write(w->fd, text, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			return -1;
		}
		text += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Appends SAM text to w's buffer, writing the buffer out whenever it is
 * full (text longer than the buffer goes out directly).  Returns 0, or -1
 * with errno set. */
static int put_text(sm_sam_out_t *w, const char *text, size_t len)
{
	if (w->len + len > SM_SAM_OUT_BLOCK) {
		if (write_all(w, w->buf, w->len) < 0)
			return -1;
		w->len = 0;
		if (len > SM_SAM_OUT_BLOCK)
			return write_all(w, text, len);
	}
	memcpy(w->buf + w->len, text, len);
	w->len += len;
	return 0;
}

sm_sam_out_t *sm_sam_out_open(const sm_sam_out_opt_t *opt, const sm_ref_t *ref)
{
	sm_sam_out_t *w = calloc(1, sizeof *w);
	kstring_t text = KS_INITIALIZE;
	const char *path = opt->path && strcmp(opt->path, "-") != 0 ? opt->path : NULL;
	char mode[4];

	open_mode(path, opt->level, mode);
	if (!w)
		goto oom;
	w->fd = -1;
	w->out.slot = -1;
	if (path && !(w->path = strdup(path)))
		goto oom;
	if (!mode[1] && !(w->buf = malloc(SM_SAM_OUT_BLOCK)))
		goto oom;
	if (path && sm_outfile_begin(&w->out, path) < 0)
		goto fail;
	/* The temporary file is new and empty: no O_TRUNC, which on ext4 makes
	 * close() write the whole file out first, at the run's end (io/outfile.h).
	 * A FIFO or device is written as it is. */
	if (!mode[1])
		w->fd = path ? open(sm_outfile_name(&w->out), O_WRONLY | O_CREAT, 0666) :
			STDOUT_FILENO;
	else
		w->fp = sam_open(path ? sm_outfile_name(&w->out) : "-", mode);
	if (w->fd < 0 && !w->fp) {
		sm_log(SM_LOG_ERROR, "cannot open %s for writing: %s", out_name(w), strerror(errno));
		goto fail;
	}
	if (mode[1] == 'c' && cram_reference(w, ref) < 0)
		goto fail;
	if (mode[1] && opt->threads > 0 && hts_set_threads(w->fp, opt->threads) < 0) {
		sm_log(SM_LOG_ERROR, "%s: cannot start %d compression threads", out_name(w),
		       opt->threads);
		goto fail;
	}
	if (header_text(opt, ref, &text) < 0)
		goto oom;
	w->hdr = sam_hdr_init();
	if (!w->hdr || sam_hdr_add_lines(w->hdr, text.s, text.l) < 0) {
		sm_log(SM_LOG_ERROR, "%s: cannot build the SAM header", out_name(w));
		goto fail;
	}
	errno = 0;
	if (w->fp ? sam_hdr_write(w->fp, w->hdr) < 0 :
	    put_text(w, sam_hdr_str(w->hdr), sam_hdr_length(w->hdr)) < 0) {
		sm_log(SM_LOG_ERROR, "cannot write the header to %s: %s", out_name(w),
		       errno ? strerror(errno) : "write error");
		goto fail;
	}
	free(text.s);
	return w;
oom:
	sm_log(SM_LOG_ERROR, "out of memory opening the output");
fail:
	free(text.s);
	if (w)
		sm_sam_out_abort(w);
	return NULL;
}

sam_hdr_t *sm_sam_out_header(sm_sam_out_t *w) { return w->hdr; }

int sm_sam_out_write(sm_sam_out_t *w, const bam1_t *b)
{
	if (!w->fp) {
		kstring_t line = KS_INITIALIZE, tmp = KS_INITIALIZE;
		int rc = sm_sam_out_format(w, b, &line, &tmp);

		if (rc == 0)
			rc = sm_sam_out_write_text(w, line.s, line.l, b);
		free(line.s);
		free(tmp.s);
		return rc;
	}
	errno = 0;
	if (sam_write1(w->fp, w->hdr, b) >= 0)
		return 0;
	if (!w->failed)
		sm_log(SM_LOG_ERROR, "cannot write to %s (record '%s'): %s", out_name(w),
		       bam_get_qname(b), errno ? strerror(errno) : "write error");
	w->failed = 1;
	return -1;
}

int sm_sam_out_is_text(const sm_sam_out_t *w)
{
	return !w->fp;
}

int sm_sam_out_format(const sm_sam_out_t *w, const bam1_t *b, kstring_t *s, kstring_t *tmp)
{
	if (sam_format1(w->hdr, b, tmp) < 0) {
		sm_log(SM_LOG_ERROR, "%s: cannot format record '%s' as SAM", out_name(w),
		       bam_get_qname(b));
		return -1;
	}
	if (kputsn(tmp->s, tmp->l, s) < 0 || kputc('\n', s) < 0) {
		sm_log(SM_LOG_ERROR, "out of memory formatting SAM records");
		return -1;
	}
	return 0;
}

int sm_sam_out_write_text(sm_sam_out_t *w, const char *text, size_t len, const bam1_t *b)
{
	errno = 0;
	if (put_text(w, text, len) == 0)
		return 0;
	if (!w->failed)
		sm_log(SM_LOG_ERROR, "cannot write to %s (record '%s'): %s", out_name(w),
		       bam_get_qname(b), errno ? strerror(errno) : "write error");
	w->failed = 1;
	return -1;
}

static void destroy(sm_sam_out_t *w)
{
	free(w->buf);
	sam_hdr_destroy(w->hdr);
	free(w->path);
	free(w);
}

/* Drops the temporary file of a failed run: nothing appears under the
 * output's name. */
static void remove_output(sm_sam_out_t *w)
{
	if (w->out.tmp)
		sm_log(SM_LOG_ERROR, "%s not written: the run failed", w->path);
	sm_outfile_discard(&w->out);
}

/* Writes out the buffered text and closes the file (standard output stays
 * open); no fsync: the system writes the file back, as for bwa's output.
 * Returns 0, or -1 with errno set. */
static int close_text(sm_sam_out_t *w)
{
	int rc = w->failed ? -1 : write_all(w, w->buf, w->len);

	w->len = 0;
	if (w->path && close(w->fd) < 0)
		rc = -1;
	return rc;
}

int sm_sam_out_close(sm_sam_out_t *w)
{
	int rc = 0;

	errno = 0;
	if (w->fp ? sam_close(w->fp) < 0 : close_text(w) < 0) {
		sm_log(SM_LOG_ERROR, "cannot finish writing %s: %s; the output is incomplete",
		       out_name(w), errno ? strerror(errno) : "write error");
		remove_output(w);
		rc = -1;
	} else if (w->path && sm_outfile_commit(&w->out) < 0) {
		rc = -1;
	}
	destroy(w);
	return rc;
}

void sm_sam_out_abort(sm_sam_out_t *w)
{
	if (w->fp ? sam_close(w->fp) < 0 : w->fd >= 0 && w->path && close(w->fd) < 0)
		sm_log(SM_LOG_DEBUG, "closing %s after an error failed too", out_name(w));
	remove_output(w);
	destroy(w);
}
