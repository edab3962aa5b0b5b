/* index_impl.h — the index file's load pass (index.c, "the checksum"):
 * every section's sums and the structural checks, fused in one loop per
 * section.  Included by index.c only, once as it is and, on x86-64, once
 * more with AVX2 enabled (PASS_AVX2 1), where the eight checksum chains live
 * in two vector registers instead of eight general ones: beside the checks'
 * loops GCC kept the scalar chains on the stack, and each step waited for a
 * store.  Both give the same sums.  PASS_FN(f) names this copy's f. */

#if PASS_AVX2
/* The eight chains, four to a register; a step multiplies as 32-bit halves
 * (AVX2 has no 64-bit multiplication). */
typedef struct {
	__m256i lo, hi;   /* chains 0..3 and 4..7 */
} PASS_FN(chains_t);

static inline void PASS_FN(chains_init)(PASS_FN(chains_t) *c)
{
	uint64_t h[SM_SUM_LANES];

	lanes_init(h);
	c->lo = _mm256_loadu_si256((const __m256i *)h);
	c->hi = _mm256_loadu_si256((const __m256i *)(h + 4));
}

/* chain_step() of four chains: x * SM_SUM_MUL mod 2^64 from 32-bit
 * products, then + b and the rotation. */
static inline __m256i PASS_FN(step4)(__m256i h, __m256i a, __m256i b)
{
	const __m256i m_lo = _mm256_set1_epi64x((long long)(SM_SUM_MUL & 0xffffffffu));
	const __m256i m_hi = _mm256_set1_epi64x((long long)(SM_SUM_MUL >> 32));
	__m256i x = _mm256_xor_si256(h, a);
	__m256i cross = _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(x, 32), m_lo),
					 _mm256_mul_epu32(x, m_hi));
	__m256i v = _mm256_add_epi64(_mm256_add_epi64(_mm256_mul_epu32(x, m_lo),
						      _mm256_slli_epi64(cross, 32)), b);

	return _mm256_or_si256(_mm256_slli_epi64(v, SM_SUM_ROT),
			       _mm256_srli_epi64(v, 64 - SM_SUM_ROT));
}

/* lanes_add() of the group at p: words 0..7 are the chains' first words,
 * 8..15 their second. */
static inline void PASS_FN(chains_add)(PASS_FN(chains_t) *c, const void *p)
{
	const __m256i *w = p;

	c->lo = PASS_FN(step4)(c->lo, _mm256_loadu_si256(w), _mm256_loadu_si256(w + 2));
	c->hi = PASS_FN(step4)(c->hi, _mm256_loadu_si256(w + 1), _mm256_loadu_si256(w + 3));
}

static inline uint64_t PASS_FN(chains_end)(PASS_FN(chains_t) *c, const uint8_t *tail, size_t n)
{
	uint64_t h[SM_SUM_LANES];

	_mm256_storeu_si256((__m256i *)h, c->lo);
	_mm256_storeu_si256((__m256i *)(h + 4), c->hi);
	return lanes_end(h, tail, n);
}
#else
typedef struct {
	uint64_t h[SM_SUM_LANES];
} PASS_FN(chains_t);

static inline void PASS_FN(chains_init)(PASS_FN(chains_t) *c)
{
	lanes_init(c->h);
}

static inline void PASS_FN(chains_add)(PASS_FN(chains_t) *c, const void *p)
{
	lanes_add(c->h, p);
}

static inline uint64_t PASS_FN(chains_end)(PASS_FN(chains_t) *c, const uint8_t *tail, size_t n)
{
	return lanes_end(c->h, tail, n);
}
#endif

/* range_sum(p, n) of base codes, and *bad = 1 when one is above SM_BASE_N
 * (left alone otherwise), eight at a time: adding 127 - SM_BASE_N to a byte
 * below 128 sets its top bit only when it is above SM_BASE_N (no carry
 * out of it); a byte of 128 or more has it set already. */
