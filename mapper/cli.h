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

#include "mapper/scanmap.h"

/* Exit statuses of main(): 0 only on full success.  Like bwa and minimap2,
 * a usage error and a failed run both exit 1; the message on stderr says
 * which. */
enum sm_exit {
	SM_EXIT_OK = 0,
	SM_EXIT_FAILURE = 1,
	SM_EXIT_USAGE = 1,
};

#define SM_DEFAULT_THREADS 1
#define SM_MAX_THREADS 1024
#define SM_VERBOSITY_MAX 4

/* -I mean[,std[,max[,min]]]: a fixed insert-size model for paired reads, as
 * bwa mem's -I.  With it nothing is estimated, so any split of the reads
 * gives the same records.  std defaults to SM_INSERT_DEFAULT_SD_FRAC of the
 * mean, max and min to mean +- SM_INSERT_DEFAULT_SDS std rounded as bwa
 * rounds (+0.499, then down), min at least 1.  The proper-pair range is
 * min..max; max is at most SM_INSERT_MAX_LIMIT (scanmap.h: the pair score
 * is tabulated for inserts up to twice max). */
typedef struct {
	int set;                  /* -I was given */
	double mean, sd;
	int64_t max, min;
} sm_insert_opt_t;

#define SM_INSERT_DEFAULT_SD_FRAC 0.1
#define SM_INSERT_DEFAULT_SDS 4.0
#define SM_INSERT_ROUND 0.499

typedef struct {
	const char *ref_path;     /* FASTA, plain or gzip */
	const char *reads_path;   /* FASTQ, plain or gzip; "-" is stdin */
	const char *mates_path;   /* second FASTQ of a pair run (R2), or NULL */
	int interleaved;          /* -p: reads_path holds R1, R2, R1, R2, ... */
	const char *out_path;     /* -o; NULL: SAM on stdout */
	int out_level;            /* --compression-level: BAM and CRAM, 0-9; -1 htslib's default */
	int n_threads;            /* -t, worker threads */
	char *rg_line;            /* -R, with real tabs (malloc'ed), or NULL */
	char *rg_id;              /* its ID (malloc'ed), or NULL */
	int verbosity;            /* -v, an sm_log_level; 0 is silent */
	/* What decides the records (scanmap.h; its rg_id and paired are set
	 * from the fields here when the run starts). */
	sm_mapopt_t map;
	/* bwa mem's options that are not the mapper's (docs/cli.md, "bwa mem
	 * options"); the others are in map. */
	char *hdr_lines;          /* -H: header lines (malloc'ed, '\n'-separated), or NULL */
	int64_t batch_bases;      /* -K: bases per batch at most, 0 for the engine's batches
				     (the output never depends on batching) */
	char *cmdline;            /* argv joined by spaces, for @PG CL (malloc'ed) */
	sm_insert_opt_t insert;   /* -I; insert.set 0: estimated from the first pairs */
	const char *trace_path;   /* timeline of the threads' work (io/trace.h), or NULL;
				   * the CLI takes it from SCANMAP_TRACE */
	int exits_after;          /* the process ends when the run does: a run that
				   * succeeds leaves what the exit reclaims (its batches,
				   * engine and index) unfreed; the CLI sets it but under
				   * AddressSanitizer, whose leak check wants every block */
} sm_opt_t;

/* Sets every option to its default. */
void sm_opt_init(sm_opt_t *o);

/* Checks every value against its range (sm_mapopt_check, the limits
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
