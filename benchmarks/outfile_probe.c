/* outfile_probe.c — what a file system charges at the end of writing an
 * output the ways io/outfile.c could (its header says which it takes):
 *   close  of a file written after open(O_TRUNC), against one opened without;
 *   rename of the new file over an earlier one, against unlink then rename;
 *   unlink of an earlier file (its blocks freed).
 * On ext4 (auto_da_alloc) O_TRUNC and renaming over a file make the kernel
 * write the new file out before close or rename returns.
 *
 *   make build/benchmarks/outfile_probe   (or: cc -O2 -o outfile_probe benchmarks/outfile_probe.c)
 *   build/benchmarks/outfile_probe DIR [MB]   (MB a file, default 500; DIR on the disk to probe)
 *
 * Each case runs twice, alternating, after a sync and a second's rest; it
 * prints seconds per case.  Leaves nothing in DIR. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Writes mb MiB to path, opened with `flags` (a new, empty file first). */
static int fill(const char *path, int flags, long mb, const char *buf)
{
	int fd;

	unlink(path);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0666)) < 0)
		return -1;
	close(fd);
	if ((fd = open(path, O_WRONLY | O_CREAT | flags, 0666)) < 0)
		return -1;
	for (long i = 0; i < mb; i++)
		if (write(fd, buf, 1 << 20) != 1 << 20) {
			close(fd);
			return -1;
		}
	return fd;
}

static void rest(void)
{
	sync();
	sleep(1);
}

int main(int argc, char **argv)
{
	const long mb = argc > 2 ? atol(argv[2]) : 500;
	char out[4096], tmp[4096], *buf = malloc(1 << 20);
	double t;
	int fd;

	if (argc < 2 || mb < 1 || !buf) {
		fprintf(stderr, "usage: outfile_probe DIR [MB]\n");
		return 2;
	}
	memset(buf, 'A', 1 << 20);
	snprintf(out, sizeof out, "%s/outfile_probe.out", argv[1]);
	snprintf(tmp, sizeof tmp, "%s/.outfile_probe.tmp", argv[1]);
	for (int round = 1; round <= 2; round++) {
		for (int trunc = 1; trunc >= 0; trunc--) {
			rest();
			if ((fd = fill(tmp, trunc ? O_TRUNC : 0, mb, buf)) < 0)
				goto fail;
			t = now();
			close(fd);
			printf("round %d: close after %s: %.3f s\n", round, trunc ? "O_TRUNC" : "no O_TRUNC",
			       now() - t);
			unlink(tmp);
		}
		for (int first = 0; first <= 1; first++) {
			/* an earlier output, on disk, and the new one written */
			if ((fd = fill(out, 0, mb, buf)) < 0)
				goto fail;
			close(fd);
			rest();
			if ((fd = fill(tmp, 0, mb, buf)) < 0)
				goto fail;
			close(fd);
			t = now();
			if (first)
				unlink(out);
			double mid = now();
			if (rename(tmp, out) != 0)
				goto fail;
			printf("round %d: %s: %.3f s (unlink %.3f s)\n", round,
			       first ? "unlink, then rename" : "rename over it", now() - t, mid - t);
			unlink(out);
		}
	}
	free(buf);
	return 0;
fail:
	perror(argv[1]);
	unlink(tmp);
	unlink(out);
	return 1;
}
