// SPDX-License-Identifier: MIT
/*
 * PC naming shared by the reports (rules in bpfcollect/pcname.h): the
 * segments of an experiment, a cache of object files' function symbols,
 * and an index of functions by (name, object).
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpfcollect/archive.h"
#include "bpfcollect/elf_symbols.h"
#include "bpfcollect/experiment.h"
#include "bpfcollect/pcname.h"

struct bc_pcname_elf {
	char *path;
	struct bc_elf_object *obj; /* NULL: unreadable */
};

/* ------------------------------------------------------------ segments */

static uint64_t seg_key(uint64_t start, uint64_t end, uint64_t offset, const char *path)
{
	uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a over the words */
	const uint64_t w[] = {start, end, offset, (uint64_t)(uintptr_t)path};

	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		h = (h ^ w[i]) * 0x100000001b3ULL;
	return h ^ (h >> 29);
}

/* Another time s was mapped, kept in order (the first in s->ktime). -ENOMEM. */
static int seg_time_add(struct bc_segment *s, uint64_t t)
{
	size_t lo = 0, hi = s->n_later;

	if (t == s->ktime || (s->n_later && t == s->later[s->n_later - 1]))
		return 0; /* again at a time it has: names nothing differently */
	if (BC_GROW(s->later, s->cap_later, s->n_later + 1))
		return -ENOMEM;
	if (t < s->ktime) {
		uint64_t first = s->ktime;

		s->ktime = t;
		t = first;
	}
	/* replays come in time order: the place is nearly always the end */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->later[mid] < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < s->n_later && s->later[lo] == t)
		return 0;
	memmove(&s->later[lo + 1], &s->later[lo], (s->n_later - lo) * sizeof(*s->later));
	s->later[lo] = t;
	s->n_later++;
	return 0;
}

int bc_segments_add(struct bc_segments *segs, const struct bc_mapping *m)
{
	const char *path;
	uint32_t *at, id;
	uint64_t key;

	if (m->unmap || !m->path)
		return 0;
	/* a million mappings of one library keep its name once */
	if (bc_strtab_intern(&segs->paths, m->path, strlen(m->path), &id) < 0)
		return -ENOMEM;
	path = segs->paths.v[id];
	key = seg_key(m->start, m->end, m->offset, path);
	at = bc_idmap_find(&segs->index, key);
	if (at) {
		struct bc_segment *s = &segs->v[*at];

		if (s->start == m->start && s->end == m->end && s->offset == m->offset &&
		    s->path == path)
			return seg_time_add(s, m->ktime);
		/* another segment of that hash: this one stays out of the index */
	}
	if (segs->n >= UINT32_MAX || BC_GROW(segs->v, segs->cap, segs->n + 1))
		return -ENOMEM;
	if (!at && bc_idmap_get_or_add(&segs->index, key, (uint32_t)segs->n, &at) < 0)
		return -ENOMEM;
	segs->v[segs->n++] = (struct bc_segment){.start = m->start,
						 .end = m->end,
						 .offset = m->offset,
						 .ktime = m->ktime,
						 .path = path};
	return 0;
}

void bc_segments_free(struct bc_segments *segs)
{
	for (size_t i = 0; i < segs->n; i++)
		free(segs->v[i].later);
	free(segs->v);
	bc_idmap_free(&segs->index);
	bc_strtab_free(&segs->paths);
	memset(segs, 0, sizeof(*segs));
}

/* A map.xml reader: the segments of one experiment. */
struct seg_sink {
	struct bc_sink base;
	struct bc_segments *segs;
};

static int seg_mapping(struct bc_sink *s, const struct bc_mapping *m)
{
	return bc_segments_add(((struct seg_sink *)s)->segs, m);
}

static const struct bc_sink_ops seg_ops = {.name = "segments", .mapping = seg_mapping};

int bc_segments_read(const char *exp, struct bc_segments *segs, char *err, size_t errlen)
{
	struct seg_sink sink = {.base.ops = &seg_ops, .segs = segs};
	struct bc_er_info info;
	int rc;

	memset(segs, 0, sizeof(*segs));
	memset(&info, 0, sizeof(info));
	rc = bc_er_read(exp, &sink.base, &info, err, errlen);
	bc_er_info_free(&info);
	return rc;
}

static int cmp_seg_start(const void *a, const void *b)
{
	const struct bc_segment *x = *(const struct bc_segment *const *)a;
	const struct bc_segment *y = *(const struct bc_segment *const *)b;

	return (x->start > y->start) - (x->start < y->start);
}

