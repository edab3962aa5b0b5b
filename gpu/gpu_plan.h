/* gpu_plan.h — the GPU engine's host-side planning, in plain C (no CUDA):
 * how a scan call's queries become groups of lanes, how per-group
 * references are laid out, how each launch cuts the reference into ranges,
 * how big a call's workspace is, and which tuning row a device gets.
 * Private to gpu/ and its unit tests (tests/unit/test_gpu_plan.c), which
 * run without a GPU.  The kernels' side of these layouts: sw_kernel.cuh. */
#ifndef SM_GPU_PLAN_H
#define SM_GPU_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "gpu/gpu_opt.h"
#include "io/ref.h"
#include "mapper/engine_types.h"
#include "mapper/scan.h"
#include "mapper/score.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Separators are a multiple of this, so that a lane's (aligned) columns
 * stay in one 64-column block, hence in one locus bin. */
#define SM_GPU_PAD_ALIGN 64
/* Separator columns between the contigs of a per-group reference: one
 * 64-column block, which always holds a whole aligned lane of up to 32
 * columns, which the kernel makes a barrier (sw_kernel.cuh: Barriers), and
 * keeps device and global columns in the same locus bins.  None before the
 * first contig (a group's first range starts there, from zeros) or after
 * the last (the columns a strip computes past the group's end are never
 * reported). */
#define SM_GPU_GREF_SEP SM_GPU_PAD_ALIGN
/* Bytes of separator after the last contig: more than any strip (32 lanes
 * x at most 32 columns) runs past a range's end. */
#define SM_GPU_REF_TAIL 4096
/* Context columns are rounded up to this (a multiple of every lane width). */
#define SM_GPU_HALO_ALIGN 64
/* A whole-reference range is at least this many halos long (context <= 1/8). */
#define SM_GPU_MIN_RANGE_HALOS 8
/* CUDA's limit on gridDim.y (one group per y). */
#define SM_GPU_MAX_GRID_Y 65535
/* Device memory for the per-range lists of one launch; launches are cut
 * into chunks of groups to fit. */
#define SM_GPU_RANGE_BUF_MAX ((size_t)256 << 20)
/* Lanes of a warp: a strip is this many lanes of C columns. */
#define SM_GPU_WARP 32
/* Bits of a lane-pairing key that hold the group's index (sm_gpu_pair_lanes). */
#define SM_GPU_SHAPE_GROUP_BITS 20

static inline int64_t sm_gpu_round_up(int64_t x, int64_t a) { return (x + a - 1) / a * a; }

/* Context columns a range needs before its reported columns for reads of
 * n bases: more than any positive-scoring alignment spans. */
static inline int64_t sm_gpu_halo(const sm_score_t *sc, int n)
{
	return sm_gpu_round_up(sm_max_span(sc, n), SM_GPU_HALO_ALIGN);
}

/* Separator columns before each contig of the whole reference, for reads
 * of up to len bases: longer than any positive path can cross (each column
 * costs >= 1), a multiple of 64 so that a lane's (aligned) columns fall in
 * one global locus bin. */
static inline int64_t sm_gpu_sep_len(const sm_score_t *sc, int len)
{
	return sm_gpu_round_up(sm_best_possible(sc, len) + 1, SM_GPU_PAD_ALIGN);
}

/* Largest score a lane of `bits` bits holds (8: unsigned, 16: signed). */
static inline int sm_gpu_lane_limit(int bits)
{
	return bits == 8 ? 255 : bits == 16 ? 32767 : 0x3fffffff;
}

/* ---- tuning per GPU architecture ---------------------------------------- */

/* One row of the tuning table: applies to compute capabilities from
 * min_cc (major * 10 + minor) up to the next row's. */
typedef struct {
	int min_cc;
	int warps_per_sm;       /* whole reference: warps of ranges per multiprocessor (several waves) */
	int gref_warps_per_sm;  /* per-group references: warps the split aims for per multiprocessor */
	int slots;              /* calls in flight per engine by default */
} sm_gpu_arch_tune_t;

