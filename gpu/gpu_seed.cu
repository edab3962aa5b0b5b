/* gpu_seed.cu — a batch of reads' candidate windows on the GPU (gpu_seed.h).
 *
 * One call runs, on a stream of its own:
 *   look_up    one block per read: every k-mer's canonical hash looked up
 *              in the device index (its occurrences and where they start);
 *              the read's hit count: the hits of minimizers with at most
 *              max_occ occurrences, or of all of them when that is none.
 *   (host)     the counts come back; reads are cut into chunks whose hits
 *              fit the hit buffers, and each chunk runs:
 *   fill_hits  one block per read: a block-wide scan of the counts places
 *              each k-mer's hits, packed as seed.c packs them (strand, then
 *              biased diagonal, so plain integer order is seed.c's order);
 *   sort       CUB's segmented sort, one segment per read;
 *   windows    one warp per read: seed.c's clusters, best clusters,
 *              windows and merge (the lanes find the clusters 32 hits at
 *              a time; lane 0 keeps the best and makes the windows).
 * Equal hits are indistinguishable and the cluster order is total, so the
 * windows equal sm_seed_find()'s whatever order the hits were written in. */
#include "gpu/gpu_seed.h"

#include <cub/cub.cuh>
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/cuda_check.h"
#include "gpu/gpu_copy.h"
#include "gpu/gpu_plan.h"
#include "gpu/gpu_pool.cuh"
#include "io/clock.h"
#include "io/log.h"
#include "io/trace.h"
#include "mapper/score.h"

#define SEED_THREADS 128
/* Hits one chunk may hold (a chunk is one read when a read alone has more):
 * 2 x 8 bytes each, so at most 256 MiB of hit buffers per call in flight. */
#define SEED_CHUNK_HITS ((int64_t)16 << 20)
#define HIT_STRAND_SHIFT 63
#define HIT_DIAG_BIAS ((int64_t)1 << 40)


/* The index as the kernels see it (device pointers). */
typedef struct {
	const uint32_t *key;
	const int64_t *start;
	const int64_t *pos;
	const uint32_t *bucket;   /* NULL: binary search */
	int bucket_bits;
	int k;
	int64_t n_key;
	const int64_t *offset;    /* contig starts */
	const int64_t *len;       /* contig lengths */
	int32_t n_contig;
	int64_t total;
} dindex_t;

/* Buffers of one call in flight, reused by the next call that takes them.
 * Per read: start (n + 1), margin, hit count, chunk hit offsets (n + 1),
 * length-free flags (all), window counts.  Per base: occurrences, where
 * they start, the minimizer's strand. */
typedef struct {
	cudaStream_t stream;
	sm_gpu_buf_t reads, roff, margin, cnt, hoff, all, nwin, left, skip; /* device */
	sm_gpu_buf_t occ, first, mstrand, hit, sorted, cl, win, temp;
	/* pinned host: what goes to the device, and what comes back before
	 * it is copied to the caller's (pageable) arrays, so that no copy
	 * waits on the host for the kernels before it (a device-to-host copy
	 * into pageable memory does, spinning in the driver) */
	sm_gpu_buf_t h_reads, h_roff, h_margin, h_cnt, h_hoff, h_skip, h_win, h_nwin, h_left;
	cudaEvent_t ev[2];      /* the call's start and end on the device (traces) */
} call_t;

/* The seeder of one device: the index there, and the buffers of every
 * call made on it. */
typedef struct {
	int device;
	int index;              /* in the run's list */
	dindex_t x;
	void *d_key, *d_start, *d_pos, *d_bucket, *d_offset, *d_len;
	sm_gpu_pool_t pool;     /* its calls' buffers (call_t) and load */
} seed_dev_t;

/* lock guards the devices' pools and counters and the statistics. */
struct sm_gpu_seed_s {
	int n_dev;
	seed_dev_t *dev[SM_GPU_MAX_ENGINES];
	sm_gpu_wait_t wait;
	int poll_us;
	sm_gpu_pool_t *pools[SM_GPU_MAX_ENGINES];   /* each device's, for sm_gpu_pool_pick */
	pthread_mutex_t lock;
	int64_t chunk_hits;
	double seconds;
	int64_t reads;
};

/* ---- device ---- */

/* Occurrences of hash h (0 if absent); *first: where they start in pos. */
__device__ static int64_t index_find(const dindex_t *x, uint32_t h, int64_t *first)
{
	int64_t k = sm_index_slot(x->key, x->n_key, x->bucket, x->bucket_bits, h);

	if (k < 0)
		return 0;
	*first = x->start[k];
	return x->start[k + 1] - x->start[k];
}

