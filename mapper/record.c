/* record.c — CIGAR, strand, MD/NM, MAPQ and tags of a SAM record (see record.h). */
#include "mapper/record.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io/log.h"

/* htslib's 4-bit base codes (seq_nt16_table): one bit per base, A=1 C=2 G=4
 * T=8, an ambiguity code is the OR of the bases it stands for; N is 15. */
#define NT16_N 15
#define PHRED_OFFSET 33
/* Longest QNAME SAM allows (254 characters plus the NUL of BAM). */
#define SM_MAX_QNAME 254
/* 64-bit FNV-1a, and MurmurHash3's 64-bit finaliser (sm_tie_key). */
#define FNV_OFFSET 0xcbf29ce484222325ULL
#define FNV_PRIME 0x100000001b3ULL
#define FMIX_C1 0xff51afd7ed558ccdULL
#define FMIX_C2 0xc4ceb9fe1a85ec53ULL

uint64_t sm_tie_key(const char *name)
{
	size_t l = strlen(name);
	uint64_t h = FNV_OFFSET;

	if (l > 2 && name[l - 2] == '/' && (name[l - 1] == '1' || name[l - 1] == '2'))
		l -= 2;
	for (size_t i = 0; i < l; i++)
		h = (h ^ (unsigned char)name[i]) * FNV_PRIME;
	h ^= h >> 33;
	h *= FMIX_C1;
	h ^= h >> 33;
	h *= FMIX_C2;
	h ^= h >> 33;
	return h;
}

/* 1 if locus a of the reverse list (a_rev) comes before locus b (b_rev) in
 * the order of tied hits: smaller end, then forward first. */
static int tie_before(const sm_locus_t *a, int a_rev, const sm_locus_t *b, int b_rev)
{
	return a->end != b->end ? a->end < b->end : a_rev < b_rev;
}

/* Whether loci ending at columns a and b are the same place: in the same
 * or neighbouring bins and no more than `apart` columns apart. */
static int same_place(int64_t a, int64_t b, int shift, int64_t apart)
{
	int64_t d = (a >> shift) - (b >> shift);

	return d <= 1 && d >= -1 && (a > b ? a - b : b - a) <= apart;
}

void sm_hit_choose(const sm_scan_t *fwd, const sm_scan_t *rev, int shift, int64_t apart,
		   int32_t min_score, uint64_t tie, sm_hit_t *hit)
{
	const sm_scan_t *list[2] = { fwd, rev };
	sm_locus_t tied[2 * SM_TOPK];
	int tied_rev[2 * SM_TOPK], n = 0, at[2] = { 0, 0 }, pick;
	int32_t best = 0;

	memset(hit, 0, sizeof *hit);
	for (int st = 0; st < 2; st++)
		if (list[st]->n > 0 && list[st]->top[0].score > best)
			best = list[st]->top[0].score;
	if (best == 0)
		return;
	/* Each list is best first, so its loci at the best score lead it;
	 * among them it is ordered by bin, hence by end.  Merge the two. */
	for (;;) {
		const sm_locus_t *c[2];
		int st;

		for (st = 0; st < 2; st++)
			c[st] = at[st] < list[st]->n && list[st]->top[at[st]].score == best ?
				&list[st]->top[at[st]] : NULL;
		if (!c[0] && !c[1])
			break;
		st = !c[0] || (c[1] && tie_before(c[1], 1, c[0], 0));
		at[st]++;
		for (int k = 0; k < n && c[st]; k++)
			if (same_place(tied[k].end, c[st]->end, shift, apart))
				c[st] = NULL;
		if (c[st]) {
			tied[n] = *c[st];
			tied_rev[n++] = st;
		}
	}
	pick = sm_tie_pick(tie, n);
	hit->n_tied = n;
	hit->best = tied[pick];
	hit->is_rev = tied_rev[pick];
	/* XS: the best of what is not the hit's place.  Each list holds its
	 * strand's SM_TOPK best bins, and at most three are left out, so the
	 * best of the rest is in the lists (scan.h). */
	for (int st = 0; st < 2; st++)
		for (int k = 0; k < list[st]->n; k++)
			if (!same_place(list[st]->top[k].end, hit->best.end, shift, apart) &&
			    list[st]->top[k].score > hit->xs)
				hit->xs = list[st]->top[k].score;
	hit->mapped = best >= min_score;
}

