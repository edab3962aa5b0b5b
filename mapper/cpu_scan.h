/* cpu_scan.h — the CPU scoring engine: the row-parallel scan of Yasui & Ino
 * (2018) with mixed word length, vectorised along the reference with SSE4.1,
 * AVX2 or AVX-512BW, and a scalar fallback.
 *
 * For one query it computes exactly what sm_scan_oracle() (scan.h) computes:
 * the SM_TOPK best locus bins of the column maxima C(j) = max_i H(i,j) over
 * the whole reference.  Design and measurements: docs/cpu-engine.md.
 *
 * Three pieces:
 *   - sm_cpu_score_t, the scoring scheme compiled into the kernels' tables,
 *     built once and shared (read only) by any number of workspaces;
 *   - sm_cpu_scan_t, a workspace for one thread (not shareable), with
 *     sm_cpu_scan() scanning one query against a reference;
 *   - the CPU engine (cpu_engine.c): the engine interface (engine_ops.h)
 *     over these, with one compiled scoring and, per calling thread, a
 *     workspace and a seeder.
 *
 * All memory is host memory. */
#ifndef SM_CPU_SCAN_H
#define SM_CPU_SCAN_H

#include <stdint.h>

#include "io/ref.h"
#include "mapper/engine_ops.h"
#include "mapper/scan.h"
#include "mapper/score.h"

/* Instruction sets, in increasing order of vector width. */
typedef enum {
	SM_CPU_ISA_AUTO = 0,   /* the widest the CPU supports */
	SM_CPU_ISA_SCALAR,     /* portable C, 32-bit cells */
	SM_CPU_ISA_SSE41,      /* 128-bit vectors */
	SM_CPU_ISA_AVX2,       /* 256-bit vectors */
	SM_CPU_ISA_AVX512,     /* 512-bit vectors, AVX-512F + BW */
} sm_cpu_isa_t;

/* The widest instruction set this CPU supports (detected once, thread-safe). */
sm_cpu_isa_t sm_cpu_isa_best(void);

/* 1 if this CPU can run isa (AUTO and SCALAR always can), else 0. */
int sm_cpu_isa_supported(sm_cpu_isa_t isa);

/* Parses "auto", "scalar", "sse41", "avx2" or "avx512" (NULL means "auto").
 * Returns 0, or -1 after logging an error naming the bad value. */
int sm_cpu_isa_parse(const char *name, sm_cpu_isa_t *isa);

/* "scalar", "sse41", "avx2", "avx512" ("auto" for AUTO). */
const char *sm_cpu_isa_name(sm_cpu_isa_t isa);

typedef struct sm_cpu_score_s sm_cpu_score_t;
typedef struct sm_cpu_scan_s sm_cpu_scan_t;

/* Compiles sc into the kernels' form (substitution tables of both kernels,
 * row 1's with the 5' bonus for each first base, the widths the gap
 * penalties allow).  Returns NULL after logging (out of memory). */
sm_cpu_score_t *sm_cpu_score_create(const sm_score_t *sc);
void sm_cpu_score_destroy(sm_cpu_score_t *k);

/* Creates a workspace for one thread that scans with scoring k (which must
 * outlive it).  isa AUTO picks sm_cpu_isa_best(); cells selects the ladder
 * of cell widths (engine.h; AUTO = 8, 16, 32 bit); the scalar ISA always
 * uses 32-bit cells.  max_query_len pre-sizes the per-row buffers (longer
 * queries grow them).  Returns NULL after logging why (ISA not supported by
 * this CPU, out of memory). */
sm_cpu_scan_t *sm_cpu_scan_create(sm_cpu_isa_t isa, sm_cells_t cells, const sm_cpu_score_t *k,
				  int max_query_len);

/* The ISA a workspace runs. */
sm_cpu_isa_t sm_cpu_scan_isa(const sm_cpu_scan_t *ws);

/* Which SIMD kernel scans a contig (docs/cpu-engine.md); all give the same
 * results.  The tiled row kernel is fastest on long contigs and on short
 * ones where the read does not align; on a short contig that holds the
 * read's alignment (a seeded window) the anti-diagonal kernel is. */
typedef enum {
	SM_CPU_KERNEL_AUTO = 0,  /* anti-diagonal for contigs of up to 2,048 columns
				  * in references of up to 32,768 (8-bit cells; 16-bit
				  * with AVX-512), tiles otherwise */
	SM_CPU_KERNEL_TILES,     /* the tiled row kernel only */
	SM_CPU_KERNEL_DIAG,      /* anti-diagonal for every contig of up to 4,096 columns */
} sm_cpu_kernel_t;

/* Sets the kernel choice of a workspace (created with AUTO).  For tests and
 * benchmarks; the scalar ISA has one kernel and ignores it. */
void sm_cpu_scan_set_kernel(sm_cpu_scan_t *ws, sm_cpu_kernel_t kernel);

/* Scans query q against ref with the workspace's scoring (compiled from a
 * scheme sc); writes *out, identical to sm_scan_oracle(ref, sc, q, out).  If st is not NULL, adds
 * this query's cells (st->cells, st->cells_w[]) and 1 to st->queries;
 * st->seconds is left to the caller.  Returns 0, or -1 after logging an
 * error (query too long for 32-bit cells with this scoring, out of memory). */
int sm_cpu_scan(sm_cpu_scan_t *ws, const sm_ref_t *ref, const sm_query_t *q, sm_scan_t *out,
		sm_engine_stats_t *st);

void sm_cpu_scan_destroy(sm_cpu_scan_t *ws);

/* The CPU engine's entry points (cpu_engine.c; sm_engine_create() picks
 * them for SM_ENGINE_CPU). */
extern const sm_engine_ops_t sm_cpu_engine_ops;

#endif
