/* cpu_scan_sse41.c — the SIMD kernel (cpu_scan_simd.h) on 128-bit SSE4.1
 * vectors: 16 segments per tile; 16, 8 or 4 lanes per vector at 8, 16 or
 * 32-bit cells.  Compiled for SSE4.1 whatever the global flags; called only
 * when the CPU has it. */
#pragma GCC target("sse4.1")
#include <immintrin.h>
#include <stdint.h>
#include <string.h>

typedef __m128i V;
#define SM_VB 16
/* Stripes the anti-diagonal kernel keeps in registers at once. */
#define SM_DIAG_GROUP 2
#define SM_KERNEL_NAME sm_cpu_kernel_sse41

static inline V v_load(const V *p) { return _mm_load_si128(p); }
static inline void v_store(V *p, V x) { _mm_store_si128(p, x); }
static inline V v_zero(void) { return _mm_setzero_si128(); }

static inline V v_set1(uint32_t x, int w)
{
	return w == 8 ? _mm_set1_epi8((char)x) : w == 16 ? _mm_set1_epi16((short)x) :
		_mm_set1_epi32((int)x);
}

static inline V v_adds(V a, V b, int w)
{
	return w == 8 ? _mm_adds_epi8(a, b) : w == 16 ? _mm_adds_epi16(a, b) :
		_mm_add_epi32(a, b);
}

static inline V v_subs(V a, V b, int w)
{
	return w == 8 ? _mm_subs_epi8(a, b) : w == 16 ? _mm_subs_epi16(a, b) :
		_mm_max_epi32(_mm_sub_epi32(a, b), _mm_setzero_si128());
}

static inline V v_max(V a, V b, int w)
{
	return w == 8 ? _mm_max_epi8(a, b) : w == 16 ? _mm_max_epi16(a, b) :
		_mm_max_epi32(a, b);
}

static inline V v_funnel(V cur, V prev, int nb)
{
	switch (nb) {
	case 1: return _mm_alignr_epi8(cur, prev, 15);
	case 2: return _mm_alignr_epi8(cur, prev, 14);
	case 4: return _mm_alignr_epi8(cur, prev, 12);
	default: return _mm_alignr_epi8(cur, prev, 8);
	}
}

static inline int v_all_eq(V a, V b)
{
	return _mm_movemask_epi8(_mm_cmpeq_epi8(a, b)) == 0xFFFF;
}

static inline V v_keep_zero(V x, V h, V z, int w)
{
	V m = w == 8 ? _mm_cmpeq_epi8(h, z) : w == 16 ? _mm_cmpeq_epi16(h, z) : _mm_cmpeq_epi32(h, z);
	return _mm_blendv_epi8(x, z, m);
}

static inline uint64_t v_ge_mask(V a, V t, int w)
{
	return (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v_max(a, t, w), a));
}

static inline uint32_t v_hmax(V x, int w)
{
	x = v_max(x, _mm_srli_si128(x, 8), w);
	x = v_max(x, _mm_srli_si128(x, 4), w);
	if (w == 32)
		return (uint32_t)_mm_cvtsi128_si32(x);
	x = v_max(x, _mm_srli_si128(x, 2), w);
	if (w == 16)
		return (uint32_t)_mm_extract_epi16(x, 0);
	x = v_max(x, _mm_srli_si128(x, 1), w);
	return (uint32_t)_mm_extract_epi8(x, 0);
}

/* Lanes hold value - 2^(w-1) at 8 and 16 bits (see cpu_scan_simd.h): flip
 * the sign bit to get the unsigned value, extend or pack, flip back. */
static inline V v_flip(V x, int w)
{
	return w == 8 ? _mm_xor_si128(x, _mm_set1_epi8((char)0x80)) :
		w == 16 ? _mm_xor_si128(x, _mm_set1_epi16((short)0x8000)) : x;
}

static inline void v_widen(V x, int w, V *lo, V *hi)
{
	V u = v_flip(x, w), h = _mm_srli_si128(u, 8);
	*lo = v_flip(w == 8 ? _mm_cvtepu8_epi16(u) : _mm_cvtepu16_epi32(u), 2 * w);
	*hi = v_flip(w == 8 ? _mm_cvtepu8_epi16(h) : _mm_cvtepu16_epi32(h), 2 * w);
}

static inline V v_narrow(V lo, V hi, int w)
{
	lo = v_flip(lo, 2 * w);
	hi = v_flip(hi, 2 * w);
	return v_flip(w == 8 ? _mm_packus_epi16(lo, hi) : _mm_packus_epi32(lo, hi), w);
}

static inline V v_loadp(const uint8_t *p, int w)
{
	if (w == 8)
		return _mm_load_si128((const V *)(const void *)p);
	if (w == 16)
		return _mm_cvtepi8_epi16(_mm_loadl_epi64((const V *)(const void *)p));
	int32_t x;
	memcpy(&x, p, sizeof(x));
	return _mm_cvtepi8_epi32(_mm_cvtsi32_si128(x));
}

static inline V v_lut(const int8_t *t16) { return _mm_loadu_si128((const V *)(const void *)t16); }
static inline V v_shuffle(V lut, V idx) { return _mm_shuffle_epi8(lut, idx); }

static inline V v_loadu(const uint8_t *p) { return _mm_loadu_si128((const V *)(const void *)p); }
static inline void v_storeu(uint8_t *p, V x) { _mm_storeu_si128((V *)(void *)p, x); }
static inline V v_xor(V a, V b) { return _mm_xor_si128(a, b); }

static inline V v_rev8(V x)
{
	return _mm_shuffle_epi8(x, _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
}

static inline V v_sext(V x, int w)
{
	return w == 8 ? x : w == 16 ? _mm_cvtepi8_epi16(x) : _mm_cvtepi8_epi32(x);
}

#include "mapper/cpu_scan_simd.h"
