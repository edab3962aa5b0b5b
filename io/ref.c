#include "io/ref.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io/base.h"
#include "io/lines.h"
#include "io/log.h"

/* What a reference byte is: a base (A/C/G/T either case), another IUPAC
 * nucleotide letter (coded SM_BASE_N, kept as an ambiguity run), or neither
 * (rejected).  '-' and '*' are rejected too: they are not bases, and an MD tag
 * can only name letters, so they could not be reported faithfully.  So is U:
 * samtools reads it as T, the scorer as ambiguous, and NM/MD could not agree
 * with both. */
enum { REF_BAD = 0, REF_ACGT, REF_AMBIG };
static const char ref_iupac[] = "ACGTRYSWKMBDHVN";

/* Where the name or sequence being added came from, for messages. */
typedef struct {
	const char *path;  /* file, or "(memory)" */
	int64_t line;      /* 1-based line, 0 when there are no lines */
} ref_where_t;

/* A reference under construction. */
typedef struct {
	sm_ref_t *ref;
	size_t seq_cap, name_cap, amb_cap;
	int64_t *name_line;  /* line of each contig's header, for duplicate messages */
	uint8_t kind[256];   /* REF_* of every byte */
} ref_builder_t;

/* Logs an error prefixed with the file and, when known, the line. */
static void __attribute__((format(printf, 2, 3)))
ref_error(const ref_where_t *w, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (w->line > 0)
		sm_log(SM_LOG_ERROR, "%s: line %lld: %s", w->path, (long long)w->line, msg);
	else
		sm_log(SM_LOG_ERROR, "%s: %s", w->path, msg);
}

static int builder_init(ref_builder_t *b, const char *path)
{
	memset(b, 0, sizeof *b);
	b->ref = calloc(1, sizeof *b->ref);
	if (!b->ref || !(b->ref->path = strdup(path))) {
		sm_log(SM_LOG_ERROR, "%s: out of memory", path);
		if (b->ref)
			free(b->ref);
		b->ref = NULL;
		return -1;
	}
	for (const char *p = ref_iupac; *p; p++) {
		int up = (unsigned char)*p, lo = up - 'A' + 'a';
		b->kind[up] = b->kind[lo] = sm_nt4_table[up] < SM_BASE_N ? REF_ACGT : REF_AMBIG;
	}
	return 0;
}

static void builder_free(ref_builder_t *b)
{
	sm_ref_destroy(b->ref);
	free(b->name_line);
	memset(b, 0, sizeof *b);
}

/* SAM's rule for reference names (SAM v1 spec, 1.2.1):
 * [0-9A-Za-z!#$%&+./:;?@^_|~-][0-9A-Za-z!#$%&*+./:;=?@^_|~-]*  */
static int sam_name_ok(const char *s, size_t n)
{
	static const char bad[] = "\\,\"'`()[]{}<>";
	if (n == 0 || s[0] == '*' || s[0] == '=')
		return 0;
	for (size_t i = 0; i < n; i++)
		if (s[i] <= ' ' || s[i] > '~' || strchr(bad, s[i]))
			return 0;
	return 1;
}

/* Closes the last contig: it must have at least one base. */
static int builder_end_contig(ref_builder_t *b, const ref_where_t *w)
{
	sm_ref_t *r = b->ref;
	int32_t c = r->n_contig - 1;

	if (c < 0)
		return 0;
	r->len[c] = r->total - r->offset[c];
	if (r->len[c] == 0) {
		ref_where_t at = { w->path, b->name_line[c] };
		ref_error(&at, "contig '%s' has no sequence", r->name[c]);
		return -1;
	}
	return 0;
}

/* Starts a contig named by the first whitespace-delimited word of
 * name[0..n).  Names must be non-empty, valid in SAM and unique. */
static int builder_add_contig(ref_builder_t *b, const char *name, size_t n, const ref_where_t *w)
{
	sm_ref_t *r = b->ref;
	size_t k = 0;
	char *s;

	if (builder_end_contig(b, w) < 0)
		return -1;
	while (k < n && name[k] != ' ' && name[k] != '\t')
		k++;
	if (k == 0) {
		ref_error(w, "contig header has no name");
		return -1;
	}
	s = strndup(name, k);
	if (!s) {
		ref_error(w, "out of memory");
		return -1;
	}
	if (!sam_name_ok(s, k)) {
		ref_error(w, "contig name '%s' is not a valid SAM reference name", s);
		free(s);
		return -1;
	}
	if (r->n_contig == INT32_MAX) {
		ref_error(w, "too many contigs");
		free(s);
		return -1;
	}
	if ((size_t)r->n_contig == b->name_cap) {
		size_t cap = b->name_cap ? b->name_cap * 2 : 16;
		char **nm = realloc(r->name, cap * sizeof *nm);
		if (nm)
			r->name = nm;
		int64_t *ln = nm ? realloc(r->len, cap * sizeof *ln) : NULL;
		if (ln)
			r->len = ln;
		int64_t *of = ln ? realloc(r->offset, cap * sizeof *of) : NULL;
		if (of)
			r->offset = of;
		int64_t *hl = of ? realloc(b->name_line, cap * sizeof *hl) : NULL;
		if (!hl) {
			ref_error(w, "out of memory");
			free(s);
			return -1;
		}
		b->name_line = hl;
		b->name_cap = cap;
	}
	r->name[r->n_contig] = s;
	r->len[r->n_contig] = 0;
	r->offset[r->n_contig] = r->total;
	b->name_line[r->n_contig] = w->line;
	r->n_contig++;
	return 0;
}

