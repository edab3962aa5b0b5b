/* batch.c — batches (scanmap.h): reads in, records out, and sm_map_batch,
 * which runs a batch through the core: reads that read through their
 * fragment cut to it (readthrough.h), read by read (map.c), pair by pair
 * (pair.c; a cut read whose placement shows no such fragment mapped again
 * whole), split reads' parts (split.c), the cut reads whole again, then
 * each read's records (emit.c). */
#include "mapper/map_impl.h"

/* Phred+33 qualities: the printable characters (as io/fastq.c accepts). */
#define SM_QUAL_MIN '!'
#define SM_QUAL_MAX '~'

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "mapper/readthrough.h"
#include "mapper/split.h"

sm_batch_t *sm_batch_create(void)
{
	sm_batch_t *b = calloc(1, sizeof *b);

	if (!b)
		sm_log(SM_LOG_ERROR, "out of memory creating a batch");
	return b;
}

void sm_res_free(res_t *r)
{
	for (int c = 0; c < SM_MAX_CAND; c++)
		sm_aln_free(&r->cand[c].aln);
	free(r->win);
	r->win = NULL;
	r->m_win = r->n_win = 0;
	free(r->next);
	r->next = NULL;
	r->m_next = r->n_next = 0;
}

void sm_batch_destroy(sm_batch_t *b)
{
	if (!b)
		return;
	for (int k = 0; k < b->m; k++)
		sm_read_free(&b->reads[k]);
	for (int k = 0; k < b->m_res; k++)
		sm_res_free(&b->res[k]);
	for (int k = 0; k < b->m_rec; k++)
		if (b->recs[k])
			bam_destroy1(b->recs[k]);
	free(b->reads);
	free(b->res);
	free(b->tail);
	free(b->recs);
	free(b);
}

void sm_batch_clear(sm_batch_t *b)
{
	b->n = b->n_rec = 0;
	b->n_mapped = b->n_proper = 0;
	b->premapped = 0;
	b->seed_cells = 0;
}

int sm_batch_reserve(sm_batch_t *b, int need)
{
	int m = b->m ? b->m : 1;
	sm_read_t *reads;
	int32_t *tail;

	if (need <= b->m)
		return 0;
	while (m < need)
		m *= 2;
	reads = realloc(b->reads, (size_t)m * sizeof *reads);
	if (!reads)
		return -1;
	b->reads = reads;
	tail = realloc(b->tail, (size_t)m * sizeof *tail);
	if (!tail)
		return -1;
	b->tail = tail;
	memset(b->reads + b->m, 0, (size_t)(m - b->m) * sizeof *reads);
	b->m = m;
	return 0;
}

/* Room for a result per read slot of b, zeroed.  The mapping worker grows
 * it, not the thread that fills the batch: results are ~3.6 KB a read,
 * and zeroing a pool of fresh batches' (~1 GB on 32 workers) held up the
 * one reader while the workers waited for their first batches.  Returns 0
 * or -1 (logged). */
static int reserve_res(sm_batch_t *b)
{
	res_t *res;

	if (b->m <= b->m_res)
		return 0;
	if (b->m_res == 0) {   /* calloc: fresh pages come zeroed */
		res = calloc((size_t)b->m, sizeof *res);
	} else {
		res = realloc(b->res, (size_t)b->m * sizeof *res);
		if (res)
			memset(res + b->m_res, 0, (size_t)(b->m - b->m_res) * sizeof *res);
	}
	if (!res) {
		sm_log(SM_LOG_ERROR, "out of memory mapping a batch of %d reads", b->n);
		return -1;
	}
	b->res = res;
	b->m_res = b->m;
	return 0;
}

/* A copy of s[0..len) into *dst (grown with realloc), NUL-terminated. */
static int set_str(char **dst, const char *s, size_t len)
{
	char *d = realloc(*dst, len + 1);

	if (!d)
		return -1;
	memcpy(d, s, len);
	d[len] = '\0';
	*dst = d;
	return 0;
}

