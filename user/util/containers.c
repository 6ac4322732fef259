// SPDX-License-Identifier: MIT
/* Containers shared by the aggregating sinks; see include/bpfcollect/containers.h. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "bpfcollect/containers.h"

/*
 * Ids are dense or clustered, so Fibonacci hashing on the high bits spreads
 * them well.
 */
static uint32_t idmap_hash(uint64_t key, uint32_t bits)
{
	return (uint32_t)((key * UINT64_C(0x9e3779b97f4a7c15)) >> (64 - bits));
}

uint32_t *bc_idmap_find(const struct bc_idmap *m, uint64_t key)
{
	uint32_t mask, i;

	if (!m->slots)
		return NULL;
	mask = (1u << m->bits) - 1;
	for (i = idmap_hash(key, m->bits);; i = (i + 1) & mask) {
		if (!m->slots[i].used)
			return NULL;
		if (m->slots[i].key == key)
			return &m->slots[i].val;
	}
}

static int idmap_grow(struct bc_idmap *m)
{
	uint32_t bits = m->slots ? m->bits + 1 : 4;
	uint32_t old_cap = m->slots ? 1u << m->bits : 0;
	uint32_t mask = (1u << bits) - 1;
	struct bc_idmap_slot *slots;

	if (bits > 31)
		return -E2BIG;
	slots = calloc((size_t)1 << bits, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	for (uint32_t j = 0; j < old_cap; j++) {
		const struct bc_idmap_slot *s = &m->slots[j];
		uint32_t i;

		if (!s->used)
			continue;
		for (i = idmap_hash(s->key, bits); slots[i].used; i = (i + 1) & mask)
			;
		slots[i] = *s;
	}
	free(m->slots);
	m->slots = slots;
	m->bits = bits;
	return 0;
}

int bc_idmap_get_or_add(struct bc_idmap *m, uint64_t key, uint32_t init, uint32_t **val)
{
	uint32_t mask, i;
	int err;

	*val = bc_idmap_find(m, key);
	if (*val)
		return 0;
	/* Keep the load under 3/4 so probe sequences stay short. */
	if (!m->slots || (uint64_t)(m->n + 1) * 4 > (uint64_t)3 << m->bits) {
		err = idmap_grow(m);
		if (err)
			return err;
	}
	mask = (1u << m->bits) - 1;
	for (i = idmap_hash(key, m->bits); m->slots[i].used; i = (i + 1) & mask)
		;
	m->slots[i] = (struct bc_idmap_slot){.key = key, .val = init, .used = true};
	m->n++;
	*val = &m->slots[i].val;
	return 0;
}

/*
 * Linear probing keeps every key reachable from its home slot without a
 * gap in between: after a removal, the keys behind the hole that could
 * live in it move back (backward-shift deletion), so no tombstones pile up
 * in a map whose keys come and go (pids of short processes).
 */
bool bc_idmap_remove(struct bc_idmap *m, uint64_t key)
{
	uint32_t *val = bc_idmap_find(m, key), mask, hole, i;

	if (!val)
		return false;
	mask = (1u << m->bits) - 1;
	hole = (uint32_t)((struct bc_idmap_slot *)((char *)val -
						   offsetof(struct bc_idmap_slot, val)) -
			  m->slots);
	for (i = (hole + 1) & mask; m->slots[i].used; i = (i + 1) & mask) {
		uint32_t home = idmap_hash(m->slots[i].key, m->bits);

		/* the key at i may fill the hole if its home is not in (hole, i] */
		if (((i - home) & mask) >= ((i - hole) & mask)) {
			m->slots[hole] = m->slots[i];
			hole = i;
		}
	}
	m->slots[hole] = (struct bc_idmap_slot){0};
	m->n--;
	return true;
}

void bc_idmap_free(struct bc_idmap *m)
{
	free(m->slots);
	memset(m, 0, sizeof(*m));
}

void *bc_grow_array(void *v, size_t *cap, size_t need, size_t size)
{
	size_t new_cap = *cap ? *cap : 16;

	/* room for nothing is still an array: NULL would say the allocation failed */
	if (!need)
		need = 1;
	if (need <= *cap)
		return v;
	while (new_cap < need) {
		if (new_cap > SIZE_MAX / 2 / size)
			return NULL;
		new_cap *= 2;
	}
	v = realloc(v, new_cap * size);
	if (v)
		*cap = new_cap;
	return v;
}
