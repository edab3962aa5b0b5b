/* test_radix.c — sm_radix_sort_u64 (mapper/radix.h) against qsort on
 * random keys of the shapes its callers sort: packed seed hits (strand bit,
 * bias, diagonal, some negative) and the GPU engine's group shape keys
 * (few distinct fields above a unique index), plus sizes 0, 1 and 2; and
 * sm_radix_sort_bits, by one field only, against a stable merge sort on
 * that field (the keys' other bits keep their input order), for fields and
 * digit limits of every shape its callers use. */
#include <stdlib.h>
#include <string.h>

#include "mapper/radix.h"
#include "tests/unit/unit.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static uint64_t key_of(int shape, int i)
{
	uint64_t r = (uint64_t)rnd(1u << 30) << 30 | rnd(1u << 30);

	switch (shape) {
	case 0:   /* a seed hit: strand bit, bias 2^40, diagonal from -150 on */
		return (uint64_t)rnd(2) << 63 | (((uint64_t)1 << 40) + r % 70000000 - 150);
	case 1:   /* a shape key: length, contigs, columns, then the index */
		return (uint64_t)(0xffff - 150 - rnd(3)) << 48 | (uint64_t)(1 + rnd(2)) << 40 |
		       (uint64_t)(0xfffff - rnd(2000)) << 20 | (uint64_t)i;
	default:  /* anything, many repeats */
		return rnd(4) ? r : (uint64_t)rnd(5);
	}
}

/* Stable merge sort of a[0..n) by bits [lo, lo + bits) (tmp: room for n). */
static void merge_field(uint64_t *a, uint64_t *tmp, int64_t n, int lo, int bits)
{
	const uint64_t mask = bits >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << bits) - 1;
	int64_t h = n / 2, i = 0, j = h, k = 0;

	if (n < 2)
		return;
	merge_field(a, tmp, h, lo, bits);
	merge_field(a + h, tmp, n - h, lo, bits);
	while (i < h || j < n)
		tmp[k++] = j >= n || (i < h && (a[i] >> lo & mask) <= (a[j] >> lo & mask)) ? a[i++] : a[j++];
	memcpy(a, tmp, (size_t)n * sizeof *a);
}

int main(void)
{
	int differ = 0, cases = 0;

	unit_begin("test_radix");
	for (int rep = 0; rep < 600; rep++) {
		int n = rep < 3 ? rep : (int)rnd(rep % 2 ? 300 : 5000);
		uint64_t *a = xmalloc(sizeof *a * (size_t)(n + 1));
		uint64_t *b = xmalloc(sizeof *b * (size_t)(n + 1));
		uint64_t *tmp = xmalloc(sizeof *tmp * (size_t)(n + 1));

		for (int i = 0; i < n; i++)
			a[i] = b[i] = key_of(rep % 3, i);
		qsort(a, (size_t)n, sizeof *a, cmp_u64);
		sm_radix_sort_u64(b, tmp, n);
		differ += n && memcmp(a, b, sizeof *a * (size_t)n) != 0;
		cases++;
		free(a);
		free(b);
		free(tmp);
	}
	CHECK(differ == 0, "radix sort = qsort on %d random key lists (%d differ)", cases, differ);
	differ = cases = 0;
	for (int rep = 0; rep < 600; rep++) {
		int n = rep < 3 ? rep : (int)rnd(rep % 2 ? 300 : 5000);
		const int lo = (int)rnd(40), bits = 1 + (int)rnd(24), digit = 1 + (int)rnd(SM_RADIX_FIELD_MAX_DIGIT);
		uint64_t *a = xmalloc(sizeof *a * (size_t)(n + 1));
		uint64_t *b = xmalloc(sizeof *b * (size_t)(n + 1));
		uint64_t *tmp = xmalloc(sizeof *tmp * (size_t)(n + 1));
		const uint64_t *got;

		for (int i = 0; i < n; i++)
			a[i] = b[i] = key_of(rep % 3, i);
		merge_field(a, tmp, n, lo, bits);
		got = sm_radix_sort_bits(b, tmp, n, lo, bits, digit) ? tmp : b;
		differ += n && memcmp(a, got, sizeof *a * (size_t)n) != 0;
		cases++;
		free(a);
		free(b);
		free(tmp);
	}
	CHECK(differ == 0, "radix sort by a field = stable merge sort on it, %d random lists (%d differ)",
	      cases, differ);
	return unit_end();
}
