// SPDX-License-Identifier: MIT
/* Output files: temporary file and rename, or exclusive create (see bpfcollect/outfile.h). */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bpfcollect/outfile.h"
#include "bpfcollect/outmode.h"

/* The directory part of path, "." when there is none. */
static void dir_of(const char *path, char *dir, size_t len)
{
	char copy[PATH_MAX];

	snprintf(copy, sizeof(copy), "%s", path);
	snprintf(dir, len, "%s", dirname(copy));
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
	if (e == 0 && !(o->f = fdopen(fd, "w")))
		e = -errno;
	if (e < 0) {
		if (fd >= 0) {
			close(fd);
			unlink(o->tmp);
		}
		o->tmp[0] = 0;
		snprintf(err, errlen, "cannot write %s: %s", o->path, strerror(-e));
		return e;
	}
	return 0;
}

static int open_create(struct bc_outfile *o, char *err, size_t errlen)
{
	int fd = bc_out_openat(AT_FDCWD, o->path, O_WRONLY | O_EXCL | O_CLOEXEC), e;

	o->f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!o->f) {
		e = errno;
		if (fd >= 0) {
			close(fd);
			unlink(o->path);
		}
		snprintf(err, errlen, "cannot create %s: %s%s", o->path, strerror(e),
			 e == EEXIST ? " (remove it or pick another -o)" : "");
		return -e;
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
		o->f = stdout;
		snprintf(o->path, sizeof(o->path), "-");
		return 0;
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

int bc_outfile_commit(struct bc_outfile *o, char *err, size_t errlen)
{
	const char *name = o->is_stdout ? "standard output" : o->path;
	int rc = 0;

	if (!o->f)
		return 0;
	if (fflush(o->f) || ferror(o->f))
		rc = -(errno ? errno : EIO);
	if (!o->is_stdout) {
		if (!rc && o->mode == BC_OUTFILE_REPLACE && fsync(fileno(o->f)) < 0)
			rc = -errno;
		if (fclose(o->f) && !rc)
			rc = -errno;
	}
	o->f = NULL;
	if (!rc && o->tmp[0] && (rc = put_in_place(o)) == -EEXIST)
		snprintf(err, errlen,
			 "%s was made by something else while it was written: not replaced; "
			 "give another name",
			 name);
	else if (rc)
		snprintf(err, errlen, "writing %s: %s", name, strerror(-rc));
	if (o->tmp[0])
		unlink(o->tmp);
	o->tmp[0] = 0;
	return rc;
}

void bc_outfile_abort(struct bc_outfile *o)
{
	if (o->f && !o->is_stdout)
		fclose(o->f);
	else if (o->f)
		fflush(o->f);
	o->f = NULL;
	if (o->tmp[0])
		unlink(o->tmp);
	o->tmp[0] = 0;
}
