/* test_gpu_plan.c — the GPU engine's host-side planning (gpu/gpu_plan.h)
 * and option parsers (gpu/gpu_opt.h), without a GPU: the knob and device
 * list parsers, device resolution and the engine choice, the tuning
 * table, groups and lanes (every query in exactly one lane, longest first,
 * the ladder prefix, lane pairs), packed rows, per-group reference
 * layouts, launch ranges and workspace regions, on fixed-seed random
 * inputs of awkward sizes. */
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu_plan.h"
#include "tests/unit/unit.h"

static const sm_score_t bwa_sc = { 1, 4, 6, 1, 0, 0 };

static void test_tune(void)
{
	sm_gpu_tune_t t, zero;
	int rc;

	sm_gpu_tune_init(&t);
	memset(&zero, 0, sizeof zero);
	CHECK(!memcmp(&t, &zero, sizeof t), "tune: the defaults are all zero");
	CHECK(sm_gpu_tune_parse(&t, "slots=4,wait=block,poll-us=50,gref-halos=none,range-halos=3,"
				    "warps=40,lane-pairs=0,fail=1:3") == 0 &&
	      t.slots == 4 && t.wait == SM_GPU_WAIT_BLOCK && t.poll_us == 50 &&
	      t.gref_halos == SM_GPU_GREF_NO_SPLIT && t.range_halos == 3 && t.warps_per_sm == 40 &&
	      t.no_lane_pairs == 1 && t.fail_engine == 1 && t.fail_call == 3, "tune: every key parsed");
	CHECK(sm_gpu_tune_parse(&t, "gref-halos=12,lane-pairs=1,wait=poll") == 0 && t.gref_halos == 12 &&
	      t.no_lane_pairs == 0 && t.wait == SM_GPU_WAIT_POLL, "tune: later values replace earlier ones");
	CHECK(sm_gpu_tune_parse(&t, "") == 0, "tune: empty spec");
	capture_begin();
	rc = sm_gpu_tune_parse(&t, "slots=17");
	capture_end();
	CHECK(rc < 0 && strstr(errbuf, "slots=17"), "tune: slots out of range (%s)", errbuf);
	capture_begin();
	rc = sm_gpu_tune_parse(&t, "speed=11");
	capture_end();
	CHECK(rc < 0 && strstr(errbuf, "unknown key 'speed'"), "tune: unknown key (%s)", errbuf);
	capture_begin();
	rc = sm_gpu_tune_parse(&t, "slots");
	rc += sm_gpu_tune_parse(&t, "wait=fast");
	rc += sm_gpu_tune_parse(&t, "fail=1");
	rc += sm_gpu_tune_parse(&t, "poll-us=5x");
	capture_end();
	CHECK(rc == -4, "tune: malformed pairs refused");
}

static void test_lists(void)
{
	sm_gpu_list_t l, r;
	char msg[256], buf[64];
	int rc;

	CHECK(sm_gpu_list_parse(&l, "all") == 0 && l.n == 0, "gpus: all");
	CHECK(sm_gpu_list_parse(&l, "3") == 0 && l.n == 3 && l.id[0] == 0 && l.id[2] == 2, "gpus: a count");
	CHECK(sm_gpu_list_parse(&l, "1,0,1") == 0 && l.n == 3 && l.id[0] == 1 && l.id[1] == 0 &&
	      l.id[2] == 1, "gpus: a list with a repeat");
	sm_gpu_list_format(&l, buf, (int)sizeof buf);
	CHECK(!strcmp(buf, "1,0,1"), "gpus: formatted (%s)", buf);
	capture_begin();
	rc = sm_gpu_list_parse(&l, "0") + sm_gpu_list_parse(&l, "x") + sm_gpu_list_parse(&l, "1,,2") +
	     sm_gpu_list_parse(&l, "0,") + sm_gpu_list_parse(&l, "-1,2") +
	     sm_gpu_list_parse(&l, "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16");
	capture_end();
	CHECK(rc == -6, "gpus: bad lists refused (count 0, words, empty items, too many)");

	sm_gpu_list_parse(&l, "all");
	CHECK(sm_gpu_list_resolve(&l, 3, &r, msg, (int)sizeof msg) == 0 && r.n == 3 && r.id[2] == 2,
	      "resolve: all of 3 visible");
	sm_gpu_list_parse(&l, "0,0");
	CHECK(sm_gpu_list_resolve(&l, 1, &r, msg, (int)sizeof msg) == 0 && r.n == 2 && r.id[1] == 0,
	      "resolve: one device twice");
	sm_gpu_list_parse(&l, "1,3");
	CHECK(sm_gpu_list_resolve(&l, 2, &r, msg, (int)sizeof msg) < 0 &&
	      strstr(msg, "GPU 3 not present: 2 visible"), "resolve: a missing device named (%s)", msg);
	CHECK(sm_gpu_list_resolve(&l, 0, &r, msg, (int)sizeof msg) < 0 && strstr(msg, "no CUDA device"),
	      "resolve: none visible (%s)", msg);
}

