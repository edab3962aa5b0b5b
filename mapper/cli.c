/* cli.c — option parsing, validation and usage (see cli.h). */
#include "mapper/cli.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu/gpu_engine.h"
#include "io/clock.h"
#include "io/inflate.h"
#include "io/log.h"
#include "io/outfile.h"
#include "io/ref.h"
#include "io/sam_out.h"
#include "mapper/index.h"
#include "mapper/pipeline.h"
#include "mapper/seed.h"

/* Whether this build checks for leaks at exit (AddressSanitizer's), so that
 * every run must free what it allocated. */
#if defined(__SANITIZE_ADDRESS__)
#define SM_LEAK_CHECKED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SM_LEAK_CHECKED 1
#endif
#endif
#ifndef SM_LEAK_CHECKED
#define SM_LEAK_CHECKED 0
#endif

/* Long-only options take values above the range of single characters. */
enum {
	OPT_ENGINE = 256,
	OPT_CELLS,
	OPT_CPU_ISA,
	OPT_MAX_READ_LEN,
	OPT_VERSION,
	OPT_MODE,
	OPT_MAX_OCC,
	OPT_MAX_WINDOWS,
	OPT_MAX_HITS,
	OPT_HELP,
	OPT_INFLATE,       /* reliability: the gzip inflater */
	OPT_GPU,
	OPT_GPUS,
	OPT_GPU_TUNE,
	OPT_COMPLETION,
	OPT_COMPRESSION_LEVEL,
	OPT_READ_THROUGH,
};

static const char *const mode_names[] = {
	[SM_MODE_AUTO] = "auto",
	[SM_MODE_EXHAUSTIVE] = "exhaustive",
	[SM_MODE_SEEDED] = "seeded",
};

static const char *const completion_names[] = {
	[SM_COMPLETE_WEAK] = "weak",
	[SM_COMPLETE_ALL] = "all",
	[SM_COMPLETE_OFF] = "off",
};

static const char *const read_through_names[] = {
	[SM_READ_THROUGH_CLIP] = "clip",
	[SM_READ_THROUGH_WHOLE] = "whole",
};

static const char *const engine_names[] = {
	[SM_ENGINE_AUTO] = "auto",
	[SM_ENGINE_CPU] = "cpu",
	[SM_ENGINE_GPU] = "gpu",
	[SM_ENGINE_ORACLE] = "oracle",
};

static const char *const cells_names[] = {
	[SM_CELLS_AUTO] = "auto",
	[SM_CELLS_8] = "8",
	[SM_CELLS_16] = "16",
	[SM_CELLS_32] = "32",
};

/* --inflate: which library inflates gzip input (io/inflate.h). */
static const char *const inflate_names[] = {
	[SM_INFLATER_AUTO] = "auto",
	[SM_INFLATER_ISAL] = "isal",
	[SM_INFLATER_ZLIB] = "zlib",
};

static const char *const cpu_isa_names[] = { "auto", "scalar", "sse41", "avx2", "avx512" };

#define N_ELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* The Makefile defines both; a build without it still compiles. */
#ifndef SM_BUILD_INFO
#define SM_BUILD_INFO "build configuration unknown"
#endif

/* --version: the version, then what the build holds (the line make prints). */
static void print_version(void)
{
	printf("scanmap %s\n%s\n", SM_VERSION, SM_BUILD_INFO);
}

void sm_opt_init(sm_opt_t *o)
{
	memset(o, 0, sizeof *o);
	o->n_threads = SM_DEFAULT_THREADS;
	o->out_level = -1;
	o->verbosity = SM_LOG_INFO;
	sm_mapopt_init(&o->map);
	o->map.cpu_isa = cpu_isa_names[0];
}

void sm_opt_free(sm_opt_t *o)
{
	free(o->rg_line);
	free(o->rg_id);
	free(o->cmdline);
	free(o->hdr_lines);
	o->rg_line = o->rg_id = o->cmdline = o->hdr_lines = NULL;
}

static int check_range(const char *opt, long v, long lo, long hi)
{
	if (v >= lo && v <= hi)
		return 0;
	sm_log(SM_LOG_ERROR, "%s must be between %ld and %ld (got %ld)", opt, lo, hi, v);
	return -1;
}

