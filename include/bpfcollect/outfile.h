/* SPDX-License-Identifier: MIT */
/*
 * Output files, created in one place and one way, so that no command ever
 * truncates or removes a file it did not create:
 *
 * - BC_OUTFILE_REPLACE (convert -o): the data goes to a temporary file in
 *   the target's directory, renamed over the target only when the command
 *   succeeded. An existing target is replaced only if it is a regular file
 *   (not a device, FIFO, directory or symbolic link); a failed run leaves
 *   it byte for byte and removes only its own temporary file.
 * - BC_OUTFILE_CREATE (record's live outputs, which a reader may follow
 *   while they grow): the target is created, and must not exist.
 *
 * Both refuse a path inside `protect` (the experiment being read), and
 * take "-" for standard output.
 *
 * A file made new (the temporary file of REPLACE, CREATE's target) is the
 * command's alone: 0600, or --mode's (bpfcollect/outmode.h); REPLACE sets
 * it past the umask, and never carries a replaced file's mode or owner
 * over to its replacement.
 */
#ifndef BPFCOLLECT_OUTFILE_H
#define BPFCOLLECT_OUTFILE_H

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum bc_outfile_mode {
	BC_OUTFILE_REPLACE,
	BC_OUTFILE_CREATE,
};

struct bc_outfile {
	FILE *f;	     /* write here; stdout for "-" */
	char path[PATH_MAX]; /* the target as given */
	char tmp[PATH_MAX];  /* REPLACE: the temporary file, "" once renamed or removed */
	enum bc_outfile_mode mode;
	bool is_stdout;
	bool existed; /* REPLACE: the target was there when opened */
};

/* Whether the directory that holds path is dir or lies below it (both resolved). */
bool bc_path_inside(const char *path, const char *dir);

/*
 * Opens path (NULL or "-": standard output). protect: a directory the
 * output must not be inside (NULL: none). 0, or -errno with one line in
 * err naming the file and what to do.
 */
int bc_outfile_open(struct bc_outfile *o, const char *path, enum bc_outfile_mode mode,
		    const char *protect, char *err, size_t errlen);
/*
 * Flushes and closes; REPLACE renames the temporary file over the target
 * (over one that did not exist only while there still is none). 0, or
 * -errno with one line in err (the target is then as it was before).
 */
int bc_outfile_commit(struct bc_outfile *o, char *err, size_t errlen);
/*
 * Closes without committing: REPLACE removes its temporary file, CREATE
 * keeps what it wrote (whole records of a live output). Idempotent.
 */
void bc_outfile_abort(struct bc_outfile *o);

/*
 * The error of a stream write that just failed, as write(2) left errno
 * (ENOSPC says more than EIO); -EIO when errno says nothing.
 */
static inline int bc_io_errno(void)
{
	return errno > 0 ? -errno : -EIO;
}

#endif /* BPFCOLLECT_OUTFILE_H */