static void test_pick(void)
{
	int in_flight[3] = { 2, 1, 1 }, failed[3] = { 0, 0, 0 }, seq[6];
	uint64_t taken[3] = { 0, 5, 4 };

	CHECK(sm_gpu_pick_engine(in_flight, taken, failed, 3) == 2,
	      "pick: fewest in flight, then fewest taken");
	failed[2] = 1;
	CHECK(sm_gpu_pick_engine(in_flight, taken, failed, 3) == 1, "pick: a failed engine is skipped");
	failed[0] = failed[1] = 1;
	CHECK(sm_gpu_pick_engine(in_flight, taken, failed, 3) == -1, "pick: none left");
	/* Calls one after another take turns over three engines. */
	memset(failed, 0, sizeof failed);
	memset(in_flight, 0, sizeof in_flight);
	memset(taken, 0, sizeof taken);
	for (int k = 0; k < 6; k++) {
		seq[k] = sm_gpu_pick_engine(in_flight, taken, failed, 3);
		taken[seq[k]]++;
	}
	CHECK(seq[0] == 0 && seq[1] == 1 && seq[2] == 2 && seq[3] == 0 && seq[5] == 2,
	      "pick: sequential calls rotate");
}

static void test_arch(void)
{
	CHECK(sm_gpu_arch_tune(90)->min_cc == 90 && sm_gpu_arch_tune(90)->warps_per_sm == 96 &&
	      sm_gpu_arch_tune(90)->gref_warps_per_sm == 32 && sm_gpu_arch_tune(90)->slots == 8,
	      "arch: sm_90's row");
	CHECK(sm_gpu_arch_tune(100)->min_cc == 90, "arch: newer than the table: the newest row");
	CHECK(sm_gpu_arch_tune(89)->min_cc == 86 && sm_gpu_arch_tune(80)->min_cc == 80,
	      "arch: rows by compute capability");
	CHECK(sm_gpu_arch_tune(70)->min_cc == 75, "arch: older than the table: the oldest row");
}

/* n random queries of lengths 1..max_len (codes 0..4 and a few above). */
static sm_query_t *random_queries(int n, int max_len, uint8_t **buf)
{
	sm_query_t *q = xmalloc(sizeof *q * (size_t)n);

	*buf = xmalloc((size_t)n * (size_t)max_len);
	for (int k = 0; k < n; k++) {
		q[k].len = 1 + (int)rnd((uint32_t)max_len);
		q[k].seq = *buf + (size_t)k * max_len;
		for (int i = 0; i < q[k].len; i++)
			(*buf)[(size_t)k * max_len + i] = (uint8_t)(rnd(20) ? rnd(4) : 4 + rnd(3));
	}
	return q;
}

typedef struct {
	sm_gpu_groups_t gr;
	void *scratch;
} groups_mem_t;

static void groups_alloc(groups_mem_t *m, int n, int Q)
{
	const size_t nn = (size_t)(n > 0 ? n : 1);

	m->scratch = xmalloc(sm_gpu_group_scratch_bytes(n));
	m->gr.lq = xmalloc(sizeof(int) * nn * Q);
	m->gr.shift = xmalloc(sizeof(int32_t) * nn * Q);
	m->gr.glen = xmalloc(sizeof(int32_t) * nn);
	m->gr.qoff = xmalloc(sizeof(int64_t) * nn);
}

static void groups_free(groups_mem_t *m)
{
	free(m->scratch);
	free(m->gr.lq);
	free(m->gr.shift);
	free(m->gr.glen);
	free(m->gr.qoff);
}

/* What every grouping must hold: each query in exactly one lane; groups
 * longest first, each as long as its longest lane; rows' offsets; the
 * ladder groups a prefix; each lane's locus shift. */
static int groups_ok(const sm_gpu_groups_t *gr, int n, const sm_query_t *q, int bits,
		     const sm_score_t *sc)
{
	int *seen = calloc((size_t)n, sizeof *seen), ok = 1;
	int64_t rows = 0;

	for (int gi = 0; gi < gr->ngroups; gi++) {
		int longest = 0;

		ok &= gi == 0 || gr->glen[gi] <= gr->glen[gi - 1];
		ok &= gr->qoff[gi] == rows;
		rows += (int64_t)gr->glen[gi] * gr->Q;
		ok &= ((int64_t)gr->glen[gi] * sc->match > sm_gpu_lane_limit(bits) && bits < 32) ==
		      (gi < gr->nladder);
		for (int l = 0; l < gr->Q; l++) {
			const int k = gr->lq[gi * gr->Q + l];

			if (k < 0) {
				ok &= gr->shift[gi * gr->Q + l] == sm_locus_shift(sc, 1);
				continue;
			}
			ok &= k < n && !seen[k];
			seen[k] = 1;
			longest = q[k].len > longest ? q[k].len : longest;
			ok &= gr->shift[gi * gr->Q + l] == sm_locus_shift(sc, q[k].len);
		}
		ok &= longest == gr->glen[gi];
	}
	for (int k = 0; k < n; k++)
		ok &= seen[k];
	ok &= rows == gr->rows_total;
	free(seen);
	return ok;
}

