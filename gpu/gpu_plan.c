/* gpu_plan.c — the GPU engine's host-side planning (gpu_plan.h) and its
 * option parsers (gpu_opt.h): plain C, built with or without CUDA. */
#include "gpu/gpu_plan.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "io/log.h"
#include "mapper/radix.h"

/* ---- options ------------------------------------------------------------ */

void sm_gpu_tune_init(sm_gpu_tune_t *t)
{
	memset(t, 0, sizeof *t);
}

/* A whole decimal number in [lo, hi] from s[0..len).  0 or -1. */
static int parse_int(const char *s, size_t len, long lo, long hi, int *out)
{
	char buf[32], *end;
	long v;

	if (len == 0 || len >= sizeof buf)
		return -1;
	memcpy(buf, s, len);
	buf[len] = 0;
	errno = 0;
	v = strtol(buf, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return -1;
	*out = (int)v;
	return 0;
}

int sm_gpu_tune_parse(sm_gpu_tune_t *t, const char *spec)
{
	static const char *const waits[] = { "poll", "spin", "yield", "block", "sync" };
	const char *p = spec;

	while (*p) {
		const char *end = strchr(p, ','), *eq;
		size_t len = end ? (size_t)(end - p) : strlen(p), klen, vlen;
		const char *v;
		int ok = 0;

		eq = memchr(p, '=', len);
		if (!eq) {
			sm_log(SM_LOG_ERROR, "--gpu-tune: '%.*s' is not KEY=VALUE", (int)len, p);
			return -1;
		}
		klen = (size_t)(eq - p);
		v = eq + 1;
		vlen = len - klen - 1;
#define KEY(name) (klen == strlen(name) && !memcmp(p, name, klen))
		if (KEY("slots")) {
			ok = parse_int(v, vlen, 1, SM_GPU_SLOTS_MAX, &t->slots) == 0;
		} else if (KEY("poll-us")) {
			ok = parse_int(v, vlen, 1, 1000000, &t->poll_us) == 0;
		} else if (KEY("gref-halos")) {
			if (vlen == 4 && !memcmp(v, "none", 4)) {
				t->gref_halos = SM_GPU_GREF_NO_SPLIT;
				ok = 1;
			} else {
				ok = parse_int(v, vlen, 1, 1 << 20, &t->gref_halos) == 0;
			}
		} else if (KEY("range-halos")) {
			ok = parse_int(v, vlen, 1, 1 << 20, &t->range_halos) == 0;
		} else if (KEY("warps")) {
			ok = parse_int(v, vlen, 1, 1024, &t->warps_per_sm) == 0;
		} else if (KEY("lane-pairs")) {
			int on = 1;

			ok = parse_int(v, vlen, 0, 1, &on) == 0;
			t->no_lane_pairs = !on;
		} else if (KEY("trace-block")) {
			ok = parse_int(v, vlen, 32, 128, &t->trace_block) == 0 && t->trace_block % 32 == 0;
		} else if (KEY("traces")) {
			int on = 1;

			ok = parse_int(v, vlen, 0, 1, &on) == 0;
			t->host_traces = !on;
		} else if (KEY("wait")) {
			for (size_t k = 0; k < sizeof waits / sizeof *waits; k++)
				if (vlen == strlen(waits[k]) && !memcmp(v, waits[k], vlen)) {
					t->wait = (sm_gpu_wait_t)k;
					ok = 1;
				}
		} else if (KEY("fail")) {
			const char *colon = memchr(v, ':', vlen);

			ok = colon &&
			     parse_int(v, (size_t)(colon - v), 0, SM_GPU_MAX_ENGINES - 1, &t->fail_engine) == 0 &&
			     parse_int(colon + 1, vlen - (size_t)(colon - v) - 1, 1, 1 << 30, &t->fail_call) == 0;
		} else {
			sm_log(SM_LOG_ERROR, "--gpu-tune: unknown key '%.*s' (slots, wait, poll-us, "
			       "gref-halos, range-halos, warps, lane-pairs, traces, trace-block, fail)", (int)klen, p);
			return -1;
		}
#undef KEY
		if (!ok) {
			sm_log(SM_LOG_ERROR, "--gpu-tune: bad value in '%.*s'", (int)len, p);
			return -1;
		}
		p += len;
		if (*p == ',')
			p++;
	}
	return 0;
}

int sm_gpu_list_parse(sm_gpu_list_t *l, const char *spec)
{
	const char *p = spec;
	int n;

	memset(l, 0, sizeof *l);
	if (!strcmp(spec, "all"))
		return 0;
	if (!strchr(spec, ',')) {
		if (parse_int(spec, strlen(spec), 1, SM_GPU_MAX_ENGINES, &n) < 0) {
			sm_log(SM_LOG_ERROR, "--gpus: '%s' is not all, a count 1..%d or a list ID,ID,...",
			       spec, SM_GPU_MAX_ENGINES);
			return -1;
		}
		for (l->n = 0; l->n < n; l->n++)
			l->id[l->n] = l->n;
		return 0;
	}
	while (1) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (l->n == SM_GPU_MAX_ENGINES) {
			sm_log(SM_LOG_ERROR, "--gpus: at most %d devices", SM_GPU_MAX_ENGINES);
			return -1;
		}
		if (parse_int(p, len, 0, 1 << 16, &l->id[l->n]) < 0) {
			sm_log(SM_LOG_ERROR, "--gpus: '%.*s' in '%s' is not a device number", (int)len, p,
			       spec);
			return -1;
		}
		l->n++;
		if (!end)
			return 0;
		p = end + 1;
	}
}