int sm_batch_add(sm_batch_t *b, const char *name, const char *comment, const char *seq,
		 const char *qual)
{
	size_t len = seq ? strlen(seq) : 0, l_name = name ? strcspn(name, " \t\n") : 0;
	sm_read_t *r;

	if ((qual && strlen(qual) != len) || l_name == 0) {
		sm_log(SM_LOG_ERROR, "read %d '%s': a read needs a name, and as many qualities "
		       "as bases (or none)", b->n + 1, name ? name : "");
		return -1;
	}
	for (size_t k = 0; k < len; k++)
		if (!strchr(SM_IUPAC_LETTERS, toupper((unsigned char)seq[k])) ||
		    (qual && (qual[k] < SM_QUAL_MIN || qual[k] > SM_QUAL_MAX))) {
			sm_log(SM_LOG_ERROR, "read %d '%s': base %zu is '%c' with quality '%c' "
			       "(IUPAC letters and Phred+33 qualities only)", b->n + 1, name, k + 1,
			       seq[k], qual ? qual[k] : '*');
			return -1;
		}
	if (sm_batch_reserve(b, b->n + 1) < 0)
		goto oom;
	r = &b->reads[b->n];
	if (set_str(&r->name, name, l_name) < 0 || set_str(&r->seq, seq ? seq : "", len) < 0)
		goto oom;
	if (!qual) {
		free(r->qual);
		r->qual = NULL;
	} else if (set_str(&r->qual, qual, len) < 0) {
		goto oom;
	}
	if (comment) {
		if (set_str(&r->comment, comment, strlen(comment)) < 0)
			goto oom;
	} else if (r->comment) {
		r->comment[0] = '\0';
	}
	r->len = (int32_t)len;
	r->index = b->n;
	b->n++;
	return 0;
oom:
	sm_log(SM_LOG_ERROR, "out of memory adding a read to a batch");
	return -1;
}

int sm_batch_n_reads(const sm_batch_t *b) { return b->n; }
int sm_batch_n_rec(const sm_batch_t *b) { return b->n_rec; }
const bam1_t *sm_batch_rec(const sm_batch_t *b, int k) { return b->recs[k]; }

bam1_t *sm_batch_next_rec(sm_batch_t *b)
{
	if (b->n_rec == b->m_rec) {
		int m = b->m_rec ? 2 * b->m_rec : 64;
		bam1_t **recs = realloc(b->recs, (size_t)m * sizeof *recs);

		if (!recs)
			return NULL;
		b->recs = recs;
		for (int k = b->m_rec; k < m; k++)
			b->recs[k] = NULL;
		b->m_rec = m;
	}
	if (!b->recs[b->n_rec] && !(b->recs[b->n_rec] = bam_init1()))
		return NULL;
	return b->recs[b->n_rec++];
}

/* Maps each pair of b that reads through its fragment, and each single
 * read that holds a known adapter (readthrough.h), by the fragment: its
 * reads' lengths are cut to it until add_tails gives them back, the bases
 * cut recorded in b->tail. */
static void cut_tails(const sm_ctx_t *ctx, sm_tbuf_t *ws, sm_batch_t *b)
{
	const int unit = ctx->paired ? SM_STRANDS : 1;

	for (int k = 0; k < b->n; k++)
		b->tail[k] = 0;
	if (ctx->opt.read_through != SM_READ_THROUGH_CLIP)
		return;
	for (int k = 0; k < b->n; k += unit) {
		sm_read_t *r = &b->reads[k];
		int32_t frag = !ctx->paired ? sm_adapter_start(r[0].seq, r[0].len) :
			       r[0].len > 0 && r[1].len > 0 ?
			       sm_read_through(r[0].seq, r[0].len, r[1].seq, r[1].len) : 0;

		for (int e = 0; frag > 0 && e < unit; e++) {
			b->tail[k + e] = r[e].len - frag;
			r[e].len = frag;
			ws->cut++;
		}
	}
}

/* 1 if pair k's placements show the fragment cut_tails cut it to: both
 * reads mapped as a proper pair whose insert (soft clips undone, as
 * pairing measures it) is the fragment's length within SM_RT_ENDS_SLACK
 * (its reads' indels, errors that clip a read's end). */
static int shows_fragment(const sm_ctx_t *ctx, sm_tbuf_t *ws, sm_batch_t *b, int k)
{
	const cand_t *c[SM_STRANDS];
	int64_t insert;

	for (int e = 0; e < SM_STRANDS; e++) {
		res_t *me = &b->res[k + e];

		if (me->prim < 0 || !me->proper ||
		    sm_map_ensure_traced(ctx, ws, me, &b->reads[k + e], &ws->q[SM_STRANDS * (k + e)],
					 &me->cand[me->prim]) < 0)
			return 0;
		c[e] = &me->cand[me->prim];
	}
	insert = sm_pair_insert(ctx, c[0], c[1]);
	return insert >= 0 && llabs(insert - b->reads[k].len) <= SM_RT_ENDS_SLACK;
}

