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
 *
 * Whole records: the writer says where its records end (bc_outfile_record,
 * bc_outfile_mark). When a write fails for want of space (a full disk, a
 * quota, a file size limit), the file is cut back to the last record end
 * it holds, the format's closing bytes (bc_outfile_tail) follow, and from
 * then on what is written is counted, not written (the writer sees no
 * error): the file stays valid for its format (whole lines, whole GTF
 * records, a JSON document with its end). Commit then keeps it where the
 * command made it (CREATE, standard output, a new REPLACE target), leaves
 * a target it was to replace as it was, and says so in one line, with the
 * count of records the file lacks.
 */
#ifndef BPFCOLLECT_OUTFILE_H
#define BPFCOLLECT_OUTFILE_H

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct bc_outwrite;

enum bc_outfile_mode {
	BC_OUTFILE_REPLACE,
	BC_OUTFILE_CREATE,
};

struct bc_outfile {
	FILE *f;	     /* write here (to standard output too, for "-") */
	char path[PATH_MAX]; /* the target as given */
	char tmp[PATH_MAX];  /* REPLACE: the temporary file, "" once renamed or removed */
	enum bc_outfile_mode mode;
	bool is_stdout;
	bool existed;	       /* REPLACE: the target was there when opened */
	struct bc_outwrite *w; /* what f writes through: record ends, the cut */
};

/* What to call o in messages: its path, or "standard output". */
const char *bc_outfile_name(const struct bc_outfile *o);

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
 * -errno with one line in err: the target is then as it was before, but
 * for an output cut short (bc_outfile_full), kept as said above.
 */
int bc_outfile_commit(struct bc_outfile *o, char *err, size_t errlen);
/*
 * Closes without committing: REPLACE removes its temporary file, CREATE
 * keeps what it wrote (whole records of a live output). Idempotent.
 */
void bc_outfile_abort(struct bc_outfile *o);

/*
 * Record ends (o NULL: nothing done). bc_outfile_record: what was written
 * since the last end is one record of the format (counted, if anything
 * was), and ends there; bc_outfile_mark: an end that counts nothing (a
 * header, the format's end).
 */
void bc_outfile_record(struct bc_outfile *o);
void bc_outfile_mark(struct bc_outfile *o);
/* The bytes that end the format after any record end from here on ("" or NULL: none). */
void bc_outfile_tail(struct bc_outfile *o, const char *tail);
/* The -errno writing stopped at (a full disk, a closed pipe); 0 while it goes on. */
int bc_outfile_cut_errno(const struct bc_outfile *o);
/* Whether a full disk (ENOSPC, EDQUOT, EFBIG) cut it short. */
bool bc_outfile_full(const struct bc_outfile *o);
/* Records counted that the file does not hold (those past its cut). */
uint64_t bc_outfile_unwritten(const struct bc_outfile *o);
/* The line that says a cut output kept where it was made ends whole, and what it lacks. */
void bc_outfile_cut_line(const struct bc_outfile *o, char *err, size_t errlen);

/*
 * The error of a stream write that just failed, as write(2) left errno
 * (ENOSPC says more than EIO); -EIO when errno says nothing.
 */
static inline int bc_io_errno(void)
{
	return errno > 0 ? -errno : -EIO;
}

#endif /* BPFCOLLECT_OUTFILE_H */
