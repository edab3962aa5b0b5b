/* align_avx2.c — the traceback's band fill (align_wave.h) on AVX2 vectors:
 * 16 cells of 16 bits each, for bands wider than 16 offsets.  The one-lane
 * shifts cross the vector's two 128-bit halves, hence a permute before
 * each alignr.  Compiled for AVX2 whatever the global flags; called only
 * when the CPU has it. */
#pragma GCC target("avx2")
#include <immintrin.h>

#include <stdint.h>

#define SM_INLINE static inline __attribute__((always_inline))

typedef __m256i W;
#define WC 16
#define SM_FILL_NAME sm_align_fill_wave_avx2

SM_INLINE W w_zero(void) { return _mm256_setzero_si256(); }
SM_INLINE W w_set1(int16_t x) { return _mm256_set1_epi16(x); }
SM_INLINE W w_lanes(void)
{
	return _mm256_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
}
SM_INLINE W w_add(W a, W b) { return _mm256_add_epi16(a, b); }
SM_INLINE W w_sub(W a, W b) { return _mm256_sub_epi16(a, b); }
SM_INLINE W w_adds(W a, W b) { return _mm256_adds_epi16(a, b); }
SM_INLINE W w_subs(W a, W b) { return _mm256_subs_epi16(a, b); }
SM_INLINE W w_max(W a, W b) { return _mm256_max_epi16(a, b); }
SM_INLINE W w_and(W a, W b) { return _mm256_and_si256(a, b); }
SM_INLINE W w_cmpgt(W a, W b) { return _mm256_cmpgt_epi16(a, b); }
SM_INLINE W w_blend(W a, W b, W m) { return _mm256_blendv_epi8(a, b, m); }
SM_INLINE void w_store(int16_t *p, W v) { _mm256_storeu_si256((__m256i *)p, v); }
/* [prev's high half, a's low half], then per half: a's lanes moved up one. */
SM_INLINE W w_up_one(W a, W prev)
{
	return _mm256_alignr_epi8(a, _mm256_permute2x128_si256(a, prev, 0x03), 14);
}
/* [a's high half, next's low half], then per half: a's lanes moved down one. */
SM_INLINE W w_down_one(W a, W next)
{
	return _mm256_alignr_epi8(_mm256_permute2x128_si256(a, next, 0x21), a, 2);
}
/* Bytes: the WC of an SSE vector (codes, 8-bit scores). */
#include "mapper/align_b128.h"
SM_INLINE B b_load(const uint8_t *p) { return _mm_loadu_si128((const __m128i *)p); }
SM_INLINE W w_widen(B s8) { return _mm256_cvtepi8_epi16(s8); }

#include "mapper/align_wave.h"
