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
	double seconds;        /* wall time inside sm_engine_scan (whole-reference scans) */
	/* The GPU's calls (both entry points), summed over calls: */
	uint64_t calls;
	double wait_s;         /* waiting for a free slot (gpu_engine.h: two run at once) */
	double call_s;         /* in a slot: packing, copies, kernels, unpacking */
	double kernel_s;       /* of which the kernels (CUDA events) */
	/* The GPU's seeder (sm_engine_seed): */
	double seed_s;         /* seconds inside it, summed over threads */
	int64_t seed_reads;    /* reads seeded */
	/* The GPU's tracebacks (sm_engine_trace): */
	double trace_s;        /* seconds inside it, summed over threads */
	int64_t trace_jobs;    /* band fills run */
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

/* Calls one engine may have in flight at most (each on its own stream
 * with its own workspace).  sm_gpu_list_t, the devices: scanmap.h. */
#define SM_GPU_SLOTS_MAX 16

/* How a host thread waits for its call's stream. */
typedef enum {
	SM_GPU_WAIT_POLL = 0,  /* cudaStreamQuery every poll_us microseconds, sleeping between */
	SM_GPU_WAIT_SPIN,      /* cudaStreamSynchronize, context flag ScheduleSpin */
	SM_GPU_WAIT_YIELD,     /* cudaStreamSynchronize, context flag ScheduleYield */
	SM_GPU_WAIT_BLOCK,     /* cudaStreamSynchronize, context flag ScheduleBlockingSync */
	SM_GPU_WAIT_SYNC,      /* cudaStreamSynchronize, CUDA's default flags */
} sm_gpu_wait_t;

/* Tuning knobs (benchmarks and tests; `scanmap map --gpu-tune`).  All
 * zero (sm_gpu_tune_init, or a zeroed struct) is the default, which is
 * what users run. */
typedef struct {
	int slots;          /* calls in flight per engine, 1..SM_GPU_SLOTS_MAX; 0: the device's tuning row */
	sm_gpu_wait_t wait; /* how a thread waits for its call */
	int poll_us;        /* SM_GPU_WAIT_POLL's interval in microseconds; 0: SM_GPU_POLL_US_DEFAULT */
	int gref_halos;     /* per-group references: shortest range in halos; 0: SM_GPU_GREF_HALOS_DEFAULT,
			     * SM_GPU_GREF_NO_SPLIT: one range per group */
	int no_lane_pairs;  /* 16-bit lanes: do not pair queries that have their own references */
	int host_traces;    /* the tracebacks on the host (--gpu-tune traces=0); 0: on the GPU
			     * (docs/gpu.md, "Tracebacks on the GPU") */
	int trace_block;    /* threads per block of the traceback kernel; 0: SM_GPU_TRACE_BLOCK */
	int range_halos;    /* whole reference: shortest range in halos; 0: SM_GPU_MIN_RANGE_HALOS */
	int warps_per_sm;   /* whole reference: warps of ranges per multiprocessor; 0: the tuning row's */
	/* Test hook: with fail_call > 0, call number fail_call (1-based) of
	 * the engine at index fail_engine of the run's list fails as a
	 * device error would. */
	int fail_engine, fail_call;
} sm_gpu_tune_t;

#define SM_GPU_POLL_US_DEFAULT 20

#define SM_GPU_GREF_HALOS_DEFAULT 8
#define SM_GPU_GREF_NO_SPLIT (-1)

typedef struct {
	sm_engine_kind_t kind;
	sm_cells_t cells;
	sm_gpu_list_t gpus;    /* GPU engine: the devices (n == 0: every visible one) */
	sm_gpu_tune_t gpu_tune; /* GPU engine: tuning knobs (zero: the defaults; gpu/gpu_opt.h parses them) */
	int max_query_len;     /* longest read the engine must accept */
	const char *cpu_isa;   /* NULL/"auto", or "scalar", "sse41", "avx2", "avx512" */
	int threads;           /* the workers that will call the engine (0: unknown) */
} sm_engine_opt_t;

#endif
