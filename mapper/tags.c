/* tags.c — MC, XA, SA and FASTQ-comment tags in bwa mem's formats (see tags.h). */
#include "mapper/tags.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "io/log.h"

/* A comment field is at least "XX:T:" (the value may be empty only for Z). */
#define SM_TAG_PREFIX 5

int sm_tags_cigar_text(kstring_t *s, const sm_aln_t *aln, int32_t qlen, int hard)
{
	char clip = hard ? 'H' : 'S';
	int rc = 0;

	if (aln->q_start > 0)
		rc |= kputw(aln->q_start, s) < 0 || kputc(clip, s) < 0;
	for (int k = 0; k < aln->n_cigar; k++)
		rc |= kputw((int)bam_cigar_oplen(aln->cigar[k]), s) < 0 ||
		      kputc(bam_cigar_opchr(aln->cigar[k]), s) < 0;
	if (aln->q_end < qlen)
		rc |= kputw(qlen - aln->q_end, s) < 0 || kputc(clip, s) < 0;
	return rc ? -1 : 0;
}

int sm_tags_mc(bam1_t *b, const sm_aln_t *mate, int32_t mate_len)
{
	kstring_t s = KS_INITIALIZE;
	int rc = sm_tags_cigar_text(&s, mate, mate_len, 0);

	if (rc == 0)
		rc = bam_aux_append(b, "MC", 'Z', (int)s.l + 1, (const uint8_t *)s.s);
	free(s.s);
	return rc;
}

/* RNAME and 1-based POS of an alignment's first base. */
static void place(const sm_ref_t *ref, const sm_aln_t *aln, const char **name, int64_t *pos)
{
	int32_t tid = sm_ref_contig_of(ref, aln->ref_start);

	*name = ref->name[tid];
	*pos = aln->ref_start - ref->offset[tid] + 1;
}

int sm_tags_xa_entry(kstring_t *s, const sm_ref_t *ref, int is_rev, const sm_aln_t *aln,
		     int32_t qlen, int32_t nm)
{
	const char *name;
	int64_t pos;

	place(ref, aln, &name, &pos);
	if (ksprintf(s, "%s,%c%lld,", name, is_rev ? '-' : '+', (long long)pos) < 0 ||
	    sm_tags_cigar_text(s, aln, qlen, 0) < 0 || ksprintf(s, ",%d;", nm) < 0)
		return -1;
	return 0;
}

int sm_tags_sa_entry(kstring_t *s, const sm_ref_t *ref, int is_rev, const sm_aln_t *aln,
		     int32_t qlen, int mapq, int32_t nm)
{
	const char *name;
	int64_t pos;

	place(ref, aln, &name, &pos);
	if (ksprintf(s, "%s,%lld,%c,", name, (long long)pos, is_rev ? '-' : '+') < 0 ||
	    sm_tags_cigar_text(s, aln, qlen, 0) < 0 || ksprintf(s, ",%d,%d;", mapq, nm) < 0)
		return -1;
	return 0;
}

/* A B array's values "v1,v2,..." of subtype t into b as tag.  Returns 0,
 * -1 when a value is not a number of that type, -2 out of memory. */
