/* gpu_stub.c — the GPU engine's entry points in a build without CUDA
 * (make cuda=0, or no nvcc found): no device is ever available. */
#include "gpu/gpu_engine.h"
#include "gpu/gpu_profile.h"
#include "gpu/gpu_seed.h"
#include "gpu/gpu_trace.h"

#include <stdio.h>
#include <string.h>

#include "io/log.h"

void sm_gpu_opt_init(sm_gpu_opt_t *o)
{
	memset(o, 0, sizeof *o);
	o->cells = SM_CELLS_AUTO;
	o->max_query_len = 1;
	sm_gpu_tune_init(&o->tune);
}

int sm_gpu_available(const sm_gpu_list_t *gpus, char *msg, int msg_len)
{
	snprintf(msg, (size_t)msg_len, "this scanmap was built without CUDA");
	return 0;
}

void sm_gpu_warm_up(const sm_gpu_opt_t *opt) {}

sm_gpu_t *sm_gpu_create(const sm_ref_t *ref, const sm_score_t *sc, const sm_gpu_opt_t *opt)
{
	sm_log(SM_LOG_ERROR, "this scanmap was built without CUDA (make cuda=0)");
	return NULL;
}

int sm_gpu_scan(sm_gpu_t *g, int n, const sm_query_t *q, sm_scan_t *out)
{
	return -1;
}

int sm_gpu_scan_refs(sm_gpu_t *g, int n, const sm_query_t *q, const sm_ref_t *const *refs,
		     const sm_ref_src_t *src, sm_scan_t *out)
{
	return -1;
}

void sm_gpu_stats(const sm_gpu_t *g, sm_engine_stats_t *st) {}
const char *sm_gpu_name(const sm_gpu_t *g) { return "none"; }
int sm_gpu_engines(const sm_gpu_t *g) { return 0; }
void sm_gpu_destroy(sm_gpu_t *g) {}

int sm_gpu_profile(const sm_gpu_t *g, sm_gpu_profile_t *p) { return -1; }

int sm_gpu_set_cols(sm_gpu_t *g, int cols, int warps) { return -1; }

int sm_gpu_set_slots(sm_gpu_t *g, int n) { return -1; }

sm_gpu_seed_t *sm_gpu_seed_create(const sm_index_t *idx, const sm_ref_t *ref,
				  const sm_gpu_opt_t *opt)
{
	sm_log(SM_LOG_ERROR, "this scanmap was built without CUDA (make cuda=0)");
	return NULL;
}

int sm_gpu_seed_find(sm_gpu_seed_t *g, const sm_seed_opt_t *opt, int n,
		     const uint8_t *const *reads, const int32_t *len, const int64_t *margin,
		     sm_window_t *win, int32_t *n_win, sm_seed_left_t *left, uint8_t *skip)
{
	return -1;
}

void sm_gpu_seed_set_chunk(sm_gpu_seed_t *g, int64_t hits) {}

void sm_gpu_seed_stats(const sm_gpu_seed_t *g, double *seconds, int64_t *reads)
{
	*seconds = 0;
	*reads = 0;
}

void sm_gpu_seed_destroy(sm_gpu_seed_t *g) {}

sm_gpu_trace_t *sm_gpu_trace_create(const sm_tb_score_t *sc, const sm_gpu_opt_t *opt)
{
	sm_log(SM_LOG_ERROR, "this scanmap was built without CUDA (make cuda=0)");
	return NULL;
}

int sm_gpu_trace_run(sm_gpu_trace_t *g, int n, const sm_tb_job_t *jobs,
		     const uint8_t *const *q, const uint8_t *const *win, sm_tb_res_t *res,
		     uint32_t *ops)
{
	return -1;
}

void sm_gpu_trace_set_chunk(sm_gpu_trace_t *g, int64_t bytes) {}

void sm_gpu_trace_stats(const sm_gpu_trace_t *g, double *seconds, int64_t *jobs)
{
	*seconds = 0;
	*jobs = 0;
}

void sm_gpu_trace_destroy(sm_gpu_trace_t *g) {}