/* The row for compute capability cc (the oldest row below every listed one). */
const sm_gpu_arch_tune_t *sm_gpu_arch_tune(int cc);

/* ---- devices ------------------------------------------------------------ */

/* Runs fn(jobs + k * size) for k in 0..n: each in a thread of its own when
 * n > 1 (one device's set-up: context, allocations, copies), else on the
 * calling thread; returns when all have finished.  A thread that cannot be
 * started runs its job on the calling thread. */
void sm_gpu_for_each_device(int n, void *(*fn)(void *), void *jobs, size_t size);

/* Expands `want` against the n_visible devices CUDA shows: "all" becomes
 * 0..n_visible-1; a listed device >= n_visible is an error.  Writes the
 * engines' devices to out.  Returns 0, or -1 with the reason in msg. */
int sm_gpu_list_resolve(const sm_gpu_list_t *want, int n_visible, sm_gpu_list_t *out, char *msg,
			int msg_len);

/* The engine a call goes to: the one with the fewest calls in flight
 * (in_flight[0..n)); on a tie the one that took the fewest calls so far
 * (taken), then the first, so that calls one after another take turns;
 * engines marked failed (failed[e] != 0) are never chosen.  Returns -1
 * when all have failed. */
int sm_gpu_pick_engine(const int *in_flight, const uint64_t *taken, const int *failed, int n);

/* ---- groups ------------------------------------------------------------- */

/* A group of queries in the making: `n` consecutive queries from `first`
 * (one per group on the whole reference), or, with lane references,
 * `first` and `second`, each with its own reference (else second is -1);
 * `len` the longest query; `cols` the bases of its own reference (0 on the
 * whole reference; the longer one's for a lane pair). */
typedef struct {
	int len, first, n, second;
	int64_t cols;
} sm_gpu_group_t;

/* A call's groups as the kernels take them.  Q lanes per group; lane l of
 * group g scans query lq[g * Q + l] (-1: an empty lane, all N rows);
 * groups are ordered longest query first, so that [0, nladder) are those
 * whose scores can overflow the narrow lanes. */
typedef struct {
	int Q, ngroups, nladder, lane_pairs;
	int *lq;            /* [ngroups * Q] */
	int32_t *glen;      /* [ngroups]: rows (the longest query) */
	int32_t *shift;     /* [ngroups * Q]: each lane's locus shift (scan.h) */
	int64_t *qoff;      /* [ngroups]: where the group's rows start in the packed rows */
	int64_t rows_total; /* bytes of packed rows: sum of glen * Q */
} sm_gpu_groups_t;

/* Host scratch the grouping of n queries needs (bytes), and the sizes of
 * the arrays of sm_gpu_groups_t (at most n groups). */
size_t sm_gpu_group_scratch_bytes(int n);

/* Makes the groups of n queries q (refs: NULL for the whole reference,
 * else query k's own reference) with Q lanes each; pair: with Q == 2,
 * pair the single-query groups (lane references).  scratch: as
 * sm_gpu_group_scratch_bytes(n) says.  out's arrays are the caller's,
 * room for n groups (lq, shift: n * Q).  Queries with the same reference
 * consecutively share a group.  Returns 0 (no failure possible once the
 * memory is given). */
int sm_gpu_make_groups(int n, const sm_query_t *q, const sm_ref_t *const *refs, int Q, int pair,
		       int bits, const sm_score_t *sc, void *scratch, sm_gpu_groups_t *out);

/* Longest query first; then the longest own reference first; then input
 * order (a qsort comparator on sm_gpu_group_t). */
int sm_gpu_group_cmp(const void *a, const void *b);

/* Sorts rg[0..n), whose `first` fields rise with their index, in
 * sm_gpu_group_cmp's order: by radix on one key per group when the lengths,
 * references and count fit its fields (every call of the mapper's), else
 * with qsort.  keys: room for 2 * n; copy: room for n groups. */
void sm_gpu_sort_groups(sm_gpu_group_t *rg, int n, uint64_t *keys, sm_gpu_group_t *copy);

