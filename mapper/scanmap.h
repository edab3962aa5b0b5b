/* scanmap.h — the mapper as a library: the one public header.
 *
 * Maps short reads to a reference by exact Smith-Waterman (docs/design.md),
 * the way `scanmap map` does, from another program:
 *
 *   sm_mapopt_t o;                                  options, checked
 *   sm_mapopt_init(&o); ...; sm_mapopt_check(&o);
 *   sm_ctx_t *ctx = sm_ctx_create("ref.fa", &o);    reference, index, engine(s)
 *   sm_tbuf_t *buf = sm_tbuf_create(ctx);           one per mapping thread
 *   sm_batch_t *b = sm_batch_create();              reads in, records out
 *   sm_batch_add(b, name, NULL, seq, qual); ...
 *   sm_map_batch(ctx, buf, b, 0);
 *   for (k = 0; k < sm_batch_n_rec(b); k++) use(sm_batch_rec(b, k));
 *   sm_batch_destroy(b); sm_tbuf_destroy(buf); sm_ctx_destroy(ctx);
 *
 * examples/example.c is a complete program.  Records are htslib bam1_t
 * whose tid is the contig's index in the reference (sm_ctx_sam_header()
 * makes the matching header); they are the records `scanmap map` writes
 * for the same reads and options, in the same order.
 *
 * Errors: every call that can fail returns a negative number or NULL after
 * reporting through the logger (one line on stderr, its level set by
 * sm_set_verbosity()); no call exits or prints otherwise.
 *
 * Threads: a context is read-only once created (but for
 * sm_ctx_set_inserts() and sm_ctx_estimate_inserts(), which must not run
 * beside a mapping call); any number of threads may map with it at once,
 * each with its own sm_tbuf_t and its own batches.
 *
 * This header includes nothing of scanmap's (it is installed alone, with
 * build/libscanmap.a, which links with htslib, zlib, libm and pthreads). */
#ifndef SM_SCANMAP_H
#define SM_SCANMAP_H

#include <stdint.h>

/* htslib's record and header (htslib/sam.h), for the callers that use
 * them; this header itself needs no htslib header. */
struct bam1_t;
struct sam_hdr_t;

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sm_ctx_s sm_ctx_t;      /* reference, index, engines, insert sizes */
typedef struct sm_tbuf_s sm_tbuf_t;    /* one mapping thread's scratch */
typedef struct sm_batch_s sm_batch_t;  /* reads in, records out */

/* What the library logs (on stderr, one line per message): 0 nothing,
 * 1 errors, 2 warnings, 3 progress (the default), 4 debug. */
void sm_set_verbosity(int level);

/* ---- options ---- */

/* Scoring: a match scores `match`, a mismatch -`mismatch`, a gap of length
 * k costs gap_open + k * gap_ext (bwa's convention).  An alignment that
 * reaches the read's first (last) base scores clip5 (clip3) more in the
 * objective, not in AS (bwa mem's -L; mapper/score.h). */
typedef struct {
	int match;     /* -A, > 0 */
	int mismatch;  /* -B, penalty > 0 (scored as -mismatch) */
	int gap_open;  /* -O, >= 0 */
	int gap_ext;   /* -E, > 0 */
	int clip5;     /* -L: bonus for reaching the read's first base, >= 0 */
	int clip3;     /* -L: bonus for reaching its last base, >= 0 */
} sm_score_t;

/* Which engine scores the reads (all of them give the same records). */
typedef enum {
	SM_ENGINE_AUTO = 0,  /* GPU when one is usable, else CPU */
	SM_ENGINE_CPU,       /* row-parallel scan on SIMD registers */
	SM_ENGINE_GPU,       /* row-parallel scan on a CUDA GPU */
	SM_ENGINE_ORACLE,    /* the scalar recurrence: slow, for tests */
} sm_engine_kind_t;

/* Cell width ladders of the GPU engine. */
typedef enum {
	SM_CELLS_AUTO = 0,  /* the fastest ladder measured for this device */
	SM_CELLS_8,         /* the paper's ladder: 8-bit, 32-bit on overflow */
	SM_CELLS_16,        /* 16-bit first, 32-bit on overflow */
	SM_CELLS_32,        /* uniform 32-bit */
} sm_cells_t;