bool bc_segments_timeless(const struct bc_segments *segs)
{
	const struct bc_segment **v;
	uint64_t max_end = 0;
	bool ok = true;

	if (segs->n < 2)
		return true;
	v = malloc(segs->n * sizeof(*v));
	if (!v)
		return false; /* no cache then: still right */
	for (size_t i = 0; i < segs->n; i++)
		v[i] = &segs->v[i];
	qsort(v, segs->n, sizeof(*v), cmp_seg_start);
	for (size_t i = 0; i < segs->n && ok; i++) {
		if (v[i]->start >= v[i]->end)
			continue; /* empty: holds no pc */
		ok = v[i]->start >= max_end;
		if (v[i]->end > max_end)
			max_end = v[i]->end;
	}
	free(v);
	return ok;
}

/* ------------------------------------------------------------ object files */

static int cmp_sym_offset(const void *a, const void *b)
{
	const struct bc_elf_sym *x = a, *y = b;

	return (x->offset > y->offset) - (x->offset < y->offset);
}

/*
 * The function symbols of the object at path (its archived copy first), by
 * file offset; *obj NULL when it cannot be read. 0 or -ENOMEM.
 */
static int elf_for(struct bc_pcnamer *n, const char *exp, const char *path,
		   struct bc_elf_object **objp)
{
	char copy[PATH_MAX] = "";
	struct bc_pcname_elf *v;
	struct bc_elf_object *obj = NULL;
	char *key;

	for (size_t i = 0; i < n->n_elves; i++)
		if (!strcmp(n->elves[i].path, path)) {
			*objp = n->elves[i].obj;
			return 0;
		}
	if (bc_archive_lookup(exp, path, copy, sizeof(copy), NULL, NULL, 0) < 0 || !copy[0])
		snprintf(copy, sizeof(copy), "%s", path);
	if (bc_elf_object_load(copy, &obj, NULL, 0) < 0)
		obj = NULL;
	if (obj && obj->nsyms)
		qsort(obj->syms, obj->nsyms, sizeof(*obj->syms), cmp_sym_offset);
	key = strdup(path);
	v = key ? realloc(n->elves, (n->n_elves + 1) * sizeof(*v)) : NULL;
	if (!v) {
		free(key);
		bc_elf_object_free(obj);
		return -ENOMEM;
	}
	n->elves = v;
	v[n->n_elves++] = (struct bc_pcname_elf){key, obj};
	*objp = obj;
	return 0;
}

void bc_pcnamer_free(struct bc_pcnamer *n)
{
	for (size_t i = 0; i < n->n_elves; i++) {
		free(n->elves[i].path);
		bc_elf_object_free(n->elves[i].obj);
	}
	free(n->elves);
	n->elves = NULL;
	n->n_elves = 0;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* ------------------------------------------------------------ naming */

/* When s was last mapped by `when`; its first mapping if after it. */
static uint64_t seg_time(const struct bc_segment *s, uint64_t when)
{
	size_t lo = 0, hi = s->n_later;

	if (s->ktime > when)
		return s->ktime;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->later[mid] <= when)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? s->later[lo - 1] : s->ktime;
}

/* The mapping of pc live at `when`; else the first (gprofng does the same). */
static const struct bc_segment *live_segment(const struct bc_segments *segs, uint64_t pc,
					     uint64_t when)
{
	const struct bc_segment *best = NULL;
	uint64_t best_t = 0;

	for (size_t i = 0; i < segs->n; i++) {
		const struct bc_segment *s = &segs->v[i];
		uint64_t t;

		if (pc < s->start || pc >= s->end)
			continue;
		t = seg_time(s, when);
		if (!best || (t <= when && (best_t > when || t > best_t))) {
			best = s;
			best_t = t;
		}
	}
	return best;
}