/* Pairs the groups of rg[0..ngroups) holding one query each, neighbours
 * in (longer query, fewer contigs, more bases) order; keys: room for
 * 2 * (ngroups + 1).  Returns the groups left (paired ones merged into
 * the first of each pair; order of the survivors kept). */
int sm_gpu_pair_lanes(sm_gpu_group_t *rg, int ngroups, const sm_ref_t *const *refs, uint64_t *keys);

/* The query in odd lanes of group gi: its own when the group pairs two
 * references, else lane 0's (both lanes read one reference). */
static inline int sm_gpu_odd_lane(const int *lq, int gi, int Q)
{
	return Q == 2 && lq[gi * Q + 1] >= 0 ? lq[gi * Q + 1] : lq[gi * Q];
}

/* A read's first base c has the row code SM_GPU_FIRST_CODE + c when a 5'
 * clipping bonus is set: its profile carries the bonus (smk::FIRST_CODE,
 * sw_params.cuh, is the same value). */
#define SM_GPU_FIRST_CODE (SM_BASE_N + 1)

/* Packs the groups' rows into rows[0..rows_total): [i][lane], a shorter
 * query front-padded with N rows, an empty lane all N (n_row: at least
 * the longest group's N codes), codes above N clamped to N; with mark_first,
 * each query's first base coded SM_GPU_FIRST_CODE + c. */
void sm_gpu_pack_rows(const sm_gpu_groups_t *gr, const sm_query_t *q, const uint8_t *n_row,
		      int mark_first,
		      uint8_t *rows);

/* ---- per-group references ----------------------------------------------- */

/* Device layout of the whole reference r with separators of pad columns
 * before, between and after its contigs: contig c starts at dstart[c].
 * Returns the columns the layout spans. */
int64_t sm_gpu_place_contigs(const sm_ref_t *r, int64_t pad, int64_t *dstart);

/* Device layout of a group's references a (even lanes) and b (odd lanes;
 * b == a when they share it): their contigs j side by side from column
 * dstart[j], lane l's at ld_l[j], congruent to its own coordinate modulo
 * SM_GPU_PAD_ALIGN (locus bins hold), and SM_GPU_GREF_SEP separator
 * columns after the longer one.  A lane without a contig j gets an empty
 * one at dstart[j].  Returns the columns the layout spans. */
int64_t sm_gpu_place_lanes(const sm_ref_t *a, const sm_ref_t *b, int64_t *dstart, int64_t *ld0,
			   int64_t *ld1);

/* Contig slots of all groups' references (the tables' length) and the
 * int64 table entries sm_gpu_layout_refs writes. */
int64_t sm_gpu_ref_slots(const sm_gpu_groups_t *gr, const sm_ref_t *const *refs);
#define SM_GPU_REF_TAB_PER_GROUP 2
#define SM_GPU_REF_TAB_PER_SLOT 11
static inline int64_t sm_gpu_ref_tab_len(int ngroups, int64_t nc)
{
	return SM_GPU_REF_TAB_PER_GROUP * (int64_t)ngroups + SM_GPU_REF_TAB_PER_SLOT * nc;
}

/* The tables of the per-group references of a call, in one int64 array
 * tab of sm_gpu_ref_tab_len(ngroups, nc) entries:
 *   gref[g]       where group g's reference starts (multiple of 64)
 *   gdev_len[g]   the columns it spans
 *   dstart[c]     contig slot c's start, relative to its group
 *   goff[c]       global coordinate minus device column, even lanes
 *   goff1[c]      the same for odd lanes
 *   lt[4 * l * nc + (0..3) * nc + c]  lane l's contig: start, length,
 *                 source column in the device reference, backwards
 * and gcontig[g .. g+1): group g's contig slots. */
typedef struct {
	int64_t nc;
	int64_t *gref, *gdev_len, *dstart, *goff, *goff1, *lt;
	int32_t *gcontig;
	int64_t total;        /* columns of all groups' regions (each rounded up to 64) */
	int64_t max_dev_len;  /* the longest group's columns */
} sm_gpu_ref_layout_t;