SUM_INLINE uint64_t PASS_FN(seq_sum)(const uint8_t *p, size_t n, int *bad, const int sum)
{
	const uint64_t ones = ~0ull / 255, add = ones * (127 - SM_BASE_N), top = ones * 128;
	PASS_FN(chains_t) h;
	uint64_t over = 0;
	size_t g = n / SM_SUM_GROUP;

	PASS_FN(chains_init)(&h);
	for (size_t b = 0; b < g; b++) {
		const uint8_t *at = p + b * SM_SUM_GROUP;

		if (sum)
			PASS_FN(chains_add)(&h, at);
#pragma GCC unroll 16
		for (int i = 0; i < SM_SUM_WORDS; i++)
			over |= (word_at(at, i) + add) | word_at(at, i);
	}
	for (size_t i = g * SM_SUM_GROUP; i < n; i++)
		over |= p[i] > SM_BASE_N ? top : 0;
	if (over & top)
		*bad = 1;
	return PASS_FN(chains_end)(&h, p + g * SM_SUM_GROUP, n);
}

/* range_sum() of the positions u[0..n), and *fall = how many of them
 * (after the first) do not lie after the one before: (u[i] >> 1) <=
 * (u[i - 1] >> 1), compared as (u | 1) to keep the strand bit out. */
SUM_INLINE uint64_t PASS_FN(pos_sum)(const uint64_t *u, size_t n, uint64_t *fall, const int sum)
{
	PASS_FN(chains_t) h;
	uint64_t prev = n ? u[0] | 1 : 0, f = 0;
	size_t g = n / SM_SUM_WORDS;

	PASS_FN(chains_init)(&h);
	for (size_t b = 0; b < g; b++) {
		const uint64_t *at = u + b * SM_SUM_WORDS;

		if (sum)
			PASS_FN(chains_add)(&h, at);
#pragma GCC unroll 16
		for (int i = 0; i < SM_SUM_WORDS; i++) {
			f += (at[i] | 1) <= prev;
			prev = at[i] | 1;
		}
	}
	for (size_t i = g * SM_SUM_WORDS; i < n; i++) {
		f += (u[i] | 1) <= prev;
		prev = u[i] | 1;
	}
	/* u[0] was compared with itself. */
	*fall = n ? f - 1 : 0;
	return PASS_FN(chains_end)(&h, (const uint8_t *)(u + g * SM_SUM_WORDS), n * sizeof *u);
}

/* range_sum() of the offsets v[0..n), and *bad = 1 when one is not above
 * the one before (v[0] is compared with prev). */
SUM_INLINE uint64_t PASS_FN(rising_sum64)(const int64_t *v, size_t n, int64_t prev, int *bad,
				 const int sum)
{
	PASS_FN(chains_t) h;
	size_t g = n / SM_SUM_WORDS;
	int fall = 0;

	PASS_FN(chains_init)(&h);
	for (size_t b = 0; b < g; b++) {
		const int64_t *at = v + b * SM_SUM_WORDS;

		if (sum)
			PASS_FN(chains_add)(&h, at);
#pragma GCC unroll 16
		for (int i = 0; i < SM_SUM_WORDS; i++) {
			fall |= at[i] <= prev;
			prev = at[i];
		}
	}
	for (size_t i = g * SM_SUM_WORDS; i < n; i++) {
		fall |= v[i] <= prev;
		prev = v[i];
	}
	if (fall)
		*bad = 1;
	return PASS_FN(chains_end)(&h, (const uint8_t *)(v + g * SM_SUM_WORDS), n * sizeof *v);
}

/* PASS_FN(rising_sum64)() of the keys k[0..n): two to a word, the first in its low
 * half. */
SUM_INLINE uint64_t PASS_FN(rising_sum32)(const uint32_t *k, size_t n, int64_t prev, int *bad,
				 const int sum)
{
	PASS_FN(chains_t) h;
	size_t g = n / (2 * SM_SUM_WORDS);
	int fall = 0;

	PASS_FN(chains_init)(&h);
	for (size_t b = 0; b < g; b++) {
		const uint32_t *at = k + b * 2 * SM_SUM_WORDS;

		if (sum)
			PASS_FN(chains_add)(&h, at);
#pragma GCC unroll 16
		for (int i = 0; i < SM_SUM_WORDS; i++) {
			int64_t lo = at[2 * i], hi = at[2 * i + 1];

			fall |= (lo <= prev) | (hi <= lo);
			prev = hi;
		}
	}
	for (size_t i = g * 2 * SM_SUM_WORDS; i < n; i++) {
		fall |= (int64_t)k[i] <= prev;
		prev = k[i];
	}
	if (fall)
		*bad = 1;
	return PASS_FN(chains_end)(&h, (const uint8_t *)(k + g * 2 * SM_SUM_WORDS), n * sizeof *k);
}