int sm_opt_validate(const sm_opt_t *o)
{
	if (sm_mapopt_check(&o->map) < 0 ||
	    check_range("-t (threads)", o->n_threads, 1, SM_MAX_THREADS) < 0 ||
	    check_range("-v (verbosity)", o->verbosity, 0, SM_VERBOSITY_MAX) < 0 ||
	    check_range("-K (bases per batch)", (long)o->batch_bases, 0, LONG_MAX) < 0 ||
	    (o->out_level != -1 && check_range("--compression-level", o->out_level, 0, 9) < 0))
		return -1;
	if (o->interleaved && o->mates_path) {
		sm_log(SM_LOG_ERROR, "-p (interleaved pairs) takes one reads file, not two");
		return -1;
	}
	if (!o->ref_path || !o->reads_path) {
		sm_log(SM_LOG_ERROR, "a reference and a reads file are required");
		return -1;
	}
	return 0;
}

void sm_usage(FILE *fp, int full)
{
	sm_opt_t d;

	sm_opt_init(&d);
	if (full)
		fprintf(fp,
			"scanmap %s: exact Smith-Waterman short-read mapper\n\n"
			"Usage: scanmap <command> [options]\n\n"
			"Commands:\n"
			"  map        map FASTQ reads to a FASTA reference, write SAM/BAM/CRAM\n"
			"  index      build the minimizer index of a reference for seeded mode\n\n"
			"  scanmap --help | --version\n\n", SM_VERSION);
	fprintf(fp,
		"Usage: scanmap map [options] <ref.fa[.gz]> <reads.fq[.gz]> [<mates.fq[.gz]>]\n\n"
		"Every read is aligned on both strands by exact local alignment (affine\n"
		"gaps) against the whole reference (exhaustive mode) or against the\n"
		"candidate windows its minimizers vote for (seeded mode); its best hit\n"
		"is written.  With a second reads file (or -p) reads are paired.\n\n"
		"Input/output:\n"
		"  -o FILE        output; .sam, .bam or .cram by extension [SAM to stdout]\n"
		"  --compression-level INT  BAM and CRAM: 0 (none) to 9 (smallest); 1 takes\n"
		"                 about half the CPU of htslib's default, 6 [6]\n"
		"  -p             the reads file holds interleaved pairs (R1, R2, R1, ...)\n"
		"  -I FLOAT[,FLOAT[,INT[,INT]]]  insert size mean, std, max, min of proper\n"
		"                 pairs, not estimated (std: mean/10; max, min: mean +- 4 std)\n"
		"  --read-through STR  reads whose fragment is shorter than themselves (pairs\n"
		"                 that overlap past each other, single reads that hold a\n"
		"                 known adapter): clip maps each read by the fragment and\n"
		"                 soft-clips the rest; whole maps the reads whole [%s]\n"
		"  -N INT         secondary alignments written per read (flag 0x100) [%d]\n"
		"  -R STR         read group header line such as '@RG\\tID:foo\\tSM:bar' [none]\n"
		"  -t INT         worker threads [%d]\n"
		"  --max-read-len INT  longest read accepted [%d]\n"
		"Scoring (a gap of length k costs O + k*E):\n"
		"  -A INT         match score [%d]\n"
		"  -B INT         mismatch penalty [%d]\n"
		"  -O INT[,INT]   gap open penalty [%d]\n"
		"  -E INT[,INT]   gap extension penalty [%d]\n"
		"                 (bwa's deletion,insertion form, with equal values)\n"
		"  -L INT[,INT]   clipping penalty: an alignment that reaches the read's first\n"
		"                 (last) base scores this much more; the objective (and -T)\n"
		"                 includes it, AS does not (bwa mem's -L) [%d,%d]\n"
		"  -T INT         minimum score to output a hit; below it the read is unmapped [%d]\n"
		"  -U INT         penalty for an unpaired read pair [%d]\n"
		"  -S             skip mate rescue (bwa mem's -S)\n"
		"  -P             skip pairing: each read of a pair is mapped as a single read,\n"
		"                 with its mate's fields and never proper (bwa mem's -P)\n"
		"Mode:\n"
		"  --mode STR     exhaustive, seeded, or auto: exhaustive when the reference\n"
		"                 is at most %d bases (CPU engine) or %d (GPU\n"
		"                 engine), i.e. at most 2*150*L cells per 150 bp read; seeded\n"
		"                 otherwise [%s]\n"
		"  -k INT         minimizer length of an index built in memory [%d]\n"
		"  -w INT         minimizer window of an index built in memory [%d]\n"
		"                 (REF%s, from 'scanmap index', is used when present)\n"
		"  --max-occ INT  minimizers with more hits are repetitive, skipped unless\n"
		"                 every seed of the read is [%d]\n"
		"  --max-windows INT  candidate windows per read [%d]\n"
		"  --completion STR  reads whose windows may have missed a better locus:\n"
		"                 all: seeded again (%dx --max-occ, up to %dx --max-windows\n"
		"                 more windows: those that could beat the hit), AS then the\n"
		"                 exhaustive optimum; weak: reads without a hit or under half\n"
		"                 a perfect score are seeded again with those limits, the\n"
		"                 others get MAPQ < 20 (19 with no near locus in view,\n"
		"                 else 15, single-end 10); off: no check [%s]\n"
		"  --max-hits INT hits a read's completion collects at most; its most\n"
		"                 frequent k-mers beyond are skipped [%d]\n"
		"                 A seeded read with no window, or no hit reaching -T, is\n"
		"                 aligned exhaustively when the reference is under the auto\n"
		"                 bound, else written unmapped.  With the GPU engine the\n"
		"                 window scans of a batch of reads run in one GPU call;\n"
		"                 every engine writes identical output.\n"
		"Engine:\n"
		"  --engine STR   cpu, gpu, auto (GPU when one is usable), oracle (slow,\n"
		"                 for tests) [%s]\n"
		"  --cells STR    GPU cell width ladder: 8, 16, 32 or auto [%s]\n"
		"  --cpu-isa STR  CPU instruction set: auto, scalar, sse41, avx2, avx512 [%s]\n"
		"  --inflate STR  gzip inflater: auto (ISA-L when built with it), isal, zlib [auto]\n"
		"  --gpu ID       use GPU ID only (numbered among CUDA_VISIBLE_DEVICES)\n"
		"  --gpus STR     GPUs to use: all, a count N (0..N-1) or ID,ID,... [all]\n"
		"  --gpu-tune STR GPU engine knobs for benchmarks, KEY=VALUE,... (docs/gpu.md)\n"
		"Output (bwa mem's options):\n"
		"  -a             write every candidate reaching -T as a secondary record\n"
		"  -h INT[,INT]   XA:Z lists the alternative hits scoring at least 80%% of the\n"
		"                 primary's when they are at most INT; 0 writes no XA [%d,%d]\n"
		"  -C             append the FASTQ comment (SAM tags such as BC:Z:...) to the record\n"
		"  -H STR|FILE    header line starting with '@', or a file of header lines\n"
		"  -M             flag supplementary alignments secondary (0x100), for old picard\n"
		"  -Y             soft-clip supplementary alignments (hard clips by default)\n"
		"  -5             of a split read's alignments, the one that starts first in\n"
		"                 the read is the primary; implies -q (Hi-C: bwa mem -5SP)\n"
		"  -q             supplementary alignments keep their own MAPQ, not capped at\n"
		"                 the primary's\n"
		"  -K INT         at most INT bases per batch of reads (bwa's option; the output\n"
		"                 never depends on how reads are batched) [0: the engine's]\n"
		"Other:\n"
		"  -v INT         verbosity: 0 silent, 1 errors, 2 warnings, 3 progress, 4 debug [%d]\n"
		"  --help         print this help and exit\n"
		"  --version      print the version and exit\n",
		read_through_names[d.map.read_through], d.map.n_secondary, d.n_threads,
		d.map.max_read_len, d.map.score.match, d.map.score.mismatch,
		d.map.score.gap_open, d.map.score.gap_ext, d.map.score.clip5,
		d.map.score.clip3, d.map.min_score, d.map.pen_unpaired,
		SM_AUTO_MAX_REF_CPU, SM_AUTO_MAX_REF_GPU, mode_names[d.map.mode], d.map.seed_k, d.map.seed_w,
		SM_INDEX_SUFFIX, d.map.max_occ, d.map.max_windows,
		SM_SEED_RETRY_OCC, SM_SEED_RETRY_WINDOWS, completion_names[d.map.completion],
		d.map.max_hits,
		engine_names[d.map.engine],
		cells_names[d.map.cells], d.map.cpu_isa, d.map.xa_max, d.map.xa_max_alt, d.verbosity);
}

