// SPDX-License-Identifier: MIT
/*
 * The sinks' reorder buffer (sinks/reorder.h): items leave sorted, only
 * once the window behind the newest has passed them; an emit error stops
 * the flush and the rest waits; what still waits is dropped at the end.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "sinks/reorder.h"

struct item {
	uint64_t ktime;
	uint32_t tid;
	int *owned; /* freed by emit or drop: valgrind and ASan see a leak otherwise */
};

struct seen {
	uint64_t ktimes[64];
	size_t n;
	size_t fail_at; /* emit fails for the item with this index + 1; 0: never */
};

static int cmp(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	if (x->ktime != y->ktime)
		return x->ktime < y->ktime ? -1 : 1;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

static int emit(void *ctx, void *p)
{
	struct seen *s = ctx;
	struct item *it = p;

	free(it->owned);
	s->ktimes[s->n++] = it->ktime;
	return s->fail_at && s->n == s->fail_at ? -EIO : 0;
}

static int drops;

static void drop(void *p)
{
	free(((struct item *)p)->owned);
	drops++;
}

static void push(struct bc_reorder *q, uint64_t ktime, uint32_t tid)
{
	struct item *it = bc_reorder_push(q, ktime);

	assert_non_null(it);
	assert_int_equal(it->ktime, ktime); /* the time is filled in */
	it->tid = tid;
	it->owned = malloc(sizeof(int));
	assert_non_null(it->owned);
}

static void sorted_after_the_window(void **state)
{
	struct bc_reorder q;
	struct seen s = {0};

	(void)state;
	bc_reorder_init(&q, sizeof(struct item), 100, cmp);
	assert_null(bc_reorder_last(&q));
	assert_int_equal(bc_reorder_flush(&q, false, emit, &s), 0); /* empty */
	push(&q, 50, 2);
	push(&q, 10, 1);
	push(&q, 50, 1);
	push(&q, 120, 1);
	assert_int_equal(((struct item *)bc_reorder_last(&q))->ktime, 120);
	/* newest 120, window 100: only 10 is behind it (10 + 100 <= 120) */
	assert_int_equal(bc_reorder_flush(&q, false, emit, &s), 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.ktimes[0], 10);
	assert_int_equal(q.n, 3);
	push(&q, 30, 1); /* late, but inside the window: still goes in order */
	assert_int_equal(bc_reorder_flush(&q, true, emit, &s), 0);
	assert_int_equal(s.n, 5);
	assert_int_equal(s.ktimes[1], 30);
	assert_int_equal(s.ktimes[2], 50);
	assert_int_equal(s.ktimes[3], 50);
	assert_int_equal(s.ktimes[4], 120);
	assert_int_equal(q.n, 0);
	bc_reorder_free(&q, drop);
}

static void an_error_stops_the_flush(void **state)
{
	struct bc_reorder q;
	struct seen s = {.fail_at = 2};

	(void)state;
	drops = 0;
	bc_reorder_init(&q, sizeof(struct item), 0, cmp);
	for (uint64_t k = 1; k <= 100; k++) /* grows past its first capacity */
		push(&q, 101 - k, 0);
	assert_int_equal(bc_reorder_flush(&q, true, emit, &s), -EIO);
	assert_int_equal(s.n, 2); /* the failed item was consumed too */
	assert_int_equal(q.n, 98);
	bc_reorder_free(&q, drop);
	assert_int_equal(drops, 98);
	assert_null(q.items);
}

/* An emit that counts and frees, for more items than struct seen keeps. */
static int count(void *ctx, void *p)
{
	free(((struct item *)p)->owned);
	(*(size_t *)ctx)++;
	return 0;
}

/*
 * A window that holds more than a batch: once a flush leaves m items, the
 * next is due at 2m, so a dense stream is not sorted again for each item.
 */
static void due_doubles_with_what_waits(void **state)
{
	struct bc_reorder q;
	size_t emitted = 0;

	(void)state;
	bc_reorder_init(&q, sizeof(struct item), 1000000, cmp);
	for (uint64_t i = 0; i + 1 < BC_REORDER_BATCH; i++)
		push(&q, i, 1);
	assert_false(bc_reorder_due(&q));
	push(&q, BC_REORDER_BATCH - 1, 1);
	assert_true(bc_reorder_due(&q));
	/* all within the window of the newest: nothing leaves */
	assert_int_equal(bc_reorder_flush(&q, false, count, &emitted), 0);
	assert_int_equal(emitted, 0);
	assert_false(bc_reorder_due(&q));
	for (uint64_t i = 0; i + 1 < BC_REORDER_BATCH; i++)
		push(&q, BC_REORDER_BATCH + i, 1);
	assert_false(bc_reorder_due(&q)); /* 2 x 8192 - 1 wait */
	/* one far newer: all but it can leave, and the next flush is due at a batch again */
	push(&q, 5000000, 1);
	assert_true(bc_reorder_due(&q));
	assert_int_equal(bc_reorder_flush(&q, false, count, &emitted), 0);
	assert_int_equal(emitted, 2 * BC_REORDER_BATCH - 1);
	assert_int_equal(q.n, 1);
	assert_int_equal(q.due_at, BC_REORDER_BATCH);
	bc_reorder_free(&q, drop);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sorted_after_the_window),
		cmocka_unit_test(an_error_stops_the_flush),
		cmocka_unit_test(due_doubles_with_what_waits),
	};

	return cmocka_run_group_tests_name("reorder", tests, NULL, NULL);
}