int sm_mapq_lead(const sm_score_t *sc, double lead, int n, const double *as,
		 const int32_t *len)
{
	double unit = sc->match + sc->mismatch, diffs = 0, q;

	if (lead <= 0)
		return 0;
	for (int i = 0; i < n; i++) {
		/* as is the objective: measured from its best, the bonuses
		 * included (score.h). */
		double k = ((double)sm_best_possible(sc, len[i]) - as[i]) / unit;

		diffs += k < 0 ? 0 : k;
	}
	q = floor(SM_MAPQ_PER_MISMATCH * lead / unit -
		  10.0 * log10(1.0 + diffs / SM_MAPQ_DIFF_SCALE));
	return q < 0 ? 0 : q > SM_MAPQ_MAX ? SM_MAPQ_MAX : (int)q;
}

int sm_mapq(const sm_score_t *sc, int32_t as, int32_t xs, int32_t len)
{
	double a = as;

	return sm_mapq_lead(sc, (double)as - xs, 1, &a, &len);
}

/* sm_ref_base_char() without the call for a plain base (nearly all). */
static inline char ref_char(const sm_ref_t *ref, int64_t x)
{
	uint8_t c = ref->seq[x];

	return c < SM_BASE_N ? sm_nt4_char[c] : sm_ref_base_char(ref, x);
}

/* 1 if the eight reference codes at r are all A/C/G/T and the eight read
 * letters at s spell them (either case): sm_md_nm's plain matches, eight at
 * a time.  A byte & 0xDF is A, C, G or T only for those letters in either
 * case. */
static inline int plain_matches8(const uint8_t *r, const char *s)
{
	uint64_t code, text;

	memcpy(&code, r, sizeof code);
	memcpy(&text, s, sizeof text);
	if (code & SM_NOT_ACGT_BITS)
		return 0;
	return (text & SM_BYTES_OF(0xDF)) == sm_letters8(code);
}

/* Eight uppercase letters (a word, one a byte) reverse-complemented into
 * *out when all are A, C, G or T: returns 1, else 0. */
static inline int acgt_revcomp8(uint64_t text, uint64_t *out)
{
	uint64_t code;

	if (!sm_codes8(text, &code) || sm_letters8(code) != text)   /* lowercase */
		return 0;
	*out = __builtin_bswap64(sm_letters8(code ^ SM_BYTES_OF(3)));
	return 1;
}

/* Eight bytes less PHRED_OFFSET each, modulo 256 as byte arithmetic (no
 * borrow between bytes: the top bits are taken apart). */
static inline uint64_t phred_raw8(uint64_t q)
{
	const uint64_t high = SM_BYTES_OF(0x80), off = SM_BYTES_OF(PHRED_OFFSET);

	return ((q | high) - off) ^ ((q ^ ~off) & high);
}

int sm_md_nm(const sm_ref_t *ref, int64_t ref_start, const uint32_t *cigar, int n_cigar,
	     const char *seq, kstring_t *md, int32_t *nm)
{
	int64_t x = ref_start;  /* reference cursor (global) */
	int64_t y = 0;          /* read cursor */
	int u = 0;              /* matches since the last MD letter */
	int rc = 0;

	*nm = 0;
	for (int k = 0; k < n_cigar; k++) {
		int op = bam_cigar_op(cigar[k]);
		int len = (int)bam_cigar_oplen(cigar[k]);

		switch (op) {
		case BAM_CMATCH:
			for (int j = 0; j < len; j++, x++, y++) {
				/* A reference A/C/G/T (nearly all) has the 4-bit
				 * code 1 << code, and no letter is needed unless
				 * it differs. */
				uint8_t code;
				int c1;
				char rb;

				if (len - j >= 8 && plain_matches8(ref->seq + x, seq + y)) {
					u += 8;
					j += 7;   /* the loop steps the eighth */
					x += 7;
					y += 7;
					continue;
				}
				code = ref->seq[x];
				c1 = seq_nt16_table[(unsigned char)seq[y]];
				if (code < SM_BASE_N ? c1 == 1 << code :
				    c1 == seq_nt16_table[(unsigned char)ref_char(ref, x)] && c1 != NT16_N) {
					u++;
					continue;
				}
				rb = ref_char(ref, x);
				rc |= kputw(u, md) < 0;
				rc |= kputc(rb, md) < 0;
				u = 0;
				++*nm;
			}
			break;
		case BAM_CDEL:
			rc |= kputw(u, md) < 0;
			rc |= kputc('^', md) < 0;
			for (int j = 0; j < len; j++, x++)
				rc |= kputc(ref_char(ref, x), md) < 0;
			u = 0;
			*nm += len;
			break;
		case BAM_CINS:
			y += len;
			*nm += len;
			break;
		default:
			break;
		}
	}
	rc |= kputw(u, md) < 0;
	return rc ? -1 : 0;
}

