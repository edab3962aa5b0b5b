/* map_impl.h — the mapper core's private types behind scanmap.h, shared by
 * its parts:
 *
 *   ctx.c     options, the context (reference, index, engines), per-thread
 *             buffers, SAM header
 *   batch.c   batches: reads in, records out; sm_map_batch
 *   map.c     mapping a batch read by read: seeded windows or the whole
 *             reference, candidates, tracebacks, tandem copies
 *   pair.c    pairing: proper pairs, mate rescue, pair MAPQ
 *   insert.c  the insert-size model
 *   emit.c    a read's records: primary, mate fields, secondaries
 *
 * The core knows nothing of files, threads or queues: mapper/pipeline.c
 * drives it.  Not for use outside mapper/. */
#ifndef SM_MAP_IMPL_H
#define SM_MAP_IMPL_H

#include <stdint.h>

#include "io/clock.h"
#include "io/fastq.h"
#include "io/log.h"
#include "io/ref.h"
#include "io/trace.h"
#include "mapper/align.h"
#include "mapper/cpu_scan.h"
#include "mapper/engine.h"
#include "mapper/index.h"
#include "mapper/scanmap.h"
#include "mapper/record.h"
#include "mapper/scan.h"
#include "mapper/seed.h"
#include "mapper/wscan.h"

#define SM_STRANDS 2
/* Room for sm_ctx_engine_name()'s line. */
#define SM_ENGINE_NAME_LEN 200

/* Candidates of a read: its loci (both strands) with a score >= -T,
 * sm_hit_choose()'s hit first, then the others by score descending, then
 * end, then forward first, plus room for placements found in pairing (sm_pair_resolve): by mate
 * rescue (scanned at every locus of the mate that ties its best; the
 * SM_MAX_RESCUE placements that pair best join), by seeding the pair again (the best locus of
 * each of the SM_RESEED_PAIRS best window pairs, among the SM_RESEED_SCAN
 * with the most votes) when it is placed below MAPQ SM_RESEED_MAPQ or not
 * as a proper pair, and copies of a placement that pair better (at most
 * SM_MAX_ADOPT per choice).  Whatever finds no room is dropped. */
#define SM_MAX_RESCUE 4
#define SM_RESEED_PAIRS 4
#define SM_RESEED_SCAN 32
#define SM_RESEED_MAPQ 20
#define SM_MAX_ADOPT 2
/* Seeded mode: loci tying a read's best that its strands' lists had no
 * room for (map.c, more_ties), at most this many. */
#define SM_MAX_TIES 8
#define SM_MAX_CAND (SM_STRANDS * SM_TOPK + SM_MAX_TIES + SM_MAX_RESCUE + SM_RESEED_PAIRS + \
		     SM_MAX_ADOPT)

/* Insert-size estimation (paired runs, insert.c): the first
 * SM_INSERT_SAMPLE_PAIRS pairs (scanmap.h) are mapped read by read before
 * any pair is resolved; pairs whose two reads
 * map uniquely (MAPQ >= SM_INSERT_MIN_MAPQ) on one contig, facing each
 * other, at most SM_INSERT_SAMPLE_MAX apart, give the distribution (bwa
 * mem's max_ins: reads that pair by chance, as a Hi-C library's do, would
 * otherwise make a model of inserts up to the contig's length, with mate
 * rescue across it).  Inserts beyond SM_INSERT_IQR_FENCE
 * interquartile ranges outside the quartiles are outliers; the proper-pair
 * range is mean +- SM_INSERT_SD_RANGE standard deviations.  Fewer than
 * SM_INSERT_MIN_PAIRS usable pairs: no pair is proper and nothing is rescued. */
#define SM_INSERT_MIN_PAIRS 16
#define SM_INSERT_MIN_MAPQ 20
#define SM_INSERT_SAMPLE_MAX 10000
#define SM_INSERT_IQR_FENCE 2.0
#define SM_INSERT_SD_RANGE 4.0
#define SM_QUARTILE 4
/* Floor of the insert standard deviation in the pair score (insert_score),
 * for a sample whose inserts are all alike. */
#define SM_INSERT_MIN_SD 1.0

/* Pairing (as bwa mem): a proper pair is preferred to the two reads' best
 * hits unless those score more than the unpaired penalty (-U) above it; a
 * read of a proper pair gets the pair's MAPQ, at most SM_PAIR_MAPQ_BOOST
 * above its own. */
/* A rescue window reaches this much beyond the proper-insert range, for
 * the span of an untraced candidate (read length before its end column). */