/* Exhaustive: every read against the whole reference.  Seeded: against
 * the windows its minimizers vote for.  Auto: exhaustive when the
 * reference is at most SM_AUTO_MAX_REF_CPU bases (CPU engine) or
 * SM_AUTO_MAX_REF_GPU (GPU engine): 2 x 150 x 1 Mbp = 3e8 cells per 150 bp
 * read on the CPU, 3e9 on the GPU, a few milliseconds of either. */
typedef enum {
	SM_MODE_AUTO = 0,
	SM_MODE_EXHAUSTIVE,
	SM_MODE_SEEDED,
} sm_mode_t;

/* Which seeded reads take the completion pass (docs/seeded.md): a read
 * whose first windows may have missed a better locus (the seeding limits
 * left out enough seeds for one) is either seeded again and scanned at
 * every locus that could beat it (then its AS is the exhaustive optimum
 * within seeding's reach), or its MAPQ is capped below 20 (19, 15 or 10:
 * docs/seeded.md, "unsure").  ALL: completed (the default).  WEAK: capped
 * (cheaper where the engine is the CPU's: the completed reads' extra
 * windows are scanned there).  OFF: not checked (MAPQ does not know what
 * seeding left out).  Under WEAK and OFF, reads without a hit or under
 * half a perfect score are seeded again with the relaxed limits. */
typedef enum {
	SM_COMPLETE_WEAK = 0,
	SM_COMPLETE_ALL,
	SM_COMPLETE_OFF,
} sm_complete_t;

#define SM_AUTO_MAX_REF_CPU 1000000
#define SM_AUTO_MAX_REF_GPU 10000000

/* Defaults (as bwa mem: -A1 -B4 -O6 -E1 -L5,5 -T30 -U17 -h5,200) and the ranges
 * sm_mapopt_check() accepts.  The score bounds keep every score of every
 * engine inside int32 and a substitution score inside int8. */
#define SM_DEFAULT_MATCH 1
#define SM_DEFAULT_MISMATCH 4
#define SM_DEFAULT_GAP_OPEN 6
#define SM_DEFAULT_GAP_EXTEND 1
#define SM_DEFAULT_CLIP 5
#define SM_DEFAULT_MIN_SCORE 30
#define SM_DEFAULT_PEN_UNPAIRED 17
#define SM_DEFAULT_XA_MAX 5
#define SM_DEFAULT_XA_MAX_ALT 200
#define SM_MAX_MATCH 100
#define SM_MAX_PENALTY 100
/* match + clip5 is row 1's substitution score, which every engine keeps in
 * a signed byte. */
#define SM_MAX_SUBST INT8_MAX
/* Reads may be up to this long unless max_read_len says otherwise; the GPU
 * engine sizes its buffers for it. */
#define SM_DEFAULT_MAX_READ_LEN 1000
#define SM_MAX_READ_LEN_LIMIT (1 << 20)
#define SM_MAX_SECONDARY 16
#define SM_MAX_WINDOWS_LIMIT 1024
/* The unpaired penalty's bound: a pair's scores stay far from int32 overflow. */
#define SM_MAX_PEN_UNPAIRED (INT32_MAX / 4)
/* The index file sm_ctx_create() looks for beside the reference. */
#define SM_INDEX_SUFFIX ".smi"

/* Engines one run may drive at once (one per listed device; a device may
 * be listed more than once: several engines on one GPU, for tests). */
#define SM_GPU_MAX_ENGINES 16

/* The GPUs to use, as CUDA numbers them (among those CUDA_VISIBLE_DEVICES
 * shows).  n == 0: every visible device. */
typedef struct {
	int n;
	int id[SM_GPU_MAX_ENGINES];
} sm_gpu_list_t;

/* Reads whose fragment is shorter than themselves, so that they go on
 * into adapter (mapper/readthrough.h: pairs found by their overlap, single
 * reads by a known adapter): CLIP maps each read by its fragment and
 * soft-clips the bases past it (the default); WHOLE maps every read whole,
 * as longer fragments are. */
typedef enum { SM_READ_THROUGH_CLIP, SM_READ_THROUGH_WHOLE } sm_read_through_t;