/* Strict integer parsing: the whole argument, within int.  The option's
 * own range is the validator's business. */
static int parse_int_opt(const char *opt, const char *arg, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (end == arg || *end) {
		sm_log(SM_LOG_ERROR, "%s expects an integer (got '%s')", opt, arg);
		return -1;
	}
	if (errno == ERANGE || v > INT_MAX || v < INT_MIN) {
		sm_log(SM_LOG_ERROR, "%s: '%s' is out of range", opt, arg);
		return -1;
	}
	*out = (int)v;
	return 0;
}

static int parse_name(const char *opt, const char *arg, const char *const *names, int n)
{
	for (int k = 0; k < n; k++)
		if (names[k] && strcmp(arg, names[k]) == 0)
			return k;
	sm_log(SM_LOG_ERROR, "%s: unknown value '%s'", opt, arg);
	return -1;
}

/* -I mean[,std[,max[,min]]], as bwa mem: the omitted values default as
 * cli.h's sm_insert_opt_t says.  Returns 0, or -1 after logging. */
static int parse_insert_opt(const char *arg, sm_insert_opt_t *ins)
{
	double v[4];
	int n = 0;
	const char *s = arg;
	char *end;

	while (n < N_ELEM(v)) {
		errno = 0;
		v[n] = strtod(s, &end);
		if (end == s || errno == ERANGE || !isfinite(v[n]) || (*end && *end != ',')) {
			sm_log(SM_LOG_ERROR, "-I expects mean[,std[,max[,min]]] (got '%s')", arg);
			return -1;
		}
		n++;
		if (!*end)
			break;
		s = end + 1;
	}
	if (*end) {
		sm_log(SM_LOG_ERROR, "-I takes at most 4 values (got '%s')", arg);
		return -1;
	}
	ins->set = 1;
	ins->mean = v[0];
	ins->sd = n > 1 ? v[1] : ins->mean * SM_INSERT_DEFAULT_SD_FRAC;
	ins->max = n > 2 ? (int64_t)(v[2] + SM_INSERT_ROUND) :
		   (int64_t)(ins->mean + SM_INSERT_DEFAULT_SDS * ins->sd + SM_INSERT_ROUND);
	ins->min = n > 3 ? (int64_t)(v[3] + SM_INSERT_ROUND) :
		   (int64_t)(ins->mean - SM_INSERT_DEFAULT_SDS * ins->sd + SM_INSERT_ROUND);
	if (n <= 3 && ins->min < 1)
		ins->min = 1;
	if (!(ins->mean >= 1 && ins->sd >= 0 && ins->min >= 1 && ins->min <= ins->max &&
	      ins->max <= SM_INSERT_MAX_LIMIT)) {
		sm_log(SM_LOG_ERROR, "-I %s: want mean >= 1, std >= 0 and 1 <= min <= max <= %d "
		       "(got mean %g, std %g, max %lld, min %lld)", arg, SM_INSERT_MAX_LIMIT,
		       ins->mean, ins->sd, (long long)ins->max, (long long)ins->min);
		return -1;
	}
	return 0;
}