#define SM_RESCUE_SLACK 20
/* A read that its pair places (mate rescue) needs a score of -T, or less:
 * down to that of SM_PAIR_MIN_BASES bases matched end to end (both
 * clipping bonuses), so that quality-trimmed mates of 15-29 bases, which
 * -T leaves unmapped alone, are written in their proper pair (pair.c,
 * pair_min_score). */
#define SM_PAIR_MIN_BASES 15
/* The mate pass (map.c, mate_window): a read scoring this much under a
 * perfect match, or more (six mismatches' worth with bwa's scores), is
 * scanned at its mate's locus before its completion pass, over inserts up
 * to SM_MATE_PASS_REACH (mean + 4 sd of a 600 +- 100 bp library). */
#define SM_MATE_PASS_BELOW 30
#define SM_MATE_PASS_REACH 1000
#define SM_PAIR_MAPQ_BOOST 40
/* A pair's MAPQ charges clips (pair.c, clip_cost) to the rival pairs that
 * come within this many mismatches' worth (A + B) of the best pair, which
 * are traced for it; a rival further down weighs 10^(-2 SM_MAPQ_PER_MISMATCH
 * / 10) or less in it. */
#define SM_RIVAL_REACH 2
/* Seeding limits can cost a read its locus: its seeds there may be
 * repetitive (more than --max-occ hits) or its cluster not among the
 * --max-windows best.  A seeded read below a perfect match whose first
 * pass left out enough for a better locus (sm_seed_settled), or without a
 * hit, takes a completion pass (seed.h, sm_seed_complete) with the relaxed
 * limits of seed.h (SM_SEED_RETRY_*): every cluster that could still beat
 * its best score is scanned.  A read for which a better locus cannot be
 * ruled out is unsure: its MAPQ stays below 20 (the usual bar of a
 * confident placement).  How far below follows its lead over the loci in
 * view (objective less XS): a read of a repeat family sees some of its
 * copies, one with no near locus in view rarely has a better one unseen.
 * Measured on the truth sets (100,000 ART reads or pairs of chr20 each,
 * four profiles; docs/seeded.md): unsure reads with a lead of
 * SM_UNSURE_LEAD substitutions or more were misplaced 0-0.4% of the
 * time, so they get SM_MAPQ_RIVAL (19: 1.3%); with less, reads of a pair
 * 0-0.8% and single-end reads 17% (1-31% a set): SM_MAPQ_UNSURE (15) and
 * SM_MAPQ_UNSURE_ALONE (10, the most that keeps them among the reads at
 * MAPQ >= 10 that accuracy counts).  --completion weak
 * and off seed reads without a hit or under 1/SM_RETRY_BELOW of a perfect
 * match again with the relaxed limits instead (cheaper: their many
 * clusters each need a bound in the completion pass), keeping the first
 * windows; weak marks unsettled reads unsure, off checks nothing. */
#define SM_MAPQ_UNSURE 15
#define SM_MAPQ_UNSURE_ALONE 10
#define SM_UNSURE_LEAD 6
#define SM_RETRY_BELOW 2
/* Completion rounds at most (seed_batch): a read left unsure while more
 * clusters could beat its best than a round scans takes the next ones
 * that still could, against its new best, in another round; the first
 * round ranks them all (sm_seed_complete's next[]). */
#define SM_COMPLETE_ROUNDS 3

/* MAPQ 20 and more claim a placement (SM_MAPQ_CLAIM, record.h).  A
 * perfect match cannot be beaten, but an unseen equal copy makes such a
 * claim false, and an unseen copy one substitution away makes MAPQ 40-60
 * too high.  For a perfect read whose seeding cannot rule out a locus
 * within one substitution, the copies are looked up (sm_seed_near_copies)
 * through the windows' least hashes with at most SM_EXACT_MAX_OCC
 * occurrences: an exact copy out of view is a tie (XS = AS) and the read
 * is unsure (SM_UNSURE_RIVAL); one a substitution away sets XS; none, and
 * the read is sure.  Where no window's hash is that rare, a read whose
 * MAPQ from the loci in view is below
 * SM_TIE_CHECK_BELOW (a near copy in view: a repeat family) gets at most
 * SM_MAPQ_RIVAL: the bound of a dropped cluster comes from its hit count
 * alone, and on every read it capped 2-5% of all reads (docs/seeded.md).
 * A single-end read below a perfect match takes a completion pass that
 * rules out loci that tie it too (map.c, tie_slack): an equal copy it
 * finds sets XS = AS; where candidates that could tie are left after the
 * rounds and its MAPQ from view is below SM_TIE_CHECK_BELOW, it gets
 * SM_MAPQ_RIVAL (with no near locus in view it keeps its MAPQ: capping
 * those demoted up to 0.6% of a seed-5 set's reads, none wrong).  Pairs
 * are left alone: of 804 pair reads with both mates unsure none was wrong
 * (a mate's insert tells copies apart).
 * A locus that pairing adds (mate rescue, pair re-seeding) for a read
 * whose own seeding could not rule out a better one inherits that doubt, a
 * perfect one as SM_UNSURE_RIVAL.  Levels of cand_t.unsure: */
