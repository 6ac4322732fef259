// SPDX-License-Identifier: MIT
/*
 * map.xml for the `.er` reader, streamed. A process that dlopens and
 * dlcloses a library a million times leaves a map.xml of hundreds of MB,
 * so the reader never holds the file, nor its mappings: opening the
 * experiment reads it through once (every event checked, so a damaged
 * file fails the open as before), and replay reads it again, passing its
 * mappings through a small reorder window into the merge by time. The
 * writer appends mappings as they happen, nearly in time order; the window
 * puts them in order, and one further out of order than the window holds
 * is replayed late (and said so) rather than making memory grow.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "er_replay.h"

/*
 * An unsigned number in base 10 or 16 as strtoull reads one (spaces and a
 * '+' before it, 0x in base 16), but never negative, empty or past 64
 * bits. map.xml has millions of them: strtoull was a fifth of the time.
 */
static bool parse_num(const char *s, unsigned int base, uint64_t *v)
{
	uint64_t n = 0;

	if (!s)
		return false;
	while (*s == ' ' || (*s >= '\t' && *s <= '\r'))
		s++;
	s += *s == '+';
	if (base == 16 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && s[2])
		s += 2;
	if (!*s)
		return false;
	for (; *s; s++) {
		unsigned int d;

		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			return false;
		if (__builtin_mul_overflow(n, base, &n) || __builtin_add_overflow(n, d, &n))
			return false;
	}
	*v = n;
	return true;
}

static bool parse_hex(const char *s, uint64_t *v)
{
	return parse_num(s, 16, v);
}

/* A segment event as a mapping; its path is the element's (valid until the next). */
static int map_segment(struct bc_er_reader *r, const struct bc_xml_elem *e, struct bc_er_map *m)
{
	const char *name = bc_xml_attr(e, "name"), *foff = bc_xml_attr(e, "foffset");
	uint64_t t, vaddr, size, offset, modes;

	if (!name || !bc_xml_parse_tstamp(bc_xml_attr(e, "tstamp"), &t) ||
	    !parse_hex(bc_xml_attr(e, "vaddr"), &vaddr) ||
	    !parse_num(bc_xml_attr(e, "size"), 10, &size) || !foff ||
	    !parse_hex(foff + (*foff == '+'), &offset) ||
	    !parse_hex(bc_xml_attr(e, "modes"), &modes) || vaddr + size < vaddr)
		return bc_er_fail(r, -EINVAL, "%s/map.xml:%u: bad segment event", r->path, e->line);
	memset(m, 0, sizeof(*m));
	m->m.pid = r->info->root_pid;
	m->m.ktime = r->info->start_ktime + t;
	m->m.start = vaddr;
	m->m.end = vaddr + size;
	m->m.offset = offset;
	m->m.prot = (uint32_t)modes; /* gprofng's modes use the PROT_* bit values */
	m->m.path = name;
	return 1;
}

/*
 * An unmap event ends the segment that starts at its vaddr, as gprofng
 * reads it: the mapping [vaddr, vaddr + 1) unmapped. Unmaps were once not
 * read at all, so one that does not parse is skipped (counted), not fatal.
 */
static int map_unmap(struct bc_er_reader *r, const struct bc_xml_elem *e, struct bc_er_map *m,
		     uint64_t *bad)
{
	uint64_t t, vaddr;

	if (!bc_xml_parse_tstamp(bc_xml_attr(e, "tstamp"), &t) ||
	    !parse_hex(bc_xml_attr(e, "vaddr"), &vaddr) || vaddr == UINT64_MAX) {
		(*bad)++;
		return 0;
	}
	memset(m, 0, sizeof(*m));
	m->m.pid = r->info->root_pid;
	m->m.ktime = r->info->start_ktime + t;
	m->m.start = vaddr;
	m->m.end = vaddr + 1;
	m->m.unmap = true;
	return 1;
}

/*
 * One element as a mapping: 1, 0 for one that is none (function, dynfunc:
 * JIT and kernel events without a model counterpart yet), -errno.
 */
static int map_event(struct bc_er_reader *r, const struct bc_xml_elem *e, struct bc_er_map *m,
		     uint64_t *bad_unmaps)
{
	const char *kind = bc_xml_attr(e, "kind"), *obj = bc_xml_attr(e, "object");

	if (strcmp(e->name, "event") || !kind)
		return 0;
	if (!strcmp(kind, "map") && obj && !strcmp(obj, "segment"))
		return map_segment(r, e, m);
	if (!strcmp(kind, "unmap"))
		return map_unmap(r, e, m, bad_unmaps);
	return 0;
}

int bc_er_maps_scan(struct bc_er_reader *r)
{
	struct bc_er_mapq *q = &r->mq;
	uint64_t bad_unmaps = 0, last = 0;
	struct bc_xml_elem e;
	struct bc_er_map m;
	struct bc_xml x;
	int err;

	err = bc_er_open_xml(r, "map.xml", UINT64_MAX, &x, &q->size);
	if (err == -ENOENT) {
		bc_er_note(r->info, "map.xml: missing; no load objects");
		return 0;
	}
	if (err)
		return err;
	while ((err = bc_er_xml_next(r, &x, &e, "map.xml", true)) > 0) {
		err = map_event(r, &e, &m, &bad_unmaps);
		if (err < 0)
			break;
		if (!err)
			continue;
		r->info->mappings += !m.m.unmap;
		q->unsorted |= m.m.ktime < last;
		last = m.m.ktime;
		if (m.m.ktime > r->info->last_ktime)
			r->info->last_ktime = m.m.ktime;
	}
	bc_xml_fini(&x);
	if (bad_unmaps)
		bc_er_note(r->info, "map.xml: %llu unmap events unreadable; ignored",
			   (unsigned long long)bad_unmaps);
	return err;
}