static char *join_args(int argc, char **argv)
{
	size_t len = 1;
	char *s, *p;

	for (int k = 0; k < argc; k++)
		len += strlen(argv[k]) + 1;
	if (!(s = malloc(len)))
		return NULL;
	p = s;
	for (int k = 0; k < argc; k++) {
		size_t l = strlen(argv[k]);
		if (k)
			*p++ = ' ';
		memcpy(p, argv[k], l);
		p += l;
	}
	*p = '\0';
	return s;
}

/* Logs "unknown option 'X'" or "option 'X' needs a value" (what) after
 * getopt returned '?' or ':': optopt names a short option even inside a
 * cluster (-MZ), where the word getopt last passed, `word`, is another
 * one; a long option (optopt 0 or above the characters) is that word. */
static void opt_error(const char *what, const char *word)
{
	char name[3] = { '-', (char)optopt, '\0' };
	const char *opt = optopt > 0 && optopt < OPT_ENGINE ? name : word;

	if (strcmp(what, "unknown") == 0)
		sm_log(SM_LOG_ERROR, "unknown option '%s'", opt);
	else
		sm_log(SM_LOG_ERROR, "option '%s' %s", opt, what);
}

/* bwa's two-value form INT[,INT] (-O, -E, -h): *a from the first value,
 * *b from the second, or from the first when there is no second. */
static int parse_int_pair(const char *opt, const char *arg, int *a, int *b)
{
	const char *comma = strchr(arg, ',');
	char *first;
	int rc;

	if (!comma)
		return parse_int_opt(opt, arg, a) < 0 ? -1 : (*b = *a, 0);
	if (!(first = strndup(arg, (size_t)(comma - arg)))) {
		sm_log(SM_LOG_ERROR, "out of memory");
		return -1;
	}
	rc = parse_int_opt(opt, first, a) < 0 || parse_int_opt(opt, comma + 1, b) < 0 ? -1 : 0;
	free(first);
	return rc;
}

