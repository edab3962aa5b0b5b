#include "mapper/score.h"

#define X4 4, 4, 4, 4
#define X16 X4, X4, X4, X4
const uint8_t sm_nt4_table[256] = {
	X16, X16, X16, X16,                                /* 0..63 */
	4, 0, 4, 1, 4, 4, 4, 2, 4, 4, 4, 4, 4, 4, 4, 4,   /* @ABCDEFGHIJKLMNO */
	4, 4, 4, 4, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,   /* PQRSTUVWXYZ[\]^_ */
	4, 0, 4, 1, 4, 4, 4, 2, 4, 4, 4, 4, 4, 4, 4, 4,   /* `abcdefghijklmno */
	4, 4, 4, 4, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,   /* pqrstuvwxyz{|}~  */
	X16, X16, X16, X16, X16, X16, X16, X16,           /* 128..255 */
};
const char sm_nt4_char[5] = { 'A', 'C', 'G', 'T', 'N' };

void sm_score_matrix(const sm_score_t *s, int8_t mat[25])
{
	for (int r = 0; r < 5; r++)
		for (int q = 0; q < 5; q++)
			mat[r * 5 + q] = (int8_t)sm_subst(s, (uint8_t)r, (uint8_t)q);
}
