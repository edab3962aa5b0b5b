/* outfile.c — temporary output files renamed on success (see outfile.h). */
#include "io/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/log.h"

/* Names tried before giving up when another process holds each one. */
#define SM_OUTFILE_TRIES 100

/* The files the signal handler removes: each open output's temporary file
 * and the final name it was to replace.  A slot is claimed with an atomic
 * compare-and-swap on pending_tmp and holds names that stay valid until it
 * is cleared again, so the handler reads only whole, live names. */
static char *volatile pending_tmp[SM_OUTFILE_MAX];
static char *volatile pending_path[SM_OUTFILE_MAX];

static const int caught[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE, SIGXCPU, SIGXFSZ };

static void on_signal(int sig)
{
	for (int k = 0; k < SM_OUTFILE_MAX; k++) {
		char *tmp = __atomic_load_n(&pending_tmp[k], __ATOMIC_SEQ_CST);
		char *path = __atomic_load_n(&pending_path[k], __ATOMIC_SEQ_CST);

		if (tmp)
			unlink(tmp);    /* async-signal-safe */
		if (path)
			unlink(path);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

int sm_outfile_catch_signals(void)
{
	for (size_t k = 0; k < sizeof caught / sizeof caught[0]; k++) {
		struct sigaction sa, old;

		if (sigaction(caught[k], NULL, &old) != 0)
			return -1;
		if (old.sa_handler == SIG_IGN)
			continue;   /* nohup and the like: keep ignoring it */
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_signal;
		sigemptyset(&sa.sa_mask);
		/* The other caught signals wait while one handler runs. */
		for (size_t j = 0; j < sizeof caught / sizeof caught[0]; j++)
			sigaddset(&sa.sa_mask, caught[j]);
		if (sigaction(caught[k], &sa, NULL) != 0)
			return -1;
	}
	return 0;
}

static int claim_slot(char *tmp, char *path)
{
	for (int k = 0; k < SM_OUTFILE_MAX; k++) {
		char *none = NULL;

		if (__atomic_compare_exchange_n(&pending_tmp[k], &none, tmp, 0, __ATOMIC_SEQ_CST,
						__ATOMIC_SEQ_CST)) {
			__atomic_store_n(&pending_path[k], path, __ATOMIC_SEQ_CST);
			return k;
		}
	}
	return -1;
}

static void release_slot(sm_outfile_t *f)
{
	if (f->slot >= 0 && f->tmp) {
		__atomic_store_n(&pending_path[f->slot], NULL, __ATOMIC_SEQ_CST);
		__atomic_store_n(&pending_tmp[f->slot], NULL, __ATOMIC_SEQ_CST);
	}
	f->slot = -1;
}

static void free_names(sm_outfile_t *f)
{
	free(f->path);
	free(f->tmp);
	f->path = f->tmp = NULL;
}

int sm_outfile_check_inputs(const char *what, const char *out, const char *const *inputs, int n)
{
	struct stat so, si;

	if (!out || strcmp(out, "-") == 0 || stat(out, &so) != 0)
		return 0;   /* nothing there yet: nothing to overwrite */
	for (int k = 0; k < n; k++) {
		if (!inputs[k] || stat(inputs[k], &si) != 0)
			continue;
		if (so.st_dev == si.st_dev && so.st_ino == si.st_ino) {
			sm_log(SM_LOG_ERROR, "%s %s: the output would overwrite the input %s%s", what, out,
			       inputs[k], strcmp(out, inputs[k]) ? " (the same file through a link)" : "");
			return -1;
		}
	}
	return 0;
}

int sm_outfile_begin(sm_outfile_t *f, const char *path)
{
	static int serial;
	struct stat st;
	const char *base;
	size_t dir_len;

	memset(f, 0, sizeof *f);
	f->slot = -1;
	/* Follow a symbolic link, so that the rename replaces its target. */
	f->path = lstat(path, &st) == 0 && S_ISLNK(st.st_mode) ? realpath(path, NULL) : NULL;
	if (!f->path)
		f->path = strdup(path);
	if (!f->path)
		goto oom;
	if (stat(f->path, &st) == 0 && !S_ISREG(st.st_mode))
		return 0;   /* a FIFO, a device: written directly */
	base = strrchr(f->path, '/');
	base = base ? base + 1 : f->path;
	dir_len = (size_t)(base - f->path);
	for (int t = 0; t < SM_OUTFILE_TRIES; t++) {
		int n = __atomic_fetch_add(&serial, 1, __ATOMIC_RELAXED), fd;
		size_t len = dir_len + strlen(base) + 64;

		free(f->tmp);
		if (!(f->tmp = malloc(len)))
			goto oom;
		snprintf(f->tmp, len, "%.*s.%s.tmp.%ld.%d", (int)dir_len, f->path, base,
			 (long)getpid(), n);
		/* Listed before it exists, so that no signal can come between
		 * its creation and its listing; O_EXCL: never take over a file
		 * that someone else made. */
		f->slot = claim_slot(f->tmp, f->path);
		if (f->slot < 0) {
			sm_log(SM_LOG_ERROR, "%s: more than %d outputs open at once", path,
			       SM_OUTFILE_MAX);
			free_names(f);
			return -1;
		}
		fd = open(f->tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
		if (fd >= 0) {
			close(fd);
			return 0;
		}
		release_slot(f);
		if (errno != EEXIST) {
			sm_log(SM_LOG_ERROR, "cannot open %s for writing: %s", path, strerror(errno));
			free_names(f);
			return -1;
		}
	}
	sm_log(SM_LOG_ERROR, "cannot open %s for writing: no free temporary name", path);
	free_names(f);
	return -1;
oom:
	sm_log(SM_LOG_ERROR, "%s: out of memory", path);
	free_names(f);
	return -1;
}

const char *sm_outfile_name(const sm_outfile_t *f)
{
	return f->tmp ? f->tmp : f->path;
}

int sm_outfile_commit(sm_outfile_t *f)
{
	int rc = 0;

	/* An earlier file under path is unlinked first: renaming over it makes
	 * ext4 write the new file out before the rename returns (outfile.h).
	 * Nothing is lost: a run that fails removes it too (sm_outfile_discard). */
	if (f->tmp && unlink(f->path) != 0 && errno != ENOENT)
		sm_log(SM_LOG_DEBUG, "cannot unlink %s before replacing it: %s", f->path,
		       strerror(errno));
	if (f->tmp && rename(f->tmp, f->path) != 0) {
		sm_log(SM_LOG_ERROR, "cannot rename %s to %s: %s", f->tmp, f->path, strerror(errno));
		unlink(f->tmp);
		rc = -1;
	}
	release_slot(f);
	free_names(f);
	return rc;
}

void sm_outfile_discard(sm_outfile_t *f)
{
	if (f->tmp) {
		unlink(f->tmp);
		if (unlink(f->path) == 0)
			sm_log(SM_LOG_INFO, "removed %s, which this run was to replace", f->path);
	}
	release_slot(f);
	free_names(f);
}