/* bwa mem gives deletions (first value) and insertions (second) a gap
 * penalty each; scanmap's engines have one gap model, so -O and -E take
 * bwa's form with equal values only. */
static int parse_gap_opt(const char *opt, const char *arg, int *out)
{
	int del, ins;

	if (parse_int_pair(opt, arg, &del, &ins) < 0)
		return -1;
	if (del != ins) {
		sm_log(SM_LOG_ERROR, "%s %s: scanmap scores deletions and insertions with one gap "
		       "model (every engine's recurrence has one open and one extension penalty), "
		       "so the two values must be equal", opt, arg);
		return -1;
	}
	*out = del;
	return 0;
}

/* The options that bwa mem's command lines pass, with bwa's letters and
 * meanings (docs/cli.md, "bwa mem options").  Returns 1 when c is one of
 * them (0 when it is not), -1 on a bad value (logged). */
static int parse_bwa_opt(int c, const char *arg, sm_opt_t *o)
{
	int v;

	switch (c) {
	case 'M': o->map.supp_as_secondary = 1; return 1;
	case 'Y': o->map.supp_soft_clip = 1; return 1;
	case 'a': o->map.all_hits = 1; return 1;
	case '5':   /* bwa mem's -5 implies its -q */
		o->map.primary5 = o->map.keep_supp_mapq = 1;
		return 1;
	case 'q': o->map.keep_supp_mapq = 1; return 1;
	case 'S': o->map.no_rescue = 1; return 1;
	case 'P': o->map.no_pairing = 1; return 1;
	case 'C': o->map.append_comment = 1; return 1;
	case 'U':
		if (parse_int_opt("-U", arg, &v) < 0)
			return -1;
		o->map.pen_unpaired = v;
		return 1;
	case 'O': return parse_gap_opt("-O", arg, &o->map.score.gap_open) < 0 ? -1 : 1;
	case 'E': return parse_gap_opt("-E", arg, &o->map.score.gap_ext) < 0 ? -1 : 1;
	case 'h': return parse_int_pair("-h", arg, &o->map.xa_max, &o->map.xa_max_alt) < 0 ? -1 : 1;
	case 'L': return parse_int_pair("-L", arg, &o->map.score.clip5, &o->map.score.clip3) < 0 ? -1 : 1;
	case 'H': return sm_hdr_lines_add(arg, &o->hdr_lines) < 0 ? -1 : 1;
	case 'K': {
		char *end;

		errno = 0;
		o->batch_bases = strtoll(arg, &end, 10);
		if (end == arg || *end || errno == ERANGE) {
			sm_log(SM_LOG_ERROR, "-K expects an integer (got '%s')", arg);
			return -1;
		}
		return 1;
	}
	case 'v':
		/* bwa's levels are scanmap's: 1 errors, 2 warnings, 3 messages,
		 * 4 and above debugging. */
		if (parse_int_opt("-v", arg, &o->verbosity) < 0)
			return -1;
		if (o->verbosity > SM_VERBOSITY_MAX)
			o->verbosity = SM_VERBOSITY_MAX;
		return 1;
	default:
		return 0;
	}
}

/* Parses `map`'s arguments (argv[0] is "map").  Returns 0 to run, 1 when
 * help was printed, -1 on a usage error (logged). */
