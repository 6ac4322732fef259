// SPDX-License-Identifier: MIT
/* Experiment names (collect's -o/-d rules) and the names of the files inside. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bpfcollect/experiment.h"
#include "bpfcollect/outmode.h"

static const char *const file_names[BC_ER_NFILES] = {
	[BC_ER_FUNCTRACE] = "functrace", [BC_ER_SYSCALLS] = "syscalls",
	[BC_ER_PROCTRACE] = "proctrace", [BC_ER_SCHED] = "sched",
	[BC_ER_SAMPLES] = "samples",	 [BC_ER_HEAP] = "heap",
	[BC_ER_SYNC] = "sync",		 [BC_ER_IO] = "io",
	[BC_ER_USAGE] = "usage",
};

const char *bc_er_file_name(enum bc_er_file f)
{
	return (unsigned int)f < BC_ER_NFILES ? file_names[f] : NULL;
}

unsigned int bc_er_file_since(enum bc_er_file f)
{
	return f >= BC_ER_SAMPLES ? 2 : 1;
}

bool bc_er_file_compact(enum bc_er_file f, unsigned int format)
{
	return format >= 4 && (f == BC_ER_FUNCTRACE || f == BC_ER_SYSCALLS);
}

int bc_er_file_for_kind(unsigned int kind)
{
	switch (kind) {
	case BC_REC_FUNC_ENTRY:
	case BC_REC_FUNC_RETURN:
		return BC_ER_FUNCTRACE;
	case BC_REC_SYS_ENTER:
	case BC_REC_SYS_EXIT:
	case BC_REC_SYSCALL:
		return BC_ER_SYSCALLS;
	case BC_REC_PROC_FORK:
	case BC_REC_THREAD_START:
	case BC_REC_PROC_EXEC:
	case BC_REC_THREAD_EXIT:
	case BC_REC_PROC_EXIT:
	case BC_REC_LOST:
	case BC_REC_PROC_NAME:
		return BC_ER_PROCTRACE;
	/*
	 * The agent reads usage between drains: a thread's records still in the
	 * ring can be older. A file of their own keeps each file's per-thread
	 * records in time order, which the replay's merge relies on.
	 */
	case BC_REC_USAGE:
		return BC_ER_USAGE;
	case BC_REC_OFFCPU:
		return BC_ER_SCHED;
	case BC_REC_PROFILE:
		return BC_ER_SAMPLES;
	case BC_REC_HEAP:
		return BC_ER_HEAP;
	case BC_REC_SYNC:
		return BC_ER_SYNC;
	case BC_REC_IO:
		return BC_ER_IO;
	default:
		return -EINVAL;
	}
}

/*
 * Splits "STEM.N.er" into the length of "STEM." and N. Returns false for
 * names without a number there (those are never renumbered).
 */
static bool split_numbered(const char *name, size_t *prefix_len, unsigned long *n, int *width)
{
	size_t len = strlen(name) - 3; /* without ".er" */
	size_t digits = 0;

	while (digits < len && name[len - 1 - digits] >= '0' && name[len - 1 - digits] <= '9')
		digits++;
	/* need "X." before the digits: a non-empty stem and the dot */
	if (!digits || digits > 9 || len - digits < 2 || name[len - digits - 1] != '.')
		return false;
	*prefix_len = len - digits;
	*n = strtoul(name + *prefix_len, NULL, 10);
	*width = (int)digits;
	return true;
}

int bc_exp_name_check(const char *name, char *err, size_t errlen)
{
	size_t len = strlen(name);

	if (len < 3 || strcmp(name + len - 3, ".er")) {
		snprintf(err, errlen, "experiment name '%s' must end in .er (e.g. test.1.er)",
			 name);
		return -EINVAL;
	}
	if (len == 3 || name[len - 4] == '/') {
		snprintf(err, errlen,
			 "experiment name '%s' has no name before .er; give one (e.g. test.1.er)",
			 name);
		return -EINVAL;
	}
	return 0;
}

/*
 * The directory path names, made just now in parent (leaf: its name):
 * opened without following a link, and ours (a directory, of our uid). -1
 * with errno otherwise (ELOOP: a link was put in its place).
 */
static int pin_made(int parent, const char *leaf)
{
	int fd = openat(parent, leaf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid()) {
		close(fd);
		errno = EXDEV;
		return -1;
	}
	return fd;
}

/* The directory path's last component is made in: opened once, so it cannot move under us. */
static int open_parent(const char *path, const char **leaf)
{
	const char *slash = strrchr(path, '/');
	char parent[PATH_MAX];

	if (!slash) {
		*leaf = path;
		return open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	*leaf = slash + 1;
	snprintf(parent, sizeof(parent), "%.*s", slash == path ? 1 : (int)(slash - path), path);
	return open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

int bc_exp_create(const char *dir, const char *name, char *path, size_t pathlen, int *dirfd,
		  char *err, size_t errlen)
{
	const char *sep = dir && *dir && dir[strlen(dir) - 1] != '/' ? "/" : "";
	size_t prefix_len = 0;
	unsigned long n = 0;
	int width = 0, len;
	bool numbered;

	if (!name)
		name = BC_ER_DEFAULT_NAME;
	if (!dir)
		dir = "";
	if (bc_exp_name_check(name, err, errlen) < 0)
		return -EINVAL;
	len = (int)strlen(name);
	numbered = split_numbered(name, &prefix_len, &n, &width);

	/* each mkdir is the atomic claim; a name taken meanwhile just moves N up again */
	for (unsigned int tries = 0; tries < 100000; tries++) {
		if (numbered)
			len = snprintf(path, pathlen, "%s%s%.*s%0*lu.er", dir, sep, (int)prefix_len,
				       name, width, n);
		else
			len = snprintf(path, pathlen, "%s%s%s", dir, sep, name);
		if (len < 0 || (size_t)len >= pathlen || len >= PATH_MAX) {
			snprintf(err, errlen, "experiment path %s%s%s is too long", dir, sep, name);
			return -ENAMETOOLONG;
		}
		const char *leaf;
		int parent = open_parent(path, &leaf);

		if (parent >= 0 && bc_out_mkdirat(parent, leaf) == 0) {
			int fd = pin_made(parent, leaf);

			close(parent);
			if (fd >= 0) {
				if (dirfd)
					*dirfd = fd;
				else
					close(fd);
				return 0;
			}
			snprintf(err, errlen,
				 "experiment %s was replaced while it was being made (%s): not "
				 "written; record into a directory only you can write",
				 path,
				 errno == ELOOP || errno == ENOTDIR ? "by a link" : "not ours");
			return -EXDEV;
		}
		if (parent >= 0) {
			int e = errno;

			close(parent);
			errno = e;
		}
		if (errno != EEXIST) {
			int e = errno;

			snprintf(err, errlen, "cannot create experiment %s: %s", path, strerror(e));
			return -e;
		}
		if (!numbered) {
			snprintf(err, errlen,
				 "experiment %s already exists; remove it or pick another -o",
				 path);
			return -EEXIST;
		}
		n++;
	}
	snprintf(err, errlen, "no free experiment name after %s; remove old experiments", path);
	return -EEXIST;
}