/* Every lane of the packed rows: N rows, then its query's codes clamped to N. */
static int rows_ok(const sm_gpu_groups_t *gr, const sm_query_t *q, const uint8_t *rows)
{
	for (int gi = 0; gi < gr->ngroups; gi++)
		for (int l = 0; l < gr->Q; l++) {
			const int k = gr->lq[gi * gr->Q + l], L = gr->glen[gi], len = k >= 0 ? q[k].len : 0;
			const uint8_t *r = rows + gr->qoff[gi] + l;

			for (int i = 0; i < L; i++) {
				const uint8_t want = i < L - len ? SM_BASE_N :
						     q[k].seq[i - (L - len)] < SM_BASE_N ? q[k].seq[i - (L - len)] : SM_BASE_N;

				if (r[(size_t)i * gr->Q] != want)
					return 0;
			}
		}
	return 1;
}

/* marked (packed with mark_first) differs from rows exactly at each query's
 * first base, by SM_GPU_FIRST_CODE. */
static int first_marked(const sm_gpu_groups_t *gr, const sm_query_t *q, const uint8_t *rows,
			const uint8_t *marked)
{
	int64_t diffs = 0, firsts = 0;

	for (int64_t x = 0; x < gr->rows_total; x++)
		diffs += rows[x] != marked[x];
	for (int gi = 0; gi < gr->ngroups; gi++)
		for (int l = 0; l < gr->Q; l++) {
			const int k = gr->lq[gi * gr->Q + l];
			int64_t at;

			if (k < 0)
				continue;
			at = gr->qoff[gi] + (int64_t)(gr->glen[gi] - q[k].len) * gr->Q + l;
			if (marked[at] != rows[at] + SM_GPU_FIRST_CODE)
				return 0;
			firsts++;
		}
	return diffs == firsts;
}

static void test_whole_groups(void)
{
	static const int sizes[] = { 0, 1, 2, 3, 31, 33, 1000 };
	static const int widths[] = { 8, 16, 32 };
	const sm_score_t big = { 40, 4, 6, 1, 0, 0 };   /* 16-bit lanes overflow past 819 bases */
	uint8_t n_row[1200];

	memset(n_row, SM_BASE_N, sizeof n_row);
	unit_seed(11);
	for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
		for (size_t w = 0; w < sizeof widths / sizeof *widths; w++) {
			const int n = sizes[s], bits = widths[w], Q = 32 / bits;
			const sm_score_t *sc = s % 2 ? &big : &bwa_sc;
			uint8_t *buf, *rows, *marked;
			sm_query_t *q = random_queries(n > 0 ? n : 1, 1100, &buf);
			groups_mem_t m;

			groups_alloc(&m, n, Q);
			sm_gpu_make_groups(n, q, NULL, Q, 0, bits, sc, m.scratch, &m.gr);
			rows = xmalloc((size_t)m.gr.rows_total + 1);
			marked = xmalloc((size_t)m.gr.rows_total + 1);
			sm_gpu_pack_rows(&m.gr, q, n_row, 0, rows);
			sm_gpu_pack_rows(&m.gr, q, n_row, 1, marked);
			CHECK(m.gr.ngroups == (n + Q - 1) / Q && groups_ok(&m.gr, n, q, bits, sc) &&
			      m.gr.lane_pairs == 0 && rows_ok(&m.gr, q, rows),
			      "whole reference: %d queries, %d-bit lanes: groups, ladder prefix, shifts, rows", n, bits);
			CHECK(first_marked(&m.gr, q, rows, marked),
			      "whole reference: %d queries, %d-bit lanes: each first base marked, nothing else", n, bits);
			free(rows);
			free(marked);
			groups_free(&m);
			free(q);
			free(buf);
		}
}

/* sm_gpu_sort_groups gives qsort's order with sm_gpu_group_cmp: shapes
 * with many ties (radix keys), and with a length or a reference too long
 * for the keys' fields (qsort). */
