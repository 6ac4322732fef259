// SPDX-License-Identifier: MIT
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "bpfcollect/iofds.h"

/* Big enough for the record and the longest path a record carries. */
union seed_buf {
	struct bc_rec_io rec;
	char bytes[sizeof(struct bc_rec_io) + BC_PATH_LEN + 8];
};

static uint16_t fstype_of(const char *link)
{
	struct statfs fs;
	struct stat st;

	/* stat and statfs follow the /proc link to the open file itself */
	if (stat(link, &st) == 0 && (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)))
		return BC_FS_SPECFS;
	if (statfs(link, &fs) < 0)
		return BC_FS_UNKNOWN;
	return bc_fs_type_of_magic((uint64_t)fs.f_type);
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

int bc_iofds_seed(const char *proc_root, uint32_t pid, uint64_t ktime, bc_iofds_fn fn, void *ctx)
{
	char dir[256], link[320], target[BC_PATH_LEN];
	union seed_buf b;
	struct dirent *de;
	int *fds = NULL, rc = 0, count = 0;
	size_t n = 0, cap = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/%u/fd", proc_root, pid);
	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? -ESRCH : -errno;
	while ((de = readdir(d))) {
		char *end;
		long fd = strtol(de->d_name, &end, 10);

		if (*end || end == de->d_name || fd < 3 || fd > 0x7fffffff)
			continue;
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 64;
			int *v = realloc(fds, ncap * sizeof(*v));

			if (!v) {
				rc = -ENOMEM;
				goto out;
			}
			fds = v;
			cap = ncap;
		}
		fds[n++] = (int)fd;
	}
	if (n)
		qsort(fds, n, sizeof(*fds), cmp_int);
	for (size_t i = 0; i < n; i++) {
		ssize_t len;
		size_t name_len;

		snprintf(link, sizeof(link), "%s/%d", dir, fds[i]);
		len = readlink(link, target, sizeof(target) - 1);
		/* closed meanwhile, or a socket:[N], pipe:[N], anon_inode:... */
		if (len <= 0 || target[0] != '/')
			continue;
		target[len] = 0;
		name_len = (size_t)len + 1;
		memset(&b, 0, sizeof(b));
		b.rec.h.size = (uint16_t)(sizeof(b.rec) + ((name_len + 7) & ~(size_t)7));
		b.rec.h.kind = BC_REC_IO;
		b.rec.h.pid = pid;
		b.rec.h.tid = pid;
		b.rec.h.ktime = ktime;
		b.rec.fd = fds[i];
		b.rec.ofd = -1;
		b.rec.nr = BC_IO_NR_INHERITED;
		b.rec.iotype = BC_IO_OPEN;
		b.rec.fstype = fstype_of(link);
		b.rec.name_len = (uint16_t)name_len;
		memcpy(b.rec.ips, target, name_len);
		rc = fn(ctx, &b.rec);
		if (rc < 0)
			goto out;
		count++;
	}
	rc = count;
out:
	closedir(d);
	free(fds);
	return rc;
}