/* Where the whole reference's contigs lie on the device (for src). */
typedef struct {
	const int64_t *offset;     /* global coordinate of each contig */
	const int64_t *dev_start;  /* its device column */
	int32_t n_contig;
} sm_gpu_ref_map_t;

/* Fills the tables (tab: sm_gpu_ref_tab_len entries; gcontig: ngroups + 1)
 * for the groups gr of queries with references refs; src (NULL, or one per
 * query): where each reference's bases lie in the whole reference, found
 * through map. */
void sm_gpu_layout_refs(const sm_gpu_groups_t *gr, const sm_ref_t *const *refs,
			const sm_ref_src_t *src, const sm_gpu_ref_map_t *map, int64_t nc,
			int64_t *tab, int32_t *gcontig, sm_gpu_ref_layout_t *out);

/* ---- launches ----------------------------------------------------------- */

/* What the launch planner needs about the call and the device. */
typedef struct {
	int sms;                 /* multiprocessors */
	const sm_gpu_arch_tune_t *arch;
	int gref_halos;          /* shortest per-group range in halos; 0: one range per group */
	int gref;                /* per-group references (else the whole reference) */
	int64_t dev_len;         /* whole reference: end of its last contig's device columns;
				    gref: the longest group's columns */
	int64_t col_begin;       /* whole reference: its first contig's first device column (the
				    separator before it is never scanned); gref: 0 */
	int64_t total_len;       /* gref: all groups' columns */
	int Q;
	const sm_score_t *sc;
	int range_halos;         /* whole reference: shortest range in halos; 0: SM_GPU_MIN_RANGE_HALOS */
	int64_t n_tab;           /* whole reference: ranges of its contigs' table
				    (sm_gpu_contig_ranges), 0: ranges over [col_begin, dev_len) */
	int warps_per_sm;        /* whole reference: warps per multiprocessor; 0: arch's */
} sm_gpu_launch_in_t;

/* One launch of a strip kernel and its merge: groups [g_begin, g_begin +
 * chunk), each cut into nranges ranges of range_len reported columns
 * (multiple of the strip's columns) after halo columns of context. */
typedef struct {
	int g_begin, chunk, nranges;
	int64_t range_len, halo;
	size_t range_bytes;      /* the per-range lists: chunk * nranges * Q * SM_TOPK keys */
} sm_gpu_launch_t;

/* Plans the launch that starts at group gs of a class's groups [gs, g_end)
 * (glen: rows of each group, longest first) for a kernel with `cols`
 * columns per lane and nw warps (ranges) a block; on the whole reference,
 * one warp a block means one range a group (sm_gpu_whole_one_range).  The
 * caller moves gs on by out->chunk.  Range r reports columns [col_begin +
 * r * range_len, ...). */
void sm_gpu_plan_launch(const sm_gpu_launch_in_t *in, const int32_t *glen, int gs, int g_end,
			int cols, int nw, sm_gpu_launch_t *out);

/* The whole reference as one range per group, in one-warp blocks: for a
 * short reference (at most SM_GPU_ONE_RANGE_STRIPS strips) when a wave
 * model says it holds the device for less time than the split plan
 * (ranges of split->range_len columns after split->halo, nw to a block,
 * sm_gpu_plan_launch's): waves of `groups` one-range warps, each the
 * reference's strips, against waves of groups x nranges range warps, each
 * its block's mean held strips (sm_gpu_range_cost), SM_GPU_RESIDENT_WARPS
 * warps a multiprocessor either way.  Each range repeats its halo and its
 * start-up, and a block's warps wait for its longest range; one range has
 * neither, but leaves the device part-empty when groups are few.  On an
 * H100, 2,048 groups of 72-250 bp reads against 9,719 bp: 4.4-4.7
 * against 3.8-4.0 TCUPS (+17-22%); at 30 kbp (59 strips) +0-3%, at 100
 * kbp -6% (results/gpu-kernel.md).  1 to use it, 0 not. */