static void test_sort_groups(void)
{
	static const int sizes[] = { 0, 1, 2, 17, 1000, 5000 };

	unit_seed(13);
	for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
		for (int big = 0; big < 3; big++) {
			const int n = sizes[s];
			sm_gpu_group_t *a = xmalloc(sizeof *a * (size_t)(n + 1)),
				       *b = xmalloc(sizeof *b * (size_t)(n + 1)),
				       *copy = xmalloc(sizeof *copy * (size_t)(n + 1));
			uint64_t *keys = xmalloc(sizeof *keys * 2 * (size_t)(n + 1));
			int same = 1;

			for (int k = 0; k < n; k++) {
				a[k].first = 3 * k + (int)rnd(3);   /* rising with the index */
				a[k].len = 100 + (int)rnd(4) * 50;
				a[k].cols = rnd(3) ? 0 : (int64_t)rnd(5) * 1000;
				a[k].n = 1 + (int)rnd(2);
				a[k].second = -1;
			}
			if (n > 0 && big == 1)
				a[rnd((uint32_t)n)].len = 1 << 21;
			if (n > 0 && big == 2)
				a[rnd((uint32_t)n)].cols = (int64_t)1 << 30;
			memcpy(b, a, sizeof *a * (size_t)n);
			qsort(a, (size_t)n, sizeof *a, sm_gpu_group_cmp);
			sm_gpu_sort_groups(b, n, keys, copy);
			for (int k = 0; k < n; k++)
				same &= a[k].first == b[k].first && a[k].len == b[k].len && a[k].cols == b[k].cols &&
					a[k].n == b[k].n;
			CHECK(same, "groups sorted: %d groups%s: qsort's order", n,
			      big == 1 ? ", one too long" : big == 2 ? ", one with a reference too long" : "");
			free(a);
			free(b);
			free(copy);
			free(keys);
		}
}

/* Groups whose lanes all hold reads of one length (sm_gpu_pack_rows packs
 * them 16 rows a step): reads of lengths from under one step to many,
 * codes above N among them. */
static void test_full_groups(void)
{
	static const int lens[] = { 15, 16, 31, 150, 250 };
	static const int sizes[] = { 1, 2, 7, 64, 301 };
	uint8_t n_row[256];

	memset(n_row, SM_BASE_N, sizeof n_row);
	unit_seed(12);
	for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
		for (int bits = 8; bits <= 32; bits *= 2) {
			const int n = sizes[s], Q = 32 / bits;
			uint8_t *buf, *rows, *marked;
			sm_query_t *q = random_queries(n, 250, &buf);
			groups_mem_t m;
			int full = 0;

			/* A few reads all of one length; many of mixed lengths. */
			for (int k = 0; k < n; k++)
				q[k].len = n < 64 ? lens[s] : lens[rnd(sizeof lens / sizeof *lens)];
			groups_alloc(&m, n, Q);
			sm_gpu_make_groups(n, q, NULL, Q, 0, bits, &bwa_sc, m.scratch, &m.gr);
			for (int gi = 0; gi < m.gr.ngroups; gi++) {
				int all = 1;

				for (int l = 0; l < Q; l++) {
					const int k = m.gr.lq[gi * Q + l];

					all &= k < 0 || q[k].len == m.gr.glen[gi];
				}
				full += all;
			}
			rows = xmalloc((size_t)m.gr.rows_total + 1);
			marked = xmalloc((size_t)m.gr.rows_total + 1);
			sm_gpu_pack_rows(&m.gr, q, n_row, 0, rows);
			sm_gpu_pack_rows(&m.gr, q, n_row, 1, marked);
			CHECK(full > 0 && rows_ok(&m.gr, q, rows) && first_marked(&m.gr, q, rows, marked),
			      "whole reference, reads of five lengths: %d queries, %d-bit lanes (%d full groups): rows, first bases",
			      n, bits, full);
			free(rows);
			free(marked);
			groups_free(&m);
			free(q);
			free(buf);
		}
}

/* R random references of 1..3 contigs (a read's windows). */
static sm_ref_t **random_refs(int R)
{
	sm_ref_t **refs = xmalloc(sizeof *refs * (size_t)R);
	char *seq[3], names[3][16];
	const char *np[3];

	for (int r = 0; r < R; r++) {
		const int nc = 1 + (int)rnd(3);

		for (int c = 0; c < nc; c++) {
			const int len = 1 + (int)rnd(700);

			seq[c] = xmalloc((size_t)len + 1);
			for (int i = 0; i < len; i++)
				seq[c][i] = "ACGTN"[rnd(20) ? rnd(4) : 4];
			seq[c][len] = 0;
			snprintf(names[c], sizeof names[c], "w%d", c);
			np[c] = names[c];
		}
		if (sm_ref_from_strings(nc, np, (const char *const *)seq, &refs[r]) < 0)
			exit(2);
		/* Windows of a long reference: their global coordinates. */
		for (int c = 0; c < nc; c++) {
			refs[r]->offset[c] = (c ? refs[r]->offset[c - 1] + refs[r]->len[c - 1] : 0) +
					     1000 * (int64_t)(1 + rnd(1000)) + rnd(64);
			free(seq[c]);
		}
	}
	return refs;
}