/* Every k-mer of read r (the one ending at each base; none where fewer than
 * k unambiguous bases end there) looked up; cnt[r]: the read's hit count,
 * all[r]: 1 when no minimizer has 1..max_occ occurrences (then all count);
 * left[r].skipped: the k-mers skipped as repetitive (seed.h), skip[]: where
 * they end (sm_seed_find's skip). */
__global__ static void look_up(dindex_t x, const uint8_t *reads, const int64_t *roff,
			       int64_t max_occ, int64_t *occ, int64_t *first, uint8_t *mstrand,
			       int64_t *cnt, int32_t *all, sm_seed_left_t *left, uint8_t *skip)
{
	typedef cub::BlockReduce<long long, SEED_THREADS> reduce_t;
	__shared__ typename reduce_t::TempStorage tmp;
	__shared__ long long small_sum, every_sum;
	const int r = blockIdx.x;
	const int64_t at = roff[r];
	const int32_t n = (int32_t)(roff[r + 1] - at);
	const int k = x.k;
	const uint64_t mask = (k == 32) ? ~0ull : ((1ull << (2 * k)) - 1);
	long long small = 0, every = 0, n_skip = 0;

	for (int32_t i = threadIdx.x; i < n; i += blockDim.x) {
		uint64_t fwd = 0, rev = 0;
		int64_t o = 0, f = 0;
		int strand = 0, ok = i >= k - 1;

		for (int t = i - k + 1; ok && t <= i; t++) {
			uint8_t c = reads[at + t];

			if (c >= SM_BASE_N) {
				ok = 0;
				break;
			}
			fwd = ((fwd << 2) | c) & mask;
			rev = (rev >> 2) | ((uint64_t)(3 - c) << (2 * (k - 1)));
		}
		if (ok) {
			strand = rev < fwd;
			o = index_find(&x, (uint32_t)sm_mix64(strand ? rev : fwd), &f);
		}
		occ[at + i] = o;
		first[at + i] = f;
		mstrand[at + i] = (uint8_t)strand;
		skip[at + i] = o > max_occ;
		if (o > 0 && o <= max_occ)
			small += o;
		every += o;
		n_skip += o > max_occ;
	}
	long long s = reduce_t(tmp).Sum(small);
	if (threadIdx.x == 0)
		small_sum = s;
	__syncthreads();
	long long e = reduce_t(tmp).Sum(every);
	if (threadIdx.x == 0)
		every_sum = e;
	__syncthreads();
	long long sk = reduce_t(tmp).Sum(n_skip);
	if (threadIdx.x == 0) {
		cnt[r] = small_sum ? small_sum : every_sum;
		all[r] = small_sum == 0;
		left[r].skipped = small_sum ? (int32_t)sk : 0;
	}
}

/* Read r0 + blockIdx.x's hits, packed as seed.c's hit_pack, from hoff[] on
 * (relative to the chunk). */
__global__ static void fill_hits(dindex_t x, const int64_t *roff, int r0, int64_t max_occ,
				 const int64_t *occ, const int64_t *first, const uint8_t *mstrand,
				 const int32_t *all, const int64_t *hoff, uint64_t *hit)
{
	typedef cub::BlockScan<long long, SEED_THREADS> scan_t;
	__shared__ typename scan_t::TempStorage tmp;
	const int r = r0 + blockIdx.x;
	const int64_t at = roff[r];
	const int32_t n = (int32_t)(roff[r + 1] - at);
	const int k = x.k;
	const int every = all[r];
	int64_t base = hoff[blockIdx.x];

	for (int32_t i0 = 0; i0 < n; i0 += blockDim.x) {
		int32_t i = i0 + threadIdx.x;
		long long o = i < n ? occ[at + i] : 0, before, total;

		if (o > 0 && !every && o > max_occ)
			o = 0;
		scan_t(tmp).ExclusiveSum(o, before, total);
		__syncthreads();
		if (o > 0) {
			const int64_t *pos = x.pos + first[at + i];
			uint64_t *out = hit + base + before;
			int ms = mstrand[at + i];

			for (long long u = 0; u < o; u++) {
				int64_t g = pos[u] >> 1;
				int strand = (int)((pos[u] & 1) ^ ms);
				int64_t diag = strand ? g - (n - i + k - 2) : g - i;

				out[u] = (uint64_t)strand << HIT_STRAND_SHIFT |
					 (uint64_t)(diag + HIT_DIAG_BIAS);
			}
		}
		base += total;
	}
}

