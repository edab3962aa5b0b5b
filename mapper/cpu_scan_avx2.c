/* cpu_scan_avx2.c — the SIMD kernel (cpu_scan_simd.h) on 256-bit AVX2
 * vectors: 32 segments per tile; 32, 16 or 8 lanes per vector at 8, 16 or
 * 32-bit cells.  Compiled for AVX2 whatever the global flags; called only
 * when the CPU has it. */
#pragma GCC target("avx2")
#include <immintrin.h>
#include <stdint.h>
#include <string.h>

typedef __m256i V;
#define SM_VB 32
/* Stripes the anti-diagonal kernel keeps in registers at once. */
#define SM_DIAG_GROUP 2
#define SM_KERNEL_NAME sm_cpu_kernel_avx2

static inline V v_load(const V *p) { return _mm256_load_si256(p); }
static inline void v_store(V *p, V x) { _mm256_store_si256(p, x); }
static inline V v_zero(void) { return _mm256_setzero_si256(); }

static inline V v_set1(uint32_t x, int w)
{
	return w == 8 ? _mm256_set1_epi8((char)x) : w == 16 ? _mm256_set1_epi16((short)x) :
		_mm256_set1_epi32((int)x);
}

static inline V v_adds(V a, V b, int w)
{
	return w == 8 ? _mm256_adds_epi8(a, b) : w == 16 ? _mm256_adds_epi16(a, b) :
		_mm256_add_epi32(a, b);
}

static inline V v_subs(V a, V b, int w)
{
	return w == 8 ? _mm256_subs_epi8(a, b) : w == 16 ? _mm256_subs_epi16(a, b) :
		_mm256_max_epi32(_mm256_sub_epi32(a, b), _mm256_setzero_si256());
}

static inline V v_max(V a, V b, int w)
{
	return w == 8 ? _mm256_max_epi8(a, b) : w == 16 ? _mm256_max_epi16(a, b) :
		_mm256_max_epi32(a, b);
}

/* t = [prev's high 128 bits, cur's low 128 bits]; alignr then works per
 * 128-bit lane with the right neighbour below each lane. */
static inline V v_funnel(V cur, V prev, int nb)
{
	V t = _mm256_permute2x128_si256(prev, cur, 0x21);
	switch (nb) {
	case 1: return _mm256_alignr_epi8(cur, t, 15);
	case 2: return _mm256_alignr_epi8(cur, t, 14);
	case 4: return _mm256_alignr_epi8(cur, t, 12);
	case 8: return _mm256_alignr_epi8(cur, t, 8);
	default: return t;
	}
}

static inline int v_all_eq(V a, V b)
{
	return _mm256_movemask_epi8(_mm256_cmpeq_epi8(a, b)) == -1;
}

static inline V v_keep_zero(V x, V h, V z, int w)
{
	V m = w == 8 ? _mm256_cmpeq_epi8(h, z) : w == 16 ? _mm256_cmpeq_epi16(h, z) :
		_mm256_cmpeq_epi32(h, z);
	return _mm256_blendv_epi8(x, z, m);
}

static inline uint64_t v_ge_mask(V a, V t, int w)
{
	return (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v_max(a, t, w), a));
}

static inline __m128i v_max128(__m128i a, __m128i b, int w)
{
	return w == 8 ? _mm_max_epi8(a, b) : w == 16 ? _mm_max_epi16(a, b) : _mm_max_epi32(a, b);
}

static inline uint32_t v_hmax(V x, int w)
{
	__m128i y = v_max128(_mm256_castsi256_si128(x), _mm256_extracti128_si256(x, 1), w);
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
 * the sign bit to get the unsigned value, extend or pack, flip back. */
static inline V v_flip(V x, int w)
{
	return w == 8 ? _mm256_xor_si256(x, _mm256_set1_epi8((char)0x80)) :
		w == 16 ? _mm256_xor_si256(x, _mm256_set1_epi16((short)0x8000)) : x;
}

static inline void v_widen(V x, int w, V *lo, V *hi)
{
	V u = v_flip(x, w);
	__m128i l = _mm256_castsi256_si128(u), h = _mm256_extracti128_si256(u, 1);
	*lo = v_flip(w == 8 ? _mm256_cvtepu8_epi16(l) : _mm256_cvtepu16_epi32(l), 2 * w);
	*hi = v_flip(w == 8 ? _mm256_cvtepu8_epi16(h) : _mm256_cvtepu16_epi32(h), 2 * w);
}

/* packus works per 128-bit lane; the permute restores lane order. */
static inline V v_narrow(V lo, V hi, int w)
{
	lo = v_flip(lo, 2 * w);
	hi = v_flip(hi, 2 * w);
	V p = w == 8 ? _mm256_packus_epi16(lo, hi) : _mm256_packus_epi32(lo, hi);
	return v_flip(_mm256_permute4x64_epi64(p, 0xD8), w);
}

static inline V v_loadp(const uint8_t *p, int w)
{
	if (w == 8)
		return _mm256_load_si256((const V *)(const void *)p);
	if (w == 16)
		return _mm256_cvtepi8_epi16(_mm_load_si128((const __m128i *)(const void *)p));
	return _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)p));
}

static inline V v_lut(const int8_t *t16)
{
	return _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)t16));
}

static inline V v_shuffle(V lut, V idx) { return _mm256_shuffle_epi8(lut, idx); }

static inline V v_loadu(const uint8_t *p) { return _mm256_loadu_si256((const V *)(const void *)p); }
static inline void v_storeu(uint8_t *p, V x) { _mm256_storeu_si256((V *)(void *)p, x); }
static inline V v_xor(V a, V b) { return _mm256_xor_si256(a, b); }

static inline V v_rev8(V x)
{
	const __m128i r = _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
	x = _mm256_shuffle_epi8(x, _mm256_broadcastsi128_si256(r));
	return _mm256_permute4x64_epi64(x, 0x4E);
}

static inline V v_sext(V x, int w)
{
	if (w == 8)
		return x;
	__m128i l = _mm256_castsi256_si128(x);
	return w == 16 ? _mm256_cvtepi8_epi16(l) : _mm256_cvtepi8_epi32(l);
}

#include "mapper/cpu_scan_simd.h"
