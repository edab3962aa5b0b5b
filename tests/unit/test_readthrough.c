/* test_readthrough.c — sm_read_through (mapper/readthrough.h): pairs made
 * from random fragments and adapters that start alike (as a library's
 * two do), at every fragment length from below SM_RT_MIN_FRAGMENT to past
 * the reads, with sequencing errors up to the limit and one past it, mates
 * of unequal length, lowercase and N; adapters that start apart, pairs of
 * longer fragments and fragments inside a tandem repeat (none found); and
 * against a brute-force oracle written from the header's definition on
 * random pairs built to overlap. */
#include <ctype.h>
#include <string.h>

#include "mapper/readthrough.h"
#include "tests/unit/unit.h"

#define LEN_MAX 300

static void random_bases(char *s, int n)
{
	for (int i = 0; i < n; i++)
		s[i] = "ACGT"[rnd(4)];
	s[n] = '\0';
}

static char comp(char c)
{
	switch (toupper((unsigned char)c)) {
	case 'A': return 'T';
	case 'C': return 'G';
	case 'G': return 'C';
	case 'T': return 'A';
	default: return 'N';
	}
}

/* Whether make_pair's two adapters start alike (their first
 * SM_RT_TAIL_CHECK bases the same). */
static int adapters_alike = 1;

/* r1 = frag + adapter 1, r2 = revcomp(frag) + adapter 2, cut to n1, n2. */
static void make_pair(const char *frag, int flen, int n1, int n2, char *r1, char *r2)
{
	char a1[LEN_MAX + 1], a2[LEN_MAX + 1];

	random_bases(a1, LEN_MAX);
	random_bases(a2, LEN_MAX);
	if (adapters_alike)
		memcpy(a2, a1, SM_RT_TAIL_CHECK);
	for (int i = 0; i < n1; i++)
		r1[i] = i < flen ? frag[i] : a1[i - flen];
	for (int i = 0; i < n2; i++)
		r2[i] = i < flen ? comp(frag[flen - 1 - i]) : a2[i - flen];
	r1[n1] = r2[n2] = '\0';
}

/* n distinct positions of s[0..len) changed to another base. */
static void add_errors(char *s, int len, int n)
{
	for (int e = 0; e < n; e++) {
		int p;
		char b;

		do
			p = (int)rnd((uint32_t)len);
		while (islower((unsigned char)s[p]));   /* changed already */
		do
			b = "acgt"[rnd(4)];
		while (b == tolower((unsigned char)s[p]));
		s[p] = b;   /* lowercase marks it (and tests case) */
	}
}

/* The header's definition, directly. */
static int32_t oracle(const char *s1, int32_t n1, const char *s2, int32_t n2)
{
	int32_t shorter = n1 < n2 ? n1 : n2, found = 0, hits = 0;

	if (n1 > 1024 || n2 > 1024)
		return 0;
	for (int32_t len = SM_RT_MIN_FRAGMENT; len + SM_RT_MIN_TAIL <= shorter; len++) {
		int32_t diffs = 0, tail_diffs = 0;
		int32_t tail = shorter - len < SM_RT_TAIL_CHECK ? shorter - len : SM_RT_TAIL_CHECK;

		for (int32_t i = 0; i < len; i++) {
			char a = (char)toupper((unsigned char)s1[i]), b = comp(s2[len - 1 - i]);

			diffs += a != b || !strchr("ACGT", a) || b == 'N';
		}
		for (int32_t i = len; i < len + tail; i++) {
			char a = (char)toupper((unsigned char)s1[i]), b = (char)toupper((unsigned char)s2[i]);

			tail_diffs += a != b || !strchr("ACGT", a);
		}
		if (diffs <= sm_rt_max_diffs(len) && tail_diffs <= (tail == SM_RT_TAIL_CHECK ? 1 : 0)) {
			hits++;
			found = len;
		}
	}
	return hits == 1 ? found : 0;
}