/* Hits are (strand, biased diagonal) packed as fill_hits packs them. */
__device__ static inline int32_t hit_strand(uint64_t h)
{
	return (int32_t)(h >> HIT_STRAND_SHIFT);
}

__device__ static inline int64_t hit_diag(uint64_t h)
{
	return (int64_t)(h & ~((uint64_t)1 << HIT_STRAND_SHIFT)) - HIT_DIAG_BIAS;
}

/* First of the sorted hits h[0..n) above key (upper) or not below it (lower). */
__device__ static int64_t hits_upper(const uint64_t *h, int64_t n, uint64_t key)
{
	int64_t lo = 0, hi = n;

	while (lo < hi) {
		int64_t m = lo + (hi - lo) / 2;

		if (h[m] <= key)
			lo = m + 1;
		else
			hi = m;
	}
	return lo;
}

__device__ static int64_t hits_lower(const uint64_t *h, int64_t n, uint64_t key)
{
	int64_t lo = 0, hi = n;

	while (lo < hi) {
		int64_t m = lo + (hi - lo) / 2;

		if (h[m] < key)
			lo = m + 1;
		else
			hi = m;
	}
	return lo;
}

__device__ static inline uint64_t hit_key(int32_t strand, int64_t diag)
{
	return (uint64_t)strand << HIT_STRAND_SHIFT | (uint64_t)(diag + HIT_DIAG_BIAS);
}

/* seed.c's dropped_near for the sorted hits h[0..nh) and the kept clusters
 * best[0..nb), one hit per lane at a time: for each hit outside the kept
 * clusters, the hits outside them of its strand within reach diagonals
 * from it (all of them, less those of kept clusters there); the most,
 * in every lane. */
__device__ static int32_t dropped_near(const uint64_t *h, int64_t nh, const sm_cluster_t *best,
				       int64_t nb, int64_t reach, int lane)
{
	const unsigned FULL = 0xffffffffu;
	long long most = 0;

	for (int64_t t = lane; t < nh; t += 32) {
		const int32_t st = hit_strand(h[t]);
		const int64_t d = hit_diag(h[t]);
		int kept = 0;

		for (int64_t c = 0; c < nb && !kept; c++)
			kept = best[c].strand == st && best[c].lo <= d && d <= best[c].hi;
		if (kept)
			continue;
		long long in = hits_upper(h, nh, hit_key(st, d + reach)) - t;

		for (int64_t c = 0; c < nb; c++) {
			if (best[c].strand != st || best[c].hi < d || best[c].lo > d + reach)
				continue;
			int64_t lo = best[c].lo > d ? best[c].lo : d;
			int64_t hi = best[c].hi < d + reach ? best[c].hi : d + reach;

			in -= hits_upper(h, nh, hit_key(st, hi)) - hits_lower(h, nh, hit_key(st, lo));
		}
		most = in > most ? in : most;
	}
	for (int o = 16; o > 0; o >>= 1) {
		long long v = __shfl_xor_sync(FULL, most, o);

		most = v > most ? v : most;
	}
	return most < INT32_MAX ? (int32_t)most : INT32_MAX;
}

/* 1 if sorted hit b starts a new cluster after hit a (seed.c: another
 * strand, or more than `band` diagonals further). */
__device__ static inline int hit_breaks(uint64_t a, uint64_t b, int band)
{
	return hit_strand(a) != hit_strand(b) || hit_diag(b) - hit_diag(a) > band;
}

/* Read r0 + warp's windows from its sorted hits: seed.c's build_clusters,
 * best_clusters, cluster_window and merge.  One warp per read: a cluster
 * break depends only on two neighbouring hits, so the lanes take 32 hits
 * at a time; each lane holding a cluster's last hit makes the cluster
 * (its first hit: the nearest break at or before it) and offers it to the
 * best list, which lane 0 keeps with sm_cluster_keep.  The clusters' order
 * is total, so the list is the same whatever order they are offered in. */