/* What decides the records (`scanmap map`'s option letters in brackets).
 * Strings are borrowed: they must outlive the context. */
typedef struct {
	sm_score_t score;         /* -A -B -O -E */
	int32_t min_score;        /* -T: a best score below it leaves the read unmapped */
	sm_engine_kind_t engine;  /* --engine */
	sm_cells_t cells;         /* --cells */
	sm_gpu_list_t gpus;       /* --gpu / --gpus: one GPU engine per entry (n == 0: every
				   * visible GPU); named devices must exist */
	const char *gpu_tune;     /* --gpu-tune KEY=VALUE,...: the GPU engine's benchmark
				   * knobs (docs/gpu.md), or NULL for the defaults */
	const char *cpu_isa;      /* --cpu-isa: "auto", "scalar", "sse41", "avx2", "avx512" */
	int max_read_len;         /* --max-read-len: longer reads are an error */
	int n_threads;            /* -t: threads the set-up may use (index checks, an index
				   * built in memory); 0: one */
	sm_mode_t mode;           /* --mode */
	int seed_k, seed_w;       /* -k -w: minimizers of an index built in memory */
	int seed_kw_set;          /* -k or -w was given: an index file built with
				   * others is not used */
	int max_occ;              /* --max-occ: minimizers with more hits are repetitive */
	int max_windows;          /* --max-windows: candidate windows per read */
	int max_hits;             /* --max-hits: hits a completion pass collects per read */
	sm_complete_t completion; /* --completion */
	int n_secondary;          /* -N: secondary alignments per read */
	int paired;               /* a batch holds pairs: R1, R2, R1, R2, ... */
	int no_pairing;           /* -P: each read of a pair mapped as a single read, its
				   * mate's fields written, no pair chosen (never proper) */
	int no_rescue;            /* -S: no mate rescue (a read is not searched for near
				   * its mate's hits) */
	int primary5;             /* -5: of a split read's parts, the one that starts first
				   * in the read is the primary (bwa mem's -5; the CLI's -5
				   * sets keep_supp_mapq too, as bwa's does) */
	int keep_supp_mapq;       /* -q: a part's MAPQ is not capped at its primary's */
	int supp_as_secondary;    /* -M: supplementary records flagged 0x100, not 0x800 */
	int supp_soft_clip;       /* -Y: supplementary records soft-clipped, not hard */
	int32_t pen_unpaired;     /* -U: a pair's unpaired penalty */
	int all_hits;             /* -a: every candidate reaching -T as a secondary record */
	int append_comment;       /* -C: the read's comment appended to its record */
	int xa_max;               /* -h: XA:Z lists alternatives when they are at most this many */
	int xa_max_alt;           /* -h's second value (bwa's ALT-contig limit): checked only */
	const char *rg_id;        /* RG:Z of every record, or NULL */
	sm_read_through_t read_through;  /* --read-through */
} sm_mapopt_t;

/* Sets every option to its default. */
void sm_mapopt_init(sm_mapopt_t *o);

/* Checks every value against its range, gpu_tune's syntax, and
 * max_read_len against the traceback memory a read that long may need.
 * Returns 0, or -1 after logging the first bad option. */
int sm_mapopt_check(const sm_mapopt_t *o);

/* ---- the context: reference, index, engines, insert sizes ---- */

/* Loads the FASTA (plain or gzip) at ref_path, decides the mode, loads
 * REF.smi (or builds the index in memory) in seeded mode, and creates the
 * engine(s) that o asks for.  o is copied (its strings are borrowed).
 * Returns a context that the caller frees with sm_ctx_destroy(), or NULL
 * after logging why. */
sm_ctx_t *sm_ctx_create(const char *ref_path, const sm_mapopt_t *o);

/* Frees ctx and everything it created (reference, index, engines). */
void sm_ctx_destroy(sm_ctx_t *ctx);

/* A new SAM header for the records: @HD, one @SQ per contig in reference
 * order, then `lines` ('\n'-separated header lines such as @RG and @PG,
 * without a final newline; NULL for none).  The caller frees it with
 * sam_hdr_destroy().  Returns NULL after logging. */
struct sam_hdr_t *sm_ctx_sam_header(const sm_ctx_t *ctx, const char *lines);