#define SM_MAPQ_RIVAL (SM_MAPQ_CLAIM - 1)
#define SM_TIE_CHECK_BELOW 40
#define SM_EXACT_MAX_OCC 4096
enum { SM_SURE, SM_UNSURE_RIVAL, SM_UNSURE_BETTER };

/* q capped as a candidate's unsure level asks; lead: its objective less
 * its XS (0 for a placement whose competitors were never looked for);
 * alone: a single-end read's (no mate to vouch for it).
 * A single read that leads the loci in view by one substitution or less
 * claims no placement either (SM_MAPQ_RIVAL): one base tells its copies
 * apart, and once a copy one substitution away is in view nothing looks
 * for more of them (copy_slack).  The scores give such a read 20 (a
 * perfect read) and its base qualities often more, but where more copies
 * hide it errs more: 36 bp single reads at MAPQ 20-29 erred 1.5-1.9%, and at
 * 3 Gbp of close copies they were all of the wrong placements at MAPQ >= 20
 * but the rare read with two errors on the bases that tell two copies
 * apart (docs/seeded.md, "A single read one base places").  bwa mem gives
 * such reads about 5; 19 keeps them among the reads placed at MAPQ >= 10. */
static inline int sm_unsure_cap(const sm_score_t *sc, int unsure, int q, int32_t lead, int alone)
{
	const int32_t unit = sc->match + sc->mismatch;
	int cap = unsure == SM_UNSURE_RIVAL ? SM_MAPQ_RIVAL :
		  unsure != SM_UNSURE_BETTER ? q :
		  lead >= SM_UNSURE_LEAD * unit ? SM_MAPQ_RIVAL :
		  alone ? SM_MAPQ_UNSURE_ALONE : SM_MAPQ_UNSURE;

	if (alone && lead <= unit && cap > SM_MAPQ_RIVAL)
		cap = SM_MAPQ_RIVAL;
	return q > cap ? cap : q;
}

/* Where the workers' time goes (summed over workers; logged at -v 4). */
enum {
	PH_SEED,         /* minimizers, votes, windows */
	PH_WSCAN,        /* window scans */
	PH_CANDS,        /* candidates, best hits' tracebacks */
	PH_EXHAUSTIVE,   /* whole-reference scans */
	PH_TANDEM,       /* tandem checks (scans included) */
	PH_EMIT,         /* pairing, rescue, records */
	PH_FORMAT,       /* SAM text of the records */
	PH_N
};
extern const char *const sm_ph_name[PH_N];

/* The scan lists a worker runs per batch (counted at -v 4). */
enum {
	LIST_WINDOWS,    /* seeded windows, first pass */
	LIST_RETRY,      /* seeded windows, second pass (needs_retry) */
	LIST_TANDEM,     /* tandem sides of the best hits */
	LIST_N
};

/* A locus at least this far from a hit's own end (start) is a tandem copy
 * of it (map.c, "Tandem copies"). */
#define SM_TANDEM_SHIFT 20

/* How far beyond a hit of a read of length n the tandem check looks: as far
 * as an alignment spans (sm_max_span), and at least a locus bin, the hit's
 * own, whose best column the hit is (under 27 bases with bwa's scores an
 * alignment spans less than the 64 columns of the narrowest bin: a 15-base
 * mate placed 50 bases from an equal copy had MAPQ 40). */
static inline int64_t sm_tandem_reach(const sm_score_t *sc, int32_t n)
{
	const int64_t span = sm_max_span(sc, n), bin = (int64_t)1 << sm_locus_shift(sc, n);

	return span > bin ? span : bin;
}

/* A copy of a candidate beside it (sm_map_tandem): its score and its offset
 * from the candidate's alignment in reference columns (> 0: to the right;
 * less than a side window, sm_max_span() of the read). */