static int comment_array(bam1_t *b, const char *tag, char t, const char *v)
{
	size_t n = 1, size;
	void *buf;
	int rc = 0;

	for (const char *p = v; *p; p++)
		n += *p == ',';
	size = t == 'c' || t == 'C' ? 1 : t == 's' || t == 'S' ? 2 : 4;
	if (!strchr("cCsSiIf", t) || !*v)
		return -1;
	if (!(buf = malloc(n * size)))
		return -2;
	for (size_t k = 0; k < n && rc == 0; k++) {
		char *end;

		errno = 0;
		if (t == 'f') {
			((float *)buf)[k] = strtof(v, &end);
		} else {
			long long x = strtoll(v, &end, 10);
			long long lo = t == 'c' ? SCHAR_MIN : t == 's' ? SHRT_MIN : t == 'i' ? INT_MIN : 0;
			long long hi = t == 'c' ? SCHAR_MAX : t == 'C' ? UCHAR_MAX : t == 's' ? SHRT_MAX :
				       t == 'S' ? USHRT_MAX : t == 'i' ? INT_MAX : UINT_MAX;

			if (x < lo || x > hi)
				rc = -1;
			else if (size == 1)
				((uint8_t *)buf)[k] = (uint8_t)x;
			else if (size == 2)
				((uint16_t *)buf)[k] = (uint16_t)x;
			else
				((uint32_t *)buf)[k] = (uint32_t)x;
		}
		if (end == v || errno == ERANGE || (*end != ',' && *end != '\0'))
			rc = -1;
		v = end + (*end == ',');
	}
	if (rc == 0 && bam_aux_update_array(b, tag, (uint8_t)t, (uint32_t)n, buf) < 0)
		rc = -2;
	free(buf);
	return rc;
}

/* One comment field "TAG:TYPE:VALUE" (f, len bytes) into b.  Returns 0,
 * -1 when it is not a valid tag, -2 out of memory, -3 a tag b has. */
static int comment_field(bam1_t *b, const char *f, size_t len)
{
	char tag[3] = { f[0], f[1], '\0' }, *v, *end;
	int rc = 0;

	if (len < SM_TAG_PREFIX || !isalpha((unsigned char)f[0]) ||
	    !isalnum((unsigned char)f[1]) || f[2] != ':' || f[4] != ':')
		return -1;
	if (bam_aux_get(b, tag))
		return -3;
	if (!(v = strndup(f + SM_TAG_PREFIX, len - SM_TAG_PREFIX)))
		return -2;
	errno = 0;
	switch (f[3]) {
	case 'A':
		if (strlen(v) != 1 || !isgraph((unsigned char)v[0]))
			rc = -1;
		else if (bam_aux_append(b, tag, 'A', 1, (const uint8_t *)v) < 0)
			rc = -2;
		break;
	case 'i': {
		long long x = strtoll(v, &end, 10);

		if (end == v || *end || errno == ERANGE || x < INT32_MIN || x > UINT32_MAX)
			rc = -1;
		else if (bam_aux_update_int(b, tag, x) < 0)
			rc = -2;
		break;
	}
	case 'f': {
		float x = strtof(v, &end);

		if (end == v || *end || errno == ERANGE)
			rc = -1;
		else if (bam_aux_update_float(b, tag, x) < 0)
			rc = -2;
		break;
	}
	case 'Z':
	case 'H':
		for (const char *p = v; *p; p++)
			if (!isprint((unsigned char)*p) || (f[3] == 'H' && !isxdigit((unsigned char)*p)))
				rc = -1;
		if (f[3] == 'H' && strlen(v) % 2)
			rc = -1;
		if (rc == 0 && bam_aux_append(b, tag, f[3], (int)strlen(v) + 1, (const uint8_t *)v) < 0)
			rc = -2;
		break;
	case 'B':
		rc = v[0] && v[1] == ',' ? comment_array(b, tag, v[0], v + 2) : -1;
		break;
	default:
		rc = -1;
	}
	free(v);
	return rc;
}

int sm_tags_comment(bam1_t *b, const sm_read_t *r)
{
	const char *p = r->comment;

	while (p && *p) {
		size_t len = strcspn(p, " \t");
		int rc = comment_field(b, p, len);

		if (rc == -2) {
			sm_log(SM_LOG_ERROR, "read %lld '%s': out of memory adding its comment's tags",
			       (long long)r->index + 1, r->name);
			return -1;
		}
		if (rc < 0) {
			sm_log(SM_LOG_ERROR, "read %lld '%s': -C: the comment field '%.*s' %s",
			       (long long)r->index + 1, r->name, (int)len, p,
			       rc == -3 ? "repeats a tag the record has already" :
			       "is not a SAM tag (TAG:TYPE:VALUE, TYPE one of A i f Z H B)");
			return -1;
		}
		p += len;
		p += strspn(p, " \t");
	}
	return 0;
}