static void test_own_refs(void)
{
	static const int sizes[] = { 1, 2, 5, 64, 301 };

	unit_seed(22);
	for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
		for (int pair = 0; pair < 2; pair++) {
			const int n = sizes[s], Q = 2, R = n;
			uint8_t *buf;
			sm_query_t *q = random_queries(n, 300, &buf);
			sm_ref_t **refs = random_refs(R);
			const sm_ref_t **qref = xmalloc(sizeof *qref * (size_t)n);
			groups_mem_t m;
			int same_ok = 1, pairs = 0;

			/* Strands: runs of 1 or 2 queries share a reference. */
			for (int k = 0, r = 0; k < n; r++) {
				qref[k++] = refs[r];
				if (k < n && rnd(2))
					qref[k++] = refs[r];
			}
			groups_alloc(&m, n, Q);
			sm_gpu_make_groups(n, q, (const sm_ref_t *const *)qref, Q, pair, 16, &bwa_sc,
					   m.scratch, &m.gr);
			for (int gi = 0; gi < m.gr.ngroups; gi++) {
				const int a = m.gr.lq[gi * Q], b = m.gr.lq[gi * Q + 1];

				if (b >= 0 && qref[a] != qref[b])
					pairs++;
				same_ok &= a >= 0;
			}
			CHECK(groups_ok(&m.gr, n, q, 16, &bwa_sc) && same_ok && pairs == m.gr.lane_pairs &&
			      (pair || pairs == 0),
			      "own references: %d queries, pairing %s: every query once, %d lane pairs",
			      n, pair ? "on" : "off", pairs);

			/* Their layout: each lane's contigs congruent to their own
			 * coordinates modulo 64, in the group's region, apart. */
			{
				const int64_t nc = sm_gpu_ref_slots(&m.gr, (const sm_ref_t *const *)qref);
				int64_t *tab = xmalloc(sizeof(int64_t) * (size_t)sm_gpu_ref_tab_len(m.gr.ngroups, nc));
				int32_t *gcontig = xmalloc(sizeof(int32_t) * (size_t)(m.gr.ngroups + 1));
				int64_t whole_off[2] = { 0, 5000000 }, whole_dev[2] = { 192, 5000000 + 384 };
				const sm_gpu_ref_map_t map = { whole_off, whole_dev, 2 };
				sm_ref_src_t *src = xmalloc(sizeof *src * (size_t)n);
				int64_t **starts = xmalloc(sizeof *starts * (size_t)n);
				sm_gpu_ref_layout_t rl;
				int ok = 1;

				for (int k = 0; k < n; k++) {
					starts[k] = xmalloc(sizeof(int64_t) * 3);
					for (int c = 0; c < 3; c++)
						starts[k][c] = rnd(2) ? rnd(4000000) : 5000000 + rnd(1000000);
					src[k].start = starts[k];
					src[k].rev = (int)rnd(2);
				}
				sm_gpu_layout_refs(&m.gr, (const sm_ref_t *const *)qref, src, &map, nc, tab,
						   gcontig, &rl);
				for (int gi = 0; gi < m.gr.ngroups; gi++) {
					const int k[2] = { m.gr.lq[gi * Q], sm_gpu_odd_lane(m.gr.lq, gi, Q) };
					const int32_t c0 = gcontig[gi];

					ok &= rl.gref[gi] % SM_GPU_PAD_ALIGN == 0;
					ok &= gi == 0 || rl.gref[gi] == rl.gref[gi - 1] +
							 sm_gpu_round_up(rl.gdev_len[gi - 1], SM_GPU_PAD_ALIGN);
					for (int l = 0; l < 2; l++) {
						const sm_ref_t *r = qref[k[l]];
						int64_t prev_end = -SM_GPU_GREF_SEP;

						for (int32_t c = 0; c < r->n_contig; c++) {
							const int64_t *lt = rl.lt + 4 * l * nc + c0 + c;
							const int64_t x = src[k[l]].start[c];
							const int kc = x >= whole_off[1];

							ok &= (lt[0] - r->offset[c]) % SM_GPU_PAD_ALIGN == 0;
							ok &= lt[nc] == r->len[c];
							ok &= lt[0] + lt[nc] <= rl.gdev_len[gi];
							ok &= lt[0] >= prev_end + SM_GPU_GREF_SEP;
							ok &= lt[2 * nc] == whole_dev[kc] + x - whole_off[kc];
							ok &= lt[3 * nc] == src[k[l]].rev;
							ok &= (l ? rl.goff1 : rl.goff)[c0 + c] ==
							      r->offset[c] - lt[0] + rl.dstart[c0 + c];
							prev_end = lt[0] + lt[nc];
						}
					}
				}
				CHECK(ok && gcontig[m.gr.ngroups] == nc && rl.total >= rl.max_dev_len,
				      "own references: %d queries: lanes' layout, tables, sources", n);
				for (int k = 0; k < n; k++)
					free(starts[k]);
				free(starts);
				free(src);
				free(tab);
				free(gcontig);
			}
			groups_free(&m);
			for (int r = 0; r < R; r++)
				sm_ref_destroy(refs[r]);
			free(refs);
			free(qref);
			free(q);
			free(buf);
		}
}

