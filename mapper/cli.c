/* cli.c — option parsing, validation and usage (see cli.h). */
#include "mapper/cli.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "io/sam_out.h"
#include "mapper/log.h"
#include "mapper/pipeline.h"

/* Long-only options take values above the range of single characters. */
enum {
	OPT_ENGINE = 256,
	OPT_CELLS,
	OPT_CPU_ISA,
	OPT_MAX_READ_LEN,
	OPT_VERSION,
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

static const char *const cpu_isa_names[] = { "auto", "scalar", "sse41", "avx2", "avx512" };

#define N_ELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

void sm_opt_init(sm_opt_t *o)
{
	memset(o, 0, sizeof *o);
	o->n_threads = SM_DEFAULT_THREADS;
	o->score.match = SM_DEFAULT_MATCH;
	o->score.mismatch = SM_DEFAULT_MISMATCH;
	o->score.gap_open = SM_DEFAULT_GAP_OPEN;
	o->score.gap_ext = SM_DEFAULT_GAP_EXTEND;
	o->min_score = SM_DEFAULT_MIN_SCORE;
	o->engine = SM_ENGINE_AUTO;
	o->cells = SM_CELLS_AUTO;
	o->cpu_isa = cpu_isa_names[0];
	o->max_read_len = SM_DEFAULT_MAX_READ_LEN;
	o->verbosity = SM_LOG_INFO;
}

void sm_opt_free(sm_opt_t *o)
{
	free(o->rg_line);
	free(o->rg_id);
	free(o->cmdline);
	o->rg_line = o->rg_id = o->cmdline = NULL;
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
	if (check_range("-A (match score)", o->score.match, 1, SM_MAX_MATCH) < 0 ||
	    check_range("-B (mismatch penalty)", o->score.mismatch, 1, SM_MAX_PENALTY) < 0 ||
	    check_range("-O (gap open penalty)", o->score.gap_open, 0, SM_MAX_PENALTY) < 0 ||
	    check_range("-E (gap extension penalty)", o->score.gap_ext, 1, SM_MAX_PENALTY) < 0 ||
	    check_range("-T (minimum score)", o->min_score, 1, INT32_MAX) < 0 ||
	    check_range("-t (threads)", o->n_threads, 1, SM_MAX_THREADS) < 0 ||
	    check_range("-v (verbosity)", o->verbosity, 0, SM_VERBOSITY_MAX) < 0 ||
	    check_range("--max-read-len", o->max_read_len, 1, SM_MAX_READ_LEN_LIMIT) < 0)
		return -1;
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
			"  map        map FASTQ reads to a FASTA reference, write SAM/BAM/CRAM\n\n"
			"  scanmap --help | --version\n\n", SM_VERSION);
	fprintf(fp,
		"Usage: scanmap map [options] <ref.fa[.gz]> <reads.fq[.gz]>\n\n"
		"Every read is aligned on both strands against the whole reference by\n"
		"exact local alignment (affine gaps); its best hit is written.\n\n"
		"Input/output:\n"
		"  -o FILE        output; .sam, .bam or .cram by extension [SAM to stdout]\n"
		"  -R STR         read group header line such as '@RG\\tID:foo\\tSM:bar' [none]\n"
		"  -t INT         worker threads [%d]\n"
		"  --max-read-len INT  longest read accepted [%d]\n"
		"Scoring (a gap of length k costs O + k*E):\n"
		"  -A INT         match score [%d]\n"
		"  -B INT         mismatch penalty [%d]\n"
		"  -O INT         gap open penalty [%d]\n"
		"  -E INT         gap extension penalty [%d]\n"
		"  -T INT         minimum score to output a hit; below it the read is unmapped [%d]\n"
		"Engine:\n"
		"  --engine STR   cpu, gpu, auto (GPU when one is usable), oracle (slow,\n"
		"                 for tests) [%s]\n"
		"  --cells STR    GPU cell width ladder: 8, 16, 32 or auto [%s]\n"
		"  --cpu-isa STR  CPU instruction set: auto, scalar, sse41, avx2, avx512 [%s]\n"
		"Other:\n"
		"  -v INT         verbosity: 0 silent, 1 errors, 2 warnings, 3 progress, 4 debug [%d]\n"
		"  -h, --help     print this help and exit\n"
		"  --version      print the version and exit\n",
		d.n_threads, d.max_read_len, d.score.match, d.score.mismatch,
		d.score.gap_open, d.score.gap_ext, d.min_score, engine_names[d.engine],
		cells_names[d.cells], d.cpu_isa, d.verbosity);
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

/* Parses `map`'s arguments (argv[0] is "map").  Returns 0 to run, 1 when
 * help was printed, -1 on a usage error (logged). */
static int parse_map(int argc, char **argv, sm_opt_t *o)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ "engine", required_argument, NULL, OPT_ENGINE },
		{ "cells", required_argument, NULL, OPT_CELLS },
		{ "cpu-isa", required_argument, NULL, OPT_CPU_ISA },
		{ "max-read-len", required_argument, NULL, OPT_MAX_READ_LEN },
		{ NULL, 0, NULL, 0 },
	};
	int c, k, min_score = 0;

	opterr = 0;  /* we report unknown options ourselves, through sm_log */
	optind = 1;
	while ((c = getopt_long(argc, argv, ":o:t:R:A:B:O:E:T:v:h", longopts, NULL)) >= 0) {
		int rc = 0;

		switch (c) {
		case 'o': o->out_path = optarg; break;
		case 't': rc = parse_int_opt("-t", optarg, &o->n_threads); break;
		case 'A': rc = parse_int_opt("-A", optarg, &o->score.match); break;
		case 'B': rc = parse_int_opt("-B", optarg, &o->score.mismatch); break;
		case 'O': rc = parse_int_opt("-O", optarg, &o->score.gap_open); break;
		case 'E': rc = parse_int_opt("-E", optarg, &o->score.gap_ext); break;
		case 'T':
			rc = parse_int_opt("-T", optarg, &min_score);
			o->min_score = min_score;
			break;
		case 'v': rc = parse_int_opt("-v", optarg, &o->verbosity); break;
		case OPT_MAX_READ_LEN:
			rc = parse_int_opt("--max-read-len", optarg, &o->max_read_len);
			break;
		case 'R':
			free(o->rg_line);
			free(o->rg_id);
			rc = sm_rg_parse(optarg, &o->rg_line, &o->rg_id);
			break;
		case OPT_ENGINE:
			k = parse_name("--engine", optarg, engine_names, N_ELEM(engine_names));
			o->engine = (sm_engine_kind_t)k;
			rc = k < 0 ? -1 : 0;
			break;
		case OPT_CELLS:
			k = parse_name("--cells", optarg, cells_names, N_ELEM(cells_names));
			o->cells = (sm_cells_t)k;
			rc = k < 0 ? -1 : 0;
			break;
		case OPT_CPU_ISA:
			k = parse_name("--cpu-isa", optarg, cpu_isa_names, N_ELEM(cpu_isa_names));
			o->cpu_isa = k < 0 ? NULL : cpu_isa_names[k];
			rc = k < 0 ? -1 : 0;
			break;
		case 'h':
			sm_usage(stdout, 0);
			return 1;
		case OPT_VERSION:
			printf("scanmap %s\n", SM_VERSION);
			return 1;
		case ':':
			sm_log(SM_LOG_ERROR, "option '%s' needs a value", argv[optind - 1]);
			return -1;
		default:
			sm_log(SM_LOG_ERROR, "unknown option '%s'", argv[optind - 1]);
			return -1;
		}
		if (rc < 0)
			return -1;
	}
	if (argc - optind < 2) {
		sm_log(SM_LOG_ERROR, "expected <ref.fa> and <reads.fq> after the options");
		return -1;
	}
	if (argc - optind > 2) {
		sm_log(SM_LOG_ERROR, "unexpected argument '%s' after <reads.fq>", argv[optind + 2]);
		return -1;
	}
	o->ref_path = argv[optind];
	o->reads_path = argv[optind + 1];
	return 0;
}

static int map_main(int argc, char **argv, char *cmdline)
{
	sm_opt_t o;
	int rc;

	sm_opt_init(&o);
	o.cmdline = cmdline;
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
	rc = sm_map_run(&o);
	sm_opt_free(&o);
	return rc == 0 ? SM_EXIT_OK : SM_EXIT_FAILURE;
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
		printf("scanmap %s\n", SM_VERSION);
		return SM_EXIT_OK;
	}
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
