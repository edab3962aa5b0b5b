/* base.c — the base code tables of base.h. */
#include "io/base.h"

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
