// SPDX-License-Identifier: MIT
/* A thread's system call in progress, merged with its exit (bpfcollect/sys_merge.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bpfcollect/capture_fmt.h"
#include "bpfcollect/sys_merge.h"

static struct bc_sys_pending *pending_of(struct bc_sys_merge *m, uint32_t tid, bool create)
{
	uint32_t *i = bc_idmap_find(&m->index, tid);
	struct bc_sys_pending *p;

	if (i)
		return &m->pending[*i - 1];
	if (!create || BC_GROW(m->pending, m->cap, m->n + 1) ||
	    bc_idmap_get_or_add(&m->index, tid, 0, &i))
		return NULL;
	p = &m->pending[m->n];
	p->tid = tid;
	p->size = 0;
	*i = (uint32_t)++m->n;
	return p;
}

int bc_sys_merge_enter(struct bc_sys_merge *m, const struct bc_rec_sys_enter *e)
{
	struct bc_sys_pending *p = pending_of(m, e->h.tid, true);

	if (!p)
		return -ENOMEM;
	p->size = 0;
	if (e->h.size <= sizeof(p->rec)) {
		memcpy(p->rec, e, e->h.size);
		p->size = e->h.size;
	}
	return 0;
}

static bool exit_has_item(const struct bc_rec_head *exit_rec, unsigned int index)
{
	const struct bc_cap_item *item;
	const uint8_t *data;
	struct bc_cap_iter it;

	bc_cap_iter_init(&it, exit_rec, exit_rec->size, sizeof(struct bc_rec_sys_exit));
	while (bc_cap_iter_next(&it, &item, &data))
		if (item->index == index)
			return true;
	return false;
}

const struct bc_rec_sys_enter *bc_sys_merge_exit(struct bc_sys_merge *m,
						 const struct bc_rec_head *x, size_t *size)
{
	struct bc_sys_pending *p = pending_of(m, x->tid, false);
	const struct bc_rec_sys_enter *e;
	const struct bc_cap_item *item;
	const uint8_t *data;
	struct bc_cap_iter it;
	uint8_t *out = (uint8_t *)m->merged;
	size_t pos = sizeof(*e);

	if (!p || !p->size)
		return NULL;
	e = (const void *)p->rec;
	p->size = 0;
	if (e->nr != ((const struct bc_rec_sys_exit *)x)->nr)
		return NULL;
	memcpy(out, e, sizeof(*e));
	bc_cap_iter_init(&it, e, e->h.size, sizeof(*e));
	while (bc_cap_iter_next(&it, &item, &data)) {
		size_t n = sizeof(*item) + ((item->len + 7U) & ~7U);

		if ((item->flags & BC_CAPF_FAULT) && exit_has_item(x, item->index))
			continue;
		memcpy(out + pos, item, n);
		pos += n;
	}
	bc_cap_iter_init(&it, x, x->size, sizeof(struct bc_rec_sys_exit));
	while (bc_cap_iter_next(&it, &item, &data)) {
		size_t n = sizeof(*item) + ((item->len + 7U) & ~7U);

		if (pos + n > sizeof(m->merged))
			break;
		memcpy(out + pos, item, n);
		pos += n;
	}
	((struct bc_rec_head *)out)->size = (uint16_t)pos;
	*size = pos;
	return (const void *)out;
}

void bc_sys_merge_forget(struct bc_sys_merge *m, uint32_t tid)
{
	uint32_t *i = bc_idmap_find(&m->index, tid), *moved;
	size_t at;

	if (!i)
		return;
	at = *i - 1;
	bc_idmap_remove(&m->index, tid);
	if (at + 1 < m->n) {
		/* the last one fills the hole */
		m->pending[at] = m->pending[m->n - 1];
		moved = bc_idmap_find(&m->index, m->pending[at].tid);
		if (moved)
			*moved = (uint32_t)at + 1;
	}
	m->n--;
}

void bc_sys_merge_free(struct bc_sys_merge *m)
{
	bc_idmap_free(&m->index);
	free(m->pending);
	memset(m, 0, sizeof(*m));
}