__global__ static void windows(dindex_t x, const int64_t *roff, int r0, int nr, int band,
			       int keep, const int64_t *margin, const int64_t *hoff,
			       const uint64_t *hit, sm_cluster_t *cl, sm_window_t *win,
			       int32_t *n_win, sm_seed_left_t *left)
{
	const unsigned FULL = 0xffffffffu;
	const int lane = threadIdx.x & 31;
	const int j = (int)((blockIdx.x * (int64_t)blockDim.x + threadIdx.x) >> 5);

	if (j >= nr)
		return;   /* the whole warp */
	const int r = r0 + j;
	const int32_t n = (int32_t)(roff[r + 1] - roff[r]);
	const uint64_t *h = hit + hoff[j];
	const int64_t nh = hoff[j + 1] - hoff[j];
	sm_cluster_t *best = cl + (int64_t)j * keep;
	sm_window_t *w = win + (int64_t)r * keep;
	int64_t n_best = 0;            /* lane 0's; broadcast after each round */
	int64_t first_t = 0;           /* the open cluster's first hit */
	int64_t first_diag = 0;

	for (int64_t t0 = 0; t0 < nh; t0 += 32) {
		const int64_t t = t0 + lane;
		const int ok = t < nh;
		const uint64_t cur = ok ? h[t] : 0;
		const int starts = ok && (t == 0 || hit_breaks(h[t - 1], cur, band));
		const int ends = ok && (t == nh - 1 || hit_breaks(cur, h[t + 1], band));
		const unsigned smask = __ballot_sync(FULL, starts);
		const unsigned upto = smask & (FULL >> (31 - lane));
		const int src = upto ? 31 - __clz(upto) : 0;
		const int64_t src_diag = __shfl_sync(FULL, hit_diag(cur), src);
		sm_cluster_t c;

		c.lo = upto ? src_diag : first_diag;
		c.hi = hit_diag(cur);
		c.votes = (int32_t)(t - (upto ? t0 + src : first_t) + 1);
		c.strand = hit_strand(cur);
		if (smask) {   /* the cluster left open for the next hits */
			const int last = 31 - __clz(smask);

			first_t = t0 + last;
			first_diag = __shfl_sync(FULL, hit_diag(cur), last);
		}
		/* Offer: only clusters that beat the list's last when it is full
		 * (the list only gets better while lane 0 inserts). */
		__syncwarp();
		const int full = __shfl_sync(FULL, (int)(n_best >= keep), 0);
		const int beats = keep > 0 && (!full || sm_cluster_before(&c, &best[keep - 1]));
		unsigned offer = __ballot_sync(FULL, ends && beats);

		while (offer) {
			const int o = __ffs(offer) - 1;
			sm_cluster_t v;

			v.lo = __shfl_sync(FULL, c.lo, o);
			v.hi = __shfl_sync(FULL, c.hi, o);
			v.votes = __shfl_sync(FULL, c.votes, o);
			v.strand = __shfl_sync(FULL, c.strand, o);
			if (lane == 0)
				sm_cluster_keep(best, &n_best, keep, &v);
			offer &= offer - 1;
		}
	}
	__syncwarp();   /* lane 0's best list, final */
	const int32_t dropped = dropped_near(h, nh, best, __shfl_sync(FULL, n_best, 0),
					     margin[r] - band, lane);
	if (lane != 0)
		return;
	left[r].dropped = dropped;

	/* Cluster -> window, then by start (ties merge alike in either
	 * order), then merged: seed.h's steps, as sm_seed_find takes them. */
	int n_w = 0;
	for (int64_t t = 0; t < n_best; t++)
		n_w += sm_cluster_window(x.offset, x.len, x.n_contig, x.total, &best[t], n, margin[r],
					 &w[n_w]);
	for (int t = 1; t < n_w; t++) {
		sm_window_t v = w[t];
		int u = t;

		for (; u > 0 && w[u - 1].start > v.start; u--)
			w[u] = w[u - 1];
		w[u] = v;
	}
	n_win[r] = sm_windows_merge(w, n_w, x.offset, x.n_contig);
}

/* ---- host ---- */

#define D(b, T) ((T *)(c->b.p))

/* Frees a call state (void *: the pool's release). */
static void call_free(void *p)
{
	call_t *c = (call_t *)p;
	sm_gpu_buf_t *dev[] = { &c->reads, &c->roff, &c->margin, &c->cnt, &c->hoff, &c->all, &c->nwin, &c->left, &c->skip,
			 &c->occ, &c->first, &c->mstrand, &c->hit, &c->sorted, &c->cl, &c->win,
			 &c->temp };
	sm_gpu_buf_t *host[] = { &c->h_reads, &c->h_roff, &c->h_margin, &c->h_cnt, &c->h_hoff, &c->h_skip,
			  &c->h_win, &c->h_nwin, &c->h_left };

	sm_gpu_call_release(dev, sizeof dev / sizeof *dev, host, sizeof host / sizeof *host,
			    c->stream, c->ev, 2);
	free(c);
}


