// SPDX-License-Identifier: MIT
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "bpfcollect/procmaps.h"

int bc_procmaps_parse_line(char *line, struct bc_mapping *m)
{
	unsigned long long start, end, off, inode;
	char perms[5];
	int name_at = 0;
	size_t len;

	memset(m, 0, sizeof(*m));
	if (sscanf(line, "%llx-%llx %4s %llx %*x:%*x %llu %n", &start, &end, perms, &off, &inode,
		   &name_at) < 5 ||
	    end <= start)
		return -EINVAL;
	m->start = start;
	m->end = end;
	m->offset = off;
	m->prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
		  (perms[2] == 'x' ? PROT_EXEC : 0);
	m->path = name_at ? line + name_at : "";
	len = strlen(m->path);
	if (len && m->path[len - 1] == '\n')
		line[name_at + len - 1] = 0;
	return 0;
}

int bc_procmaps_read(const char *procfs, uint32_t pid, uint64_t ktime, bc_mapping_fn fn, void *ctx)
{
	char path[256], line[4096 + 128];
	int rc = 0, n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%" PRIu32 "/maps", procfs, pid);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	while (fgets(line, sizeof(line), f)) {
		struct bc_mapping m;
		size_t len;

		/* A line longer than the buffer: skip its rest, it is no mapping of ours. */
		if (!strchr(line, '\n') && !feof(f)) {
			int c;

			while ((c = fgetc(f)) != EOF && c != '\n')
				;
			continue;
		}
		if (bc_procmaps_parse_line(line, &m) < 0)
			continue;
		/* Only file-backed executable code matters for symbols. */
		if (!(m.prot & PROT_EXEC) || m.path[0] != '/')
			continue;
		/* A file replaced since it was mapped: its name is no longer its file. */
		len = strlen(m.path);
		if (len > 10 && !strcmp(m.path + len - 10, " (deleted)"))
			continue;
		m.pid = pid;
		m.ktime = ktime;
		rc = fn(ctx, &m);
		if (rc < 0)
			break;
		n++;
	}
	fclose(f);
	return rc < 0 ? rc : n;
}