typedef struct {
	int32_t score;
	int32_t shift;
} copy_t;

/* The best SM_COPIES_PER_SIDE copies on each side of the alignment (a
 * cand_t is moved about whole: its size shows in the run time). */
#define SM_COPIES_PER_SIDE 2
#define SM_MAX_COPIES (2 * SM_COPIES_PER_SIDE)

typedef struct {
	int32_t score;
	int is_rev;
	int64_t end;         /* global end column (as the scan reported it) */
	int32_t xs;          /* best score of the read's other loci */
	int32_t near;        /* best score beside the alignment (sm_map_tandem) */
	int near_done;       /* near and copy[] are known */
	int n_copy;          /* copies beside the alignment (sm_map_tandem), for pairing */
	copy_t copy[SM_MAX_COPIES];
	int rescued;         /* found by mate rescue: the read's other loci are unknown */
	int32_t qlen;        /* the read's length */
	int traced;          /* aln holds the traceback (done lazily: see sm_map_ensure_traced) */
	int unsure;          /* SM_SURE, or what seeding could not rule out: a rival
				(SM_UNSURE_RIVAL) or a better locus (SM_UNSURE_BETTER) */
	sm_aln_t aln;        /* traceback, global coordinates */
} cand_t;

/* What mapping found for one read. */
typedef struct {
	int n_cand;
	cand_t cand[SM_MAX_CAND];
	int prim;            /* the primary candidate, -1: unmapped */
	int mapq;
	int proper;
	int exhaustive;      /* seeded mode gave nothing: scan the whole reference */
	int from_windows;    /* candidates found in the windows win[0..n_win) */
	sm_window_t *win;    /* the read's seeded windows, for tracebacks after the scan */
	int32_t n_win;
	int32_t m_win;
	sm_seed_left_t left; /* what the first seeding pass left out of win */
	sm_seed_next_t *next; /* completion candidates for later rounds (sm_seed_complete_next) */
	int32_t n_next;
	int64_t m_next;
	int32_t next_beyond; /* their gap's beyond */
	int more;            /* still unsure, and next[] may beat its best: another round */
	int32_t copy_slack;  /* single-end, after its completion rounds: how far below
				its best the copies pass looks for loci out of view
				(map.c copy_slack; 0: it need not) */
	double sub_odds;     /* a perfect read's copies one substitution away out of view
				(sm_seed_near_copies): the summed sm_sub_odds of their
				substitutions (sm_sub_rival_mapq) */
	int ties_open;       /* a read of a pair below a perfect match whose first
				seeding could not rule out an unseen locus tying its
				best, or any read of a pair under --completion off
				(map.c, pair_ties_open; sm_pair_unsure) */
	int ties_cut;        /* loci tying its best may lie beyond its candidates:
				a strand's scan list (SM_TOPK) was full of them
				(map.c, make_cands; sm_pair_unsure) */
} res_t;

/* A batch (scanmap.h): reads in, what mapping found, records out.  Its
 * buffers are reused from batch to batch. */
struct sm_batch_s {
	int n, m;                /* reads used, slots allocated (pairs: R1, R2, R1, ...) */
	sm_read_t *reads;        /* m slots, buffers reused */
	res_t *res;              /* m_res slots, grown by sm_map_batch (the worker's thread) */
	int m_res;
	int32_t *tail;           /* m slots: the bases past a read's fragment, left out of
				    its mapping (--read-through clip; readthrough.h), or 0 */
	bam1_t **recs;           /* records of the batch, in output order */
	int n_rec, m_rec;
	int n_mapped, n_proper;  /* reads mapped, reads in proper pairs */
	int premapped;           /* the reads are mapped read by read (SM_MAP_READS_ONLY) */
	uint64_t seed_cells;     /* window scan cells of this batch */
};

/* The insert-size model of paired runs (insert.c). */
typedef struct {
	int ok;                  /* the distribution could be estimated */
	int n;                   /* pairs it was estimated from */
	double mean, sd;
	int64_t lo, hi;          /* proper-pair insert range */
	double *score;           /* insert_score() of inserts 0..n_score-1 (pair.c) */
	int64_t n_score;
} insert_t;

