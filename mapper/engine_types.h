/* engine_types.h — the types every scoring engine shares with the mapper:
 * which engine, its cell widths and options, its counters, and where a small
 * reference's bases lie in the engine's reference.  A leaf of the engine
 * contract (docs/design.md, "Layers"): gpu/ includes it, so it includes
 * nothing above io/. */
#ifndef SM_ENGINE_TYPES_H
#define SM_ENGINE_TYPES_H

#include <stdint.h>

#include "mapper/scanmap.h"

/* sm_engine_kind_t and sm_cells_t: scanmap.h. */

typedef struct {
	uint64_t cells;        /* cells computed (reference columns x read rows, halos included) */
	uint64_t cells_w[3];   /* of which in 8-, 16- and 32-bit lanes */
	uint64_t queries;
	double seconds;        /* wall time inside sm_engine_scan */
	/* The GPU's calls (both entry points), summed over calls: */
	uint64_t calls;
	double wait_s;         /* waiting for a free slot (gpu_engine.h: two run at once) */
	double call_s;         /* in a slot: packing, copies, kernels, unpacking */
	double kernel_s;       /* of which the kernels (CUDA events) */
} sm_engine_stats_t;

/* Where a small reference's bases lie in the engine's whole reference
 * (sm_engine_scan_refs): contig c is the whole reference's
 * [start[c], start[c] + len[c]), read backwards when rev (then the small
 * reference has one contig).  The GPU engine copies them on the device from
 * the reference it keeps there, so the small reference's seq is not read. */
typedef struct {
	const int64_t *start;
	int rev;
} sm_ref_src_t;

typedef struct {
	sm_engine_kind_t kind;
	sm_cells_t cells;
	int device;            /* CUDA device ordinal */
	int max_query_len;     /* longest read the engine must accept */
	const char *cpu_isa;   /* NULL/"auto", or "scalar", "sse41", "avx2", "avx512" */
} sm_engine_opt_t;

#endif
