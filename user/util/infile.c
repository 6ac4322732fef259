// SPDX-License-Identifier: MIT
/* Opening untrusted files without hanging on them (bpfcollect/infile.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bpfcollect/infile.h"

int bc_in_openat(int dirfd, const char *name, bool follow, struct stat *st)
{
	int flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | (follow ? 0 : O_NOFOLLOW);
	int fd = openat(dirfd, name, flags), rc;

	memset(st, 0, sizeof(*st));
	if (fd < 0)
		return -errno;
	if (fstat(fd, st) < 0) {
		rc = -errno;
		goto fail;
	}
	if (!S_ISREG(st->st_mode)) {
		rc = -EINVAL;
		goto fail;
	}
	return fd;
fail:
	close(fd);
	return rc;
}

/* What a name holds when it is no regular file. */
static const char *kind_of(mode_t mode)
{
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISSOCK(mode))
		return "a socket";
	return "something else";
}

const char *bc_in_error(char *buf, size_t len, const char *path, int rc, const struct stat *st)
{
	struct stat here;

	/* without what bc_in_openat found, look again (it is said, not trusted) */
	if (rc == -EINVAL && !st && !fstatat(AT_FDCWD, path, &here, AT_SYMLINK_NOFOLLOW))
		st = &here;
	if (rc == -EINVAL && st && S_ISLNK(st->st_mode))
		rc = -ELOOP;
	if (rc == -EINVAL && st && !S_ISREG(st->st_mode))
		snprintf(buf, len,
			 "%s is %s, not a regular file: refused (remove it; only regular "
			 "files are read)",
			 path, kind_of(st->st_mode));
	else if (rc == -ELOOP)
		snprintf(buf, len,
			 "%s is a symbolic link: refused (remove it; an experiment's files are "
			 "never links)",
			 path);
	else
		snprintf(buf, len, "%s: %s", path, strerror(-rc));
	return buf;
}