int bc_pcname(struct bc_pcnamer *n, const char *exp, const struct bc_segments *segs,
	      const struct bc_ksyms *ks, uint64_t pc, uint64_t when, const char **name,
	      const char **object)
{
	const struct bc_segment *best;
	struct bc_elf_object *obj;
	bool plt = false;
	int rc;

	*name = *object = "<Unknown>"; /* gprofng has one <Unknown> for all */
	if (pc >= BC_KERNEL_SPACE) {
		/*
		 * A pc in no function gprofng knows (between them, or in one it
		 * makes none of: bc_ksym_gprofng_keeps) is <static>@ the end of
		 * the function before, as gprofng names it.
		 */
		const struct bc_ksym *k = bc_ksyms_find(ks, pc);
		size_t lo = 0, hi = ks->n;

		if (k) {
			snprintf(n->buf, sizeof(n->buf), "%s%s",
				 strchr(k->name, '`') ? "" : "vmlinux`", k->name);
		} else {
			while (lo < hi) {
				size_t mid = lo + (hi - lo) / 2;

				if (ks->v[mid].addr <= pc)
					lo = mid + 1;
				else
					hi = mid;
			}
			/* outside every function gprofng knows: it shows no such frame */
			if (!lo || lo == ks->n)
				return 2;
			snprintf(n->buf, sizeof(n->buf), "<static>@0x%" PRIx64,
				 ks->v[lo - 1].addr + ks->v[lo - 1].size);
		}
		*name = n->buf;
		*object = "vmlinux";
		return 0;
	}
	best = live_segment(segs, pc, when);
	if (!best)
		return 0;
	uint64_t off = best->offset + (pc - best->start);

	*object = base_name(best->path);
	rc = elf_for(n, exp, best->path, &obj);
	if (rc < 0)
		return rc;
	if (obj) {
		size_t lo = 0, hi = obj->nsyms;

		for (size_t i = 0; i < obj->nplt; i++)
			if (off >= obj->plt[i][0] && off < obj->plt[i][1])
				plt = true;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (obj->syms[mid].offset <= off)
				lo = mid + 1;
			else
				hi = mid;
		}
		/*
		 * Aliases share an offset: gprofng names the shortest (then the
		 * first). A PC past the symbol before it is in an unnamed
		 * region gprofng calls <static>@ that symbol's end.
		 */
		const struct bc_elf_sym *pick = NULL;
		uint64_t gap = 0;

		for (size_t i = lo; i-- > 0;) {
			const struct bc_elf_sym *s = &obj->syms[i];

			if (pick && s->offset != pick->offset)
				break;
			if (off < s->offset + (s->size ? s->size : 1)) {
				if (!pick || strlen(s->name) <= strlen(pick->name))
					pick = s;
			} else if (!pick && !gap) {
				gap = s->offset + s->size;
			}
		}
		if (pick) {
			*name = pick->name;
			return plt;
		}
		if (gap)
			off = gap;
	}
	snprintf(n->buf, sizeof(n->buf), "<static>@0x%" PRIx64, off);
	*name = n->buf;
	return plt;
}

/* ------------------------------------------------------------ functions by (name, object) */

static uint64_t fn_hash(const char *name, const char *object)
{
	uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a */

	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		h = (h ^ *p) * 0x100000001b3ULL;
	h = (h ^ 0xff) * 0x100000001b3ULL; /* separator: no byte of a string */
	for (const unsigned char *p = (const unsigned char *)object; *p; p++)
		h = (h ^ *p) * 0x100000001b3ULL;
	return h ^ (h >> 29);
}

static void fn_place(struct bc_fnindex *ix, size_t i)
{
	size_t mask = ix->n_slots - 1, s = fn_hash(ix->v[i].name, ix->v[i].object) & mask;

	while (ix->slots[s])
		s = (s + 1) & mask;
	ix->slots[s] = (uint32_t)i + 1;
}

static int fn_grow(struct bc_fnindex *ix)
{
	size_t n_slots = ix->n_slots ? ix->n_slots * 2 : 256;
	uint32_t *slots = calloc(n_slots, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	free(ix->slots);
	ix->slots = slots;
	ix->n_slots = n_slots;
	for (size_t i = 0; i < ix->n; i++)
		fn_place(ix, i);
	return 0;
}

int bc_fnindex_get(struct bc_fnindex *ix, const char *name, const char *object)
{
	size_t mask, s;

	if (ix->n_slots) {
		mask = ix->n_slots - 1;
		for (s = fn_hash(name, object) & mask; ix->slots[s]; s = (s + 1) & mask) {
			const struct bc_fnkey *k = &ix->v[ix->slots[s] - 1];

			if (!strcmp(k->name, name) && !strcmp(k->object, object))
				return (int)(ix->slots[s] - 1);
		}
	}
	if (ix->n >= INT_MAX - 1)
		return -ENOMEM;
	/* at most half full */
	if (2 * (ix->n + 1) > ix->n_slots && fn_grow(ix) < 0)
		return -ENOMEM;
	if (ix->n == ix->cap) {
		size_t cap = ix->cap ? ix->cap * 2 : 64;
		struct bc_fnkey *v = realloc(ix->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		ix->v = v;
		ix->cap = cap;
	}
	ix->v[ix->n].name = strdup(name);
	ix->v[ix->n].object = strdup(object);
	if (!ix->v[ix->n].name || !ix->v[ix->n].object) {
		free(ix->v[ix->n].name);
		free(ix->v[ix->n].object);
		return -ENOMEM;
	}
	fn_place(ix, ix->n);
	return (int)ix->n++;
}

void bc_fnindex_free(struct bc_fnindex *ix)
{
	for (size_t i = 0; i < ix->n; i++) {
		free(ix->v[i].name);
		free(ix->v[i].object);
	}
	free(ix->v);
	free(ix->slots);
	memset(ix, 0, sizeof(*ix));
}
