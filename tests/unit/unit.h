/* unit.h — what every C unit test shares: one line per check, a fixed-seed
 * generator, a scratch directory with file writers, stderr capture, and the
 * closing "N passed, N failed" line.  Each test is one translation unit that
 * includes this once. */
#ifndef SM_TEST_UNIT_H
#define SM_TEST_UNIT_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define UNUSED __attribute__((unused))

static int n_pass, n_fail;
static char unit_dir[256];        /* scratch directory, made by unit_begin */
static char errbuf[8192];         /* stderr captured by capture_begin/end */

#define UNIT_STR2(x) #x
#define UNIT_STR(x) UNIT_STR2(x)

/* Evaluates cond once; prints "ok   ..." or "FAIL ...  [file:line]". */
#define CHECK(cond, ...) do {                                                   \
	int ok_ = (cond) != 0;                                                  \
	n_pass += ok_;                                                          \
	n_fail += !ok_;                                                         \
	printf("%s", ok_ ? "ok   " : "FAIL ");                                 \
	printf(__VA_ARGS__);                                                    \
	printf("%s\n", ok_ ? "" : "  [" __FILE__ ":" UNIT_STR(__LINE__) "]");  \
} while (0)

/* xorshift64: fixed seeds make every run check the same cases. */
static uint64_t unit_rng = 88172645463325252ull;
static UNUSED void unit_seed(uint64_t seed) { unit_rng = seed ? seed : 1; }
static UNUSED uint32_t rnd(uint32_t k)
{
	unit_rng ^= unit_rng << 13;
	unit_rng ^= unit_rng >> 7;
	unit_rng ^= unit_rng << 17;
	return (uint32_t)(unit_rng % k);
}

/* malloc or give up: a test with no memory cannot say anything. */
static UNUSED void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p) {
		perror("malloc");
		exit(2);
	}
	return p;
}

/* Line-buffered stdout and a scratch directory /tmp/sm_test_NAME.XXXXXX. */
static UNUSED void unit_begin(const char *name)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	snprintf(unit_dir, sizeof unit_dir, "/tmp/sm_test_%s.XXXXXX", name);
	if (!mkdtemp(unit_dir)) {
		perror("mkdtemp");
		exit(2);
	}
}

/* Prints the closing line, removes the scratch directory if every check
 * passed (kept for a look otherwise) and returns the exit status. */
static UNUSED int unit_end(void)
{
	printf("%d passed, %d failed\n", n_pass, n_fail);
	if (n_fail == 0 && unit_dir[0]) {
		char cmd[600];
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", unit_dir);
		if (system(cmd) != 0)
			return 1;
	}
	return n_fail ? 1 : 0;
}

/* Skips the test (exit status 77) with the reason printed, its scratch
 * directory removed. */
static UNUSED int unit_skip(const char *why)
{
	char cmd[600];

	printf("skip: %s\n", why);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", unit_dir);
	if (unit_dir[0] && system(cmd) != 0)
		return 1;
	return 77;
}

static UNUSED const char *tmp_path(const char *name)
{
	static char buf[4][512];
	static int k;
	k = (k + 1) % 4;
	snprintf(buf[k], sizeof buf[k], "%s/%s", unit_dir, name);
	return buf[k];
}

static UNUSED const char *write_file(const char *name, const char *text, size_t n)
{
	const char *p = tmp_path(name);
	FILE *fp = fopen(p, "wb");
	if (!fp || fwrite(text, 1, n, fp) != n || fclose(fp) != 0) {
		perror(p);
		exit(2);
	}
	return p;
}

static UNUSED const char *write_text(const char *name, const char *text)
{
	return write_file(name, text, strlen(text));
}

static UNUSED const char *write_gz(const char *name, const char *text)
{
	const char *p = tmp_path(name);
	gzFile fp = gzopen(p, "wb");
	if (!fp || gzwrite(fp, text, (unsigned)strlen(text)) != (int)strlen(text) || gzclose(fp) != Z_OK) {
		fprintf(stderr, "cannot write %s\n", p);
		exit(2);
	}
	return p;
}

static int saved_stderr = -1, capture_fd = -1;

/* Sends stderr to a file until capture_end(), which reads it into errbuf
 * with newlines turned into spaces (one check, one line). */
static UNUSED void capture_begin(void)
{
	capture_fd = open(tmp_path("stderr.txt"), O_RDWR | O_CREAT | O_TRUNC, 0600);
	saved_stderr = dup(STDERR_FILENO);
	fflush(stderr);
	dup2(capture_fd, STDERR_FILENO);
}

static UNUSED void capture_end(void)
{
	ssize_t n;

	fflush(stderr);
	dup2(saved_stderr, STDERR_FILENO);
	close(saved_stderr);
	lseek(capture_fd, 0, SEEK_SET);
	n = read(capture_fd, errbuf, sizeof errbuf - 1);
	errbuf[n > 0 ? n : 0] = '\0';
	close(capture_fd);
	for (char *c = errbuf; *c; c++)
		if (*c == '\n')
			*c = ' ';
}

#endif