/* Appends sequence letters s[0..n) to the current contig. */
static int builder_add_seq(ref_builder_t *b, const char *s, size_t n, const ref_where_t *w)
{
	sm_ref_t *r = b->ref;
	int64_t contig_start = r->offset[r->n_contig - 1];

	if ((size_t)r->total + n > b->seq_cap) {
		size_t cap = b->seq_cap ? b->seq_cap : 1u << 16;
		while (cap < (size_t)r->total + n)
			cap *= 2;
		uint8_t *q = realloc(r->seq, cap);
		if (!q) {
			ref_error(w, "out of memory for the reference sequence");
			return -1;
		}
		r->seq = q;
		b->seq_cap = cap;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		int64_t pos = r->total;
		switch (b->kind[c]) {
		case REF_ACGT:
			r->seq[r->total++] = sm_nt4_table[c];
			continue;
		case REF_AMBIG:
			break;
		default: {
			char what[48];
			if (c > ' ' && c <= '~')
				snprintf(what, sizeof what, "'%c'", c);
			else
				snprintf(what, sizeof what, "byte 0x%02x", c);
			ref_error(w, "invalid character %s at column %zu of contig '%s' "
				  "(a reference sequence holds IUPAC nucleotide letters only)",
				  what, i + 1, r->name[r->n_contig - 1]);
			return -1;
		}
		}
		/* Ambiguous letter: code N, extend or start a run (never across contigs). */
		char up = (char)(c & ~0x20);
		r->seq[r->total++] = SM_BASE_N;
		if (r->n_amb > 0) {
			sm_amb_run_t *last = &r->amb[r->n_amb - 1];
			if (last->base == up && last->start + last->len == pos &&
			    last->start >= contig_start && last->len < INT32_MAX) {
				last->len++;
				continue;
			}
		}
		if ((size_t)r->n_amb == b->amb_cap) {
			size_t cap = b->amb_cap ? b->amb_cap * 2 : 64;
			sm_amb_run_t *a = r->n_amb < INT32_MAX ? realloc(r->amb, cap * sizeof *a) : NULL;
			if (!a) {
				ref_error(w, "out of memory for ambiguity runs");
				return -1;
			}
			r->amb = a;
			b->amb_cap = cap;
		}
		r->amb[r->n_amb++] = (sm_amb_run_t){ .start = pos, .len = 1, .base = up };
	}
	return 0;
}

/* Checks the whole reference and hands it over. */
static int builder_finish(ref_builder_t *b, const ref_where_t *w, sm_ref_t **out)
{
	sm_ref_t *r = b->ref;

	if (builder_end_contig(b, w) < 0)
		return -1;
	if (r->n_contig == 0) {
		sm_log(SM_LOG_ERROR, "%s: no contig (a FASTA file starts with a '>name' line)", w->path);
		return -1;
	}
	/* Duplicate names: sort indices by name, compare neighbours. */
	int32_t *idx = malloc((size_t)r->n_contig * sizeof *idx);
	if (!idx) {
		sm_log(SM_LOG_ERROR, "%s: out of memory", w->path);
		return -1;
	}
	for (int32_t i = 0; i < r->n_contig; i++)
		idx[i] = i;
	/* Shell sort keeps this free of a qsort context pointer. */
	for (int32_t gap = r->n_contig / 2; gap > 0; gap /= 2)
		for (int32_t i = gap; i < r->n_contig; i++)
			for (int32_t j = i; j >= gap && strcmp(r->name[idx[j - gap]], r->name[idx[j]]) > 0; j -= gap) {
				int32_t t = idx[j];
				idx[j] = idx[j - gap];
				idx[j - gap] = t;
			}
	for (int32_t i = 1; i < r->n_contig; i++) {
		int32_t a = idx[i - 1], c = idx[i];
		if (strcmp(r->name[a], r->name[c]) == 0) {
			int32_t first = a < c ? a : c, second = a < c ? c : a;
			if (b->name_line[second] > 0)
				sm_log(SM_LOG_ERROR, "%s: line %lld: duplicate contig name '%s' (first at line %lld)",
				       w->path, (long long)b->name_line[second], r->name[second],
				       (long long)b->name_line[first]);
			else
				sm_log(SM_LOG_ERROR, "%s: duplicate contig name '%s' (records %d and %d)",
				       w->path, r->name[second], first + 1, second + 1);
			free(idx);
			return -1;
		}
	}
	free(idx);
	/* Give back the slack of the doubling growth (up to half the array). */
	uint8_t *seq = realloc(r->seq, (size_t)r->total);
	if (seq)
		r->seq = seq;
	*out = r;
	b->ref = NULL;
	builder_free(b);
	return 0;
}

