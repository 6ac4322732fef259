// SPDX-License-Identifier: MIT
/* Per-process entries with slots reused after exits; see include/bpfcollect/pidtab.h. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bpfcollect/pidtab.h"

void bc_pidtab_init(struct bc_pidtab *t, size_t size, void (*release)(void *entry, void *ctx),
		    void *ctx)
{
	memset(t, 0, sizeof(*t));
	t->size = size;
	t->release = release;
	t->ctx = ctx;
}

void *bc_pidtab_at(const struct bc_pidtab *t, size_t i)
{
	return t->entries + i * t->size;
}

void bc_pidtab_free(struct bc_pidtab *t)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->slots[i].used && t->release)
			t->release(bc_pidtab_at(t, i), t->ctx);
	free(t->entries);
	free(t->slots);
	free(t->free_slots);
	bc_idmap_free(&t->by_pid);
	memset(t, 0, sizeof(*t));
}

void *bc_pidtab_find(const struct bc_pidtab *t, uint32_t pid)
{
	uint32_t *i = bc_idmap_find(&t->by_pid, pid);

	return i && *i ? bc_pidtab_at(t, *i - 1) : NULL;
}

/* Slot i's entry released and the slot listed as free (room for it is kept by add). */
static void release_slot(struct bc_pidtab *t, uint32_t i)
{
	if (t->release)
		t->release(bc_pidtab_at(t, i), t->ctx);
	bc_idmap_remove(&t->by_pid, t->slots[i].pid);
	memset(bc_pidtab_at(t, i), 0, t->size);
	t->slots[i].used = false;
	t->free_slots[t->n_free++] = i;
}

/* Slots, entries and the free list grow together, so a release never allocates. */
static int grow(struct bc_pidtab *t)
{
	size_t cap = t->cap ? t->cap * 2 : 16;
	void *p;

	if (cap > UINT32_MAX || cap > SIZE_MAX / t->size)
		return -E2BIG;
	p = realloc(t->slots, cap * sizeof(*t->slots));
	if (!p)
		return -ENOMEM;
	t->slots = p;
	p = realloc(t->entries, cap * t->size);
	if (!p)
		return -ENOMEM;
	t->entries = p;
	p = realloc(t->free_slots, cap * sizeof(*t->free_slots));
	if (!p)
		return -ENOMEM;
	t->free_slots = p;
	t->cap = cap;
	return 0;
}

void *bc_pidtab_add(struct bc_pidtab *t, uint32_t pid)
{
	uint32_t *val, i;

	if (bc_pidtab_find(t, pid))
		return NULL;
	if (!t->n_free && t->n == t->cap && grow(t))
		return NULL;
	if (bc_idmap_get_or_add(&t->by_pid, pid, 0, &val))
		return NULL;
	if (t->n_free) {
		i = t->free_slots[--t->n_free];
	} else {
		i = (uint32_t)t->n++;
		t->slots[i].gen = 0;
	}
	*val = i + 1;
	t->slots[i].pid = pid;
	t->slots[i].used = true;
	t->slots[i].gen++;
	memset(bc_pidtab_at(t, i), 0, t->size);
	return bc_pidtab_at(t, i);
}

void bc_pidtab_remove(struct bc_pidtab *t, uint32_t pid)
{
	uint32_t *i = bc_idmap_find(&t->by_pid, pid);

	if (i && *i)
		release_slot(t, *i - 1);
}

int bc_pidtab_exited(struct bc_pidtab *t, uint32_t pid)
{
	uint32_t *i = bc_idmap_find(&t->by_pid, pid);
	struct bc_pidtab_exit *oldest;

	if (!i || !*i)
		return 0;
	if (t->n_exits == BC_PIDTAB_KEEP_EXITED) {
		oldest = &t->exits[t->exits_head];
		/* its slot may have been released, or have taken another process, since */
		if (t->slots[oldest->slot].used && t->slots[oldest->slot].gen == oldest->gen)
			release_slot(t, oldest->slot);
		t->exits_head = (t->exits_head + 1) % BC_PIDTAB_KEEP_EXITED;
		t->n_exits--;
		i = bc_idmap_find(&t->by_pid, pid); /* the removal moved keys */
	}
	t->exits[(t->exits_head + t->n_exits++) % BC_PIDTAB_KEEP_EXITED] =
		(struct bc_pidtab_exit){.slot = *i - 1, .gen = t->slots[*i - 1].gen};
	return 0;
}