static void test_fragments(void)
{
	char frag[LEN_MAX + 1], r1[LEN_MAX + 1], r2[LEN_MAX + 1];
	int bad_found = 0, bad_errors = 0, bad_over = 0, bad_short = 0, bad_long = 0, cases = 0;

	for (int flen = 1; flen <= 160; flen++)
		for (int rep = 0; rep < 4; rep++) {
			const int n1 = 150, n2 = rep == 3 ? 120 : 150;
			int32_t got;

			random_bases(frag, flen);
			make_pair(frag, flen, n1, n2, r1, r2);
			got = sm_read_through(r1, n1, r2, n2);
			cases++;
			if (flen < SM_RT_MIN_FRAGMENT)
				bad_short += got != 0;
			else if (flen + SM_RT_MIN_TAIL > (n1 < n2 ? n1 : n2))
				bad_long += got != 0;
			else if (got != flen)
				bad_found++;
			if (flen >= SM_RT_MIN_FRAGMENT && flen + SM_RT_MIN_TAIL <= n2) {
				/* errors in both reads' copies, up to the limit in all */
				int most = sm_rt_max_diffs(flen), e1 = (int)rnd((uint32_t)most + 1);

				make_pair(frag, flen, n1, n2, r1, r2);
				add_errors(r1, flen, e1);
				add_errors(r2, flen, most - e1);
				bad_errors += sm_read_through(r1, n1, r2, n2) != flen;
				/* one past the limit (the two reads' errors at distinct
				 * fragment positions: r1's i against r2's flen - 1 - i) */
				make_pair(frag, flen, n1, n2, r1, r2);
				for (int i = 0; i <= most; i++)
					r1[i * (flen / (most + 1))] = (char)tolower(comp(r1[i * (flen / (most + 1))]));
				bad_over += sm_read_through(r1, n1, r2, n2) != 0;
			}
		}
	CHECK(bad_found == 0, "fragments of 32..145 bp found at their length (%d wrong of %d pairs)",
	      bad_found, cases);
	CHECK(bad_short == 0, "fragments under %d bp: none (%d found)", SM_RT_MIN_FRAGMENT, bad_short);
	CHECK(bad_long == 0, "fragments that leave a read under %d bases of tail: none (%d found)",
	      SM_RT_MIN_TAIL, bad_long);
	CHECK(bad_errors == 0, "up to sm_rt_max_diffs errors over both reads, lowercase: found (%d missed)",
	      bad_errors);
	CHECK(bad_over == 0, "one difference past the limit: none (%d found)", bad_over);
}