int sm_ref_load(const char *path, sm_ref_t **out)
{
	ref_builder_t b;
	sm_lines_t lr;
	ref_where_t w = { path, 0 };
	int ret;

	*out = NULL;
	if (sm_lines_open(&lr, path) < 0)
		return -1;
	if (builder_init(&b, path) < 0) {
		sm_lines_close(&lr);
		return -1;
	}
	/* Stamped before the first line is read: a file changed while it is
	 * read no longer matches the stamp. */
	if (sm_ref_file_stamp(path, &b.ref->file_size, &b.ref->file_mtime_s,
			      &b.ref->file_mtime_ns) < 0)
		b.ref->file_size = b.ref->file_mtime_s = b.ref->file_mtime_ns = 0;
	while ((ret = sm_lines_next(&lr)) > 0) {
		w.line = lr.line_no;
		if (lr.len == 0)
			continue;  /* blank lines carry nothing */
		if (lr.line[0] == '>') {
			if (builder_add_contig(&b, lr.line + 1, lr.len - 1, &w) < 0)
				break;
			continue;
		}
		if (b.ref->n_contig == 0) {
			sm_log(SM_LOG_ERROR, "%s: line %lld: text before the first '>' header: not a FASTA file",
			       path, (long long)lr.line_no);
			break;
		}
		if (builder_add_seq(&b, lr.line, lr.len, &w) < 0)
			break;
	}
	if (ret == 0) {
		w.line = lr.line_no;
		ret = builder_finish(&b, &w, out);
	} else {
		ret = -1;
	}
	sm_lines_close(&lr);
	builder_free(&b);
	return ret;
}

int sm_ref_from_strings(int n, const char *const *names, const char *const *seqs,
			sm_ref_t **out)
{
	static const char mem[] = "(memory)";
	ref_builder_t b;
	ref_where_t w = { mem, 0 };

	*out = NULL;
	if (builder_init(&b, mem) < 0)
		return -1;
	for (int i = 0; i < n; i++) {
		if (builder_add_contig(&b, names[i], strlen(names[i]), &w) < 0 ||
		    builder_add_seq(&b, seqs[i], strlen(seqs[i]), &w) < 0) {
			builder_free(&b);
			return -1;
		}
	}
	if (builder_finish(&b, &w, out) < 0) {
		builder_free(&b);
		return -1;
	}
	return 0;
}

int sm_ref_file_stamp(const char *path, int64_t *size, int64_t *mtime_s, int64_t *mtime_ns)
{
	struct stat st;

	if (stat(path, &st) != 0)
		return -1;
	*size = (int64_t)st.st_size;
	*mtime_s = (int64_t)st.st_mtim.tv_sec;
	*mtime_ns = (int64_t)st.st_mtim.tv_nsec;
	return 0;
}

void sm_ref_destroy(sm_ref_t *ref)
{
	if (!ref)
		return;
	for (int32_t i = 0; i < ref->n_contig; i++)
		free(ref->name[i]);
	free(ref->name);
	free(ref->len);
	free(ref->offset);
	if (!ref->seq_borrowed)
		free(ref->seq);
	free(ref->amb);
	free(ref->path);
	free(ref);
}

int32_t sm_ref_contig_of(const sm_ref_t *ref, int64_t pos)
{
	return sm_offset_find(ref->offset, ref->n_contig, pos);
}

char sm_ref_base_char(const sm_ref_t *ref, int64_t pos)
{
	uint8_t c = ref->seq[pos];
	if (c < SM_BASE_N)
		return sm_nt4_char[c];
	/* Last run starting at or before pos; it covers pos since code 4 only
	 * occurs inside runs. */
	int32_t lo = 0, hi = ref->n_amb - 1;
	while (lo < hi) {
		int32_t mid = lo + (hi - lo + 1) / 2;
		if (ref->amb[mid].start <= pos)
			lo = mid;
		else
			hi = mid - 1;
	}
	if (ref->n_amb > 0 && ref->amb[lo].start <= pos && pos < ref->amb[lo].start + ref->amb[lo].len)
		return ref->amb[lo].base;
	return sm_nt4_char[SM_BASE_N];
}