static int parse_map(int argc, char **argv, sm_opt_t *o)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, OPT_HELP },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ "engine", required_argument, NULL, OPT_ENGINE },
		{ "cells", required_argument, NULL, OPT_CELLS },
		{ "cpu-isa", required_argument, NULL, OPT_CPU_ISA },
		{ "max-read-len", required_argument, NULL, OPT_MAX_READ_LEN },
		{ "mode", required_argument, NULL, OPT_MODE },
		{ "completion", required_argument, NULL, OPT_COMPLETION },
		{ "read-through", required_argument, NULL, OPT_READ_THROUGH },
		{ "max-occ", required_argument, NULL, OPT_MAX_OCC },
		{ "max-windows", required_argument, NULL, OPT_MAX_WINDOWS },
		{ "max-hits", required_argument, NULL, OPT_MAX_HITS },
		{ "inflate", required_argument, NULL, OPT_INFLATE },
		{ "gpu", required_argument, NULL, OPT_GPU },
		{ "gpus", required_argument, NULL, OPT_GPUS },
		{ "gpu-tune", required_argument, NULL, OPT_GPU_TUNE },
		{ "compression-level", required_argument, NULL, OPT_COMPRESSION_LEVEL },
		{ NULL, 0, NULL, 0 },
	};
	int c, k, min_score = 0;

	opterr = 0;  /* we report unknown options ourselves, through sm_log */
	optind = 1;
	while ((c = getopt_long(argc, argv, ":o:t:R:A:B:O:E:L:T:v:k:w:N:pMYU:aCH:K:h:I:5SPq", longopts, NULL)) >= 0) {
		int rc = 0;

		switch (c) {
		case 'o': o->out_path = optarg; break;
		case 't': rc = parse_int_opt("-t", optarg, &o->n_threads); break;
		case 'A': rc = parse_int_opt("-A", optarg, &o->map.score.match); break;
		case 'B': rc = parse_int_opt("-B", optarg, &o->map.score.mismatch); break;
		case 'T':
			rc = parse_int_opt("-T", optarg, &min_score);
			o->map.min_score = min_score;
			break;
		case 'k':
			rc = parse_int_opt("-k", optarg, &o->map.seed_k);
			o->map.seed_kw_set = 1;
			break;
		case 'w':
			rc = parse_int_opt("-w", optarg, &o->map.seed_w);
			o->map.seed_kw_set = 1;
			break;
		case 'N': rc = parse_int_opt("-N", optarg, &o->map.n_secondary); break;
		case 'p': o->interleaved = 1; break;
		case OPT_MAX_OCC: rc = parse_int_opt("--max-occ", optarg, &o->map.max_occ); break;
		case OPT_MAX_WINDOWS:
			rc = parse_int_opt("--max-windows", optarg, &o->map.max_windows);
			break;
		case OPT_MAX_HITS: rc = parse_int_opt("--max-hits", optarg, &o->map.max_hits); break;
		case OPT_MODE:
			k = parse_name("--mode", optarg, mode_names, N_ELEM(mode_names));
			o->map.mode = (sm_mode_t)k;
			rc = k < 0 ? -1 : 0;
			break;
		case OPT_COMPLETION:
			k = parse_name("--completion", optarg, completion_names,
				       N_ELEM(completion_names));
			o->map.completion = (sm_complete_t)k;
			rc = k < 0 ? -1 : 0;
			break;
		case OPT_READ_THROUGH:
			k = parse_name("--read-through", optarg, read_through_names,
				       N_ELEM(read_through_names));
			o->map.read_through = (sm_read_through_t)k;
			rc = k < 0 ? -1 : 0;
			break;
		case OPT_MAX_READ_LEN:
			rc = parse_int_opt("--max-read-len", optarg, &o->map.max_read_len);
			break;
		case OPT_COMPRESSION_LEVEL:
			rc = parse_int_opt("--compression-level", optarg, &o->out_level);
			break;
		case 'R':
			free(o->rg_line);
			free(o->rg_id);
			rc = sm_rg_parse(optarg, &o->rg_line, &o->rg_id);
			break;
		case OPT_INFLATE:
			k = parse_name("--inflate", optarg, inflate_names, N_ELEM(inflate_names));
			if (k == SM_INFLATER_ISAL && !sm_inflate_have_isal()) {
				sm_log(SM_LOG_ERROR, "--inflate isal: this scanmap was built without ISA-L");
				k = -1;
			}
			if (k >= 0)
				sm_inflate_set_default((sm_inflater_t)k);
			rc = k < 0 ? -1 : 0;
			break;
		case OPT_ENGINE:
			k = parse_name("--engine", optarg, engine_names, N_ELEM(engine_names));
			o->map.engine = (sm_engine_kind_t)k;
			rc = k < 0 ? -1 : 0;
			break;
		case OPT_CELLS:
			k = parse_name("--cells", optarg, cells_names, N_ELEM(cells_names));
			o->map.cells = (sm_cells_t)k;
			rc = k < 0 ? -1 : 0;
			break;
		case OPT_CPU_ISA:
			k = parse_name("--cpu-isa", optarg, cpu_isa_names, N_ELEM(cpu_isa_names));
			o->map.cpu_isa = k < 0 ? NULL : cpu_isa_names[k];
			rc = k < 0 ? -1 : 0;
			break;
		case 'I': rc = parse_insert_opt(optarg, &o->insert); break;
		/* GPU devices and knobs (gpu/gpu_opt.h) */
		case OPT_GPU:
			o->map.gpus.n = 1;
			rc = parse_int_opt("--gpu", optarg, &o->map.gpus.id[0]);
			if (rc == 0 && o->map.gpus.id[0] < 0) {
				sm_log(SM_LOG_ERROR, "--gpu: device numbers start at 0 (got %s)", optarg);
				rc = -1;
			}
			break;
		case OPT_GPUS: rc = sm_gpu_list_parse(&o->map.gpus, optarg); break;
		case OPT_GPU_TUNE: o->map.gpu_tune = optarg; break;   /* checked by sm_mapopt_check */
		case OPT_HELP:
			sm_usage(stdout, 0);
			return 1;
		case OPT_VERSION:
			print_version();
			return 1;
		case ':':
			opt_error("needs a value", argv[optind - 1]);
			if (optopt == 'h')
				fprintf(stderr, "(-h INT[,INT] is bwa's XA threshold; --help prints the usage)\n");
			return -1;
		default:
			rc = parse_bwa_opt(c, optarg, o);
			if (rc == 0) {
				opt_error("unknown", argv[optind - 1]);
				return -1;
			}
			break;
		}
		if (rc < 0)
			return -1;
	}
	if (argc - optind < 2) {
		sm_log(SM_LOG_ERROR, "expected <ref.fa> and <reads.fq> after the options");
		return -1;
	}
	if (argc - optind > 3) {
		sm_log(SM_LOG_ERROR, "unexpected argument '%s' after <mates.fq>", argv[optind + 3]);
		return -1;
	}
	o->ref_path = argv[optind];
	o->reads_path = argv[optind + 1];
	o->mates_path = argc - optind == 3 ? argv[optind + 2] : NULL;
	return 0;
}

