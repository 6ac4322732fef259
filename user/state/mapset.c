// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bpfcollect/mapset.h"

void bc_mapset_free(struct bc_mapset *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].path);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

int bc_mapset_add(struct bc_mapset *s, const struct bc_mapping *m)
{
	struct bc_mapset_entry *e;

	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 32;
		struct bc_mapset_entry *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	e = &s->v[s->n];
	e->path = strdup(m->path ? m->path : "");
	if (!e->path)
		return -ENOMEM;
	e->pid = m->pid;
	e->start = m->start;
	e->end = m->end;
	e->offset = m->offset;
	e->prot = m->prot;
	e->mark = 0;
	s->n++;
	return 0;
}

struct bc_mapset_entry *bc_mapset_find(struct bc_mapset *s, uint32_t pid, uint64_t start)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].pid == pid && s->v[i].start == start)
			return &s->v[i];
	return NULL;
}

static void remove_at(struct bc_mapset *s, size_t i)
{
	free(s->v[i].path);
	s->v[i] = s->v[--s->n];
}

void bc_mapset_unmap(struct bc_mapset *s, uint32_t pid, uint64_t start, uint64_t end)
{
	for (size_t i = 0; i < s->n;) {
		if (s->v[i].pid == pid && s->v[i].start >= start && s->v[i].start < end)
			remove_at(s, i);
		else
			i++;
	}
}

void bc_mapset_drop(struct bc_mapset *s, uint32_t pid)
{
	for (size_t i = 0; i < s->n;) {
		if (s->v[i].pid == pid)
			remove_at(s, i);
		else
			i++;
	}
}

/* Entry e as a mapping of pid, stamped ktime. */
static struct bc_mapping entry_mapping(const struct bc_mapset_entry *e, uint32_t pid,
				       uint64_t ktime)
{
	return (struct bc_mapping){.pid = pid,
				   .ktime = ktime,
				   .start = e->start,
				   .end = e->end,
				   .offset = e->offset,
				   .prot = e->prot,
				   .path = e->path};
}

int bc_mapset_report(const struct bc_mapset *s, uint32_t pid, uint64_t ktime, struct bc_sink *sink)
{
	for (size_t i = 0; i < s->n; i++) {
		struct bc_mapping m = entry_mapping(&s->v[i], pid, ktime);
		int rc;

		if (s->v[i].pid != pid)
			continue;
		rc = bc_sink_mapping(sink, &m);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int bc_mapset_fork(struct bc_mapset *s, uint32_t parent, uint32_t child, uint64_t ktime,
		   struct bc_sink *sink)
{
	size_t n = s->n;

	for (size_t i = 0; i < n; i++) {
		struct bc_mapping m;
		int rc;

		if (s->v[i].pid != parent)
			continue;
		m = entry_mapping(&s->v[i], child, ktime);
		rc = bc_mapset_add(s, &m);
		if (rc)
			return rc;
		m.path = s->v[s->n - 1].path; /* the array may have moved */
		rc = bc_sink_mapping(sink, &m);
		if (rc)
			return rc;
	}
	return 0;
}

int bc_mapset_move(struct bc_mapset *from, struct bc_mapset *to, uint32_t pid, uint64_t ktime,
		   struct bc_sink *sink)
{
	int rc = 0;

	for (size_t i = 0; i < from->n && !rc; i++) {
		const struct bc_mapset_entry *e = &from->v[i];
		struct bc_mapping m = entry_mapping(e, pid, ktime);

		if (e->pid != pid)
			continue;
		rc = bc_mapset_add(to, &m);
		if (!rc)
			rc = bc_sink_mapping(sink, &m);
	}
	bc_mapset_drop(from, pid);
	return rc;
}