/* Sizes c's buffers for n reads of b bases and `keep` windows each; a
 * new call state's for SM_GPU_FIRST_READS reads at least, of the same mean
 * length (gpu_pool.cuh). */
static int call_size(call_t *c, int n, int64_t b, int keep)
{
	int64_t reads = n;

	sm_gpu_first_size(c->reads.cap == 0, SM_GPU_FIRST_READS, &reads, &b);
	size_t nn = (size_t)reads + 1, i64 = sizeof(int64_t), i32 = sizeof(int32_t);
	size_t nb = (size_t)b + 1, nk = (size_t)reads * (size_t)keep + 1;

	return sm_gpu_buf_grow(&c->reads, nb, 0, c->stream) || sm_gpu_buf_grow(&c->h_reads, nb, 1, c->stream) ||
	       sm_gpu_buf_grow(&c->roff, nn * i64, 0, c->stream) || sm_gpu_buf_grow(&c->h_roff, nn * i64, 1, c->stream) ||
	       sm_gpu_buf_grow(&c->margin, nn * i64, 0, c->stream) || sm_gpu_buf_grow(&c->h_margin, nn * i64, 1, c->stream) ||
	       sm_gpu_buf_grow(&c->cnt, nn * i64, 0, c->stream) || sm_gpu_buf_grow(&c->h_cnt, nn * i64, 1, c->stream) ||
	       sm_gpu_buf_grow(&c->hoff, nn * i64, 0, c->stream) || sm_gpu_buf_grow(&c->h_hoff, nn * i64, 1, c->stream) ||
	       sm_gpu_buf_grow(&c->all, nn * i32, 0, c->stream) || sm_gpu_buf_grow(&c->nwin, nn * i32, 0, c->stream) ||
	       sm_gpu_buf_grow(&c->left, nn * sizeof(sm_seed_left_t), 0, c->stream) ||
	       sm_gpu_buf_grow(&c->occ, nb * i64, 0, c->stream) || sm_gpu_buf_grow(&c->first, nb * i64, 0, c->stream) ||
	       sm_gpu_buf_grow(&c->mstrand, nb, 0, c->stream) || sm_gpu_buf_grow(&c->skip, nb, 0, c->stream) || sm_gpu_buf_grow(&c->h_skip, nb, 1, c->stream) ||
	       sm_gpu_buf_grow(&c->cl, nk * sizeof(sm_cluster_t), 0, c->stream) ||
	       sm_gpu_buf_grow(&c->win, nk * sizeof(sm_window_t), 0, c->stream) || sm_gpu_buf_grow(&c->h_win, nk * sizeof(sm_window_t), 1, c->stream) ||
	       sm_gpu_buf_grow(&c->h_nwin, nn * i32, 1, c->stream) ||
	       sm_gpu_buf_grow(&c->h_left, nn * sizeof(sm_seed_left_t), 1, c->stream)
		? -1 : 0;
}

/* Reads [r0, r1) of the call: hits, sort, windows; their windows copied
 * back.  Returns 0 or -1 (logged). */