static void test_launches(void)
{
	const sm_gpu_arch_tune_t *arch = sm_gpu_arch_tune(90);
	static const int lens[] = { 1, 150, 1000 };
	int ok = 1;

	for (size_t t = 0; t < sizeof lens / sizeof *lens; t++)
		for (int gref = 0; gref < 2; gref++)
			for (int ng = 1; ng <= 200000; ng *= 7) {
				int32_t *glen = xmalloc(sizeof(int32_t) * (size_t)ng);
				sm_gpu_launch_in_t in;
				int gs = 0, launches = 0;

				for (int g = 0; g < ng; g++)
					glen[g] = lens[t];
				memset(&in, 0, sizeof in);
				in.sms = 132;
				in.arch = arch;
				in.gref_halos = gref ? SM_GPU_GREF_HALOS_DEFAULT : 0;
				in.gref = gref;
				in.dev_len = gref ? 1500 : 64000000;
				in.total_len = gref ? 1200 * (int64_t)ng : 0;
				in.Q = 2;
				in.sc = &bwa_sc;
				while (gs < ng) {
					sm_gpu_launch_t la;
					const int64_t S = SM_GPU_WARP * 8;

					sm_gpu_plan_launch(&in, glen, gs, ng, 8, gref ? 1 : 4, &la);
					ok &= la.g_begin == gs && la.chunk >= 1 && la.chunk <= SM_GPU_MAX_GRID_Y;
					ok &= la.range_len % S == 0 && (int64_t)la.nranges * la.range_len >= in.dev_len;
					ok &= (int64_t)(la.nranges - 1) * la.range_len < in.dev_len;
					ok &= la.halo == sm_gpu_halo(&bwa_sc, lens[t]);
					/* Shorter ranges only to fill whole blocks. */
					ok &= gref || la.range_len >= SM_GPU_MIN_RANGE_HALOS * la.halo ||
					      la.nranges % 4 == 0;
					ok &= la.range_bytes == (size_t)la.chunk * la.nranges * in.Q * SM_TOPK * 8;
					ok &= la.range_bytes <= SM_GPU_RANGE_BUF_MAX || la.chunk == 1;
					gs += la.chunk;
					launches++;
				}
				ok &= gs == ng && launches >= (ng + SM_GPU_MAX_GRID_Y - 1) / SM_GPU_MAX_GRID_Y;
				free(glen);
			}
	CHECK(ok, "launches: ranges cover the reference, fit the grid and the range buffer");
	{
		/* gref-halos none: one range per group. */
		int32_t glen[3] = { 150, 150, 150 };
		sm_gpu_launch_in_t in = { .sms = 132, .arch = arch, .gref = 1, .dev_len = 1500,
					  .total_len = 4500, .Q = 2, .sc = &bwa_sc };
		sm_gpu_launch_t la;

		sm_gpu_plan_launch(&in, glen, 0, 3, 8, 1, &la);
		CHECK(la.nranges == 1 && la.chunk == 3, "launches: no split, one range per group");
	}
	{
		/* The whole reference's knobs: ranges of at least range_halos
		 * halos; fewer warps per multiprocessor, longer ranges. */
		int32_t glen[1] = { 150 };
		sm_gpu_launch_in_t in = { .sms = 132, .arch = arch, .dev_len = 1000000000, .Q = 2,
					  .sc = &bwa_sc };
		sm_gpu_launch_t la, ld, lw;

		in.range_halos = 4000;
		sm_gpu_plan_launch(&in, glen, 0, 1, 16, 4, &la);
		in.range_halos = 0;
		sm_gpu_plan_launch(&in, glen, 0, 1, 16, 4, &ld);
		in.warps_per_sm = arch->warps_per_sm / 2;
		sm_gpu_plan_launch(&in, glen, 0, 1, 16, 4, &lw);
		/* strips of 32 lanes x 16 columns: lengths round up to 512 */
		/* within the rounding to whole blocks of 4 ranges */
		const int64_t knob = sm_gpu_round_up(4000 * la.halo, 512);

		CHECK(la.range_len >= knob - knob / 100 && la.range_len <= knob + knob / 100 &&
		      lw.range_len >= 2 * ld.range_len - 1024 && lw.range_len <= 2 * ld.range_len + 1024,
		      "launches: range-halos and warps set the whole reference's ranges (%lld, %lld, %lld)",
		      (long long)la.range_len, (long long)lw.range_len, (long long)ld.range_len);
	}
	{
		/* A 9,719 bp reference behind the mapper's 1,024-column
		 * separator (reads up to 1,000 bases), 2,048 groups: the warp
		 * target asks for ranges shorter than 8 halos, so the floor made
		 * 3, 5 and 8 ranges of 4,096, 2,560 and 1,536 columns (n = 250,
		 * 150, 72) over the separators too.  Now 4 ranges a group, one
		 * whole block, over the contig's columns only. */
		static const int ns[] = { 250, 150, 72 };
		const sm_score_t sc = { 1, 4, 6, 1, 5, 5 };
		int ok2 = 1;

		for (int k = 0; k < 3; k++) {
			int32_t *glen = xmalloc(sizeof(int32_t) * 2048);
			sm_gpu_launch_in_t in = { .sms = 132, .arch = arch, .dev_len = 1024 + 9719,
						  .col_begin = 1024, .Q = 2, .sc = &sc };
			sm_gpu_launch_t la;
			const int64_t S = SM_GPU_WARP * 16, halo = sm_gpu_halo(&sc, ns[k]);
			const int64_t floor = sm_gpu_round_up(SM_GPU_MIN_RANGE_HALOS * halo, S);

			for (int g = 0; g < 2048; g++)
				glen[g] = ns[k];
			sm_gpu_plan_launch(&in, glen, 0, 2048, 16, 4, &la);
			ok2 &= la.nranges == 4 && la.chunk == 2048 && la.halo == halo;
			ok2 &= (int64_t)la.nranges * la.range_len >= 9719 &&
			       (int64_t)(la.nranges - 1) * la.range_len < 9719;
			/* No more warp-strips than the floor's cut of the contig,
			 * fewer than its cut of contig and separators. */
			ok2 &= sm_gpu_range_cost(1024, 10743, la.range_len, halo, S, 4) <=
			       sm_gpu_range_cost(1024, 10743, floor, halo, S, 4);
			ok2 &= sm_gpu_range_cost(1024, 10743, la.range_len, halo, S, 4) <
			       sm_gpu_range_cost(0, 10743 + 1024, floor, halo, S, 4);
			free(glen);
		}
		CHECK(ok2, "launches: a small reference is cut into one block's ranges, not past its contig");
		/* The measure: 3 ranges in a block of 4 warps cost 4 x the longest. */
		CHECK(sm_gpu_range_cost(0, 3 * 512, 512, 0, 512, 4) == 4 &&
		      sm_gpu_range_cost(0, 5 * 512, 512, 0, 512, 4) == 8 &&
		      sm_gpu_range_cost(0, 4 * 512, 1024, 512, 512, 4) == 4 * 3 &&
		      sm_gpu_range_cost(100, 100 + 2 * 512, 512, 64, 512, 1) == 1 + 2,
		      "launches: the range cost counts a block's idle warps and the halos");
	}
	{
		/* One range a group in one-warp blocks (sm_gpu_whole_one_range):
		 * the 9,719 bp reference with 2,048 groups (one wave of one-range
		 * warps against 4 of split ranges, measured 17-22% faster), not
		 * with 500 groups (the split fills the device, one range a
		 * quarter of it), not at 30 kbp (59 strips, over the limit), and
		 * never for per-group references; a one-warp plan is one range
		 * of the whole span. */
		static const int ns[] = { 250, 150, 72 };
		const sm_score_t sc = { 1, 4, 6, 1, 5, 5 };
		int32_t *glen = xmalloc(sizeof(int32_t) * 2048);
		int ok3 = 1;

		for (int k = 0; k < 3; k++) {
			sm_gpu_launch_in_t in = { .sms = 132, .arch = arch, .dev_len = 1024 + 9719,
						  .col_begin = 1024, .Q = 2, .sc = &sc };
			sm_gpu_launch_t split, one;

			for (int g = 0; g < 2048; g++)
				glen[g] = ns[k];
			sm_gpu_plan_launch(&in, glen, 0, 2048, 16, 4, &split);
			ok3 &= sm_gpu_whole_one_range(&in, 2048, 16, 4, &split) == 1;
			sm_gpu_plan_launch(&in, glen, 0, 500, 16, 4, &split);
			ok3 &= sm_gpu_whole_one_range(&in, 500, 16, 4, &split) == 0;
			sm_gpu_plan_launch(&in, glen, 0, 2048, 16, 1, &one);
			ok3 &= one.nranges == 1 && one.range_len >= 9719 && one.range_len < 9719 + 512 &&
			       one.chunk == 2048;
			in.dev_len = 1024 + 30000;
			sm_gpu_plan_launch(&in, glen, 0, 2048, 16, 4, &split);
			ok3 &= sm_gpu_whole_one_range(&in, 2048, 16, 4, &split) == 0;
			in.dev_len = 1024 + 9719;
			in.gref = 1;
			ok3 &= sm_gpu_whole_one_range(&in, 2048, 16, 4, &split) == 0;
		}
		free(glen);
		CHECK(ok3, "launches: a short reference's many groups run one range each, few or a longer "
		      "reference's split");
	}
	{
		/* Ranges that follow the contigs: 2,000 amplicons of 200 bp
		 * behind 1,024-column separators (sep 5x the bases: yes), 3
		 * contigs of 1 Mbp (no), one contig (no); the table of 2 short
		 * contigs and one of 20,000 bases (pieces of 8,192, the last
		 * short): every base reported once, each piece computed from
		 * halo columns before it or its contig's start, rounded down to
		 * 64, never from the contig before. */
		int64_t lens[2000], big[3] = { 1000000, 1000000, 1000000 };
		const int64_t len3[3] = { 200, 70, 20000 }, pad = 1024, halo = 320;
		int64_t dstart[3], tab[3 * 8], covered = 0;
		int ok4 = 1, m;

		for (int c = 0; c < 2000; c++)
			lens[c] = 200;
		ok4 &= sm_gpu_use_contig_ranges(lens, 2000, pad) == 1;
		ok4 &= sm_gpu_use_contig_ranges(big, 3, pad) == 0 && sm_gpu_use_contig_ranges(lens, 1, pad) == 0;
		for (int c = 0, at = 0; c < 3; c++) {
			dstart[c] = at + (c + 1) * pad;
			at += (int)len3[c];
		}
		m = (int)sm_gpu_contig_ranges(dstart, len3, 3, halo, NULL);
		ok4 &= m == 5 && sm_gpu_contig_ranges(dstart, len3, 3, halo, tab) == 5;
		for (int r = 0; r < m && ok4; r++) {
			const int c = r < 2 ? r : 2;

			covered += tab[3 * r + 1] - tab[3 * r];
			ok4 &= tab[3 * r] >= dstart[c] && tab[3 * r + 1] <= dstart[c] + len3[c];
			ok4 &= tab[3 * r + 2] % 64 == 0 && tab[3 * r + 2] <= tab[3 * r] &&
			       tab[3 * r + 2] > tab[3 * r] - halo - 64 &&
			       tab[3 * r + 2] > (c ? dstart[c - 1] + len3[c - 1] : 0);
		}
		ok4 &= covered == 200 + 70 + 20000 && tab[3 * 2] == dstart[2] &&
		       tab[3 * 3] == dstart[2] + SM_GPU_CONTIG_RANGE_COLS &&
		       tab[3 * 4 + 1] == dstart[2] + 20000;
		CHECK(ok4, "launches: ranges follow the contigs where separators would be most of the "
		      "columns, cover every base once and start on the bins' grid");
	}
}