#define SM_GPU_ONE_RANGE_STRIPS 32
#define SM_GPU_RESIDENT_WARPS 16
int sm_gpu_whole_one_range(const sm_gpu_launch_in_t *in, int64_t groups, int cols, int nw,
			   const sm_gpu_launch_t *split);

/* Ranges of contigs: where the separators before the contigs (sep columns
 * each, sm_gpu_sep_len) are more than a quarter of the columns a
 * whole-reference range covers (n contigs of len[] bases; an amplicon panel
 * of 2,000 200 bp contigs behind 1,024-column separators scanned 3x the
 * columns it held), ranges follow the contigs instead: each contig cut into
 * pieces of at most SM_GPU_CONTIG_RANGE_COLS reported columns, a piece
 * computed from halo columns before it or from its contig's first base,
 * whichever is later (a contig's first column starts from zeros, as behind
 * its separator), rounded down to SM_GPU_PAD_ALIGN.  sm_gpu_use_contig_ranges says whether; sm_gpu_contig_
 * ranges writes the triples (first reported column, end, first computed
 * column; dev_start: each contig's device column) to tab (NULL: counts
 * only) and returns their number. */
#define SM_GPU_CONTIG_RANGE_COLS 8192
int sm_gpu_use_contig_ranges(const int64_t *len, int n, int64_t sep);
int64_t sm_gpu_contig_ranges(const int64_t *dev_start, const int64_t *len, int n, int64_t halo,
			     int64_t *tab);

/* Warp-strips a group holds the device for with ranges of R columns
 * (sm_gpu_plan_launch's measure; exposed for the tests). */
int64_t sm_gpu_range_cost(int64_t begin, int64_t end, int64_t R, int64_t halo, int64_t S, int nw);

/* ---- workspace ---------------------------------------------------------- */

/* Regions of a call's workspace, in the order they lie in it. */
enum {
	SM_GPU_WS_QOFF,      /* int64 [ngroups] */
	SM_GPU_WS_GLEN,      /* int32 [ngroups] */
	SM_GPU_WS_SHIFT,     /* int32 [ngroups * Q] */
	SM_GPU_WS_GCONTIG,   /* int32 [ngroups + 1] (per-group references) */
	SM_GPU_WS_GTAB,      /* int64 [sm_gpu_ref_tab_len] */
	SM_GPU_WS_ROWS,      /* uint8 [rows_total] */
	SM_GPU_WS_GSEQ,      /* uint8 [total + SM_GPU_REF_TAIL] the per-group references */
	SM_GPU_WS_UPLOAD_END = SM_GPU_WS_GSEQ,  /* the regions before it go up in one copy */
	SM_GPU_WS_RES,       /* uint64 [ngroups * Q * SM_TOPK] the results */
	SM_GPU_WS_CELLS,     /* uint64 [3] cells per width */
	SM_GPU_WS_RANGE,     /* uint64: the largest launch's per-range lists (device only) */
	SM_GPU_WS_N
};

/* The shape of a call, and where each region lies (bytes from the start
 * of the workspace; the same offsets in the pinned host copy and on the
 * device).  Regions are aligned to SM_GPU_WS_ALIGN. */
#define SM_GPU_WS_ALIGN 256
typedef struct {
	int ngroups, Q;
	int64_t rows_total, ref_tab, ref_cols;   /* ref_*: 0 on the whole reference */
	size_t range_bytes;
} sm_gpu_ws_shape_t;

typedef struct {
	size_t off[SM_GPU_WS_N + 1];   /* off[SM_GPU_WS_N]: the total */
} sm_gpu_ws_t;

/* The layout of a call of this shape (the size query: ws->off[SM_GPU_WS_N]
 * bytes on the device; the host needs off[SM_GPU_WS_CELLS + 1]). */
void sm_gpu_ws_layout(const sm_gpu_ws_shape_t *shape, sm_gpu_ws_t *ws);

#ifdef __cplusplus
}
#endif
#endif
