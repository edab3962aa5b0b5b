#include "mapper/score.h"

void sm_score_matrix(const sm_score_t *s, int8_t mat[25])
{
	for (int r = 0; r < 5; r++)
		for (int q = 0; q < 5; q++)
			mat[r * 5 + q] = (int8_t)sm_subst(s, (uint8_t)r, (uint8_t)q);
}
