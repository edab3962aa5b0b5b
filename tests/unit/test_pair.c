/* test_pair.c — sm_pair_unsure (mapper/map_impl.h): the unsure level of a
 * pair from its two reads' candidates.  A sure read vouches for an unsure
 * mate; two reads that each tie or trail a locus of their own make the pair
 * SM_UNSURE_RIVAL at least, unless both tie with every tie in view (neither
 * ties_open nor ties_cut, neither rescued); a read placed below its own
 * best (by rescue or pairing) vouches for nothing, so the pair takes its
 * mate's own level, a locus out of view that may tie the mate (ties_open)
 * counting as SM_UNSURE_RIVAL.  Every combination of the two reads' levels,
 * leads, rescue, ties_open and ties_cut is checked against those rules
 * written out here. */
#include "mapper/map_impl.h"
#include "tests/unit/unit.h"

static res_t res[2];

/* A read: its candidate's objective score, the best of its other loci
 * (xs), unsure level and whether it was rescued; ties_open and ties_cut
 * for the read. */
typedef struct {
	int32_t score, xs;
	int unsure, rescued, ties_open, ties_cut;
} read_t;

/* Read e as x says, at its candidate 0. */
static void set_read(int e, const read_t *x)
{
	cand_t *c = &res[e].cand[0];

	memset(c, 0, sizeof *c);
	c->score = x->score;
	c->xs = x->xs;
	c->unsure = x->unsure;
	c->rescued = x->rescued;
	res[e].n_cand = 1;
	res[e].prim = 0;
	res[e].ties_open = x->ties_open;
	res[e].ties_cut = x->ties_cut;
}

/* A case the rules name: the two reads and the level they make. */
typedef struct {
	read_t read[2];
	int want;
	const char *what;
} named_t;

static const named_t named[] = {
	{ { { 100, 90, SM_SURE, 0, 0, 0 }, { 100, 80, SM_UNSURE_BETTER, 0, 0, 0 } }, SM_SURE,
	  "a sure read vouches for an unsure mate" },
	{ { { 100, 100, SM_SURE, 0, 0, 1 }, { 100, 100, SM_SURE, 0, 0, 0 } }, SM_UNSURE_RIVAL,
	  "both reads tie elsewhere, one's lists full of ties: SM_UNSURE_RIVAL" },
	{ { { 100, 100, SM_SURE, 0, 0, 0 }, { 100, 100, SM_SURE, 0, 1, 0 } }, SM_UNSURE_RIVAL,
	  "both reads tie elsewhere, one may tie out of view: SM_UNSURE_RIVAL" },
	{ { { 100, 100, SM_SURE, 1, 0, 0 }, { 100, 100, SM_SURE, 0, 0, 0 } }, SM_UNSURE_RIVAL,
	  "both reads tie elsewhere, one rescued: SM_UNSURE_RIVAL" },
	{ { { 100, 105, SM_SURE, 0, 0, 0 }, { 100, 100, SM_SURE, 0, 0, 0 } }, SM_UNSURE_RIVAL,
	  "one read trails its own best, the other ties: SM_UNSURE_RIVAL" },
	/* E. coli IS copies: each read ties 3 and 6 copies, all candidates,
	 * and one pair of them lies at the insert. */
	{ { { 125, 125, SM_SURE, 0, 0, 0 }, { 145, 145, SM_SURE, 0, 0, 0 } }, SM_SURE,
	  "both reads tie elsewhere with every tie in view: the pair is sure" },
	/* 36 bp chr20 pair: read 0 rescued beside its mate, 5 below a copy of
	 * its own; read 1 leads what it sees by 5, and its first seeding could
	 * not rule out an equal locus out of view (its true one). */
	{ { { 41, 46, SM_UNSURE_RIVAL, 1, 0, 0 }, { 41, 36, SM_SURE, 0, 1, 0 } }, SM_UNSURE_RIVAL,
	  "a rescued read below its own best: the mate's open ties make the pair unsure" },
	{ { { 41, 46, SM_UNSURE_RIVAL, 1, 0, 0 }, { 41, 36, SM_SURE, 0, 0, 0 } }, SM_SURE,
	  "a read below its own best, its mate sure with no tie out of view: sure" },
	{ { { 41, 36, SM_SURE, 0, 1, 0 }, { 41, 46, SM_SURE, 0, 0, 0 } }, SM_UNSURE_RIVAL,
	  "the same with the reads swapped" },
	{ { { 100, 90, SM_UNSURE_BETTER, 0, 0, 0 }, { 95, 100, SM_SURE, 0, 0, 0 } }, SM_UNSURE_BETTER,
	  "a read below its own best vouches for nothing: the mate's SM_UNSURE_BETTER stands" },
	{ { { 100, 90, SM_SURE, 0, 1, 0 }, { 100, 90, SM_SURE, 0, 1, 0 } }, SM_SURE,
	  "open ties weigh nothing while both reads lead: each mate vouches" },
};

/* The rules, from the header's definition. */
static int oracle(const cand_t *a, const read_t *ra, const cand_t *b, const read_t *rb)
{
	int lead_a = a->rescued ? 0 : a->score - a->xs, lead_b = b->rescued ? 0 : b->score - b->xs;
	int level = a->unsure < b->unsure ? a->unsure : b->unsure;
	int voucher_a = a->unsure == SM_SURE && ra->ties_open ? SM_UNSURE_RIVAL : a->unsure;
	int voucher_b = b->unsure == SM_SURE && rb->ties_open ? SM_UNSURE_RIVAL : b->unsure;
	int seen_a = !a->rescued && lead_a == 0 && !ra->ties_cut && voucher_a == SM_SURE;
	int seen_b = !b->rescued && lead_b == 0 && !rb->ties_cut && voucher_b == SM_SURE;

	if (lead_a <= 0 && lead_b <= 0)
		return seen_a && seen_b ? level : level > SM_UNSURE_RIVAL ? level : SM_UNSURE_RIVAL;
	if (a->score < a->xs)
		return voucher_b;
	if (b->score < b->xs)
		return voucher_a;
	return level;
}

int main(void)
{
	static const int32_t xs[] = { 90, 100, 105 };   /* lead +10, tie, -5 at score 100 */
	int n = 0, bad = 0;

	/* The cases the rules name, one by one. */
	for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
		const named_t *c = &named[i];

		set_read(0, &c->read[0]);
		set_read(1, &c->read[1]);
		CHECK(sm_pair_unsure(res, 0, 0) == c->want, "%s", c->what);
	}

	/* Every combination against the rules. */
	for (int la = 0; la < 3; la++)
		for (int lb = 0; lb < 3; lb++)
			for (int ua = SM_SURE; ua <= SM_UNSURE_BETTER; ua++)
				for (int ub = SM_SURE; ub <= SM_UNSURE_BETTER; ub++)
					for (int bits = 0; bits < 64; bits++) {
						const read_t a = { 100, xs[la], ua, bits & 1, bits >> 2 & 1,
								   bits >> 4 & 1 };
						const read_t b = { 100, xs[lb], ub, bits >> 1 & 1, bits >> 3 & 1,
								   bits >> 5 & 1 };

						set_read(0, &a);
						set_read(1, &b);
						bad += sm_pair_unsure(res, 0, 0) !=
						       oracle(&res[0].cand[0], &a, &res[1].cand[0], &b);
						n++;
					}
	CHECK(bad == 0, "%d combinations of leads, levels, rescue, open and cut ties: %d differ from the rules",
	      n, bad);
	return unit_end();
}
