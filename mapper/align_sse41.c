/* align_sse41.c — the traceback's band fill (align_wave.h) on SSE4.1
 * vectors: 8 cells of 16 bits each, the one-lane shifts one alignr.
 * Compiled for SSE4.1 whatever the global flags; called only when the CPU
 * has it. */
#pragma GCC target("sse4.1")
#include <smmintrin.h>

#include <stdint.h>

#define SM_INLINE static inline __attribute__((always_inline))

typedef __m128i W;
#define WC 8
#define SM_FILL_NAME sm_align_fill_wave_sse41

SM_INLINE W w_zero(void) { return _mm_setzero_si128(); }
SM_INLINE W w_set1(int16_t x) { return _mm_set1_epi16(x); }
SM_INLINE W w_lanes(void) { return _mm_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7); }
SM_INLINE W w_add(W a, W b) { return _mm_add_epi16(a, b); }
SM_INLINE W w_sub(W a, W b) { return _mm_sub_epi16(a, b); }
SM_INLINE W w_adds(W a, W b) { return _mm_adds_epi16(a, b); }
SM_INLINE W w_subs(W a, W b) { return _mm_subs_epi16(a, b); }
SM_INLINE W w_max(W a, W b) { return _mm_max_epi16(a, b); }
SM_INLINE W w_and(W a, W b) { return _mm_and_si128(a, b); }
SM_INLINE W w_cmpgt(W a, W b) { return _mm_cmpgt_epi16(a, b); }
SM_INLINE W w_blend(W a, W b, W m) { return _mm_blendv_epi8(a, b, m); }
SM_INLINE void w_store(int16_t *p, W v) { _mm_store_si128((__m128i *)p, v); }
SM_INLINE W w_up_one(W a, W prev) { return _mm_alignr_epi8(a, prev, 14); }
SM_INLINE W w_down_one(W a, W next) { return _mm_alignr_epi8(next, a, 2); }

/* Bytes: the low WC of an SSE vector (codes, 8-bit scores). */
#include "mapper/align_b128.h"
SM_INLINE B b_load(const uint8_t *p) { return _mm_loadl_epi64((const __m128i *)p); }
SM_INLINE W w_widen(B s8) { return _mm_cvtepi8_epi16(s8); }

#include "mapper/align_wave.h"
