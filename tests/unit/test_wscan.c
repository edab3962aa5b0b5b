/* test_wscan.c — mapper/wscan.c: a list of scans, each query against its
 * own reference (the caller's, or an owned copy of part of one, maybe
 * reversed, with the query maybe reversed, maybe after a lead of columns
 * without bases), run by the CPU engine and by the
 * oracle engine, against sm_scan_oracle() on references built independently
 * from the ASCII strings.  Enough jobs and bytes that the list's arrays move
 * while it grows; reuse after clear; an empty run; a list of spans, which
 * only an engine with its own copy of the reference (the GPU) can run.
 * One line per check; the last line is "N passed, N failed". */
#include "tests/unit/unit.h"
#include "io/ref.h"
#include "mapper/engine.h"
#include "mapper/scan.h"
#include "mapper/wscan.h"

#define N_CONTIG 3
#define CONTIG_LEN 3000
#define N_JOBS 300
#define QLEN 90

typedef struct {
	sm_query_t q;        /* as scanned (reversed when the job says so) */
	uint8_t *qseq;
	sm_ref_t *ref;       /* as scanned (built from the strings) */
	sm_scan_t want;
} expect_t;

static char *random_seq(int len)
{
	char *s = xmalloc((size_t)len + 1);

	for (int i = 0; i < len; i++)
		s[i] = "ACGT"[rnd(4)];
	s[len] = 0;
	return s;
}

static uint8_t code_of(char c)
{
	return (uint8_t)(c == 'A' ? 0 : c == 'C' ? 1 : c == 'G' ? 2 : c == 'T' ? 3 : 4);
}

/* A read copied from s at `at` with a few substitutions, as codes. */
static uint8_t *read_from(const char *s, int at, int len)
{
	uint8_t *q = xmalloc((size_t)len);

	for (int i = 0; i < len; i++)
		q[i] = rnd(25) ? code_of(s[at + i]) : (uint8_t)rnd(4);
	return q;
}

static sm_ref_t *ref_of(const char *seq)
{
	const char *name = "part";
	sm_ref_t *r;

	if (sm_ref_from_strings(1, &name, &seq, &r) < 0) {
		fprintf(stderr, "cannot build a reference\n");
		exit(2);
	}
	return r;
}