/* Fills ws->seq and ws->qual (raw Phred, no offset; left empty for a read
 * without qualities) with the read as it is written: reverse-complemented
 * and reversed for a reverse-strand hit. */
static int record_seq(const sm_read_t *r, int is_rev, sm_record_ws_t *ws)
{
	/* The letter of the complement of each 4-bit code c: its bits
	 * reversed (A<->T, C<->G), as seq_nt16_str spells it (test_record). */
	static const char comp_str[17] = "=TGKCYSBAWRDMHVN";
	const size_t n = (size_t)r->len;
	const char *in_seq = r->seq, *in_qual = r->qual;
	char *seq, *qual;

	ws->seq.l = ws->qual.l = 0;
	if (ks_resize(&ws->seq, n + 1) < 0 || ks_resize(&ws->qual, n + 1) < 0)
		return -1;
	/* Locals, so the byte stores cannot alias the pointers and lengths.
	 * Eight bytes a word, then the rest one by one; a reversed word is
	 * its bytes swapped. */
	seq = ws->seq.s;
	qual = ws->qual.s;
	if (is_rev) {
		size_t i = 0;

		for (; i + 8 <= n; i += 8) {
			uint64_t w, out;

			memcpy(&w, in_seq + n - 8 - i, sizeof w);
			if (acgt_revcomp8(w, &out)) {
				memcpy(seq + i, &out, sizeof out);
				continue;
			}
			for (size_t j = i; j < i + 8; j++)
				seq[j] = comp_str[seq_nt16_table[(unsigned char)in_seq[n - 1 - j]]];
		}
		for (; i < n; i++)
			seq[i] = comp_str[seq_nt16_table[(unsigned char)in_seq[n - 1 - i]]];
		for (i = 0; in_qual && i + 8 <= n; i += 8) {
			uint64_t w;

			memcpy(&w, in_qual + n - 8 - i, sizeof w);
			w = phred_raw8(__builtin_bswap64(w));
			memcpy(qual + i, &w, sizeof w);
		}
		for (; in_qual && i < n; i++)
			qual[i] = (char)(in_qual[n - 1 - i] - PHRED_OFFSET);
	} else {
		size_t i = 0;

		memcpy(seq, in_seq, n);
		for (; in_qual && i + 8 <= n; i += 8) {
			uint64_t w;

			memcpy(&w, in_qual + i, sizeof w);
			w = phred_raw8(w);
			memcpy(qual + i, &w, sizeof w);
		}
		for (; in_qual && i < n; i++)
			qual[i] = (char)(in_qual[i] - PHRED_OFFSET);
	}
	seq[n] = qual[n] = '\0';
	ws->seq.l = ws->qual.l = n;
	return 0;
}

/* ws->cigar = clip, the alignment's M/I/D, clip; the clips soft, or hard
 * (BAM_CHARD_CLIP) when `hard`. */
static int record_cigar(const sm_read_t *r, const sm_aln_t *aln, int hard, sm_record_ws_t *ws,
			size_t *n_cigar)
{
	int clip = hard ? BAM_CHARD_CLIP : BAM_CSOFT_CLIP;
	size_t need = (size_t)aln->n_cigar + 2, n = 0;

	if (need > ws->m_cigar) {
		uint32_t *p = realloc(ws->cigar, need * sizeof *p);
		if (!p)
			return -1;
		ws->cigar = p;
		ws->m_cigar = need;
	}
	if (aln->q_start > 0)
		ws->cigar[n++] = bam_cigar_gen(aln->q_start, clip);
	memcpy(ws->cigar + n, aln->cigar, (size_t)aln->n_cigar * sizeof *ws->cigar);
	n += (size_t)aln->n_cigar;
	if (aln->q_end < r->len)
		ws->cigar[n++] = bam_cigar_gen(r->len - aln->q_end, clip);
	*n_cigar = n;
	return 0;
}