/* Job j < n_ref_jobs: block j of the reference's sections. */
SUM_INLINE void PASS_FN(ref_job)(pass_t *s, int64_t j, const int sum)
{
	int c = 0;
	size_t at, n;

	while ((size_t)j >= s->first[c + 1])
		c++;
	at = ((size_t)j - s->first[c]) * SM_INDEX_SUM_BLOCK;
	n = (size_t)s->size[c] - at < SM_INDEX_SUM_BLOCK ? (size_t)s->size[c] - at :
	    SM_INDEX_SUM_BLOCK;
	if (c == SM_SEC_SEQ && s->check)
		s->bs[j] = PASS_FN(seq_sum)(s->base[c] + at, n, &s->seq_bad[j], sum);
	else if (sum)
		s->bs[j] = range_sum(s->base[c] + at, n);
}

/* Key job j: keys t0..t1, their offsets and positions summed and, with
 * check, checked (keys strictly increasing; offsets strictly increasing
 * within 0..n_pos; each key's positions increasing and inside the
 * reference), then its share of the bucket table filled.  Without a branch
 * per key: the positions' ranks where a position does not lie after the one
 * before are counted in the sum's loop, and those at the keys' first
 * positions in a loop over the keys; the positions increase within every
 * key exactly when the counts are equal (the keys' first positions are
 * distinct places among them).  With each key's positions increasing, all
 * of them lie inside the reference when its last one does, read as
 * unsigned (a negative position is a large one).  On a fault, explain_keys
 * names the first. */
SUM_INLINE void PASS_FN(key_job)(pass_t *s, int64_t j, const int sum)
{
	const uint32_t *key = (const uint32_t *)s->base[SM_SEC_KEY];
	const int64_t *start = (const int64_t *)s->base[SM_SEC_START];
	const uint64_t *pos = (const uint64_t *)s->base[SM_SEC_POS];
	const int64_t t0 = j * SM_INDEX_KEY_BLOCK;
	const int64_t t1 = t0 + SM_INDEX_KEY_BLOCK < s->n_key ? t0 + SM_INDEX_KEY_BLOCK : s->n_key;
	const int64_t p0 = start[t0], p1 = start[t1];
	const int pos_ok = p0 >= 0 && p0 <= p1 && p1 <= s->n_pos;
	const uint64_t end = 2 * (uint64_t)s->ref_len;   /* (position << 1 | strand) < end */
	uint64_t fall = 0, fall_first = 0;
	int bad = !pos_ok;

	/* Without check, the order is found and ignored. */
	s->bs[s->first[SM_SEC_KEY] + j] =
		PASS_FN(rising_sum32)(key + t0, (size_t)(t1 - t0), t0 ? (int64_t)key[t0 - 1] : -1,
				      &bad, sum);
	s->bs[s->first[SM_SEC_START] + j] =
		PASS_FN(rising_sum64)(start + t0, (size_t)(t1 - t0 + (t1 == s->n_key)), INT64_MIN,
				      &bad, sum);
	if (pos_ok)
		s->bs[s->first[SM_SEC_POS] + j] =
			PASS_FN(pos_sum)(pos + p0, (size_t)(p1 - p0), &fall, sum);
	if (!s->check)
		return;
	if (t1 > t0)
		bad |= start[t1] <= start[t1 - 1];
	if (!bad) {
		/* Offsets increase from p0 to p1 within 0..n_pos: every read
		 * below is inside the positions. */
		for (int64_t t = t0; t < t1 - 1; t++) {
			uint64_t last = pos[start[t + 1] - 1];

			bad |= last >= end;
			fall_first += (pos[start[t + 1]] | 1) <= (last | 1);
		}
		if (t1 > t0)
			bad |= pos[p1 - 1] >= end;
		bad |= fall != fall_first;
	}
	s->bad[j] = -1;
	if (bad)
		explain_keys(s, j, t0, t1);
	else if (s->idx && s->idx->bucket)
		bucket_range(s->idx, j);
}

static void PASS_FN(pass_job)(void *ctx, int64_t j, int thread)
{
	pass_t *s = ctx;

	/* Two copies of each job: with the sums, and the checks alone. */
	if (j < s->n_ref_jobs && !s->checks_only)
		PASS_FN(ref_job)(s, j, 1);
	else if (j < s->n_ref_jobs)
		PASS_FN(ref_job)(s, j, 0);
	else if (!s->checks_only)
		PASS_FN(key_job)(s, j - s->n_ref_jobs, 1);
	else
		PASS_FN(key_job)(s, j - s->n_ref_jobs, 0);
}