int main(void)
{
	const sm_score_t scores[3] = {
		{ SM_DEFAULT_MATCH, SM_DEFAULT_MISMATCH, SM_DEFAULT_GAP_OPEN, SM_DEFAULT_GAP_EXTEND, 0, 0 },
		{ 2, 3, 5, 2, 0, 0 },
		/* bwa's clipping penalty (-L 5,5) */
		{ SM_DEFAULT_MATCH, SM_DEFAULT_MISMATCH, SM_DEFAULT_GAP_OPEN, SM_DEFAULT_GAP_EXTEND,
		  SM_DEFAULT_CLIP, SM_DEFAULT_CLIP },
	};
	sm_score_t sc = scores[0];
	char *contig[N_CONTIG];
	const char *names[N_CONTIG] = { "c1", "c2", "c3" };
	sm_ref_t *whole;
	sm_wscan_t w;
	expect_t ex[N_JOBS];
	sm_engine_t *oracle, *cpu;
	sm_engine_opt_t eo;
	sm_engine_stats_t st;
	int ok;

	unit_begin("wscan");
	for (int c = 0; c < N_CONTIG; c++)
		contig[c] = random_seq(CONTIG_LEN);
	if (sm_ref_from_strings(N_CONTIG, names, (const char *const *)contig, &whole) < 0)
		return 2;
	memset(&w, 0, sizeof w);
	memset(&eo, 0, sizeof eo);
	eo.max_query_len = QLEN;

	/* Three scorings; later rounds reuse the list after a clear. */
	for (int round = 0; round < 3; round++) {
		sc = scores[round];
		eo.kind = SM_ENGINE_ORACLE;
		oracle = sm_engine_create(whole, &sc, &eo);
		eo.kind = SM_ENGINE_CPU;
		cpu = sm_engine_create(whole, &sc, &eo);
		CHECK(cpu && oracle, "round %d: CPU and oracle engines created", round);
		sm_wscan_clear(&w);
		for (int k = 0; k < N_JOBS; k++) {
			expect_t *e = &ex[k];
			int c = (int)rnd(N_CONTIG), kind = k % 3;
			int lo = (int)rnd(CONTIG_LEN - 1000), hi = lo + 1 + (int)rnd(999);
			int rev = kind == 2, j;
			char *part;

			e->qseq = read_from(contig[c], (int)rnd(CONTIG_LEN - QLEN), QLEN);
			e->q.seq = e->qseq;
			e->q.len = QLEN;
			if (kind == 0) {
				e->ref = NULL;
				j = sm_wscan_add(&w, &e->q, whole, NULL);
				sm_scan_oracle(whole, &sc, &e->q, &e->want);
			} else {
				sm_query_t asked = e->q;
				uint8_t *rq = xmalloc(QLEN);
				/* A lead (columns before the part, no bases): the
				 * same as that many N before it, which never score. */
				int lead = rnd(3) ? 0 : (int)rnd(200);

				j = sm_wscan_add_part(&w, &asked, rev, whole,
						      whole->offset[c] + lo, whole->offset[c] + hi, rev, lead);
				part = xmalloc((size_t)(lead + hi - lo) + 1);
				memset(part, 'N', (size_t)lead);
				for (int i = 0; i < hi - lo; i++)
					part[lead + i] = contig[c][rev ? hi - 1 - i : lo + i];
				part[lead + hi - lo] = 0;
				e->ref = ref_of(part);
				free(part);
				for (int i = 0; i < QLEN; i++)
					rq[i] = e->qseq[rev ? QLEN - 1 - i : i];
				memcpy(e->qseq, rq, QLEN);  /* the list copied its own already */
				free(rq);
				sm_scan_oracle(e->ref, &sc, &e->q, &e->want);
			}
			if (j != k) {
				CHECK(0, "round %d: job %d got index %d", round, k, j);
				return unit_end();
			}
		}
		CHECK(w.n == N_JOBS && w.n_own == N_JOBS * 2 / 3 && w.m_bytes > (1u << 16),
		      "round %d: %d jobs, %d owned references, the byte arena grew", round, w.n,
		      w.n_own);

		memset(&st, 0, sizeof st);
		ok = sm_wscan_run(&w, cpu, &st) == 0;
		for (int k = 0; ok && k < N_JOBS; k++)
			ok = sm_scan_equal(&w.out[k], &ex[k].want);
		CHECK(ok && st.queries == N_JOBS && st.cells > 0,
		      "round %d: the CPU engine equals the oracle on every job", round);

		memset(&st, 0, sizeof st);
		memset(w.out, 0, (size_t)w.n * sizeof *w.out);
		ok = sm_wscan_run(&w, oracle, &st) == 0;
		for (int k = 0; ok && k < N_JOBS; k++)
			ok = sm_scan_equal(&w.out[k], &ex[k].want);
		CHECK(ok && st.queries == N_JOBS && st.cells > 0,
		      "round %d: the oracle engine equals it too", round);

		for (int k = 0; k < N_JOBS; k++) {
			free(ex[k].qseq);
			if (ex[k].ref)
				sm_ref_destroy(ex[k].ref);
		}
		sm_engine_destroy(oracle);
		if (round < 2)
			sm_engine_destroy(cpu);
	}

	sm_wscan_clear(&w);
	memset(&st, 0, sizeof st);
	CHECK(cpu && sm_wscan_run(&w, cpu, &st) == 0 && st.queries == 0, "an empty list runs");
	{
		/* A list of spans holds no reference bases: only the GPU can run it. */
		sm_query_t q = { (const uint8_t *)"\0\1\2\3", 4 };

		sm_wscan_clear(&w);
		w.spans = 1;
		ok = sm_wscan_add_part(&w, &q, 0, whole, 10, 200, 1, 0) == 0 && w.n_bytes == 0;
		capture_begin();
		ok = ok && cpu && !sm_engine_reads_src(cpu) && sm_wscan_run(&w, cpu, &st) < 0;
		capture_end();
		CHECK(ok && strstr(errbuf, "needs the GPU engine"),
		      "a list of spans copies no bases and runs on nothing but the GPU");
		w.spans = 0;
	}

	sm_engine_destroy(cpu);
	sm_wscan_free(&w);
	sm_ref_destroy(whole);
	for (int c = 0; c < N_CONTIG; c++)
		free(contig[c]);
	return unit_end();
}
