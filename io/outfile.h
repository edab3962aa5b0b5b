/* outfile.h — output files that appear whole or not at all.
 *
 * An output named PATH is written under a temporary name in PATH's folder,
 * ".NAME.tmp.PID.N" (the same file system, so the rename is atomic), and
 * renamed to PATH only when the caller commits it after a successful run.
 * A run that fails, is interrupted or crashes never leaves a file under
 * PATH that it wrote.  On failure (sm_outfile_discard) and on the signals
 * that sm_outfile_catch_signals() handles, the temporary file is removed,
 * and so is a file that was under PATH before, which the run was to
 * replace: a stale output from an earlier run must not pass for this one's.
 * After SIGKILL, a crash or a power cut the earlier file stays as it was
 * and the temporary file may remain, under its temporary name.
 *
 * PATH is replaced by a new file (links to the old one keep the old
 * contents; a symbolic link is followed and its target replaced).  An
 * existing PATH that is not a regular file (a FIFO, /dev/null, a terminal)
 * is written directly, as there is nothing to rename over it; so is
 * standard output, which cannot be undone: a failed or interrupted run's
 * non-zero status is then the only sign.
 *
 * No fsync: the data reaches the disk when the system writes it back, as
 * for bwa's and minimap2's output.  Nor what makes ext4 write a file out
 * before returning (auto_da_alloc): the temporary file, new, is opened
 * without O_TRUNC, and an earlier file is unlinked just before the rename
 * instead of being renamed over (per 500 MB on the build VM, close 0.15 s
 * and rename 0.25 s otherwise; the unlink 0.09 s: benchmarks/outfile_probe.c). */
#ifndef SM_OUTFILE_H
#define SM_OUTFILE_H

/* Most temporary files open at once (a run writes one or two). */
#define SM_OUTFILE_MAX 8

typedef struct {
	char *path;       /* the name asked for (after following a symbolic link) */
	char *tmp;        /* the name written, or NULL when writing path directly */
	int slot;         /* its place in the signal handler's list, -1 for none */
} sm_outfile_t;

/* Makes the temporary file for path (or nothing, for an existing
 * non-regular file: then f->tmp is NULL and the caller writes path).
 * Returns 0 with f set, or -1 after logging (the message names path).
 * The caller opens f->tmp (or f->path) itself, e.g. through htslib. */
int sm_outfile_begin(sm_outfile_t *f, const char *path);

/* The name to open for writing: f->tmp, or f->path. */
const char *sm_outfile_name(const sm_outfile_t *f);

/* Renames the temporary file to its final name; call after the file was
 * written and closed without error.  Returns 0, or -1 after logging (the
 * temporary file is then removed).  Frees f's names either way. */
int sm_outfile_commit(sm_outfile_t *f);

/* Removes the temporary file and the file under the final name, if any
 * (a directly written non-regular path is left alone), and frees f's
 * names.  f may be zeroed with slot -1. */
void sm_outfile_discard(sm_outfile_t *f);

/* Refuses an output that is one of the inputs: 0 if out (a path to be
 * written; NULL or "-" for standard output) names none of the n existing
 * files inputs[] (NULL entries skipped), compared by device and inode, so
 * that a symbolic or hard link to an input counts as that input; else -1
 * after logging which input it would overwrite (what: the option, "-o"). */
int sm_outfile_check_inputs(const char *what, const char *out, const char *const *inputs, int n);

/* Installs handlers for SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE, SIGXCPU
 * and SIGXFSZ (those not ignored when the process started) that remove
 * every temporary file still open, then die of the same signal, so the
 * exit status is the signal's (a shell reports 128 + its number).  For
 * main(): a library never installs handlers itself.  Returns 0 or -1. */
int sm_outfile_catch_signals(void);

#endif