/* The context (scanmap.h): what every mapping call reads and none writes. */
struct sm_ctx_s {
	sm_mapopt_t opt;
	sm_ref_t *ref;
	sm_engine_t *engine;     /* --engine: the batches' scans, whole-reference and windows */
	sm_engine_t *cpu;        /* the CPU engine (engine, when that is the CPU): pairing's
				  * scans, one window at a time */
	sm_engine_t *seeder;     /* seeded mode's seeding: engine when it seeds (the GPU with
				  * the index on it), else cpu */
	sm_index_t *index;       /* NULL in exhaustive mode */
	sm_index_t *index_file;  /* REF.smi as loaded; it may hold ref's bases */
	sm_seed_opt_t seed_opt;
	sm_seed_opt_t retry_opt; /* the relaxed limits of the completion pass */
	sm_cpu_isa_t isa;        /* of the tracebacks */
	int seeded, fallback;
	int paired;              /* the reads come in pairs (o.paired) */
	int pairing;             /* and are mapped as pairs: paired without -P (o.no_pairing);
				  * each read of a pair otherwise follows the single-read rules */
	insert_t ins;
	char engine_name[SM_ENGINE_NAME_LEN];  /* sm_ctx_engine_name */
};

/* Where the mapping threads' time and work went (sm_tbuf_stats_add). */
typedef struct {
	double ph[PH_N];         /* seconds per phase */
	int64_t list_n[LIST_N], list_jobs[LIST_N], list_cols[LIST_N];  /* scan lists run */
	int64_t completed, completed_same;  /* completion passes; those that added no window */
	int64_t completed_more;             /* later completion rounds (SM_COMPLETE_ROUNDS) */
	int64_t completed_hits;             /* hits the completion passes collected */
	int64_t completed_again;            /* passes run again with every k-mer (seed.h) */
	int64_t neighboured;                /* neighbour passes (sm_seed_neighbours) */
	int64_t neighbour_hits;             /* and the hits they collected */
	int64_t neighbour_better;           /* reads whose best they raised */
	int64_t refined, refined_sure;      /* refined completion passes; reads they settled */
	int64_t cut, uncut;                 /* reads cut to their fragment (batch.c); mapped
					     * again whole */
	int64_t copied, copies_found;       /* copies passes (sm_seed_copy_windows); loci found */
	int64_t copy_better;                /* reads whose best they raised */
	int64_t mated, mate_better;         /* mate passes; reads whose best they raised */
	int64_t tie_reads, tie_scans, tie_added;  /* more_ties (map.c): reads, windows, loci */
	sm_align_stats_t aln;    /* tracebacks */
} sm_map_stats_t;

/* Where a tandem copy of a hit can lie: the reference [lo, hi) on one side
 * of it, scanned after `lead` columns without bases (tandem_sides). */
typedef struct {
	int64_t lo, hi;
	int64_t lead;            /* columns before the scan's first base (wscan.h) */
	int aligned;             /* the hit reaches the read's end on this side: lead aligns bins */
	int job;                 /* its scan in a wscan list, -1: empty side */
} side_t;

/* A mapping thread's scratch (scanmap.h's sm_tbuf_t), reused from batch
 * to batch. */