static bool map_before(const struct bc_er_map *a, const struct bc_er_map *b)
{
	return a->m.ktime != b->m.ktime ? a->m.ktime < b->m.ktime : a->order < b->order;
}

static void heap_swap(struct bc_er_map *v, size_t i, size_t j)
{
	struct bc_er_map t = v[i];

	v[i] = v[j];
	v[j] = t;
}

/* Adds m (its path copied) to the pending mappings. 0 or -ENOMEM. */
static int heap_push(struct bc_er_mapq *q, const struct bc_er_map *m)
{
	size_t i = q->n;

	if (q->n == q->cap) {
		size_t cap = q->cap ? q->cap * 2 : 64;
		struct bc_er_map *v = realloc(q->pend, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		q->pend = v;
		q->cap = cap;
	}
	q->pend[i] = *m;
	q->pend[i].path = NULL;
	if (m->m.path) {
		q->pend[i].path = strdup(m->m.path);
		if (!q->pend[i].path)
			return -ENOMEM;
		q->bytes += strlen(m->m.path) + 1;
	}
	q->pend[i].m.path = q->pend[i].path;
	q->pend[i].order = q->order++;
	q->n++;
	for (; i && map_before(&q->pend[i], &q->pend[(i - 1) / 2]); i = (i - 1) / 2)
		heap_swap(q->pend, i, (i - 1) / 2);
	return 0;
}

/* Takes the earliest pending mapping into q->head. */
static void heap_pop(struct bc_er_mapq *q)
{
	size_t i = 0;

	q->head = q->pend[0];
	q->have_head = true;
	if (q->head.path)
		q->bytes -= strlen(q->head.path) + 1;
	q->pend[0] = q->pend[--q->n];
	for (;;) {
		size_t l = 2 * i + 1, best = i;

		if (l < q->n && map_before(&q->pend[l], &q->pend[best]))
			best = l;
		if (l + 1 < q->n && map_before(&q->pend[l + 1], &q->pend[best]))
			best = l + 1;
		if (best == i)
			break;
		heap_swap(q->pend, i, best);
		i = best;
	}
}

/* Reads events until the window is full or the file ends. 0 or -errno with r->err. */
static int fill(struct bc_er_reader *r)
{
	struct bc_er_mapq *q = &r->mq;
	uint64_t bad_unmaps = 0; /* the scan noted them */
	/* a file in time order (what the writer makes) needs no reordering */
	size_t pending = q->unsorted ? BC_ER_MAPQ_PENDING : 1;
	struct bc_xml_elem e;
	struct bc_er_map m;
	int err;

	while (q->reading && q->n < pending && q->bytes < BC_ER_MAPQ_BYTES) {
		/* a torn end was noted by the scan */
		err = bc_er_xml_next(r, &q->x, &e, "map.xml", false);
		if (err < 0)
			return err;
		if (!err) {
			bc_xml_fini(&q->x); /* its window is freed now, not at close */
			q->reading = false;
			break;
		}
		err = map_event(r, &e, &m, &bad_unmaps);
		if (err < 0)
			return err;
		if (err && heap_push(q, &m) < 0)
			return bc_er_fail(r, -ENOMEM, "%s: out of memory", r->path);
	}
	return 0;
}

/* The earliest pending mapping as the head, the window filled again first. */
static int advance_head(struct bc_er_reader *r)
{
	struct bc_er_mapq *q = &r->mq;
	int err = fill(r);

	q->have_head = false;
	if (err)
		return err;
	if (!q->n) {
		if (q->late)
			bc_er_note(r->info,
				   "map.xml: %llu mappings more than %u events out of time order; "
				   "replayed late",
				   (unsigned long long)q->late, BC_ER_MAPQ_PENDING);
		q->late = 0;
		return 0;
	}
	heap_pop(q);
	if (q->head.m.ktime < q->last)
		q->late++;
	else
		q->last = q->head.m.ktime;
	return 0;
}

int bc_er_maps_start(struct bc_er_reader *r)
{
	struct bc_er_mapq *q = &r->mq;
	uint64_t size;
	int err;

	bc_er_maps_free(r);
	if (!q->size)
		return 0; /* none, or empty */
	/* the bytes the scan checked, even if the file grew since */
	err = bc_er_open_xml(r, "map.xml", q->size, &q->x, &size);
	if (err == -ENOENT)
		return bc_er_fail(r, -ENOENT, "%s/map.xml: removed while read", r->path);
	if (err)
		return err;
	q->reading = true;
	return advance_head(r);
}

const struct bc_mapping *bc_er_maps_head(const struct bc_er_reader *r)
{
	return r->mq.have_head ? &r->mq.head.m : NULL;
}

int bc_er_maps_next(struct bc_er_reader *r)
{
	struct bc_er_mapq *q = &r->mq;

	free(q->head.path);
	q->head.path = NULL;
	q->have_head = false;
	return advance_head(r);
}

/* Everything but what the scan found: a replay may start again. */
void bc_er_maps_free(struct bc_er_reader *r)
{
	struct bc_er_mapq *q = &r->mq;
	uint64_t size = q->size;
	bool unsorted = q->unsorted;

	if (q->reading)
		bc_xml_fini(&q->x);
	for (size_t i = 0; i < q->n; i++)
		free(q->pend[i].path);
	free(q->pend);
	if (q->have_head)
		free(q->head.path);
	memset(q, 0, sizeof(*q));
	q->size = size;
	q->unsorted = unsorted;
}