void sm_gpu_list_format(const sm_gpu_list_t *l, char *buf, int len)
{
	int at = 0;

	if (len < 1)
		return;
	buf[0] = 0;
	if (l->n == 0) {
		snprintf(buf, (size_t)len, "all");
		return;
	}
	for (int k = 0; k < l->n && at < len; k++)
		at += snprintf(buf + at, (size_t)(len - at), "%s%d", k ? "," : "", l->id[k]);
}

/* ---- tuning per architecture -------------------------------------------- */

/* The sm_90 row (H100, H200) is measured: whole-reference ranges for 96
 * warps per multiprocessor (several waves of the 8-12 resident strip
 * warps, so the last wave leaves little idle), per-group reference
 * ranges for 32 warps per multiprocessor, 8 calls in flight (16 workers
 * mapping chr20 pairs waited for 2 slots most of the time).  The older
 * rows scale the warp targets by the warps a multiprocessor holds (32 on
 * sm_75, 48 on sm_86/sm_89, 64 on sm_80 and sm_90); they are not measured. */
static const sm_gpu_arch_tune_t sm_gpu_arch_table[] = {
	{ 75, 48, 16, 8 },
	{ 80, 96, 32, 8 },
	{ 86, 72, 24, 8 },
	{ 90, 96, 32, 8 },
};

const sm_gpu_arch_tune_t *sm_gpu_arch_tune(int cc)
{
	const int n = (int)(sizeof sm_gpu_arch_table / sizeof *sm_gpu_arch_table);
	int k = 0;

	while (k + 1 < n && sm_gpu_arch_table[k + 1].min_cc <= cc)
		k++;
	return &sm_gpu_arch_table[k];
}

/* ---- devices ------------------------------------------------------------ */

int sm_gpu_list_resolve(const sm_gpu_list_t *want, int n_visible, sm_gpu_list_t *out, char *msg,
			int msg_len)
{
	memset(out, 0, sizeof *out);
	if (n_visible < 1) {
		snprintf(msg, (size_t)msg_len, "no CUDA device visible");
		return -1;
	}
	if (want->n == 0) {
		out->n = n_visible < SM_GPU_MAX_ENGINES ? n_visible : SM_GPU_MAX_ENGINES;
		for (int k = 0; k < out->n; k++)
			out->id[k] = k;
		return 0;
	}
	for (int k = 0; k < want->n; k++)
		if (want->id[k] < 0 || want->id[k] >= n_visible) {
			snprintf(msg, (size_t)msg_len,
				 "GPU %d not present: %d visible (numbered 0..%d among those "
				 "CUDA_VISIBLE_DEVICES shows)", want->id[k], n_visible, n_visible - 1);
			return -1;
		}
	*out = *want;
	return 0;
}

int sm_gpu_pick_engine(const int *in_flight, const uint64_t *taken, const int *failed, int n)
{
	int best = -1;

	for (int e = 0; e < n; e++)
		if (!failed[e] && (best < 0 || in_flight[e] < in_flight[best] ||
				   (in_flight[e] == in_flight[best] && taken[e] < taken[best])))
			best = e;
	return best;
}

/* ---- groups ------------------------------------------------------------- */