/* Inflate threads for each BGZF input file (io/inflate.h) with -t
 * threads: a quarter of them, 1-8.  The two files of a pair then inflate
 * at 4-16 cores' speed at -t 16-64, more than the workers map; with plain
 * gzip the threads are never started. */
static void set_inflate_threads(int n_threads)
{
	int n = n_threads / 4;

	sm_inflate_set_threads(n < 1 ? 1 : n > 8 ? 8 : n);
}

static int map_main(int argc, char **argv, char *cmdline)
{
	sm_opt_t o;
	int rc;

	sm_opt_init(&o);
	o.cmdline = cmdline;
	o.trace_path = getenv("SCANMAP_TRACE");
	o.exits_after = !SM_LEAK_CHECKED;
	rc = parse_map(argc, argv, &o);
	if (rc == 0 && sm_opt_validate(&o) < 0)
		rc = -1;
	if (rc != 0) {
		if (rc < 0)
			fprintf(stderr, "Run 'scanmap map --help' for the options.\n");
		sm_opt_free(&o);
		return rc > 0 ? SM_EXIT_OK : SM_EXIT_USAGE;
	}
	sm_log_set_level((enum sm_log_level)o.verbosity);
	set_inflate_threads(o.n_threads);
	rc = sm_map_run(&o);
	sm_opt_free(&o);
	return rc == 0 ? SM_EXIT_OK : SM_EXIT_FAILURE;
}

static void index_usage(FILE *fp)
{
	fprintf(fp,
		"Usage: scanmap index [options] <ref.fa[.gz]>\n\n"
		"Builds the minimizer index that seeded mapping uses; 'scanmap map' loads\n"
		"REF%s when it exists.\n\n"
		"  -o FILE   index file [REF%s]\n"
		"  -t INT    threads (the file does not depend on them) [1]\n"
		"  -k INT    minimizer length, %d..%d [%d]\n"
		"  -w INT    minimizer window (k-mers per window), 1..%d [%d]\n"
		"  -v INT    verbosity, 0..%d [%d]; %d prints each stage\n"
		"  -h        print this help and exit\n\n"
		"The index holds the reference too: 'scanmap map' reads the FASTA again\n"
		"only when it has another modification time than the index recorded.\n"
		"Seeding guarantees a seed in every k+w-1 exact bases: for reads trimmed\n"
		"shorter than that, -w 5 places more (a larger index, more CPU).\n",
		SM_INDEX_SUFFIX, SM_INDEX_SUFFIX, SM_INDEX_MIN_K, SM_INDEX_MAX_K,
		SM_INDEX_DEFAULT_K, SM_INDEX_MAX_W, SM_INDEX_DEFAULT_W, SM_VERBOSITY_MAX,
		SM_LOG_INFO, SM_LOG_INFO);
}

