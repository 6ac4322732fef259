// SPDX-License-Identifier: MIT
/* The sinks' reorder buffer (sinks/reorder.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bpfcollect/containers.h"
#include "bpfcollect/record.h"
#include "reorder.h"

void bc_reorder_init(struct bc_reorder *q, size_t size, uint64_t window_ns,
		     int (*cmp)(const void *a, const void *b))
{
	memset(q, 0, sizeof(*q));
	q->size = size;
	q->window_ns = window_ns;
	q->cmp = cmp;
	q->due_at = BC_REORDER_BATCH;
}

void *bc_reorder_push(struct bc_reorder *q, uint64_t ktime)
{
	void *grown;
	char *item;

	if (q->n == q->cap) {
		grown = bc_grow_array(q->items, &q->cap, q->n + 1, q->size);
		if (!grown)
			return NULL;
		q->items = grown;
	}
	item = q->items + q->n++ * q->size;
	memset(item, 0, q->size);
	memcpy(item, &ktime, sizeof(ktime));
	if (ktime > q->newest)
		q->newest = ktime;
	return item;
}

void *bc_reorder_last(struct bc_reorder *q)
{
	return q->n ? q->items + (q->n - 1) * q->size : NULL;
}

int bc_reorder_flush(struct bc_reorder *q, bool all, int (*emit)(void *ctx, void *item), void *ctx)
{
	size_t n = 0;
	int rc = 0;

	if (!q->n)
		return 0;
	qsort(q->items, q->n, q->size, q->cmp);
	while (n < q->n && !rc) {
		char *item = q->items + n * q->size;
		uint64_t ktime;

		memcpy(&ktime, item, sizeof(ktime));
		if (!all && ktime + q->window_ns > q->newest)
			break;
		rc = emit(ctx, item);
		n++;
	}
	memmove(q->items, q->items + n * q->size, (q->n - n) * q->size);
	q->n -= n;
	q->due_at = q->n * 2 > BC_REORDER_BATCH ? q->n * 2 : BC_REORDER_BATCH;
	return rc;
}

void bc_reorder_free(struct bc_reorder *q, void (*drop)(void *item))
{
	for (size_t i = 0; drop && i < q->n; i++)
		drop(q->items + i * q->size);
	free(q->items);
	memset(q, 0, sizeof(*q));
}

int bc_reorder_rec_push(struct bc_reorder *q, const struct bc_rec_head *h, uint8_t *bytes,
			size_t len)
{
	struct bc_reorder_rec *r = len <= UINT32_MAX ? bc_reorder_push(q, h->ktime) : NULL;

	if (!r) {
		free(bytes);
		return -ENOMEM;
	}
	*r = (struct bc_reorder_rec){.ktime = h->ktime,
				     .seq = h->seq,
				     .tid = h->tid,
				     .kind = h->kind,
				     .len = (uint32_t)len,
				     .bytes = bytes};
	return 0;
}

int bc_reorder_rec_cmp(const void *a, const void *b)
{
	const struct bc_reorder_rec *x = a, *y = b;
	int c = bc_reorder_key_cmp(x->ktime, x->tid, x->seq, y->ktime, y->tid, y->seq);

	if (c)
		return c;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	c = memcmp(x->bytes, y->bytes, x->len < y->len ? x->len : y->len);
	return c ? c : x->len < y->len ? -1 : x->len > y->len;
}

void bc_reorder_rec_drop(void *item)
{
	free(((struct bc_reorder_rec *)item)->bytes);
}