struct sm_tbuf_s {
	sm_query_t *q;           /* 2 per read: forward, reverse complement */
	sm_scan_t *scan;
	uint8_t *codes;
	int *todo;               /* reads scanned exhaustively */
	size_t m_q, m_codes;
	sm_align_ws_t *aws;
	sm_record_ws_t rws;
	sm_seeder_t *seeder;     /* pairs' windows (sm_seed_pair_windows) */
	sm_wref_t wref;          /* scratch window reference (rescue, late tracebacks) */
	sm_wscan_t jobs;         /* the batch's window or tandem scans (wscan.h) */
	sm_wscan_t one;          /* one candidate's tandem scans (pairing) */
	sm_wref_t *wrefs;        /* 2 per read: each strand's window reference (seeded mode) */
	int *strand_job;         /* 2 per read: each strand's job in jobs, -1: none */
	int *seed_todo;          /* the reads seeded in this pass */
	const uint8_t **seed_read; /* GPU seeding: their bases, lengths, margins */
	int32_t *seed_len, *seed_nwin;
	sm_seed_left_t *seed_left; /* what seed_todo[t]'s first pass left out */
	uint8_t *seed_skip;        /* its skipped k-mers (sm_seed_find), from seed_skip_at[t] */
	int64_t *seed_skip_at, m_seed_skip;
	uint8_t *retry_how;        /* the second pass's RETRY_* of seed_todo[t] (map.c) */
	uint8_t *retry_level;      /* neighbour pass: seed_todo[t]'s unsure level before it */
	int32_t *retry_best;       /* and its best objective before it (0: none) */
	sm_window_t *mate_win;     /* mate pass: seed_todo[t]'s mate's window */
	int64_t *seed_margin;
	sm_window_t *seed_win;   /* seed_todo[t]'s windows from t * (the pass's most), seed_nwin[t] */
	int64_t m_seed_win;
	sm_seed_gap_t *seed_gap; /* completion pass: what seed_todo[t]'s windows left out */
	int64_t m_seed_gap;
	sm_seed_next_t *next;    /* scratch: a first completion round's later candidates */
	int64_t m_next;
	sm_window_t *strand_win; /* scratch: one strand's windows */
	int64_t m_strand_win;
	int32_t *sub_count;      /* scratch: sm_seed_near_copies' substitutions per read position */
	int64_t m_sub_count;
	side_t *sides;           /* two per read: where its tandem copies can lie */
	int m_reads;
	sm_engine_stats_t seed_st;
	struct sm_split_s *split; /* split reads' parts (split.c), NULL until needed */
	struct sm_tbuf_s *whole;  /* reads cut to their fragment mapped again whole
				     (batch.c), NULL until needed */
	/* Tracebacks when the engine runs them (trace_batch): job x is
	 * candidate 0 of read tb_at[x], its band from tb_start[x]. */
	sm_tb_job_t *tb_job;
	const uint8_t **tb_q, **tb_win;
	sm_tb_res_t *tb_res;
	uint32_t *tb_ops;
	int64_t *tb_start;
	int *tb_at;
	int m_tb;
	double ph[PH_N];         /* seconds per phase */
	int64_t list_n[LIST_N], list_jobs[LIST_N], list_cols[LIST_N];  /* scan lists run */
	int64_t completed, completed_same;  /* completion passes; those that added no window */
	int64_t completed_more;             /* later completion rounds (SM_COMPLETE_ROUNDS) */
	int64_t completed_hits;             /* hits the completion passes collected */
	int64_t completed_again;            /* passes run again with every k-mer (seed.h) */
	int64_t neighboured;                /* neighbour passes (sm_seed_neighbours) */
	int64_t neighbour_hits;             /* and the hits they collected */
	int64_t neighbour_better;           /* reads whose best they raised */
	int64_t refined, refined_sure;      /* refined completion passes; reads they settled */
	int64_t cut, uncut;                 /* reads cut to their fragment (batch.c); mapped
					     * again whole */
	int64_t copied, copies_found;       /* copies passes (sm_seed_copy_windows); loci found */
	int64_t copy_better;                /* reads whose best they raised */
	int64_t mated, mate_better;         /* mate passes; reads whose best they raised */
	int64_t tie_reads, tie_scans, tie_added;  /* more_ties (map.c): reads, windows, loci */
};

/* ---- map.c ---- */

/* Adds what ws did (sm_map_stats_t) to *st. */
void sm_tbuf_stats_add(const sm_tbuf_t *ws, sm_map_stats_t *st);

/* Adds the seconds since *t to phase ph of ws and restarts *t. */
void sm_ph_add(sm_tbuf_t *ws, int ph, double *t);

/* ws->q[2k], ws->q[2k + 1]: read k forward and reverse-complemented;
 * *n_codes: the bases they hold.  Returns 0 or -1 (logged). */
int sm_map_encode(sm_tbuf_t *ws, const sm_read_t *reads, int n, size_t *n_codes);

/* Maps reads[0..n) read by read (no pairing) into res[0..n): seeded
 * windows or the whole reference, candidates, the best hit traced, tandem
 * copies, MAPQ.  mates: reads[2j], reads[2j + 1] are a pair's, which lets
 * a read be scanned at its mate's locus first (map.c, mate_window).  A
 * read without bases (len 0) goes to no engine: it is left unmapped, and
 * its mate is mapped as a read of its own.  Returns 0 or -1 (logged). */
int sm_map_reads(const sm_ctx_t *ctx, sm_tbuf_t *ws, const sm_read_t *reads, int n, res_t *res,
		 int mates);

/* The odds that read r came from a copy that differs from where it lies
 * only at read position p, as a sequencing error there: e / 3 against
 * 1 - e, e = 10^(-Q/10) from the base's Phred quality Q (an error reads one
 * of the other three bases; e at most 3/4).  A read without qualities
 * (FASTA) weighs a substitution as the scores do: odds
 * 10^(-SM_MAPQ_PER_MISMATCH / 10), so the quality-based MAPQs equal the
 * score-based ones. */
