// SPDX-License-Identifier: MIT
/* Carrying an experiment's archives and notes over to a converted copy. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bpfcollect/archive.h"
#include "bpfcollect/outmode.h"

/*
 * name from from_dir into to_dir: a hard link (it shares the original's
 * mode), or a copy across file systems or when --mode asks for its own.
 */
static int carry_file(int from_dir, int to_dir, const char *name)
{
	char buf[65536];
	struct stat st;
	int in, out, rc = 0;

	if (!bc_out_mode_given() && linkat(from_dir, name, to_dir, name, 0) == 0)
		return 0;
	in = openat(from_dir, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (in < 0)
		return -errno;
	if (fstat(in, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(in);
		return 0; /* only regular files are archives */
	}
	out = bc_out_openat(to_dir, name, O_WRONLY | O_EXCL | O_CLOEXEC);
	if (out < 0) {
		rc = -errno;
		close(in);
		return rc;
	}
	for (;;) {
		ssize_t n = read(in, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			rc = n < 0 ? -errno : 0;
			break;
		}
		if (write(out, buf, (size_t)n) != n) {
			rc = -EIO;
			break;
		}
	}
	if (close(out) < 0 && !rc)
		rc = -errno;
	close(in);
	return rc;
}

/* Every regular file of from/sub into to/sub (created). */
static int carry_dir(const char *from, const char *to, const char *sub)
{
	char src[4096], dst[4096];
	int from_dir, to_dir, rc = 0;
	struct dirent *d;
	DIR *dir;

	snprintf(src, sizeof(src), "%s/%s", from, sub);
	snprintf(dst, sizeof(dst), "%s/%s", to, sub);
	dir = opendir(src);
	if (!dir)
		return errno == ENOENT ? 0 : -errno;
	if (bc_out_mkdirat(AT_FDCWD, dst) < 0 && errno != EEXIST) {
		rc = -errno;
		closedir(dir);
		return rc;
	}
	from_dir = dirfd(dir);
	to_dir = open(dst, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (to_dir < 0) {
		rc = -errno;
		closedir(dir);
		return rc;
	}
	while (!rc && (d = readdir(dir)))
		if (d->d_name[0] != '.' && d->d_type == DT_REG)
			rc = carry_file(from_dir, to_dir, d->d_name);
	close(to_dir);
	closedir(dir);
	return rc;
}

int bc_archive_carry(const char *from_exp, const char *to_exp, char *err, size_t errlen)
{
	int from, to, rc;

	rc = carry_dir(from_exp, to_exp, "archives");
	if (rc < 0) {
		snprintf(err, errlen, "copying %s/archives to %s: %s", from_exp, to_exp,
			 strerror(-rc));
		return rc;
	}
	from = open(from_exp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	to = open(to_exp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	rc = from < 0 || to < 0 ? -errno : carry_file(from, to, "notes");
	if (rc == -ENOENT)
		rc = 0;
	if (from >= 0)
		close(from);
	if (to >= 0)
		close(to);
	if (rc < 0)
		snprintf(err, errlen, "copying %s/notes to %s: %s", from_exp, to_exp,
			 strerror(-rc));
	return rc;
}