static void test_not_adapter(void)
{
	char frag[LEN_MAX + 1], r1[LEN_MAX + 1], r2[LEN_MAX + 1];
	int found = 0, tandem = 0;

	/* longer fragments: each read is genome, no tail */
	for (int t = 0; t < 500; t++) {
		int flen = 151 + (int)rnd(LEN_MAX - 151);

		random_bases(frag, flen);
		make_pair(frag, flen, 150, 150, r1, r2);
		found += sm_read_through(r1, 150, r2, 150) != 0;
	}
	CHECK(found == 0, "pairs of 151-299 bp fragments: no read-through (%d found)", found);
	/* A read-through pair of a fragment inside a tandem repeat (periods
	 * 1..20): its copies agree at several lengths, one period apart, but
	 * only the fragment's own has adapter past it in both reads, unless the
	 * repeat is its own reverse complement ((AT)n: ambiguous, none); and a
	 * longer fragment inside one: no adapter, none.  (oracle() is below.) */
	found = 0;
	for (int period = 1; period <= 20; period++) {
		char unit[21], rcu[21];
		int palindrome;

		do {
			random_bases(unit, period);
			for (int i = 0; i < period; i++)
				rcu[i] = comp(unit[period - 1 - i]);
			rcu[period] = '\0';
			/* the repeat is its own reverse complement when rcu is a
			 * rotation of unit: tested with unit doubled */
			char twice[41];
			snprintf(twice, sizeof twice, "%s%s", unit, unit);
			palindrome = strstr(twice, rcu) != NULL;
		} while (period <= 2 && palindrome);   /* (AT)n is the next test's */
		for (int i = 0; i < 100; i++)
			frag[i] = unit[i % period];
		make_pair(frag, 100, 150, 150, r1, r2);
		/* a homopolymer's tails differ in one base a length earlier too,
		 * which the tails' check forgives: ambiguous, as the oracle says */
		{
			int32_t got = sm_read_through(r1, 150, r2, 150);
			int32_t want = oracle(r1, 150, r2, 150);

			found += want == 100;

			if (got != want)
				printf("#    period %d (%s%s): %d, want %d\n", period, unit,
				       palindrome ? ", palindrome" : "", got, want);
			tandem += got != want;
		}
		for (int i = 0; i < 280; i++)
			frag[i] = unit[i % period];
		make_pair(frag, 280, 150, 150, r1, r2);
		if (sm_read_through(r1, 150, r2, 150) != 0)
			printf("#    period %d (%s), a 280 bp fragment: found\n", period, unit);
		tandem += sm_read_through(r1, 150, r2, 150) != 0;
	}
	for (int i = 0; i < 100; i++)
		frag[i] = "AT"[i % 2];
	make_pair(frag, 100, 150, 150, r1, r2);
	tandem += sm_read_through(r1, 150, r2, 150) != 0;
	CHECK(tandem == 0 && found >= 15, "fragments inside tandem repeats of period 1-20: as the "
	      "oracle says (%d at the fragment's length), none for (AT)n or a longer fragment (%d wrong)",
	      found, tandem);
	/* adapters that start apart: none (readthrough.h) */
	adapters_alike = 0;
	found = 0;
	for (int t = 0; t < 200; t++) {
		random_bases(frag, 100);
		make_pair(frag, 100, 150, 150, r1, r2);
		found += sm_read_through(r1, 150, r2, 150) != 0;
	}
	adapters_alike = 1;
	CHECK(found <= 2, "adapters whose first %d bases differ at random: none (%d of 200 found)",
	      SM_RT_TAIL_CHECK, found);
	/* one difference in the tails' first SM_RT_TAIL_CHECK bases is a
	 * sequencing error; two are not adapter */
	random_bases(frag, 100);
	make_pair(frag, 100, 150, 150, r1, r2);
	r1[103] = (char)tolower(comp(r1[103]));
	CHECK(sm_read_through(r1, 150, r2, 150) == 100, "one difference where the tails start: found");
	r2[106] = (char)tolower(comp(r2[106]));
	CHECK(sm_read_through(r1, 150, r2, 150) == 0, "two: none");
	/* N in a copy counts as a difference; too many Ns: none */
	random_bases(frag, 80);
	make_pair(frag, 80, 150, 150, r1, r2);
	for (int i = 0; i < 11; i++)
		r1[i * 7] = 'N';
	CHECK(sm_read_through(r1, 150, r2, 150) == 0, "11 Ns in an 80 bp fragment's copy: none");
	for (int i = 0; i < 11; i++)
		r1[i * 7] = frag[i * 7];
	r1[40] = 'n';
	CHECK(sm_read_through(r1, 150, r2, 150) == 80, "one N: found");
	CHECK(sm_read_through(r1, 1100, r2, 150) == 0, "a read over the length looked at: none");
}

static void test_oracle(void)
{
	char frag[LEN_MAX + 1], r1[LEN_MAX + 1], r2[LEN_MAX + 1];
	int diff = 0, found = 0;

	for (int t = 0; t < 3000; t++) {
		int n1 = 20 + (int)rnd(220), n2 = 20 + (int)rnd(220), flen = 20 + (int)rnd(240);
		int32_t want, got;

		if (rnd(4) == 0) {   /* a short period, often ambiguous */
			char unit[8];
			int period = 1 + (int)rnd(7);

			random_bases(unit, period);
			for (int i = 0; i < flen; i++)
				frag[i] = unit[i % period];
			frag[flen] = '\0';
		} else {
			random_bases(frag, flen);
		}
		make_pair(frag, flen, n1, n2, r1, r2);
		add_errors(r1, n1, (int)rnd(8));
		if (rnd(3) == 0)
			r2[rnd((uint32_t)n2)] = 'N';
		want = oracle(r1, n1, r2, n2);
		got = sm_read_through(r1, n1, r2, n2);
		diff += want != got;
		found += got != 0;
	}
	CHECK(diff == 0 && found > 500, "3000 random pairs against the oracle: %d differ (%d found)", diff,
	      found);
}

