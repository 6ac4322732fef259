// SPDX-License-Identifier: MIT
/* Output files: temporary file and rename, or exclusive create (see bpfcollect/outfile.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bpfcollect/outfile.h"
#include "bpfcollect/outmode.h"
#include "outwrite.h"

/* The directory part of path, "." when there is none. */
static void dir_of(const char *path, char *dir, size_t len)
{
	char copy[PATH_MAX];

	snprintf(copy, sizeof(copy), "%s", path);
	snprintf(dir, len, "%s", dirname(copy));
}

const char *bc_outfile_name(const struct bc_outfile *o)
{
	return o->is_stdout ? "standard output" : o->path;
}

bool bc_path_inside(const char *path, const char *protect)
{
	char dir[PATH_MAX], real_dir[PATH_MAX], real_protect[PATH_MAX];
	size_t n;

	dir_of(path, dir, sizeof(dir));
	if (!realpath(dir, real_dir) || !realpath(protect, real_protect))
		return false;
	n = strlen(real_protect);
	return !strncmp(real_dir, real_protect, n) && (real_dir[n] == '/' || !real_dir[n]);
}

/* What an existing target is, if it may not be replaced; NULL when it may. */
static const char *unreplaceable(const struct stat *st)
{
	if (S_ISREG(st->st_mode))
		return NULL;
	if (S_ISLNK(st->st_mode))
		return "a symbolic link";
	if (S_ISDIR(st->st_mode))
		return "a directory";
	if (S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode))
		return "a device";
	if (S_ISFIFO(st->st_mode))
		return "a FIFO";
	return "not a regular file";
}

/* The stream o->f for fd, which it closes; 0, or -errno with fd closed. */
static int open_stream(struct bc_outfile *o, int fd)
{
	o->f = bc_outwrite_open(fd, true, &o->w);
	if (o->f)
		return 0;
	close(fd);
	return -(errno ? errno : ENOMEM);
}

static int open_replace(struct bc_outfile *o, char *err, size_t errlen)
{
	char dir[PATH_MAX], base[PATH_MAX], copy[PATH_MAX];
	struct stat st;
	int fd, e;

	o->existed = lstat(o->path, &st) == 0;
	if (o->existed && unreplaceable(&st)) {
		snprintf(err, errlen,
			 "%s is %s, not replaced; give a new file name, or '-' for "
			 "standard output",
			 o->path, unreplaceable(&st));
		return -EEXIST;
	}
	dir_of(o->path, dir, sizeof(dir));
	snprintf(copy, sizeof(copy), "%s", o->path);
	snprintf(base, sizeof(base), "%s", basename(copy));
	if (snprintf(o->tmp, sizeof(o->tmp), "%s/.%s.XXXXXX", dir, base) >= (int)sizeof(o->tmp)) {
		o->tmp[0] = 0;
		snprintf(err, errlen, "%s: the name is too long", o->path);
		return -ENAMETOOLONG;
	}
	/*
	 * A new file, never the target's: O_EXCL and O_NOFOLLOW, so nothing
	 * planted in its place is written through; its mode set past the
	 * umask, and never carried over from the file it replaces (a planted
	 * -rwsrwxrwx stays the planter's; the trace is its owner's alone).
	 */
	fd = bc_out_tmpat(AT_FDCWD, o->tmp);
	e = fd < 0 ? -errno : fchmod(fd, bc_out_file_mode()) < 0 ? -errno : 0;
	if (e == 0)
		e = open_stream(o, fd);
	else if (fd >= 0)
		close(fd);
	if (e < 0) {
		if (fd >= 0)
			unlink(o->tmp);
		o->tmp[0] = 0;
		snprintf(err, errlen, "cannot write %s: %s", o->path, strerror(-e));
		return e;
	}
	return 0;
}

static int open_create(struct bc_outfile *o, char *err, size_t errlen)
{
	int fd = bc_out_openat(AT_FDCWD, o->path, O_WRONLY | O_EXCL | O_CLOEXEC), e;

	e = fd < 0 ? -errno : open_stream(o, fd);
	if (e < 0) {
		if (fd >= 0)
			unlink(o->path); /* made by this open: O_EXCL */
		snprintf(err, errlen, "cannot create %s: %s%s", o->path, strerror(-e),
			 e == -EEXIST ? " (remove it or pick another -o)" : "");
		return e;
	}
	return 0;
}

int bc_outfile_open(struct bc_outfile *o, const char *path, enum bc_outfile_mode mode,
		    const char *protect, char *err, size_t errlen)
{
	memset(o, 0, sizeof(*o));
	o->mode = mode;
	if (!path || !strcmp(path, "-")) {
		o->is_stdout = true;
		snprintf(o->path, sizeof(o->path), "-");
		/* what stdio's stdout holds goes first; then the records, through their own stream
		 */
		fflush(stdout);
		o->f = bc_outwrite_open(STDOUT_FILENO, false, &o->w);
		if (o->f)
			return 0;
		snprintf(err, errlen, "cannot write standard output: out of memory");
		return -ENOMEM;
	}
	if (!path[0]) {
		snprintf(err, errlen, "an empty output file name; give a file name or '-'");
		return -EINVAL;
	}
	if (snprintf(o->path, sizeof(o->path), "%s", path) >= (int)sizeof(o->path)) {
		snprintf(err, errlen, "the output file name is too long");
		return -ENAMETOOLONG;
	}
	if (protect && bc_path_inside(path, protect)) {
		snprintf(err, errlen,
			 "%s is inside the experiment %s, which is being read; write "
			 "the output elsewhere",
			 path, protect);
		return -EINVAL;
	}
	return mode == BC_OUTFILE_REPLACE ? open_replace(o, err, errlen)
					  : open_create(o, err, errlen);
}