static int append_tags(bam1_t *b, const sm_hit_t *hit, const sm_aln_t *aln,
		       int32_t nm, const kstring_t *md, const char *rg_id)
{
	int rc = 0;

	if (hit->mapped) {
		/* AS is the alignment's own score, without the end bonuses the
		 * objective (hit->best.score) adds (score.h), as bwa mem's; XS
		 * is the next best objective less the same bonuses, so that
		 * AS - XS is the objective's lead. */
		int32_t bonus = hit->best.score - aln->score;
		int32_t xs = hit->xs - bonus;

		rc |= bam_aux_update_int(b, "NM", nm);
		rc |= bam_aux_append(b, "MD", 'Z', (int)md->l + 1, (const uint8_t *)md->s);
		rc |= bam_aux_update_int(b, "AS", aln->score);
		rc |= bam_aux_update_int(b, "XS", xs > 0 ? xs : 0);
	}
	if (rg_id)
		rc |= bam_aux_append(b, "RG", 'Z', (int)strlen(rg_id) + 1,
				     (const uint8_t *)rg_id);
	return rc;
}

int sm_record_build(bam1_t *b, const sm_read_t *r, const sm_ref_t *ref,
		    const sm_score_t *sc, const sm_hit_t *hit, const sm_aln_t *aln,
		    const sm_rec_extra_t *x, const char *rg_id, sm_record_ws_t *ws)
{
	size_t l_name = strlen(r->name), n_cigar = 0, l_seq, seq_from = 0;
	int32_t tid = -1, nm = 0, mtid = -1;
	int64_t pos = -1, mpos = -1, tlen = 0;
	uint16_t flag = BAM_FUNMAP;
	uint8_t mapq = 0;
	int is_rev = hit->mapped && hit->is_rev;

	if (l_name > SM_MAX_QNAME) {
		sm_log(SM_LOG_ERROR, "read %lld '%.40s...': name longer than the %d "
		       "characters SAM allows", (long long)r->index + 1, r->name, SM_MAX_QNAME);
		return -1;
	}
	if (record_seq(r, is_rev, ws) < 0)
		goto oom;
	ws->md.l = 0;
	if (hit->mapped) {
		tid = sm_ref_contig_of(ref, aln->ref_start);
		pos = aln->ref_start - ref->offset[tid];
		flag = is_rev ? BAM_FREVERSE : 0;
		mapq = (uint8_t)(x ? x->mapq : sm_mapq(sc, hit->best.score, hit->xs, r->len));
		if (record_cigar(r, aln, x && x->hard_clip, ws, &n_cigar) < 0 ||
		    sm_md_nm(ref, aln->ref_start, aln->cigar, aln->n_cigar,
			     ws->seq.s + aln->q_start, &ws->md, &nm) < 0)
			goto oom;
	}
	l_seq = ws->seq.l;
	if (x) {
		flag |= x->flag;
		mtid = x->mate_tid;
		mpos = x->mate_pos;
		tlen = x->tlen;
		if (!hit->mapped && mtid >= 0) {   /* placed at its mate (SAM spec) */
			tid = mtid;
			pos = mpos;
		}
		if ((x->flag & BAM_FSECONDARY) && !x->keep_seq)
			l_seq = 0;
		else if (x->hard_clip && hit->mapped) {   /* the aligned part only */
			seq_from = (size_t)aln->q_start;
			l_seq = (size_t)(aln->q_end - aln->q_start);
		}
	}
	if (bam_set1(b, l_name, r->name, flag, tid, pos, mapq, n_cigar, ws->cigar,
		     mtid, mpos, tlen, l_seq, ws->seq.s + seq_from,
		     r->qual ? ws->qual.s + seq_from : NULL, 0) < 0 ||
	    append_tags(b, hit, aln, nm, &ws->md, rg_id) < 0) {
		sm_log(SM_LOG_ERROR, "read %lld '%s': cannot build its SAM record: %s",
		       (long long)r->index + 1, r->name, strerror(errno));
		return -1;
	}
	return 0;
oom:
	sm_log(SM_LOG_ERROR, "read %lld '%s': out of memory building its SAM record",
	       (long long)r->index + 1, r->name);
	return -1;
}

int sm_record_nm(const sm_read_t *r, const sm_ref_t *ref, int is_rev, const sm_aln_t *aln,
		 sm_record_ws_t *ws, int32_t *nm)
{
	ws->md.l = 0;
	if (record_seq(r, is_rev, ws) < 0)
		return -1;
	return sm_md_nm(ref, aln->ref_start, aln->cigar, aln->n_cigar, ws->seq.s + aln->q_start,
			&ws->md, nm);
}

void sm_record_ws_free(sm_record_ws_t *ws)
{
	free(ws->seq.s);
	free(ws->qual.s);
	free(ws->md.s);
	free(ws->cigar);
	memset(ws, 0, sizeof *ws);
}