int sm_gpu_group_cmp(const void *a, const void *b)
{
	const sm_gpu_group_t *x = (const sm_gpu_group_t *)a, *y = (const sm_gpu_group_t *)b;

	if (x->len != y->len)
		return x->len > y->len ? -1 : 1;
	if (x->cols != y->cols)
		return x->cols > y->cols ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

/* Bits of sm_gpu_sort_groups's key: a group's query length, its reference's
 * bases, its index (low). */
#define SORT_LEN_BITS 20
#define SORT_COLS_BITS 24
#define SORT_INDEX_BITS 20

void sm_gpu_sort_groups(sm_gpu_group_t *rg, int n, uint64_t *keys, sm_gpu_group_t *copy)
{
	const int64_t len_max = ((int64_t)1 << SORT_LEN_BITS) - 1;
	const int64_t cols_max = ((int64_t)1 << SORT_COLS_BITS) - 1;
	const uint64_t index_mask = ((uint64_t)1 << SORT_INDEX_BITS) - 1;
	int fits = n < 1 << SORT_INDEX_BITS;

	for (int gi = 0; gi < n && fits; gi++)
		fits = rg[gi].len >= 0 && rg[gi].len <= len_max && rg[gi].cols >= 0 &&
		       rg[gi].cols <= cols_max;
	if (!fits) {
		qsort(rg, (size_t)n, sizeof *rg, sm_gpu_group_cmp);
		return;
	}
	/* Longer, then more bases, first: their complements ascending; equal
	 * shapes by index, which is `first`'s order. */
	for (int gi = 0; gi < n; gi++)
		keys[gi] = (uint64_t)(len_max - rg[gi].len) << (SORT_COLS_BITS + SORT_INDEX_BITS) |
			   (uint64_t)(cols_max - rg[gi].cols) << SORT_INDEX_BITS | (uint64_t)gi;
	sm_radix_sort_u64(keys, keys + n, n);
	memcpy(copy, rg, (size_t)n * sizeof *rg);
	for (int gi = 0; gi < n; gi++)
		rg[gi] = copy[keys[gi] & index_mask];
}

/* A group's place in sm_gpu_pair_lanes's order as one key: longer query,
 * fewer contigs, more bases first (each clamped to its field: the order is
 * a heuristic), its index in the low SM_GPU_SHAPE_GROUP_BITS. */
static uint64_t shape_key(const sm_gpu_group_t *g, int32_t n_contig, int gi)
{
	const uint64_t len = g->len < 0xffff ? (uint64_t)g->len : 0xffff;
	const uint64_t nc = n_contig < 0xff ? (uint64_t)n_contig : 0xff;
	const uint64_t cols = g->cols < 0xfffff ? (uint64_t)g->cols : 0xfffff;

	return (0xffff - len) << 48 | nc << 40 | (0xfffff - cols) << SM_GPU_SHAPE_GROUP_BITS |
	       (uint64_t)gi;
}

int sm_gpu_pair_lanes(sm_gpu_group_t *rg, int ngroups, const sm_ref_t *const *refs, uint64_t *keys)
{
	const uint64_t mask = ((uint64_t)1 << SM_GPU_SHAPE_GROUP_BITS) - 1;
	uint64_t *one = keys, *tmp = keys + ngroups + 1;
	int n_one = 0, m = 0;

	if (ngroups >= 1 << SM_GPU_SHAPE_GROUP_BITS)   /* more than a call makes */
		return ngroups;
	for (int gi = 0; gi < ngroups; gi++)
		if (rg[gi].n == 1)
			one[n_one++] = shape_key(&rg[gi], refs[rg[gi].first]->n_contig, gi);
	/* Keys end in their group's index, so equal shapes keep input order. */
	sm_radix_sort_u64(one, tmp, n_one);
	for (int t = 0; t + 1 < n_one; t += 2) {
		sm_gpu_group_t *a = &rg[one[t] & mask], *b = &rg[one[t + 1] & mask];

		a->second = b->first;
		a->n = 2;
		a->len = a->len > b->len ? a->len : b->len;
		a->cols = a->cols > b->cols ? a->cols : b->cols;
		b->n = 0;
	}
	for (int gi = 0; gi < ngroups; gi++)
		if (rg[gi].n > 0)
			rg[m++] = rg[gi];
	return m;
}

/* Scratch of sm_gpu_make_groups for n queries, each part rounded to 16 bytes. */
#define PART(bytes) (((size_t)(bytes) + 15) / 16 * 16)

size_t sm_gpu_group_scratch_bytes(int n)
{
	const size_t nn = (size_t)(n > 0 ? n : 1);

	return 2 * PART(sizeof(sm_gpu_group_t) * nn) + PART(sizeof(uint64_t) * 2 * (nn + 1));
}

int sm_gpu_make_groups(int n, const sm_query_t *q, const sm_ref_t *const *refs, int Q, int pair,
		       int bits, const sm_score_t *sc, void *scratch, sm_gpu_groups_t *out)
{
	sm_gpu_group_t *rg = (sm_gpu_group_t *)scratch;
	const size_t groups_part = PART(sizeof(sm_gpu_group_t) * (size_t)(n > 0 ? n : 1));
	uint64_t *keys = (uint64_t *)((char *)scratch + groups_part);
	sm_gpu_group_t *copy = (sm_gpu_group_t *)((char *)scratch + groups_part +
						  PART(sizeof(uint64_t) * 2 * ((size_t)(n > 0 ? n : 1) + 1)));
	const int limit = sm_gpu_lane_limit(bits);
	int ngroups;

	out->Q = Q;
	out->lane_pairs = 0;
	out->nladder = 0;
	if (refs) {
		/* Consecutive queries with the same reference, up to Q (the
		 * mapper passes a read's two strands together). */
		ngroups = 0;
		for (int k = 0; k < n; ngroups++) {
			sm_gpu_group_t *r = &rg[ngroups];

			r->first = k;
			r->second = -1;
			r->n = 0;
			r->len = 0;
			r->cols = refs[k]->total;
			for (; r->n < Q && k < n && (r->n == 0 || refs[k] == refs[k - 1]); r->n++, k++)
				if (q[k].len > r->len)
					r->len = q[k].len;
		}
		if (Q == 2 && pair)
			ngroups = sm_gpu_pair_lanes(rg, ngroups, refs, keys);
		sm_gpu_sort_groups(rg, ngroups, keys, copy);
		for (int k = 0; k < ngroups * Q; k++)
			out->lq[k] = -1;
		for (int gi = 0; gi < ngroups; gi++) {
			out->glen[gi] = rg[gi].len;
			for (int l = 0; l < rg[gi].n; l++)
				out->lq[gi * Q + l] = rg[gi].second >= 0 && l == 1 ? rg[gi].second
										   : rg[gi].first + l;
			out->lane_pairs += rg[gi].second >= 0;
		}
	} else {
		/* The whole reference: queries by length, Q per group. */
		for (int k = 0; k < n; k++) {
			rg[k].len = q[k].len;
			rg[k].first = k;
			rg[k].n = 1;
			rg[k].second = -1;
			rg[k].cols = 0;
		}
		sm_gpu_sort_groups(rg, n, keys, copy);
		ngroups = (n + Q - 1) / Q;
		for (int k = 0; k < ngroups * Q; k++)
			out->lq[k] = k < n ? rg[k].first : -1;
		for (int gi = 0; gi < ngroups; gi++)
			out->glen[gi] = rg[gi * Q].len;
	}
	out->ngroups = ngroups;
	out->rows_total = 0;
	/* A lane's locus shift depends on its length only: recomputed when
	 * the length changes (lanes come sorted by length). */
	for (int gi = 0, shift_len = -1, lane_shift = 0; gi < ngroups; gi++) {
		out->qoff[gi] = out->rows_total;
		out->rows_total += (int64_t)out->glen[gi] * Q;
		if (bits < 32 && (int64_t)out->glen[gi] * sc->match + sc->clip5 > limit)
			out->nladder = gi + 1;
		for (int l = 0; l < Q; l++) {
			const int k = out->lq[gi * Q + l];
			const int len = k >= 0 ? q[k].len : 1;

			if (len != shift_len) {
				shift_len = len;
				lane_shift = sm_locus_shift(sc, len);
			}
			out->shift[gi * Q + l] = lane_shift;
		}
	}
	return 0;
}

/* Rows i0..L of pack_full, byte by byte. */
static void pack_full_tail(uint8_t *r, int i0, int L, int Q, const uint8_t *const *seq)
{
	for (int i = i0; i < L; i++)
		for (int l = 0; l < Q; l++) {
			const uint8_t c = seq[l][i];

			r[i * Q + l] = c < SM_BASE_N ? c : SM_BASE_N;
		}
}

/* A group's rows when each of its Q lanes holds L codes (seq[l]): one
 * interleaving pass, codes above N clamped to N; 16 rows a step for two
 * and four lanes, since a call packs every base of its reads. */
static void pack_full(uint8_t *r, int L, int Q, const uint8_t *const *seq)
{
	int i = 0;
#ifdef __SSE2__
	const __m128i n = _mm_set1_epi8(SM_BASE_N);

	if (Q == 2) {
		for (; i + 16 <= L; i += 16) {
			__m128i a = _mm_min_epu8(_mm_loadu_si128((const __m128i *)(seq[0] + i)), n);
			__m128i b = _mm_min_epu8(_mm_loadu_si128((const __m128i *)(seq[1] + i)), n);

			_mm_storeu_si128((__m128i *)(r + 2 * i), _mm_unpacklo_epi8(a, b));
			_mm_storeu_si128((__m128i *)(r + 2 * i + 16), _mm_unpackhi_epi8(a, b));
		}
	} else if (Q == 4) {
		for (; i + 16 <= L; i += 16) {
			__m128i v[4], ab[2], cd[2];

			for (int l = 0; l < 4; l++)
				v[l] = _mm_min_epu8(_mm_loadu_si128((const __m128i *)(seq[l] + i)), n);
			ab[0] = _mm_unpacklo_epi8(v[0], v[1]);
			ab[1] = _mm_unpackhi_epi8(v[0], v[1]);
			cd[0] = _mm_unpacklo_epi8(v[2], v[3]);
			cd[1] = _mm_unpackhi_epi8(v[2], v[3]);
			for (int h = 0; h < 2; h++) {
				_mm_storeu_si128((__m128i *)(r + 4 * i + 32 * h),
						 _mm_unpacklo_epi16(ab[h], cd[h]));
				_mm_storeu_si128((__m128i *)(r + 4 * i + 32 * h + 16),
						 _mm_unpackhi_epi16(ab[h], cd[h]));
			}
		}
	}
#endif
	pack_full_tail(r, i, L, Q, seq);
}

/* One lane (every Q-th byte from r) of a group of L rows: L - len N rows,
 * then the query's len codes, clamped to N. */
static void pack_lane(uint8_t *r, int L, int Q, int len, const uint8_t *seq)
{
	for (int i = 0; i < L - len; i++, r += Q)
		*r = SM_BASE_N;
	for (int i = 0; i < len; i++, r += Q)
		*r = seq[i] < SM_BASE_N ? seq[i] : SM_BASE_N;
}

void sm_gpu_pack_rows(const sm_gpu_groups_t *gr, const sm_query_t *q, const uint8_t *n_row,
		      int mark_first, uint8_t *rows)
{
	const int Q = gr->Q;

	for (int gi = 0; gi < gr->ngroups; gi++) {
		const int L = gr->glen[gi];
		const uint8_t *seq[32 / 8];   /* Q <= 4 */
		int full = 1;

		for (int l = 0; l < Q; l++) {
			const int k = gr->lq[gi * Q + l];

			seq[l] = k >= 0 ? q[k].seq : n_row;
			full &= k < 0 || q[k].len == L;
		}
		/* A group whose lanes are all full (or empty) in one pass. */
		if (full)
			pack_full(rows + gr->qoff[gi], L, Q, seq);
		else
			for (int l = 0; l < Q; l++) {
				const int k = gr->lq[gi * Q + l];

				pack_lane(rows + gr->qoff[gi] + l, L, Q, k >= 0 ? q[k].len : 0, seq[l]);
			}
		if (mark_first)
			for (int l = 0; l < Q; l++) {
				const int k = gr->lq[gi * Q + l];

				if (k >= 0)
					rows[gr->qoff[gi] + (int64_t)(L - q[k].len) * Q + l] += SM_GPU_FIRST_CODE;
			}
	}
}

/* ---- references --------------------------------------------------------- */

int64_t sm_gpu_place_contigs(const sm_ref_t *r, int64_t pad, int64_t *dstart)
{
	for (int32_t c = 0; c < r->n_contig; c++)
		dstart[c] = r->offset[c] + (int64_t)(c + 1) * pad;
	return r->total + (int64_t)(r->n_contig + 1) * pad;
}

int64_t sm_gpu_place_lanes(const sm_ref_t *a, const sm_ref_t *b, int64_t *dstart, int64_t *ld0,
			   int64_t *ld1)
{
	const sm_ref_t *lane[2] = { a, b };
	int64_t *ld[2] = { ld0, ld1 };
	const int32_t ns = a->n_contig > b->n_contig ? a->n_contig : b->n_contig;
	int64_t pos = 0, end = 0;

	for (int32_t j = 0; j < ns; j++) {
		int64_t first = -1;

		for (int l = 0; l < 2; l++) {
			ld[l][j] = -1;
			if (j < lane[l]->n_contig) {
				const int64_t off = lane[l]->offset[j];

				ld[l][j] = pos + ((off - pos) % SM_GPU_PAD_ALIGN + SM_GPU_PAD_ALIGN) %
						 SM_GPU_PAD_ALIGN;
				if (first < 0 || ld[l][j] < first)
					first = ld[l][j];
			}
		}
		dstart[j] = first;
		for (int l = 0; l < 2; l++) {
			const int64_t e = ld[l][j] < 0 ? first : ld[l][j] + lane[l]->len[j];

			if (ld[l][j] < 0)
				ld[l][j] = first;
			if (e > end)
				end = e;
		}
		pos = end + SM_GPU_GREF_SEP;
	}
	return end;
}

int64_t sm_gpu_ref_slots(const sm_gpu_groups_t *gr, const sm_ref_t *const *refs)
{
	int64_t nc = 0;

	for (int gi = 0; gi < gr->ngroups; gi++) {
		const int32_t na = refs[gr->lq[gi * gr->Q]]->n_contig,
			      nb = refs[sm_gpu_odd_lane(gr->lq, gi, gr->Q)]->n_contig;

		nc += na > nb ? na : nb;
	}
	return nc;
}

void sm_gpu_layout_refs(const sm_gpu_groups_t *gr, const sm_ref_t *const *refs,
			const sm_ref_src_t *src, const sm_gpu_ref_map_t *map, int64_t nc,
			int64_t *tab, int32_t *gcontig, sm_gpu_ref_layout_t *o)
{
	const int ngroups = gr->ngroups, Q = gr->Q;

	o->nc = nc;
	o->gref = tab;
	o->gdev_len = tab + ngroups;
	o->dstart = tab + 2 * ngroups;
	o->goff = o->dstart + nc;
	o->goff1 = o->goff + nc;
	o->lt = o->goff1 + nc;
	o->gcontig = gcontig;
	o->total = 0;
	o->max_dev_len = 0;
	gcontig[0] = 0;
	for (int gi = 0; gi < ngroups; gi++) {
		const int k[2] = { gr->lq[gi * Q], sm_gpu_odd_lane(gr->lq, gi, Q) };
		const sm_ref_t *r[2] = { refs[k[0]], refs[k[1]] };
		const int32_t c0 = gcontig[gi];
		const int32_t ns = r[0]->n_contig > r[1]->n_contig ? r[0]->n_contig : r[1]->n_contig;

		o->gref[gi] = o->total;
		o->gdev_len[gi] = sm_gpu_place_lanes(r[0], r[1], o->dstart + c0, o->lt + c0,
						     o->lt + 4 * nc + c0);
		for (int l = 0; l < 2; l++) {
			int64_t *ld = o->lt + 4 * l * nc + c0, *go = l ? o->goff1 + c0 : o->goff + c0;

			for (int32_t c = 0; c < ns; c++) {
				const int has = c < r[l]->n_contig;

				go[c] = has ? r[l]->offset[c] - ld[c] + o->dstart[c0 + c] : 0;
				ld[nc + c] = has ? r[l]->len[c] : 0;   /* length */
				ld[2 * nc + c] = 0;                     /* source */
				ld[3 * nc + c] = 0;                     /* backwards */
				if (has && src) {
					const sm_ref_src_t *rs = &src[k[l]];
					const int64_t x = rs->start[c];
					const int32_t kc = sm_offset_find(map->offset, map->n_contig, x);

					ld[2 * nc + c] = map->dev_start[kc] + (x - map->offset[kc]);
					ld[3 * nc + c] = rs->rev;
				}
			}
		}
		gcontig[gi + 1] = c0 + ns;
		o->total += sm_gpu_round_up(o->gdev_len[gi], SM_GPU_PAD_ALIGN);
		if (o->gdev_len[gi] > o->max_dev_len)
			o->max_dev_len = o->gdev_len[gi];
	}
}

/* ---- launches ----------------------------------------------------------- */

/* Strips a group's warps hold their multiprocessor for when columns
 * [begin, end) are cut into ranges of R columns (multiple of S) after halo
 * columns of context, nw ranges to a block: a block keeps its warps'
 * registers until its longest range ends, so each block counts nw times
 * that range's strips. */
int64_t sm_gpu_range_cost(int64_t begin, int64_t end, int64_t R, int64_t halo, int64_t S, int nw)
{
	const int64_t nr = (end - begin + R - 1) / R;
	int64_t cost = 0;

	for (int64_t b = 0; b < nr; b += nw) {
		int64_t most = 0;

		for (int64_t r = b; r < b + nw && r < nr; r++) {
			const int64_t u0 = begin + r * R, u1 = u0 + R < end ? u0 + R : end;
			const int64_t x0 = u0 - halo > begin ? u0 - halo : begin;
			const int64_t strips = (u1 - x0 + S - 1) / S;

			if (strips > most)
				most = strips;
		}
		cost += most;
	}
	return cost * nw;
}

/* The whole reference's range length: r0 (the warp target's) or the
 * length that makes the ranges a multiple of the block's nw warps, below
 * or above r0's count, whichever holds the multiprocessors least
 * (sm_gpu_range_cost; the first of equals).  With ranges not a multiple
 * of nw the last block's idle warps hold their registers for nothing: a
 * 9.7 kbp reference and 250 bp reads made 3 ranges, a third of the
 * block's warp time idle, and gpu_bench callsize measured 4 ranges a
 * group the fastest of 2-9 (results/gpu-kernel.md). */
static int64_t whole_range_len(int64_t begin, int64_t end, int64_t r0, int64_t halo, int64_t S, int nw)
{
	const int64_t span = end - begin, n0 = (span + r0 - 1) / r0;
	int64_t best = r0, best_cost = sm_gpu_range_cost(begin, end, r0, halo, S, nw);

	for (int k = 0; k < 2; k++) {
		const int64_t nr = (n0 / nw + k) * nw;

		if (nr < 1)
			continue;
		const int64_t R = sm_gpu_round_up((span + nr - 1) / nr, S);
		const int64_t cost = sm_gpu_range_cost(begin, end, R, halo, S, nw);

		if (cost < best_cost) {
			best = R;
			best_cost = cost;
		}
	}
	return best;
}

int sm_gpu_use_contig_ranges(const int64_t *len, int n, int64_t sep)
{
	int64_t bases = 0;

	for (int c = 0; c < n; c++)
		bases += len[c];
	return n > 1 && 4 * (int64_t)(n - 1) * sep > bases + (int64_t)(n - 1) * sep;
}

int64_t sm_gpu_contig_ranges(const int64_t *dev_start, const int64_t *len, int n, int64_t halo,
			     int64_t *tab)
{
	int64_t m = 0;

	for (int c = 0; c < n; c++)
		for (int64_t u = 0; u < len[c]; u += SM_GPU_CONTIG_RANGE_COLS, m++)
			if (tab) {
				const int64_t a = dev_start[c], u0 = a + u;
				const int64_t x0 = u0 - halo > a ? u0 - halo : a;

				tab[3 * m] = u0;
				tab[3 * m + 1] = u + SM_GPU_CONTIG_RANGE_COLS < len[c] ?
						 u0 + SM_GPU_CONTIG_RANGE_COLS : a + len[c];
				/* Lanes start on the locus bins' grid (sm_gpu_sep_len):
				 * a few separator columns more, from zeros. */
				tab[3 * m + 2] = x0 / SM_GPU_PAD_ALIGN * SM_GPU_PAD_ALIGN;
			}
	return m;
}

int sm_gpu_whole_one_range(const sm_gpu_launch_in_t *in, int64_t groups, int cols, int nw,
			   const sm_gpu_launch_t *split)
{
	const int64_t S = (int64_t)SM_GPU_WARP * cols, span = in->dev_len - in->col_begin;
	const int64_t slots = (int64_t)in->sms * SM_GPU_RESIDENT_WARPS;
	const int64_t strips = (span + S - 1) / S, nr = split->nranges;
	int64_t held, t_one, t_split;

	if (in->gref || in->n_tab || span <= 0 || strips > SM_GPU_ONE_RANGE_STRIPS || groups < 1 ||
	    nr < 1)
		return 0;
	/* The split plan's warp-strips per group, nr ranges of them. */
	held = sm_gpu_range_cost(in->col_begin, in->dev_len, split->range_len, split->halo, S, nw);
	t_one = (groups + slots - 1) / slots * strips;
	t_split = (groups * nr + slots - 1) / slots * ((held + nr - 1) / nr);
	return t_one < t_split;
}

void sm_gpu_plan_launch(const sm_gpu_launch_in_t *in, const int32_t *glen, int gs, int g_end,
			int cols, int nw, sm_gpu_launch_t *out)
{
	const int64_t S = (int64_t)SM_GPU_WARP * cols;   /* columns of a strip */
	const int64_t halo = sm_gpu_halo(in->sc, glen[gs]);
	const int64_t span = in->dev_len - in->col_begin;
	int64_t chunk = g_end - gs, range_len, nranges;
	size_t per_group;

	if (chunk > SM_GPU_MAX_GRID_Y)
		chunk = SM_GPU_MAX_GRID_Y;
	if (in->gref) {
		/* Ranges of the mean columns per warp the device holds, so
		 * that the longest group is split rather than run alone at the
		 * end; the other groups' ranges past their end are empty. */
		const int64_t warps = (int64_t)in->sms * in->arch->gref_warps_per_sm;

		range_len = in->gref_halos ? (in->total_len + warps - 1) / warps : in->dev_len;
		if (range_len < in->gref_halos * halo)
			range_len = in->gref_halos * halo;
	} else if (nw == 1) {
		range_len = span;   /* one range a group (sm_gpu_whole_one_range) */
	} else {
		/* Enough warps to fill the device for several waves, each
		 * range at least a few halos long so context stays cheap. */
		const int64_t wps = in->warps_per_sm ? in->warps_per_sm : in->arch->warps_per_sm;
		const int64_t target = ((int64_t)in->sms * wps + chunk - 1) / chunk;
		const int64_t halos = in->range_halos ? in->range_halos : SM_GPU_MIN_RANGE_HALOS;

		range_len = (span + target - 1) / target;
		if (range_len < halos * halo)
			range_len = halos * halo;
	}
	if (range_len < 1)
		range_len = 1;
	range_len = sm_gpu_round_up(range_len, S);
	if (!in->gref && nw > 1 && span > 0 && !in->n_tab)
		range_len = whole_range_len(in->col_begin, in->dev_len, range_len, halo, S, nw);
	nranges = in->n_tab && !in->gref ? in->n_tab : (span + range_len - 1) / range_len;
	if (nranges < 1)
		nranges = 1;
	per_group = (size_t)nranges * (size_t)in->Q * SM_TOPK * sizeof(uint64_t);
	if ((size_t)chunk * per_group > SM_GPU_RANGE_BUF_MAX)
		chunk = SM_GPU_RANGE_BUF_MAX / per_group > 0 ? (int64_t)(SM_GPU_RANGE_BUF_MAX / per_group) : 1;
	out->g_begin = gs;
	out->chunk = (int)chunk;
	out->nranges = (int)nranges;
	out->range_len = range_len;
	out->halo = halo;
	out->range_bytes = per_group * (size_t)chunk;
}

/* ---- workspace ---------------------------------------------------------- */

void sm_gpu_ws_layout(const sm_gpu_ws_shape_t *s, sm_gpu_ws_t *ws)
{
	const size_t ng = (size_t)s->ngroups, Q = (size_t)s->Q;
	size_t bytes[SM_GPU_WS_N], at = 0;

	bytes[SM_GPU_WS_QOFF] = sizeof(int64_t) * ng;
	bytes[SM_GPU_WS_GLEN] = sizeof(int32_t) * ng;
	bytes[SM_GPU_WS_SHIFT] = sizeof(int32_t) * ng * Q;
	bytes[SM_GPU_WS_GCONTIG] = s->ref_tab ? sizeof(int32_t) * (ng + 1) : 0;
	bytes[SM_GPU_WS_GTAB] = sizeof(int64_t) * (size_t)s->ref_tab;
	bytes[SM_GPU_WS_ROWS] = (size_t)s->rows_total;
	bytes[SM_GPU_WS_GSEQ] = s->ref_tab ? (size_t)s->ref_cols + SM_GPU_REF_TAIL : 0;
	bytes[SM_GPU_WS_RES] = sizeof(uint64_t) * ng * Q * SM_TOPK;
	bytes[SM_GPU_WS_CELLS] = sizeof(uint64_t) * 3;
	bytes[SM_GPU_WS_RANGE] = s->range_bytes;
	for (int r = 0; r < SM_GPU_WS_N; r++) {
		ws->off[r] = at;
		at = (size_t)sm_gpu_round_up((int64_t)(at + bytes[r]), SM_GPU_WS_ALIGN);
	}
	ws->off[SM_GPU_WS_N] = at;
}

void sm_gpu_for_each_device(int n, void *(*fn)(void *), void *jobs, size_t size)
{
	pthread_t th[SM_GPU_MAX_ENGINES];
	int started[SM_GPU_MAX_ENGINES];

	for (int k = 0; k < n && k < SM_GPU_MAX_ENGINES; k++) {
		void *job = (char *)jobs + (size_t)k * size;

		started[k] = n > 1 && pthread_create(&th[k], NULL, fn, job) == 0;
		if (!started[k])
			fn(job);
	}
	for (int k = 0; k < n && k < SM_GPU_MAX_ENGINES; k++)
		if (started[k])
			pthread_join(th[k], NULL);
}