/* 1 if single read k, cut by cut_tails at a known adapter, is primary
 * placed where the reference goes on as its tail does: its alignment
 * reaches the cut, and the reference past it matches the tail's first
 * SM_RT_TAIL_CHECK bases (or all it has) but for one.  Then the "adapter"
 * is genome (readthrough.h: by chance, a few reads in 100,000). */
static int tail_is_genome(const sm_ctx_t *ctx, sm_tbuf_t *ws, sm_batch_t *b, int k)
{
	const sm_read_t *r = &b->reads[k];
	const int32_t m = b->tail[k] < SM_RT_TAIL_CHECK ? b->tail[k] : SM_RT_TAIL_CHECK;
	uint8_t tail[SM_RT_TAIL_CHECK];
	res_t *me = &b->res[k];
	const cand_t *c;

	if (me->prim < 0 || sm_map_ensure_traced(ctx, ws, me, r, &ws->q[SM_STRANDS * k],
						 &me->cand[me->prim]) < 0)
		return 0;
	c = &me->cand[me->prim];
	/* The read's 3' end, where the tail was cut: its query's end on the
	 * forward strand, its start on the reverse one (the tail then lies
	 * left of the alignment, reverse-complemented). */
	if (c->is_rev ? c->aln.q_start > 0 : c->aln.q_end < r->len)
		return 0;
	for (int32_t i = 0; i < m; i++)
		tail[i] = sm_nt4_table[(uint8_t)r->seq[r->len + i]];
	return sm_seed_subs_at(ctx->ref, tail, m, c->is_rev,
			       c->is_rev ? c->aln.ref_start - m : c->aln.ref_end, 1, NULL) <= 1;
}

/* Maps again whole each pair that cut_tails cut but whose placements do
 * not show that fragment (shows_fragment): two copies of a repeat passed
 * the test (readthrough.h), and the pair is no read-through; and each
 * single read whose "adapter" the reference holds past its alignment
 * (tail_is_genome).  The reads, their lengths given back, are mapped (and
 * paired) on a scratch of their own (ws->whole), their results swapped
 * into the batch's, and the batch's queries made again for the lengths
 * its reads now have.  Rare (about one pair in 600,000 of longer
 * fragments).  Returns 0 or -1 (logged). */
static int uncut_misfits(const sm_ctx_t *ctx, sm_tbuf_t *ws, sm_batch_t *b)
{
	const int unit = ctx->paired ? SM_STRANDS : 1;
	int *at = NULL, n = 0, rc = -1;
	sm_read_t *rr = NULL;
	res_t *rres = NULL;
	size_t n_codes;

	for (int k = 0; k < b->n; k += unit)   /* cut_tails cuts both reads of a pair or neither */
		if (b->tail[k] > 0 && (ctx->paired ? !shows_fragment(ctx, ws, b, k) :
				       tail_is_genome(ctx, ws, b, k))) {
			if (!at && !(at = malloc((size_t)(b->n / unit) * sizeof *at)))
				goto oom;
			at[n++] = k;
		}
	if (n == 0)
		return 0;
	rr = malloc((size_t)unit * n * sizeof *rr);
	rres = calloc((size_t)unit * n, sizeof *rres);
	if (!rr || !rres || (!ws->whole && !(ws->whole = sm_tbuf_create(ctx))))
		goto oom;
	for (int j = 0; j < n; j++)
		for (int e = 0; e < unit; e++) {
			const int k = at[j] + e;

			b->reads[k].len += b->tail[k];
			b->tail[k] = 0;
			rr[unit * j + e] = b->reads[k];
			ws->uncut++;
		}
	if (sm_map_reads(ctx, ws->whole, rr, unit * n, rres, ctx->pairing) < 0)
		goto out;
	for (int j = 0; ctx->pairing && j < n; j++)
		if (sm_pair_resolve(ctx, ws->whole, &rr[SM_STRANDS * j],
				    &ws->whole->q[SM_STRANDS * SM_STRANDS * j], &rres[SM_STRANDS * j]) < 0)
			goto out;
	/* The batch takes the new results; the old ones are freed with rres. */
	for (int j = 0; j < n; j++)
		for (int e = 0; e < unit; e++) {
			res_t tmp = b->res[at[j] + e];

			b->res[at[j] + e] = rres[unit * j + e];
			rres[unit * j + e] = tmp;
		}
	rc = sm_map_encode(ws, b->reads, b->n, &n_codes);
	goto out;
oom:
	sm_log(SM_LOG_ERROR, "out of memory mapping reads cut to their fragment again whole");
out:
	for (int j = 0; rres && j < unit * n; j++)
		sm_res_free(&rres[j]);
	free(rres);
	free(rr);
	free(at);
	return rc;
}

