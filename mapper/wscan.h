/* wscan.h — a batch's small scans: each query against its own reference.
 *
 * Seeded mode scans every read against its candidate windows (seed.h), and
 * the tandem check scans a hit's read against the reference beside the hit.
 * A worker collects these scans for a whole batch in one list and runs them
 * together in one engine call (sm_engine_scan_refs: one GPU call, or the
 * CPU engine's scans one after another on the worker's thread).  Every
 * job's result equals sm_scan_oracle(job's reference, sc, job's query),
 * whichever engine runs it, so the mapper's output does not depend on it.
 *
 * A job's reference is either the caller's (it must stay unchanged until
 * sm_wscan_run returns) or a one-contig copy of part of a reference, maybe
 * reversed, that the list owns; the same for its query.  Consecutive jobs
 * with the same caller's reference share the GPU's work (add a read's two
 * strands one after the other).
 *
 * A list for an engine that keeps its own reference (sm_engine_reads_src:
 * the GPU) may be set to `spans`: then no reference bases are copied on the
 * host at all.  Every job says where its reference's contigs lie in the
 * whole reference (sm_ref_src_t), and the GPU copies them from the
 * reference it keeps. */
#ifndef SM_WSCAN_H
#define SM_WSCAN_H

#include <stddef.h>
#include <stdint.h>

#include "io/ref.h"
#include "mapper/engine.h"
#include "mapper/scan.h"
#include "mapper/score.h"

typedef struct {
	sm_query_t q;          /* q.seq is NULL for an owned query until run */
	const sm_ref_t *ref;   /* the caller's, or NULL: owned reference `own` */
	const int64_t *start;  /* the caller's reference: its contigs' starts, or NULL */
	size_t q_at;           /* owned query: its bases in bytes */
	int32_t own;           /* owned reference: index into own[], else -1 */
} sm_wscan_job_t;

/* A reference the list owns: one contig, whole-reference [lo, lo + len),
 * at column `lead` of it (columns before it hold no base), its bases in
 * the list's bytes (at, after `lead` bytes of N) unless the list is spans. */
typedef struct {
	sm_ref_t ref;          /* filled at run time */
	int64_t len, lo, lead;
	int rev;
	size_t at;
} sm_wscan_part_t;

typedef struct {
	int n;                 /* jobs */
	int64_t m;             /* allocated */
	sm_wscan_job_t *job;
	sm_scan_t *out;        /* out[k]: job k's result after sm_wscan_run */
	const sm_ref_t **refs; /* scratch: each job's reference at run time */
	sm_query_t *qs;        /* scratch: each job's query at run time */
	int n_own;             /* owned references */
	int64_t m_own;
	sm_wscan_part_t *own;
	uint8_t *bytes;        /* owned bases (references and queries) */
	size_t n_bytes, m_bytes;
	int spans;             /* the engine copies reference bases (see above) */
	sm_ref_src_t *srcs;    /* scratch: each job's source at run time (spans) */
} sm_wscan_t;

/* Empties the list (keeps its memory). */
void sm_wscan_clear(sm_wscan_t *w);

/* Adds query q against ref (the caller's), whose contig c is the whole
 * reference from start[c] on (start may be NULL unless the list is
 * spans).  Returns the job's index, or -1 when out of memory (logged). */
int sm_wscan_add(sm_wscan_t *w, const sm_query_t *q, const sm_ref_t *ref, const int64_t *start);

/* Adds q, reversed when rev_query, against a copy of ref->seq[lo, hi)
 * (lo < hi), reversed when rev_ref, as a one-contig reference whose contig
 * starts at column lead >= 0 (its loci's ends count from there: lead moves
 * where locus bins begin, scan.h, and nothing else).  Reversing both
 * sequences leaves every alignment score unchanged and turns ends into
 * starts.  Returns the job's index, or -1 when out of memory (logged). */
int sm_wscan_add_part(sm_wscan_t *w, const sm_query_t *q, int rev_query, const sm_ref_t *ref,
		      int64_t lo, int64_t hi, int rev_ref, int64_t lead);

/* Runs every job with engine, in one sm_engine_scan_refs call (a spans
 * list needs an engine that sm_engine_reads_src), adding the queries and
 * their cells to st.  Returns 0 or -1 (logged). */
int sm_wscan_run(sm_wscan_t *w, sm_engine_t *engine, sm_engine_stats_t *st);

/* The reference columns of all jobs (statistics). */
int64_t sm_wscan_columns(const sm_wscan_t *w);

void sm_wscan_free(sm_wscan_t *w);

#endif
