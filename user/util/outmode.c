// SPDX-License-Identifier: MIT
/* The permissions of what bpfcollect writes (bpfcollect/outmode.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bpfcollect/outmode.h"

/* One setting for the whole process, as the umask is: set once, from the command line. */
static mode_t file_mode = BC_OUT_FILE_MODE_DEFAULT;
static bool given;

mode_t bc_out_file_mode(void)
{
	return file_mode;
}

mode_t bc_out_dir_mode(void)
{
	/* search permission wherever there is read permission */
	return file_mode | ((file_mode & 0444) >> 2);
}

bool bc_out_mode_given(void)
{
	return given;
}

int bc_out_mode_parse(const char *arg, mode_t *mode, char *err, size_t errlen)
{
	char *end;
	unsigned long m = arg && *arg ? strtoul(arg, &end, 8) : 0;

	if (!arg || !*arg || *end || (m & ~0666ul) || (m & 0600) != 0600) {
		snprintf(err, errlen,
			 "--mode takes octal permissions for files, owner read and write at "
			 "least and no execute bits (e.g. 0640 or 0644), not '%s'",
			 arg ? arg : "");
		return -EINVAL;
	}
	*mode = (mode_t)m;
	return 0;
}

void bc_out_mode_set(mode_t mode)
{
	file_mode = mode;
	given = true;
}

int bc_out_mode_fd(int fd, bool dir)
{
	if (!given)
		return 0;
	return fchmod(fd, dir ? bc_out_dir_mode() : bc_out_file_mode()) ? -errno : 0;
}

int bc_out_mode_path(int dirfd, const char *path, bool dir)
{
	if (!given)
		return 0;
	return fchmodat(dirfd, path, dir ? bc_out_dir_mode() : bc_out_file_mode(), 0) ? -errno : 0;
}

int bc_out_openat(int dirfd, const char *name, int flags)
{
	int fd = openat(dirfd, name, flags | O_CREAT, bc_out_file_mode());

	if (fd >= 0 && bc_out_mode_fd(fd, false) < 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

int bc_out_mkdirat(int dirfd, const char *path)
{
	int fd, rc;

	if (mkdirat(dirfd, path, bc_out_dir_mode()) < 0)
		return -1;
	if (!given)
		return 0;
	/* through the directory itself: a link swapped in meanwhile never gets the mode */
	fd = openat(dirfd, path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	rc = bc_out_mode_fd(fd, true);
	close(fd);
	return rc < 0 ? -1 : 0;
}

int bc_out_tmpat(int dirfd, char *tmpl)
{
	static const char chars[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	size_t len = strlen(tmpl);
	char *x = tmpl + len - 6;

	if (len < 6 || strcmp(x, "XXXXXX")) {
		errno = EINVAL;
		return -1;
	}
	for (int tries = 0; tries < 100; tries++) {
		unsigned char r[6];
		int fd;

		if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
			return -1;
		for (int i = 0; i < 6; i++)
			x[i] = chars[r[i] % (sizeof(chars) - 1)];
		fd = bc_out_openat(dirfd, tmpl, O_WRONLY | O_EXCL | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	errno = EEXIST;
	return -1;
}
