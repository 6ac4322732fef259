// SPDX-License-Identifier: MIT
/*
 * The id map under keys that come and go, as pids of short processes do:
 * after any mix of insertions and removals every key still present is
 * found with its value, every removed one is gone, and the table does not
 * grow past what the live keys need. The pid table built on it releases
 * each entry exactly once: when told, after enough later exits, or at the
 * end, and never one whose slot has since taken another process. Interned
 * strings keep one id per distinct string, however many there are.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "bpfcollect/containers.h"
#include "bpfcollect/pidtab.h"

#define KEYS 4096u

static uint64_t rng_state = 0x2545f4914f6cdd1dull;

static uint32_t next_random(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)rng_state;
}

static void check_all(const struct bc_idmap *m, const uint32_t *want)
{
	uint32_t n = 0;

	for (uint32_t k = 0; k < KEYS; k++) {
		uint32_t *v = bc_idmap_find(m, k);

		if (want[k]) {
			assert_non_null(v);
			assert_int_equal(*v, want[k]);
			n++;
		} else {
			assert_null(v);
		}
	}
	assert_int_equal(m->n, n);
}

static void test_idmap_churn(void **state)
{
	static uint32_t want[KEYS]; /* 0: absent, else the value stored */
	struct bc_idmap m = {0};
	uint32_t live = 0, *v;

	(void)state;
	for (uint32_t round = 0; round < 200000; round++) {
		uint32_t k = next_random() % KEYS;

		/* keep about 300 keys: the table settles at a fixed size */
		if (!want[k] && live < 300) {
			assert_int_equal(bc_idmap_get_or_add(&m, k, round + 1, &v), 0);
			want[k] = round + 1;
			live++;
		} else if (want[k]) {
			assert_true(bc_idmap_remove(&m, k));
			assert_false(bc_idmap_remove(&m, k));
			want[k] = 0;
			live--;
		}
		if (round % 20000 == 0)
			check_all(&m, want);
	}
	check_all(&m, want);
	/* 300 live keys under the 3/4 load: 512 slots, never more */
	assert_true(m.bits <= 9);
	bc_idmap_free(&m);
}

/* Keys that share a home slot and wrap past the end of the table. */
static void test_idmap_wraparound(void **state)
{
	struct bc_idmap m = {0};
	uint32_t *v, found = 0;

	(void)state;
	for (uint64_t k = 1; k <= 11; k++)
		assert_int_equal(bc_idmap_get_or_add(&m, k << 40, (uint32_t)k, &v), 0);
	assert_int_equal(m.bits, 4);
	for (uint64_t k = 1; k <= 11; k += 2)
		assert_true(bc_idmap_remove(&m, k << 40));
	for (uint64_t k = 1; k <= 11; k++) {
		v = bc_idmap_find(&m, k << 40);
		if (k % 2) {
			assert_null(v);
		} else {
			assert_non_null(v);
			assert_int_equal(*v, k);
			found++;
		}
	}
	assert_int_equal(found, 5);
	assert_int_equal(m.n, 5);
	assert_false(bc_idmap_remove(&m, 99));
	bc_idmap_free(&m);
	assert_false(bc_idmap_remove(&m, 1)); /* an empty map */
}

struct entry {
	uint32_t pid, released;
};

static void count_release(void *e, void *ctx)
{
	struct entry *x = e;

	x->released++;
	assert_int_equal(x->released, 1);
	(*(uint32_t *)ctx)++;
}

static void test_pidtab(void **state)
{
	struct bc_pidtab t;
	uint32_t released = 0;
	struct entry *e;

	(void)state;
	bc_pidtab_init(&t, sizeof(struct entry), count_release, &released);
	e = bc_pidtab_add(&t, 7);
	assert_non_null(e);
	e->pid = 7;
	assert_null(bc_pidtab_add(&t, 7)); /* one entry per pid */
	assert_int_equal(bc_pidtab_exited(&t, 7), 0);
	/* removed and made again before its exit comes round: the new one stays */
	bc_pidtab_remove(&t, 7);
	assert_int_equal(released, 1);
	e = bc_pidtab_add(&t, 7);
	e->pid = 7;
	assert_int_equal(t.n, 1); /* the same slot */
	for (uint32_t pid = 100; pid < 100 + 3 * BC_PIDTAB_KEEP_EXITED; pid++) {
		e = bc_pidtab_add(&t, pid);
		assert_non_null(e);
		e->pid = pid;
		assert_int_equal(bc_pidtab_exited(&t, pid), 0);
	}
	assert_non_null(bc_pidtab_find(&t, 7));
	assert_int_equal(((struct entry *)bc_pidtab_find(&t, 7))->released, 0);
	/* the last exits are kept, older ones released, their slots reused */
	assert_int_equal(released, 1 + 2 * BC_PIDTAB_KEEP_EXITED);
	assert_null(bc_pidtab_find(&t, 100));
	assert_non_null(bc_pidtab_find(&t, 100 + 2 * BC_PIDTAB_KEEP_EXITED));
	assert_true(t.n <= BC_PIDTAB_KEEP_EXITED + 2);
	assert_int_equal(bc_pidtab_exited(&t, 99), 0); /* unknown: nothing to do */
	bc_pidtab_free(&t);
	assert_int_equal(released, 2 + 3 * BC_PIDTAB_KEEP_EXITED);
}