static int run_chunk(const sm_gpu_seed_t *g, const seed_dev_t *d, call_t *c,
		     const sm_seed_opt_t *opt, int r0, int r1, sm_window_t *win, int32_t *n_win,
		     sm_seed_left_t *left)
{
	int nr = r1 - r0, keep = opt->max_windows;
	int64_t total = 0, *hoff = D(h_hoff, int64_t), *cnt = D(h_cnt, int64_t);
	size_t temp = 0;

	for (int r = r0; r < r1; r++) {
		hoff[r - r0] = total;
		total += cnt[r];
	}
	hoff[nr] = total;
	if (sm_gpu_buf_grow(&c->hit, (size_t)(total + 1) * sizeof(uint64_t), 0, c->stream) ||
	    sm_gpu_buf_grow(&c->sorted, (size_t)(total + 1) * sizeof(uint64_t), 0, c->stream) ||
	    SM_CUDA(cudaMemcpyAsync(c->hoff.p, hoff, (size_t)(nr + 1) * sizeof *hoff,
			       cudaMemcpyHostToDevice, c->stream)))
		return -1;
	fill_hits<<<nr, SEED_THREADS, 0, c->stream>>>(d->x, D(roff, int64_t), r0, opt->max_occ,
						       D(occ, int64_t), D(first, int64_t),
						       D(mstrand, uint8_t), D(all, int32_t),
						       D(hoff, int64_t), D(hit, uint64_t));
	if (SM_CUDA(cudaGetLastError()))
		return -1;
	if (total > 0 &&
	    (SM_CUDA(cub::DeviceSegmentedSort::SortKeys(NULL, temp, D(hit, uint64_t),
						   D(sorted, uint64_t), (long long)total, nr,
						   D(hoff, int64_t), D(hoff, int64_t) + 1,
						   c->stream)) ||
	     sm_gpu_buf_grow(&c->temp, temp + 1, 0, c->stream) ||
	     SM_CUDA(cub::DeviceSegmentedSort::SortKeys(c->temp.p, temp, D(hit, uint64_t),
						   D(sorted, uint64_t), (long long)total, nr,
						   D(hoff, int64_t), D(hoff, int64_t) + 1,
						   c->stream))))
		return -1;
	windows<<<(unsigned)(((int64_t)nr * 32 + SEED_THREADS - 1) / SEED_THREADS), SEED_THREADS, 0,
		  c->stream>>>(
		d->x, D(roff, int64_t), r0, nr, opt->band, keep, D(margin, int64_t),
		D(hoff, int64_t), D(sorted, uint64_t), D(cl, sm_cluster_t), D(win, sm_window_t),
		D(nwin, int32_t), D(left, sm_seed_left_t));
	if (SM_CUDA(cudaGetLastError()) ||
	    SM_CUDA(cudaMemcpyAsync(D(h_win, sm_window_t), D(win, sm_window_t) + (int64_t)r0 * keep,
			       (size_t)nr * keep * sizeof(sm_window_t), cudaMemcpyDeviceToHost,
			       c->stream)) ||
	    SM_CUDA(cudaMemcpyAsync(D(h_nwin, int32_t), D(nwin, int32_t) + r0,
			       (size_t)nr * sizeof(int32_t), cudaMemcpyDeviceToHost, c->stream)) ||
	    SM_CUDA(cudaMemcpyAsync(D(h_left, sm_seed_left_t), D(left, sm_seed_left_t) + r0,
			       (size_t)nr * sizeof(sm_seed_left_t), cudaMemcpyDeviceToHost,
			       c->stream)) ||
	    /* The next chunk rewrites the hit offsets and buffers. */
	    SM_CUDA(sm_stream_wait(c->stream, g->wait, g->poll_us)))
		return -1;
	/* Each read's windows, not the empty slots after them. */
	memcpy(n_win + r0, D(h_nwin, int32_t), (size_t)nr * sizeof(int32_t));
	memcpy(left + r0, D(h_left, sm_seed_left_t), (size_t)nr * sizeof(sm_seed_left_t));
	for (int r = 0; r < nr; r++)
		memcpy(win + (int64_t)(r0 + r) * keep, D(h_win, sm_window_t) + (int64_t)r * keep,
		       (size_t)n_win[r0 + r] * sizeof(sm_window_t));
	return 0;
}

static int seed_call(const sm_gpu_seed_t *g, const seed_dev_t *d, call_t *c,
		     const sm_seed_opt_t *opt, int n,
		     const uint8_t *const *reads, const int32_t *len, const int64_t *margin,
		     sm_window_t *win, int32_t *n_win, sm_seed_left_t *left, uint8_t *skip)
{
	int64_t b = 0, *roff, *cnt;
	uint8_t *hr;

	for (int r = 0; r < n; r++)
		b += len[r];
	if (call_size(c, n, b, opt->max_windows))
		return -1;
	if (sm_gpu_span_begin(c->ev, c->stream))
		return -1;
	roff = D(h_roff, int64_t);
	cnt = D(h_cnt, int64_t);
	hr = D(h_reads, uint8_t);
	b = 0;
	for (int r = 0; r < n; r++) {
		roff[r] = b;
		memcpy(hr + b, reads[r], (size_t)len[r]);
		b += len[r];
	}
	roff[n] = b;
	memcpy(c->h_margin.p, margin, (size_t)n * sizeof *margin);
	if (SM_CUDA(cudaMemcpyAsync(c->reads.p, hr, (size_t)b, cudaMemcpyHostToDevice, c->stream)) ||
	    SM_CUDA(cudaMemcpyAsync(c->roff.p, roff, (size_t)(n + 1) * sizeof *roff,
			       cudaMemcpyHostToDevice, c->stream)) ||
	    SM_CUDA(cudaMemcpyAsync(c->margin.p, c->h_margin.p, (size_t)n * sizeof *margin,
			       cudaMemcpyHostToDevice, c->stream)))
		return -1;
	look_up<<<n, SEED_THREADS, 0, c->stream>>>(d->x, D(reads, uint8_t), D(roff, int64_t),
						    opt->max_occ, D(occ, int64_t),
						    D(first, int64_t), D(mstrand, uint8_t),
						    D(cnt, int64_t), D(all, int32_t),
						    D(left, sm_seed_left_t), D(skip, uint8_t));
	if (SM_CUDA(cudaGetLastError()) ||
	    SM_CUDA(cudaMemcpyAsync(c->h_skip.p, c->skip.p, (size_t)b, cudaMemcpyDeviceToHost,
			       c->stream)) ||
	    SM_CUDA(cudaMemcpyAsync(cnt, c->cnt.p, (size_t)n * sizeof *cnt, cudaMemcpyDeviceToHost,
			       c->stream)) ||
	    SM_CUDA(sm_stream_wait(c->stream, g->wait, g->poll_us)))
		return -1;
	memcpy(skip, c->h_skip.p, (size_t)b);
	for (int r0 = 0; r0 < n;) {
		int r1 = r0 + 1;
		int64_t hits = cnt[r0];

		while (r1 < n && hits + cnt[r1] <= g->chunk_hits)
			hits += cnt[r1++];
		if (run_chunk(g, d, c, opt, r0, r1, win, n_win, left))
			return -1;
		r0 = r1;
	}
	if (sm_gpu_span_end(c->ev, c->stream, "device: seeding"))
		return -1;
	return 0;
}

