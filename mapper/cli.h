/* cli.h — the command line: options with their defaults, the validator, the
 * usage text and the program's entry point.
 *
 *   scanmap map [options] ref.fa[.gz] reads.fq[.gz] [mates.fq[.gz]]
 *   scanmap index [-o FILE] [-k INT] [-w INT] ref.fa[.gz]
 *
 * docs/cli.md is the reference; the usage text (sm_usage) is printed from
 * one place with the live defaults of sm_opt_init(). */
#ifndef SM_CLI_H
#define SM_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "mapper/engine.h"
#include "mapper/score.h"

/* Exit statuses of main(): 0 only on full success.  Like bwa and minimap2,
 * a usage error and a failed run both exit 1; the message on stderr says
 * which. */
enum sm_exit {
	SM_EXIT_OK = 0,
	SM_EXIT_FAILURE = 1,
	SM_EXIT_USAGE = 1,
};

#define SM_DEFAULT_MIN_SCORE 30
#define SM_DEFAULT_THREADS 1
#define SM_MAX_THREADS 1024
/* Reads may be up to this long unless --max-read-len says otherwise; the
 * GPU engine sizes its buffers for it. */
#define SM_DEFAULT_MAX_READ_LEN 1000
#define SM_MAX_READ_LEN_LIMIT (1 << 20)
#define SM_VERBOSITY_MAX 4
#define SM_MAX_SECONDARY 16
/* bwa mem's defaults: -U 17, -h 5,200. */
#define SM_DEFAULT_PEN_UNPAIRED 17
#define SM_DEFAULT_XA_MAX 5
#define SM_DEFAULT_XA_MAX_ALT 200
/* -U's bound: a pair's scores stay far from int32 overflow. */
#define SM_MAX_PEN_UNPAIRED (INT32_MAX / 4)
/* The index file `scanmap map` looks for beside the reference. */
#define SM_INDEX_SUFFIX ".smi"

/* --mode.  AUTO takes exhaustive when the reference is at most
 * SM_AUTO_MAX_REF_CPU (CPU engine) or SM_AUTO_MAX_REF_GPU (GPU engine)
 * bases long: 2 x 150 x 1 Mbp = 3e8 cells per 150 bp read on the CPU, 3e9
 * on the GPU, a few milliseconds of either; seeded otherwise. */
typedef enum {
	SM_MODE_AUTO = 0,
	SM_MODE_EXHAUSTIVE,
	SM_MODE_SEEDED,
} sm_mode_t;

#define SM_AUTO_MAX_REF_CPU 1000000
#define SM_AUTO_MAX_REF_GPU 10000000

/* -I mean[,std[,max[,min]]]: a fixed insert-size model for paired reads, as
 * bwa mem's -I.  With it nothing is estimated, so any split of the reads
 * gives the same records.  std defaults to SM_INSERT_DEFAULT_SD_FRAC of the
 * mean, max and min to mean +- SM_INSERT_DEFAULT_SDS std rounded as bwa
 * rounds (+0.499, then down), min at least 1.  The proper-pair range is
 * min..max; max is at most SM_INSERT_MAX_LIMIT (the pair score is tabulated
 * for inserts up to twice max). */
typedef struct {
	int set;                  /* -I was given */
	double mean, sd;
	int64_t max, min;
} sm_insert_opt_t;

#define SM_INSERT_DEFAULT_SD_FRAC 0.1
#define SM_INSERT_DEFAULT_SDS 4.0
#define SM_INSERT_ROUND 0.499
#define SM_INSERT_MAX_LIMIT 1000000

typedef struct {
	const char *ref_path;     /* FASTA, plain or gzip */
	const char *reads_path;   /* FASTQ, plain or gzip; "-" is stdin */
	const char *mates_path;   /* second FASTQ of a pair run (R2), or NULL */
	int interleaved;          /* -p: reads_path holds R1, R2, R1, R2, ... */
	const char *out_path;     /* -o; NULL: SAM on stdout */
	int n_threads;            /* -t, worker threads */
	char *rg_line;            /* -R, with real tabs (malloc'ed), or NULL */
	char *rg_id;              /* its ID (malloc'ed), or NULL */
	sm_score_t score;         /* -A -B -O -E */
	int32_t min_score;        /* -T: a best score below it leaves the read unmapped */
	sm_engine_kind_t engine;  /* --engine */
	sm_cells_t cells;         /* --cells */
	const char *cpu_isa;      /* --cpu-isa; "auto" by default */
	int max_read_len;         /* --max-read-len */
	int verbosity;            /* -v, an sm_log_level; 0 is silent */
	sm_mode_t mode;           /* --mode */
	int seed_k, seed_w;       /* -k -w: minimizers of an index built in memory */
	int seed_kw_set;          /* -k or -w was given */
	int max_occ;              /* --max-occ */
	int max_windows;          /* --max-windows */
	int n_secondary;          /* -N: secondary alignments per read */
	/* bwa mem's options, with its letters and meanings (docs/cli.md,
	 * "bwa mem options"). */
	int supp_as_secondary;    /* -M: supplementary records flagged 0x100, not 0x800 */
	int supp_soft_clip;       /* -Y: supplementary records soft-clipped, not hard */
	int32_t pen_unpaired;     /* -U: a pair's unpaired penalty */
	int all_hits;             /* -a: every candidate reaching -T as a secondary record */
	int append_comment;       /* -C: the FASTQ comment appended to the record */
	char *hdr_lines;          /* -H: header lines (malloc'ed, '\n'-separated), or NULL */
	int64_t batch_bases;      /* -K: accepted; the output never depends on batching */
	int xa_max;               /* -h: XA:Z lists alternatives when they are at most this many */
	int xa_max_alt;           /* -h's second value (bwa's ALT-contig limit): checked only */
	char *cmdline;            /* argv joined by spaces, for @PG CL (malloc'ed) */
	sm_insert_opt_t insert;   /* -I; insert.set 0: estimated from the first pairs */
	const char *trace_path;   /* timeline of the threads' work (io/trace.h), or NULL;
				   * the CLI takes it from SCANMAP_TRACE */
} sm_opt_t;

/* Sets every option to its default. */
void sm_opt_init(sm_opt_t *o);

/* Checks every value against its range (score.h's SM_MAX_*, the limits
 * above).  Returns 0, or -1 after logging the first bad option. */
int sm_opt_validate(const sm_opt_t *o);

/* Frees what sm_opt_t owns. */
void sm_opt_free(sm_opt_t *o);

/* Prints the usage of `scanmap map` (and, with `full`, the command list),
 * showing the defaults of sm_opt_init(). */
void sm_usage(FILE *fp, int full);

/* The program: returns the exit status (enum sm_exit). */
int sm_main(int argc, char **argv);

#endif