static void test_workspace(void)
{
	sm_gpu_ws_shape_t s = { 777, 2, 777 * 2 * 151, 2 * 777 + 11 * 1500, 777 * 1300, 123456 };
	sm_gpu_ws_t ws;
	int ok = 1;

	sm_gpu_ws_layout(&s, &ws);
	for (int r = 0; r < SM_GPU_WS_N; r++)
		ok &= ws.off[r] % SM_GPU_WS_ALIGN == 0 && ws.off[r] <= ws.off[r + 1];
	ok &= ws.off[SM_GPU_WS_GLEN] - ws.off[SM_GPU_WS_QOFF] >= 8 * 777;
	ok &= ws.off[SM_GPU_WS_GSEQ + 1] - ws.off[SM_GPU_WS_GSEQ] >= 777 * 1300 + SM_GPU_REF_TAIL;
	ok &= ws.off[SM_GPU_WS_CELLS] - ws.off[SM_GPU_WS_RES] >= 8 * 777 * 2 * SM_TOPK;
	ok &= ws.off[SM_GPU_WS_N] - ws.off[SM_GPU_WS_RANGE] >= 123456;
	CHECK(ok, "workspace: regions aligned, in order, large enough");
	s.ref_tab = s.ref_cols = 0;
	sm_gpu_ws_layout(&s, &ws);
	CHECK(ws.off[SM_GPU_WS_GCONTIG] == ws.off[SM_GPU_WS_ROWS] &&
	      ws.off[SM_GPU_WS_GSEQ] == ws.off[SM_GPU_WS_RES],
	      "workspace: the whole reference needs no per-group regions");
}

int main(void)
{
	unit_begin("gpu_plan");
	test_tune();
	test_lists();
	test_pick();
	test_arch();
	test_whole_groups();
	test_sort_groups();
	test_full_groups();
	test_own_refs();
	test_launches();
	test_workspace();
	return unit_end();
}