/* `scanmap index`: returns the exit status. */
static int index_main(int argc, char **argv)
{
	const char *out_path = NULL;
	int k = SM_INDEX_DEFAULT_K, w = SM_INDEX_DEFAULT_W, verbosity = SM_LOG_INFO, c;
	int n_threads = 1;
	char *path = NULL;
	sm_ref_t *ref = NULL;
	sm_index_t *idx = NULL;
	double t0 = sm_seconds(), t;
	int rc = SM_EXIT_FAILURE;

	opterr = 0;
	optind = 1;
	while ((c = getopt(argc, argv, ":o:t:k:w:v:h")) >= 0) {
		int bad = 0;

		switch (c) {
		case 'o': out_path = optarg; break;
		case 't': bad = parse_int_opt("-t", optarg, &n_threads); break;
		case 'k': bad = parse_int_opt("-k", optarg, &k); break;
		case 'w': bad = parse_int_opt("-w", optarg, &w); break;
		case 'v': bad = parse_int_opt("-v", optarg, &verbosity); break;
		case 'h':
			index_usage(stdout);
			return SM_EXIT_OK;
		case ':':
			opt_error("needs a value", argv[optind - 1]);
			bad = -1;
			break;
		default:
			opt_error("unknown", argv[optind - 1]);
			bad = -1;
			break;
		}
		if (bad < 0) {
			fprintf(stderr, "Run 'scanmap index -h' for the options.\n");
			return SM_EXIT_USAGE;
		}
	}
	if (argc - optind != 1) {
		sm_log(SM_LOG_ERROR, argc - optind < 1 ? "expected <ref.fa> after the options" :
		       "expected one reference, got more arguments");
		fprintf(stderr, "Run 'scanmap index -h' for the options.\n");
		return SM_EXIT_USAGE;
	}
	if (check_range("-k (minimizer length)", k, SM_INDEX_MIN_K, SM_INDEX_MAX_K) < 0 ||
	    check_range("-w (minimizer window)", w, 1, SM_INDEX_MAX_W) < 0 ||
	    check_range("-t (threads)", n_threads, 1, SM_MAX_THREADS) < 0 ||
	    check_range("-v (verbosity)", verbosity, 0, SM_VERBOSITY_MAX) < 0)
		return SM_EXIT_USAGE;
	sm_log_set_level((enum sm_log_level)verbosity);
	set_inflate_threads(n_threads);
	if (!out_path) {
		if (!(path = sm_index_path(argv[optind])))
			return SM_EXIT_FAILURE;
		out_path = path;
	}
	if (sm_outfile_check_inputs("-o", out_path, (const char *const *)&argv[optind], 1) < 0 ||
	    sm_ref_load(argv[optind], &ref) < 0)
		goto out;
	sm_log(SM_LOG_INFO, "index: read %s: %lld bases in %d contigs (%.1f s); building with "
	       "%d threads", argv[optind], (long long)ref->total, ref->n_contig,
	       sm_seconds() - t0, n_threads);
	idx = sm_index_build(ref, k, w, n_threads, 1);
	if (!idx)
		goto out;
	t = sm_seconds();
	if (sm_index_save(idx, ref, out_path, n_threads) < 0)
		goto out;
	sm_log(SM_LOG_INFO, "index: wrote %s (%.1f s)", out_path, sm_seconds() - t);
	sm_log(SM_LOG_INFO, "index %s: k=%d w=%d, %lld bases, %lld minimizers (%lld distinct), "
	       "%.2f s, peak memory %.1f MiB", out_path, k, w, (long long)ref->total,
	       (long long)idx->start[idx->n_key], (long long)idx->n_key,
	       sm_seconds() - t0, sm_peak_mib());
	rc = SM_EXIT_OK;
out:
	sm_index_destroy(idx);
	sm_ref_destroy(ref);
	free(path);
	return rc;
}

int sm_main(int argc, char **argv)
{
	char *cmdline;

	if (argc < 2) {
		sm_usage(stderr, 1);
		return SM_EXIT_USAGE;
	}
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		sm_usage(stdout, 1);
		return SM_EXIT_OK;
	}
	if (strcmp(argv[1], "--version") == 0) {
		print_version();
		return SM_EXIT_OK;
	}
	if (strcmp(argv[1], "index") == 0)
		return index_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "map") != 0) {
		sm_log(SM_LOG_ERROR, "unknown command '%s'", argv[1]);
		fprintf(stderr, "Run 'scanmap --help' for the commands.\n");
		return SM_EXIT_USAGE;
	}
	cmdline = join_args(argc, argv);
	if (!cmdline) {
		sm_log(SM_LOG_ERROR, "out of memory");
		return SM_EXIT_FAILURE;
	}
	return map_main(argc - 1, argv + 1, cmdline);
}