/*
 * The temporary file in the target's place: over the target it replaces,
 * or, for a target that did not exist, only while there still is none
 * (a file made meanwhile is not the command's to remove).
 */
static int put_in_place(struct bc_outfile *o)
{
	if (o->existed ? rename(o->tmp, o->path) < 0
		       : renameat2(AT_FDCWD, o->tmp, AT_FDCWD, o->path, RENAME_NOREPLACE) < 0) {
		/* a file system without RENAME_NOREPLACE: link() refuses an existing name too */
		if (o->existed || (errno != EINVAL && errno != ENOSYS) || link(o->tmp, o->path))
			return -errno;
		unlink(o->tmp);
	}
	o->tmp[0] = 0;
	return 0;
}

/* Why a write ran out of space, as the one line says it. */
static const char *space_hint(int e)
{
	return e == -ENOSPC ? " (disk full)" : e == -EDQUOT ? " (quota)" : " (file size limit)";
}

void bc_outfile_cut_line(const struct bc_outfile *o, char *err, size_t errlen)
{
	int e = bc_outfile_cut_errno(o);

	snprintf(err, errlen, "cannot write %s: %s%s; %s, and %" PRIu64 " records were not written",
		 bc_outfile_name(o), strerror(-e), space_hint(e),
		 o->w && bc_outwrite_whole(o->w)
			 ? "it ends at its last whole record"
			 : "it could not be cut back to its last whole record",
		 bc_outfile_unwritten(o));
}

/*
 * An output a full disk cut short: where the command made it (CREATE,
 * standard output, a new REPLACE target), it stays, ending whole; a file
 * it was to replace is left as it was. e, with err saying so.
 */
static int commit_cut(struct bc_outfile *o, int e, char *err, size_t errlen)
{
	int rc;

	if (o->tmp[0] && o->existed) {
		snprintf(err, errlen,
			 "cannot write %s: %s%s; it is left as it was, not replaced by a "
			 "conversion cut short (%" PRIu64 " records did not fit)",
			 o->path, strerror(-e), space_hint(e), bc_outfile_unwritten(o));
		return e;
	}
	rc = o->tmp[0] && bc_outwrite_whole(o->w) ? put_in_place(o) : 0;
	if (rc == -EEXIST)
		snprintf(err, errlen,
			 "cannot write %s: %s%s, and a file of that name was made meanwhile: "
			 "not replaced",
			 o->path, strerror(-e), space_hint(e));
	else
		bc_outfile_cut_line(o, err, errlen);
	return e;
}

int bc_outfile_commit(struct bc_outfile *o, char *err, size_t errlen)
{
	const char *name = bc_outfile_name(o);
	int rc = 0;

	if (!o->f)
		return 0;
	if (fflush(o->f) || ferror(o->f))
		rc = bc_outwrite_errno(o->w) ? bc_outwrite_errno(o->w) : -EIO;
	/* a write the disk refused was counted, not failed: the output was cut short */
	if (!rc && bc_outwrite_full(o->w))
		rc = bc_outwrite_errno(o->w);
	if (!rc && o->tmp[0] && fsync(bc_outwrite_fd(o->w)) < 0)
		rc = -errno;
	if (fclose(o->f) && !rc)
		rc = -errno;
	o->f = NULL;
	if (rc && bc_outwrite_full(o->w))
		rc = commit_cut(o, rc, err, errlen);
	else if (!rc && o->tmp[0] && (rc = put_in_place(o)) == -EEXIST)
		snprintf(err, errlen,
			 "%s was made by something else while it was written: not replaced; "
			 "give another name",
			 name);
	else if (rc)
		snprintf(err, errlen, "writing %s: %s", name, strerror(-rc));
	if (o->tmp[0])
		unlink(o->tmp);
	o->tmp[0] = 0;
	bc_outwrite_free(o->w);
	o->w = NULL;
	return rc;
}

void bc_outfile_abort(struct bc_outfile *o)
{
	if (o->f)
		fclose(o->f);
	o->f = NULL;
	bc_outwrite_free(o->w);
	o->w = NULL;
	if (o->tmp[0])
		unlink(o->tmp);
	o->tmp[0] = 0;
}

void bc_outfile_mark(struct bc_outfile *o)
{
	if (o && o->w)
		bc_outwrite_end(o->w, o->f, false);
}

void bc_outfile_record(struct bc_outfile *o)
{
	if (o && o->w)
		bc_outwrite_end(o->w, o->f, true);
}

void bc_outfile_tail(struct bc_outfile *o, const char *tail)
{
	if (o && o->w)
		bc_outwrite_tail(o->w, o->f, tail);
}

int bc_outfile_cut_errno(const struct bc_outfile *o)
{
	return o && o->w ? bc_outwrite_errno(o->w) : 0;
}

bool bc_outfile_full(const struct bc_outfile *o)
{
	return o && o->w && bc_outwrite_full(o->w);
}

uint64_t bc_outfile_unwritten(const struct bc_outfile *o)
{
	return o && o->w ? bc_outwrite_unwritten(o->w) : 0;
}