extern "C" int sm_gpu_seed_find(sm_gpu_seed_t *g, const sm_seed_opt_t *opt, int n,
				const uint8_t *const *reads, const int32_t *len,
				const int64_t *margin, sm_window_t *win, int32_t *n_win,
				sm_seed_left_t *left, uint8_t *skip)
{
	double t0 = sm_seconds();
	seed_dev_t *d;
	call_t *c;
	int rc = -1, e;

	if (n == 0)
		return 0;
	if ((e = sm_gpu_pool_pick(g->pools, g->n_dev, &g->lock)) < 0) {
		sm_log(SM_LOG_ERROR, "GPU seeding: every GPU has failed");
		return -1;
	}
	d = g->dev[e];
	if (SM_CUDA(cudaSetDevice(d->device)) ||
	    !(c = (call_t *)sm_gpu_pool_get(&d->pool, &g->lock, sizeof(call_t),
					    offsetof(call_t, stream), call_free))) {
		sm_log(SM_LOG_ERROR, "GPU seeding: cannot set up a call on GPU %d", d->device);
	} else {
		rc = seed_call(g, d, c, opt, n, reads, len, margin, win, n_win, left, skip);
		sm_gpu_pool_give(&d->pool, &g->lock, c);
	}
	if (rc)
		sm_log(SM_LOG_ERROR, "GPU %d (seeder %d of %d) failed a call; it takes no more calls",
		       d->device, d->index + 1, g->n_dev);
	if (sm_trace_on)
		sm_trace_span("GPU seeding call", t0, sm_seconds());
	pthread_mutex_lock(&g->lock);
	sm_gpu_pool_done(&d->pool, rc != 0);
	g->seconds += sm_seconds() - t0;
	g->reads += n;
	pthread_mutex_unlock(&g->lock);
	return rc;
}

/* Copies host array a (bytes) to a new device buffer *d.  0 or -1. */
static int upload(void **d, const void *a, size_t bytes)
{
	if (SM_CUDA(cudaMalloc(d, bytes ? bytes : 1)))
		return -1;
	return sm_gpu_copy_up(*d, bytes, sm_gpu_fill_array, a, 0);
}

static void dev_destroy(seed_dev_t *d)
{
	if (!d)
		return;
	cudaSetDevice(d->device);
	for (int t = 0; t < d->pool.n; t++)
		call_free((call_t *)d->pool.items[t]);
	free(d->pool.items);
	cudaFree(d->d_key);
	cudaFree(d->d_start);
	cudaFree(d->d_pos);
	cudaFree(d->d_bucket);
	cudaFree(d->d_offset);
	cudaFree(d->d_len);
	free(d);
}

/* The seeder of list entry `index` on `device`: idx and ref's contig table
 * uploaded there.  NULL after logging. */