/* Gives the reads that cut_tails cut their whole length back, for their
 * records: every candidate traced first (the records may want any of them,
 * and a traceback needs the queries as mapped), then each reverse-strand
 * alignment moved onto the whole read's reverse complement, which starts
 * with the `tail` bases cut.  Returns 0 or -1 (logged). */
static int add_tails(const sm_ctx_t *ctx, sm_tbuf_t *ws, sm_batch_t *b)
{
	for (int k = 0; k < b->n; k++) {
		const int32_t tail = b->tail[k];
		res_t *me = &b->res[k];

		if (tail == 0)
			continue;
		for (int j = 0; j < me->n_cand; j++) {
			cand_t *c = &me->cand[j];

			if (sm_map_ensure_traced(ctx, ws, me, &b->reads[k], &ws->q[SM_STRANDS * k], c) < 0)
				return -1;
			c->qlen += tail;
			if (c->is_rev) {
				c->aln.q_start += tail;
				c->aln.q_end += tail;
			}
		}
		sm_split_add_tail(ws, k, tail);
		b->reads[k].len += tail;
		b->tail[k] = 0;
	}
	return 0;
}

int sm_map_batch(const sm_ctx_t *ctx, sm_tbuf_t *ws, sm_batch_t *b, int flags)
{
	int unit = ctx->paired ? SM_STRANDS : 1;
	int64_t cells0 = (int64_t)ws->seed_st.cells;
	size_t n_codes;
	double t;

	if (b->n % unit) {
		sm_log(SM_LOG_ERROR, "a batch of pairs holds an odd number of reads (%d)", b->n);
		return -1;
	}
	for (int k = 0; k < b->n; k++)
		if (b->reads[k].len > ctx->opt.max_read_len) {
			sm_log(SM_LOG_ERROR, "read %lld '%s' is %d bases long, more than the "
			       "longest read accepted (%d)", (long long)b->reads[k].index + 1,
			       b->reads[k].name, b->reads[k].len, ctx->opt.max_read_len);
			return -1;
		}
	b->n_rec = 0;
	if (reserve_res(b) < 0)
		return -1;
	if (!b->premapped)
		cut_tails(ctx, ws, b);
	if (flags & SM_MAP_READS_ONLY) {
		if (sm_map_reads(ctx, ws, b->reads, b->n, b->res, ctx->pairing) < 0)
			return -1;
		b->premapped = 1;
		b->seed_cells = ws->seed_st.cells - (uint64_t)cells0;
		return 0;
	}
	/* Reads mapped earlier (an insert sample) need only their queries. */
	if (b->premapped ? sm_map_encode(ws, b->reads, b->n, &n_codes) < 0 :
	    sm_map_reads(ctx, ws, b->reads, b->n, b->res, ctx->pairing) < 0)
		return -1;
	if (!b->premapped)
		b->seed_cells = 0;
	b->premapped = 0;
	t = sm_seconds();
	b->n_mapped = b->n_proper = 0;
	for (int k = 0; ctx->pairing && k < b->n; k += unit)
		if (sm_pair_resolve(ctx, ws, &b->reads[k], &ws->q[SM_STRANDS * k], &b->res[k]) < 0)
			return -1;
	if (uncut_misfits(ctx, ws, b) < 0)
		return -1;
	if (sm_split_batch(ctx, ws, b->reads, b->n, b->res) < 0 || add_tails(ctx, ws, b) < 0)
		return -1;
	for (int k = 0; k < b->n; k += unit) {
		for (int e = 0; e < unit; e++) {
			if (sm_emit_read(ctx, ws, b, &b->reads[k], &ws->q[SM_STRANDS * k], &b->res[k],
					 e, unit) < 0)
				return -1;
			b->n_mapped += b->res[k + e].prim >= 0;
			b->n_proper += b->res[k + e].proper;
		}
	}
	b->seed_cells += ws->seed_st.cells - (uint64_t)cells0;
	sm_ph_add(ws, PH_EMIT, &t);
	return 0;
}
