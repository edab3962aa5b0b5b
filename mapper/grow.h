/* grow.h — how the mapper's reusable arrays grow: to the next power of two
 * (from 64 elements, or `first`) that holds what is needed, keeping their
 * contents. */
#ifndef SM_GROW_H
#define SM_GROW_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* Grows *p (*cap elements of size sz) to hold need elements, from `first`
 * elements when empty.  Returns 0, or -1 when out of memory (*p and *cap
 * unchanged). */
static inline int sm_grow_from(void **p, int64_t *cap, int64_t need, size_t sz, int64_t first)
{
	int64_t c = *cap ? *cap : first;
	void *q;

	if (need <= *cap)
		return 0;
	while (c < need)
		c *= 2;
	q = realloc(*p, (size_t)c * sz);
	if (!q)
		return -1;
	*p = q;
	*cap = c;
	return 0;
}

static inline int sm_grow(void **p, int64_t *cap, int64_t need, size_t sz)
{
	return sm_grow_from(p, cap, need, sz, 64);
}

#endif
