/* cpu_scan_avx512.c — the SIMD kernel (cpu_scan_simd.h) on 512-bit
 * AVX-512 (F + BW) vectors: 64 segments per tile; 64, 32 or 16 lanes per
 * vector at 8, 16 or 32-bit cells.  Compiled for AVX-512BW whatever the
 * global flags; called only when the CPU has it. */
#pragma GCC target("avx512f,avx512bw")
#include <immintrin.h>
#include <stdint.h>
#include <string.h>

typedef __m512i V;
#define SM_VB 64
/* Stripes the anti-diagonal kernel keeps in registers at once. */
#define SM_DIAG_GROUP 4
#define SM_KERNEL_NAME sm_cpu_kernel_avx512

static inline V v_load(const V *p) { return _mm512_load_si512(p); }
static inline void v_store(V *p, V x) { _mm512_store_si512(p, x); }
static inline V v_zero(void) { return _mm512_setzero_si512(); }

static inline V v_set1(uint32_t x, int w)
{
	return w == 8 ? _mm512_set1_epi8((char)x) : w == 16 ? _mm512_set1_epi16((short)x) :
		_mm512_set1_epi32((int)x);
}

static inline V v_adds(V a, V b, int w)
{
	return w == 8 ? _mm512_adds_epi8(a, b) : w == 16 ? _mm512_adds_epi16(a, b) :
		_mm512_add_epi32(a, b);
}

static inline V v_subs(V a, V b, int w)
{
	return w == 8 ? _mm512_subs_epi8(a, b) : w == 16 ? _mm512_subs_epi16(a, b) :
		_mm512_max_epi32(_mm512_sub_epi32(a, b), _mm512_setzero_si512());
}

static inline V v_max(V a, V b, int w)
{
	return w == 8 ? _mm512_max_epi8(a, b) : w == 16 ? _mm512_max_epi16(a, b) :
		_mm512_max_epi32(a, b);
}

/* t = each 128-bit lane's neighbour below (prev's top lane for lane 0);
 * alignr then shifts within lanes taking bytes from t. */
static inline V v_funnel(V cur, V prev, int nb)
{
	V t = _mm512_alignr_epi32(cur, prev, 12);
	switch (nb) {
	case 1: return _mm512_alignr_epi8(cur, t, 15);
	case 2: return _mm512_alignr_epi8(cur, t, 14);
	case 4: return _mm512_alignr_epi8(cur, t, 12);
	case 8: return _mm512_alignr_epi8(cur, t, 8);
	case 16: return t;
	default: return _mm512_alignr_epi32(cur, prev, 8);
	}
}

static inline int v_all_eq(V a, V b)
{
	return _mm512_cmpneq_epi8_mask(a, b) == 0;
}

static inline V v_keep_zero(V x, V h, V z, int w)
{
	return w == 8 ? _mm512_mask_mov_epi8(x, _mm512_cmpeq_epi8_mask(h, z), z) :
		w == 16 ? _mm512_mask_mov_epi16(x, _mm512_cmpeq_epi16_mask(h, z), z) :
		_mm512_mask_mov_epi32(x, _mm512_cmpeq_epi32_mask(h, z), z);
}

static inline uint64_t v_ge_mask(V a, V t, int w)
{
	return _mm512_cmpeq_epi8_mask(v_max(a, t, w), a);
}

static inline __m256i v_max256(__m256i a, __m256i b, int w)
{
	return w == 8 ? _mm256_max_epi8(a, b) : w == 16 ? _mm256_max_epi16(a, b) :
		_mm256_max_epi32(a, b);
}

static inline __m128i v_max128(__m128i a, __m128i b, int w)
{
	return w == 8 ? _mm_max_epi8(a, b) : w == 16 ? _mm_max_epi16(a, b) : _mm_max_epi32(a, b);
}

static inline uint32_t v_hmax(V x, int w)
{
	__m256i z = v_max256(_mm512_castsi512_si256(x), _mm512_extracti64x4_epi64(x, 1), w);
	__m128i y = v_max128(_mm256_castsi256_si128(z), _mm256_extracti128_si256(z, 1), w);
	y = v_max128(y, _mm_srli_si128(y, 8), w);
	y = v_max128(y, _mm_srli_si128(y, 4), w);
	if (w == 32)
		return (uint32_t)_mm_cvtsi128_si32(y);
	y = v_max128(y, _mm_srli_si128(y, 2), w);
	if (w == 16)
		return (uint32_t)_mm_extract_epi16(y, 0);
	y = v_max128(y, _mm_srli_si128(y, 1), w);
	return (uint32_t)_mm_extract_epi8(y, 0);
}

/* Lanes hold value - 2^(w-1) at 8 and 16 bits (see cpu_scan_simd.h): flip
 * the sign bit to get the unsigned value, extend or truncate, flip back. */
static inline V v_flip(V x, int w)
{
	return w == 8 ? _mm512_xor_si512(x, _mm512_set1_epi8((char)0x80)) :
		w == 16 ? _mm512_xor_si512(x, _mm512_set1_epi16((short)0x8000)) : x;
}

static inline void v_widen(V x, int w, V *lo, V *hi)
{
	V u = v_flip(x, w);
	__m256i l = _mm512_castsi512_si256(u), h = _mm512_extracti64x4_epi64(u, 1);
	*lo = v_flip(w == 8 ? _mm512_cvtepu8_epi16(l) : _mm512_cvtepu16_epi32(l), 2 * w);
	*hi = v_flip(w == 8 ? _mm512_cvtepu8_epi16(h) : _mm512_cvtepu16_epi32(h), 2 * w);
}

static inline V v_narrow(V lo, V hi, int w)
{
	lo = v_flip(lo, 2 * w);
	hi = v_flip(hi, 2 * w);
	__m256i l = w == 8 ? _mm512_cvtepi16_epi8(lo) : _mm512_cvtepi32_epi16(lo);
	__m256i h = w == 8 ? _mm512_cvtepi16_epi8(hi) : _mm512_cvtepi32_epi16(hi);
	return v_flip(_mm512_inserti64x4(_mm512_castsi256_si512(l), h, 1), w);
}

static inline V v_loadp(const uint8_t *p, int w)
{
	if (w == 8)
		return _mm512_load_si512((const void *)p);
	if (w == 16)
		return _mm512_cvtepi8_epi16(_mm256_load_si256((const __m256i *)(const void *)p));
	return _mm512_cvtepi8_epi32(_mm_load_si128((const __m128i *)(const void *)p));
}

static inline V v_lut(const int8_t *t16)
{
	return _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)(const void *)t16));
}

static inline V v_shuffle(V lut, V idx) { return _mm512_shuffle_epi8(lut, idx); }

static inline V v_loadu(const uint8_t *p) { return _mm512_loadu_si512((const void *)p); }
static inline void v_storeu(uint8_t *p, V x) { _mm512_storeu_si512((void *)p, x); }
static inline V v_xor(V a, V b) { return _mm512_xor_si512(a, b); }

static inline V v_rev8(V x)
{
	const __m128i r = _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
	x = _mm512_shuffle_epi8(x, _mm512_broadcast_i32x4(r));
	return _mm512_shuffle_i64x2(x, x, 0x1B);
}

static inline V v_sext(V x, int w)
{
	if (w == 8)
		return x;
	return w == 16 ? _mm512_cvtepi8_epi16(_mm512_castsi512_si256(x)) :
		_mm512_cvtepi8_epi32(_mm512_castsi512_si128(x));
}

#include "mapper/cpu_scan_simd.h"