/*
 * Equal strings are one copy, whatever buffer they came in; distinct ones
 * stay apart; a copy stays where it is as the table grows (pcname keeps
 * the pointers).
 */
static void test_strtab_copies(void **state)
{
	struct bc_strtab t = {0};
	const char *first[1000];
	char buf[32];
	uint32_t id;

	(void)state;
	for (int round = 0; round < 3; round++)
		for (int i = 0; i < 1000; i++) {
			const char *s;

			snprintf(buf, sizeof(buf), "/usr/lib/lib%d.so", i);
			assert_true(bc_strtab_intern(&t, buf, strlen(buf), &id) >= 0);
			s = t.v[id];
			assert_non_null(s);
			assert_string_equal(s, buf);
			assert_true(s != buf);
			if (!round)
				first[i] = s;
			else
				assert_ptr_equal(s, first[i]);
		}
	assert_int_equal(t.n, 1000);
	assert_int_equal(bc_strtab_intern(&t, "", 0, &id), 1);
	assert_int_equal(t.n, 1001);
	bc_strtab_free(&t);
	assert_int_equal(t.n, 0);
}

/*
 * Interned strings: each distinct string one id, in order; strings that
 * differ in a byte past a NUL, or only in length, are distinct; ids stay
 * right across the table's growth.
 */
static void test_strtab(void **state)
{
	struct bc_strtab t = {0};
	char name[32];
	uint32_t id;

	(void)state;
	assert_int_equal(bc_strtab_find(&t, "a", 1), -1);
	assert_int_equal(bc_strtab_intern(&t, "a", 1, &id), 1);
	assert_int_equal(id, 0);
	assert_int_equal(bc_strtab_intern(&t, "a\0b", 3, &id), 1);
	assert_int_equal(id, 1);
	assert_int_equal(bc_strtab_intern(&t, "", 0, &id), 1);
	assert_int_equal(id, 2);
	assert_int_equal(bc_strtab_intern(&t, "a", 1, &id), 0);
	assert_int_equal(id, 0);
	for (int i = 0; i < 100000; i++) {
		int n = snprintf(name, sizeof(name), "scope %d", i);

		assert_int_equal(bc_strtab_intern(&t, name, (size_t)n, &id), 1);
		assert_int_equal(id, 3 + i);
	}
	for (int i = 0; i < 100000; i += 997) {
		int n = snprintf(name, sizeof(name), "scope %d", i);

		assert_int_equal(bc_strtab_find(&t, name, (size_t)n), 3 + i);
		assert_int_equal(bc_strtab_intern(&t, name, (size_t)n, &id), 0);
		assert_int_equal(id, 3 + i);
	}
	assert_int_equal(t.n, 100003);
	assert_string_equal(t.v[3 + 42], "scope 42");
	assert_int_equal(bc_strtab_find(&t, "a\0c", 3), -1);
	bc_strtab_free(&t);
	assert_int_equal(t.n, 0);
}

/* The keyed hash: the same bytes the same hash, any byte changed another. */
static void test_hash_bytes(void **state)
{
	char a[64];

	(void)state;
	for (size_t i = 0; i < sizeof(a); i++)
		a[i] = (char)i;
	for (size_t n = 0; n < sizeof(a); n++) {
		uint64_t h = bc_hash_bytes(a, n);

		assert_true(h == bc_hash_bytes(a, n));
		assert_true(h != bc_hash_bytes(a, n + 1));
		if (n) {
			a[n - 1] ^= 1;
			assert_true(h != bc_hash_bytes(a, n));
			a[n - 1] ^= 1;
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_idmap_churn), cmocka_unit_test(test_idmap_wraparound),
		cmocka_unit_test(test_pidtab),	    cmocka_unit_test(test_strtab_copies),
		cmocka_unit_test(test_strtab),	    cmocka_unit_test(test_hash_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
