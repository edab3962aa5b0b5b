/* align_b128.h — align_wave.h's byte operations on one SSE vector, for the
 * fills whose WC codes fit in 16 bytes (align_sse41.c: 8, align_avx2.c:
 * 16).  The including file has SM_INLINE and the target's intrinsics, and
 * defines b_load and w_widen itself (they differ by vector width). */
#ifndef SM_ALIGN_B128_H
#define SM_ALIGN_B128_H

typedef __m128i B;
SM_INLINE B b_set1(int8_t x) { return _mm_set1_epi8(x); }
SM_INLINE B b_eq(B a, B b) { return _mm_cmpeq_epi8(a, b); }
SM_INLINE B b_gt(B a, B b) { return _mm_cmpgt_epi8(a, b); }
SM_INLINE B b_maxu(B a, B b) { return _mm_max_epu8(a, b); }
SM_INLINE B b_blend(B a, B b, B m) { return _mm_blendv_epi8(a, b, m); }

#endif