double sm_sub_odds(const sm_read_t *r, int32_t p);

/* 1 if candidate c of a read of n bases (forward codes q0) is the whole
 * read aligned without a gap or a clip: its objective is the one its
 * diagonal gives the whole read (odds.c). */
int sm_whole_ungapped(const sm_ctx_t *ctx, const cand_t *c, const uint8_t *q0, int32_t n);

/* The odds that read r (forward codes q0) comes from rival candidate o
 * rather than its pick p, both whole-read ungapped alignments (the caller
 * checks p with sm_whole_ungapped): the product, over the read positions
 * where the two loci's bases differ, of P(base | o) / P(base | p), a base
 * that is not its locus's being a sequencing error of chance e / 3
 * (sm_sub_odds).  -1 when o is not such an alignment or an N is among
 * those bases. */
double sm_ungapped_odds(const sm_ctx_t *ctx, const sm_read_t *r, const uint8_t *q0,
			const cand_t *p, const cand_t *o);

/* sm_ungapped_odds for alignments with gaps: p and o traced, aligning the
 * whole read unclipped with the same gaps after the same read bases, their
 * bases compared column by column in the read's order (a deletion's
 * reference bases and an insertion's read bases cost the same at both).
 * -1 when they are not of one shape, an N is among the differing bases, or
 * the differences do not account for the score lead (the objective holds
 * more than the columns: never seen, but the score then decides). */
double sm_aligned_odds(const sm_ctx_t *ctx, const sm_read_t *r, const uint8_t *q0,
		       const cand_t *p, const cand_t *o);

/* The MAPQ of a placement whose rivals weigh odds (summed) against it:
 * floor(-10 log10(odds / (1 + odds))), within 0..SM_MAPQ_MAX; SM_MAPQ_MAX
 * when odds is 0 (no rival priced). */
int sm_odds_mapq(double odds);

/* MAPQ at most, from base qualities, of single read r's candidate c
 * (queries q, results res) against the rivals in view that score less:
 * when c and a rival both align the whole read without a gap, only the
 * bases where the two loci differ tell them apart, and the rival's odds
 * are sm_ungapped_odds'; -10 log10 of O / (1 + O), O the summed odds of
 * the rivals so priced.  SM_MAPQ_MAX when c is not whole and ungapped or
 * no rival could be priced (the score-based MAPQ stands).  The scores
 * price every difference at the mean error rate; a lead that rests on
 * bases of low quality is worth less (a 100 bp single read at MAPQ 39 led
 * its origin on a Q7 and a Q5 base, one of 150 bp at MAPQ 38 on Q0-Q6). */
int sm_single_odds_mapq(const sm_ctx_t *ctx, const res_t *res, const cand_t *c, const sm_read_t *r,
			const sm_query_t *q);

/* MAPQ at most, from base qualities, of candidate c of read r (queries q,
 * results res) when c is a perfect alignment (traced) with rivals one
 * substitution away: the read matches c base for base and each rival but
 * at one position p, so the rival is the origin only if the base at p is a
 * sequencing error; -10 log10 of the chance of that, O / (1 + O) with O
 * the summed sm_sub_odds of the rivals (the other candidates and the
 * copies beside c that score within A + B of c and differ from the read at
 * exactly one base on their diagonal, and res->sub_odds out of view).
 * SM_MAPQ_MAX otherwise (the score-based MAPQ stands).  A rival's lead of
 * one substitution gives MAPQ 20 from scores alone (sm_mapq), 1% wrong,
 * the mean over all bases; the quality of the one base that tells the loci
 * apart says more: Q8 there leaves 6% wrong, MAPQ 12. */
int sm_sub_rival_mapq(const sm_ctx_t *ctx, const res_t *res, const cand_t *c, const sm_read_t *r,
		      const sm_query_t *q);

/* Traces candidate c of read r (queries q) against the whole reference
 * (win NULL) or in the one of windows win[0..n_win) that holds its end.
 * Returns 0 or -1. */
int sm_map_trace(const sm_ctx_t *ctx, sm_tbuf_t *ws, const sm_window_t *win, int32_t n_win,
		 const sm_query_t *q, cand_t *c, const sm_read_t *r);

/* Traces c (a candidate of res) unless it is traced.  Returns 0 or -1. */
int sm_map_ensure_traced(const sm_ctx_t *ctx, sm_tbuf_t *ws, const res_t *res, const sm_read_t *r,
			 const sm_query_t *q, cand_t *c);