/* 1 when reads are aligned against seeded windows, 0 when against the
 * whole reference (the mode that SM_MODE_AUTO chose). */
int sm_ctx_seeded(const sm_ctx_t *ctx);

/* A one-line description of the engines, e.g. "cpu:avx2 (windows)". */
const char *sm_ctx_engine_name(const sm_ctx_t *ctx);

/* Pairs: a pair is proper when its reads face each other on one contig
 * with an insert in the model's range, and only then is a mate rescued.
 * Without a model no pair is proper.  `scanmap map` estimates it from
 * the first SM_INSERT_SAMPLE_PAIRS pairs: map batches holding them with
 * SM_MAP_READS_ONLY, pass them to sm_ctx_estimate_inserts(), then map the
 * same batches again with flags 0 (their reads are not mapped twice). */
#define SM_INSERT_SAMPLE_PAIRS 2048

/* Sets a fixed model instead (bwa mem's -I): proper pairs have inserts
 * min..max (1 <= min <= max <= SM_INSERT_MAX_LIMIT); mean and sd weigh a
 * pair's insert in its score.  Logs it.  Returns 0, or -1 after logging
 * (a bad range, out of memory). */
#define SM_INSERT_MAX_LIMIT 1000000
int sm_ctx_set_inserts(sm_ctx_t *ctx, double mean, double sd, int64_t min, int64_t max);

/* Estimates the insert-size model from the pairs of batches b[0..n)
 * (mapped with SM_MAP_READS_ONLY, in input order) and logs it.  Returns 0
 * (also when too few pairs map uniquely: then no pair is proper, with a
 * warning), or -1 after logging (out of memory). */
int sm_ctx_estimate_inserts(sm_ctx_t *ctx, sm_batch_t *const *b, int n);

/* ---- per-thread buffers ---- */

/* Scratch for one mapping thread, reused from batch to batch (nothing is
 * allocated per read once it has grown).  The caller frees it with
 * sm_tbuf_destroy(), before ctx.  Returns NULL after logging. */
sm_tbuf_t *sm_tbuf_create(const sm_ctx_t *ctx);
void sm_tbuf_destroy(sm_tbuf_t *buf);

/* ---- batches: reads in, records out ---- */

/* An empty batch; the caller frees it with sm_batch_destroy(). Its
 * buffers are reused by sm_batch_clear().  Returns NULL when out of memory
 * (logged). */
sm_batch_t *sm_batch_create(void);
void sm_batch_destroy(sm_batch_t *b);

/* Empties b (its reads and records), keeping its memory. */
void sm_batch_clear(sm_batch_t *b);

/* Appends a read: name (cut at the first whitespace), comment (or NULL),
 * seq (IUPAC letters; "" or NULL: a read without bases, written unmapped)
 * and qual (Phred+33, as long as seq; NULL: none, QUAL '*').  Everything
 * is copied.  Pairs go in as R1 then R2, with the same name.  Returns 0,
 * or -1 after logging (a malformed read, out of memory). */
int sm_batch_add(sm_batch_t *b, const char *name, const char *comment, const char *seq,
		 const char *qual);

/* Reads in b (pairs: twice the pairs). */
int sm_batch_n_reads(const sm_batch_t *b);

/* Flags of sm_map_batch(). */
#define SM_MAP_READS_ONLY 1   /* map each read alone; no pairing, no records */

/* Maps the reads of b (pairs when the options say so) and makes their
 * records, replacing b's earlier ones: for each read in input order its
 * primary record, then its secondary ones.  With SM_MAP_READS_ONLY, maps
 * the reads only (for sm_ctx_estimate_inserts()).  Returns 0, or -1 after
 * logging (a read longer than max_read_len, an engine error, out of
 * memory). */
int sm_map_batch(const sm_ctx_t *ctx, sm_tbuf_t *buf, sm_batch_t *b, int flags);

/* b's records after sm_map_batch(): sm_batch_rec(b, k) for k in
 * 0..sm_batch_n_rec(b).  They belong to b and stay valid until b is mapped
 * again, cleared or destroyed. */
int sm_batch_n_rec(const sm_batch_t *b);
const struct bam1_t *sm_batch_rec(const sm_batch_t *b, int k);

#ifdef __cplusplus
}
#endif
#endif