static seed_dev_t *dev_create(const sm_index_t *idx, const sm_ref_t *ref, int index, int device)
{
	seed_dev_t *d = (seed_dev_t *)calloc(1, sizeof *d);
	int64_t n_pos = idx->start[idx->n_key];

	if (!d) {
		sm_log(SM_LOG_ERROR, "GPU seeding: out of memory");
		return NULL;
	}
	d->device = device;
	d->index = index;
	if (SM_CUDA(cudaSetDevice(device)) ||
	    upload(&d->d_key, idx->key, (size_t)idx->n_key * sizeof *idx->key) ||
	    upload(&d->d_start, idx->start, (size_t)(idx->n_key + 1) * sizeof *idx->start) ||
	    upload(&d->d_pos, idx->pos, (size_t)n_pos * sizeof *idx->pos) ||
	    upload(&d->d_offset, ref->offset, (size_t)ref->n_contig * sizeof *ref->offset) ||
	    upload(&d->d_len, ref->len, (size_t)ref->n_contig * sizeof *ref->len) ||
	    (idx->bucket && upload(&d->d_bucket, idx->bucket,
				   (((size_t)1 << idx->bucket_bits) + 1) * sizeof *idx->bucket))) {
		sm_log(SM_LOG_ERROR, "GPU seeding: cannot upload the index (%lld keys, %lld positions) to GPU %d",
		       (long long)idx->n_key, (long long)n_pos, device);
		dev_destroy(d);
		return NULL;
	}
	d->x.key = (const uint32_t *)d->d_key;
	d->x.start = (const int64_t *)d->d_start;
	d->x.pos = (const int64_t *)d->d_pos;
	d->x.bucket = (const uint32_t *)d->d_bucket;
	d->x.bucket_bits = idx->bucket_bits;
	d->x.k = idx->k;
	d->x.n_key = idx->n_key;
	d->x.offset = (const int64_t *)d->d_offset;
	d->x.len = (const int64_t *)d->d_len;
	d->x.n_contig = ref->n_contig;
	d->x.total = ref->total;
	return d;
}

/* dev_create() in a thread of its own. */
typedef struct {
	const sm_index_t *idx;
	const sm_ref_t *ref;
	int index, device;
	seed_dev_t *d;
} dev_job_t;

static void *dev_create_main(void *arg)
{
	dev_job_t *j = (dev_job_t *)arg;

	j->d = dev_create(j->idx, j->ref, j->index, j->device);
	return NULL;
}

extern "C" sm_gpu_seed_t *sm_gpu_seed_create(const sm_index_t *idx, const sm_ref_t *ref,
					     const sm_gpu_opt_t *opt)
{
	sm_gpu_seed_t *g;
	sm_gpu_list_t l;
	char msg[160];
	int n = 0;

	if (SM_CUDA(cudaGetDeviceCount(&n)))
		return NULL;
	if (sm_gpu_list_resolve(&opt->gpus, n, &l, msg, (int)sizeof msg) < 0) {
		sm_log(SM_LOG_ERROR, "GPU seeding: %s", msg);
		return NULL;
	}
	g = (sm_gpu_seed_t *)calloc(1, sizeof *g);
	if (!g) {
		sm_log(SM_LOG_ERROR, "GPU seeding: out of memory");
		return NULL;
	}
	g->chunk_hits = SEED_CHUNK_HITS;
	g->wait = opt->tune.wait;
	g->poll_us = opt->tune.poll_us ? opt->tune.poll_us : SM_GPU_POLL_US_DEFAULT;
	pthread_mutex_init(&g->lock, NULL);
	/* The devices in parallel, a thread each (the index's upload). */
	{
		dev_job_t job[SM_GPU_MAX_ENGINES];
		int ok = 1;

		for (int k = 0; k < l.n; k++)
			job[k] = (dev_job_t){ idx, ref, k, l.id[k], NULL };
		sm_gpu_for_each_device(l.n, dev_create_main, job, sizeof *job);
		for (int k = 0; k < l.n; k++) {
			g->dev[k] = job[k].d;
			g->pools[k] = job[k].d ? &job[k].d->pool : NULL;
			ok &= job[k].d != NULL;
		}
		g->n_dev = l.n;
		if (!ok) {
			sm_gpu_seed_destroy(g);
			return NULL;
		}
	}
	return g;
}

extern "C" void sm_gpu_seed_set_chunk(sm_gpu_seed_t *g, int64_t hits)
{
	g->chunk_hits = hits > 0 ? hits : SEED_CHUNK_HITS;
}

extern "C" void sm_gpu_seed_stats(const sm_gpu_seed_t *g, double *seconds, int64_t *reads)
{
	*seconds = g->seconds;
	*reads = g->reads;
}

extern "C" void sm_gpu_seed_destroy(sm_gpu_seed_t *g)
{
	if (!g)
		return;
	for (int k = 0; k < g->n_dev; k++)
		dev_destroy(g->dev[k]);
	pthread_mutex_destroy(&g->lock);
	free(g);
}