/* Tandem copies beside candidate c, scanned now on the CPU: sets c->near,
 * c->copy[] and raises c->xs.  Returns 0 or -1. */
int sm_map_tandem(const sm_ctx_t *ctx, sm_tbuf_t *ws, const sm_query_t *q, cand_t *c);

/* Scans q against the small reference ref now, on this thread, with the
 * CPU engine (pairing's scans of single windows), adding the cells to
 * ws->seed_st.  Returns 0 or -1 (logged). */
int sm_map_scan_one(const sm_ctx_t *ctx, sm_tbuf_t *ws, const sm_ref_t *ref, const sm_query_t *q,
		    sm_scan_t *out);

/* The best locus of read r (queries q, strand st) in window w of the
 * reference (sm_map_scan_one), as an untraced candidate *c (its aln's
 * buffers kept; the window left in ws->wref): pairing's rescue and
 * re-seeding windows, a split part's locus, tied loci beyond a full list
 * (more_ties).  Returns 1, 0 when none
 * reaches -T, -1 on error. */
int sm_map_window_best(const sm_ctx_t *ctx, sm_tbuf_t *ws, const sm_read_t *r, const sm_query_t *q,
		       int st, const sm_window_t *w, cand_t *c);

/* ---- pair.c ---- */

/* Pairs r[0], r[1] (queries q[0..3], results res[0..1]): chooses their
 * placements, proper flag and MAPQ, rescuing mates.  Returns 0 or -1. */
int sm_pair_resolve(const sm_ctx_t *ctx, sm_tbuf_t *ws, const sm_read_t *r, const sm_query_t *q,
		    res_t *res);

/* Tabulates what an insert adds to a pair's score for the inserts up to
 * twice the proper range's end, once ctx->ins is estimated (the values the
 * erfc and log10 would give each time).  Returns 0 or -1 (out of memory,
 * logged); free ctx->ins.score when done. */
int sm_pair_insert_table(sm_ctx_t *ctx);

/* The 5' end of candidate c on the reference (its strand's start). */
int64_t sm_pair_five_prime(const cand_t *c);

/* Insert size (TLEN magnitude) of the pair of candidates a, b. */
int64_t sm_pair_insert(const sm_ctx_t *ctx, const cand_t *a, const cand_t *b);

/* The window where a mate of candidate a with an insert up to `reach`
 * lies (from a's 5' end; SM_RESCUE_SLACK wider), on the strand a proper
 * mate takes (its bit in w->strands), in a's contig.  Returns 1, or 0 when
 * the contig leaves none. */
int sm_pair_mate_window(const sm_ctx_t *ctx, const cand_t *a, int64_t reach, sm_window_t *w);

/* MAPQ of candidate c as a single read (0 for a rescued one). */
int sm_pair_read_mapq(const sm_ctx_t *ctx, const cand_t *c, int32_t len);

/* The unsure level (SM_SURE, SM_UNSURE_RIVAL, SM_UNSURE_BETTER) of the pair
 * of read 0 (res[0]) at candidate bi and read 1 at bj: the lower of the two
 * candidates' (a sure mate vouches for an unsure read), but at least
 * SM_UNSURE_RIVAL when each read ties or trails a locus of its own (unless
 * both tie with every tie among their candidates: ties_open, ties_cut), and,
 * when one read is below its own best (its mate places it), the other
 * read's own level, a locus out of view that may tie it (res_t.ties_open)
 * counting as SM_UNSURE_RIVAL (pair.c). */
int sm_pair_unsure(const res_t *res, int bi, int bj);

/* ---- emit.c ---- */

/* Appends the records of read e of a unit of n_unit reads (1, or 2 for a
 * pair: r, q and res point at the unit's first read) to b: its primary
 * record, then its secondaries.  Returns 0 or -1 (logged). */
int sm_emit_read(const sm_ctx_t *ctx, sm_tbuf_t *ws, sm_batch_t *b, const sm_read_t *r,
		 const sm_query_t *q, res_t *res, int e, int n_unit);

/* ---- batch.c ---- */

/* The next record slot of b (allocated on first use), or NULL when out of
 * memory. */
bam1_t *sm_batch_next_rec(sm_batch_t *b);

/* Room for need reads in b.  Returns 0, or -1 when out of memory (not
 * logged). */
int sm_batch_reserve(sm_batch_t *b, int need);

/* Frees what a res_t holds (its tracebacks and windows). */
void sm_res_free(res_t *r);

#endif