/* sm_adapter_start against a brute-force oracle written from the header's
 * definition (the kits' adapters listed here again): random single reads
 * of 20-300 bases, most holding an adapter's first bases at a random place
 * (the whole adapter or as much as the read has, then more random bases),
 * with 0-2 differences in it, some with an N, some lowercase; and random
 * reads alone, of which at most one in 1,000 may hold an adapter by
 * chance. */
static const char *const KITS[] = { "AGATCGGAAGAGC", "CTGTCTCTTATACACATCT",
				    "TGGAATTCTCGGGTGCCAAGG", "AAGTCGGAGGCCAAGCGGTC",
				    "AAGTCGGATCGTAGCCATGTC" };
#define N_KITS ((int)(sizeof KITS / sizeof *KITS))

static int oracle_adapter(const char *s, int n)
{
	for (int at = SM_RT_MIN_FRAGMENT; at < n; at++)
		for (int a = 0; a < N_KITS; a++) {
			int len = (int)strlen(KITS[a]), m = len < n - at ? len : n - at, diffs = 0;

			if (m < SM_RT_AD_MIN)
				continue;
			for (int i = 0; i < m; i++)
				diffs += toupper((unsigned char)s[at + i]) != KITS[a][i];
			if (diffs <= (m >= SM_RT_AD_ONE_DIFF ? 1 : 0))
				return at;
		}
	return 0;
}

static void test_adapter(void)
{
	enum { N = 40000 };
	char s[LEN_MAX + 1];
	int agree = 0, planted = 0, found_planted = 0, random_reads = 0, chance = 0, shown = 0;

	for (int r = 0; r < N; r++) {
		const int n = 20 + (int)rnd(LEN_MAX - 19), plant = r % 5 != 0;
		const int a = (int)rnd(N_KITS), at = (int)rnd((uint32_t)n);
		const int errors = (int)rnd(3);

		random_bases(s, n);
		if (plant) {
			for (int i = 0; KITS[a][i] && at + i < n; i++)
				s[at + i] = KITS[a][i];
			for (int e = 0; e < errors; e++) {
				int p = at + (int)rnd(20);

				if (p < n)
					s[p] = "ACGTN"[rnd(5)];
			}
		}
		if (r % 7 == 0)
			s[rnd((uint32_t)n)] = 'N';
		if (r % 3 == 0)
			for (int i = 0; i < n; i++)
				s[i] = (char)tolower((unsigned char)s[i]);
		const int want = oracle_adapter(s, n), got = sm_adapter_start(s, n);

		agree += got == want;
		if (got != want && !shown++)
			printf("# read %d (%d bases): %d, oracle %d\n", r, n, got, want);
		if (plant && errors == 0 && r % 7 != 0 && at >= SM_RT_MIN_FRAGMENT &&
		    n - at >= SM_RT_AD_MIN) {
			planted++;
			found_planted += got > 0 && got <= at;
		}
		if (!plant) {
			random_reads++;
			chance += got > 0;
		}
	}
	CHECK(agree == N, "adapters: sm_adapter_start as the oracle for %d of %d reads", agree, N);
	CHECK(planted > 1000 && found_planted == planted,
	      "adapters: every exact adapter found, at its start or before (%d of %d)",
	      found_planted, planted);
	CHECK(random_reads > 1000 && chance * 1000 <= random_reads,
	      "adapters: %d of %d random reads hold one by chance", chance, random_reads);
}

int main(void)
{
	unit_begin("test_readthrough");
	test_fragments();
	test_not_adapter();
	test_oracle();
	test_adapter();
	return unit_end();
}
