// SPDX-License-Identifier: MIT
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "bpfcollect/procmaps.h"

void bc_procmaps_init(struct bc_procmaps *pm, uint32_t pid)
{
	memset(pm, 0, sizeof(*pm));
	pm->pid = pid;
}

void bc_procmaps_free(struct bc_procmaps *pm)
{
	free(pm->seen);
	memset(pm, 0, sizeof(*pm));
}

static uint64_t fnv1a(uint64_t h, const void *data, size_t len)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

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

static bool seen_before(struct bc_procmaps *pm, uint64_t h)
{
	for (size_t i = 0; i < pm->n_seen; i++)
		if (pm->seen[i] == h)
			return true;
	return false;
}

static int remember(struct bc_procmaps *pm, uint64_t h)
{
	if (pm->n_seen == pm->cap_seen) {
		size_t cap = pm->cap_seen ? pm->cap_seen * 2 : 32;
		uint64_t *v = realloc(pm->seen, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		pm->seen = v;
		pm->cap_seen = cap;
	}
	pm->seen[pm->n_seen++] = h;
	return 0;
}

int bc_procmaps_scan(struct bc_procmaps *pm, uint64_t ktime, struct bc_sink *sink)
{
	char path[64], line[4096 + 128];
	uint64_t digest = 0xcbf29ce484222325ULL;
	int rc = 0, added = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/maps", pm->pid);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	while (fgets(line, sizeof(line), f))
		digest = fnv1a(digest, line, strlen(line));
	if (digest == pm->last_digest)
		goto out;
	pm->last_digest = digest;
	rewind(f);
	while (fgets(line, sizeof(line), f)) {
		struct bc_mapping m;
		uint64_t h;

		if (bc_procmaps_parse_line(line, &m) < 0)
			continue;
		/* Only file-backed executable code matters for symbols. */
		if (!(m.prot & PROT_EXEC) || m.path[0] != '/')
			continue;
		h = fnv1a(fnv1a(0xcbf29ce484222325ULL, &m.start, 24), m.path, strlen(m.path));
		if (seen_before(pm, h))
			continue;
		rc = remember(pm, h);
		if (rc < 0)
			goto out;
		m.pid = pm->pid;
		m.ktime = ktime;
		rc = bc_sink_mapping(sink, &m);
		if (rc < 0)
			goto out;
		added++;
	}
out:
	fclose(f);
	return rc < 0 ? rc : added;
}
