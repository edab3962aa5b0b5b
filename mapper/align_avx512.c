/* align_avx512.c — the traceback's band fill (align_wave.h) on AVX-512BW
 * vectors: 32 cells of 16 bits each, for the bands wider than 32 offsets
 * (align.c's wave_vec).  Comparisons give AVX-512 masks, widened back to
 * lane masks (all ones or all zeros per lane) for the header's lane-mask
 * arithmetic.  A one-lane shift is one two-source word permute (vpermt2w;
 * no slower than a valignd and an alignr on Zen 4).  The 8-bit work runs
 * on AVX2 vectors of WC bytes.  Compiled for AVX-512F and BW whatever the
 * global flags; called only when the CPU has both. */
#pragma GCC target("avx512f,avx512bw")
#include <immintrin.h>

#include <stdint.h>

#define SM_INLINE static inline __attribute__((always_inline))

typedef __m512i W;
#define WC 32
#define SM_FILL_NAME sm_align_fill_wave_avx512

SM_INLINE W w_zero(void) { return _mm512_setzero_si512(); }
SM_INLINE W w_set1(int16_t x) { return _mm512_set1_epi16(x); }
SM_INLINE W w_lanes(void)
{
	return _mm512_set_epi16(31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16,
				15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
}
SM_INLINE W w_add(W a, W b) { return _mm512_add_epi16(a, b); }
SM_INLINE W w_sub(W a, W b) { return _mm512_sub_epi16(a, b); }
SM_INLINE W w_adds(W a, W b) { return _mm512_adds_epi16(a, b); }
SM_INLINE W w_subs(W a, W b) { return _mm512_subs_epi16(a, b); }
SM_INLINE W w_max(W a, W b) { return _mm512_max_epi16(a, b); }
SM_INLINE W w_and(W a, W b) { return _mm512_and_si512(a, b); }
SM_INLINE W w_cmpgt(W a, W b) { return _mm512_movm_epi16(_mm512_cmpgt_epi16_mask(a, b)); }
/* m's lanes are all ones or all zeros, so a bitwise select (ternary
 * logic 0xCA: first operand ? second : third) is the lane blend. */
SM_INLINE W w_blend(W a, W b, W m) { return _mm512_ternarylogic_epi64(m, b, a, 0xCA); }
SM_INLINE void w_store(int16_t *p, W v) { _mm512_storeu_si512(p, v); }
/* Word l of the result: idx[l] < 32 picks a's word idx[l], else the
 * second source's word idx[l] - 32 (_mm512_set_epi16 lists words 31..0). */
SM_INLINE W w_up_one(W a, W prev)
{
	const W idx = _mm512_set_epi16(30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15,
				       14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 63);
	return _mm512_permutex2var_epi16(a, idx, prev);
}
SM_INLINE W w_down_one(W a, W next)
{
	const W idx = _mm512_set_epi16(32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17,
				       16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1);
	return _mm512_permutex2var_epi16(a, idx, next);
}

/* Bytes: the WC of an AVX2 vector (codes, 8-bit scores). */
typedef __m256i B;
SM_INLINE B b_set1(int8_t x) { return _mm256_set1_epi8(x); }
SM_INLINE B b_eq(B a, B b) { return _mm256_cmpeq_epi8(a, b); }
SM_INLINE B b_gt(B a, B b) { return _mm256_cmpgt_epi8(a, b); }
SM_INLINE B b_maxu(B a, B b) { return _mm256_max_epu8(a, b); }
SM_INLINE B b_blend(B a, B b, B m) { return _mm256_blendv_epi8(a, b, m); }
SM_INLINE B b_load(const uint8_t *p) { return _mm256_loadu_si256((const __m256i *)p); }
SM_INLINE W w_widen(B s8) { return _mm512_cvtepi8_epi16(s8); }

#include "mapper/align_wave.h"
