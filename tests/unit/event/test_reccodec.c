// SPDX-License-Identifier: MIT
/*
 * The compact encoding gives back every record byte for byte: function
 * entries and returns of many threads, nested and not, system calls whole,
 * and records kept raw, through blocks that end when they speak of too many
 * threads. Ordinary calls take a few bytes each. Bytes that are not an
 * encoding are refused, never read past.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bpfcollect/reccodec.h"

#define NREC 20000

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

struct sim {
	uint64_t seq, ktime, sp;
	uint32_t depth, stack[64];
	uint64_t entry[64];
};

/* A plausible stream: threads calling and returning, syscalls, some oddities. */
static size_t make_record(struct sim *sims, size_t nthreads, uint8_t *buf)
{
	size_t i = next() % nthreads;
	struct sim *m = &sims[i];
	struct bc_rec_head *h = (void *)buf;
	uint64_t r = next();

	memset(buf, 0, 512);
	m->ktime += 200 + next() % 5000;
	if (r % 97 == 0)
		m->ktime += next(); /* a wild jump */
	h->pid = 1000 + (uint32_t)(i / 3);
	h->tid = 1000 + (uint32_t)i;
	h->seq = ++m->seq + (r % 211 == 0 ? next() % 50 : 0);
	m->seq = h->seq;
	h->ktime = m->ktime;
	if (r % 10 < 4 && m->depth < 60) {
		struct bc_rec_func_entry *e = (void *)buf;

		h->kind = BC_REC_FUNC_ENTRY;
		h->size = sizeof(*e);
		h->depth = m->depth;
		e->func_id = (uint32_t)(next() % (r % 13 ? 40 : 100000));
		e->cpu = (uint32_t)(next() % 3 == 0);
		m->sp -= 16 + next() % 200;
		e->sp = m->sp;
		m->stack[m->depth] = e->func_id;
		m->entry[m->depth++] = h->ktime;
		if (r % 53 == 0) /* with captures: kept raw */
			h->size += 24;
	} else if (r % 10 < 8 && m->depth) {
		struct bc_rec_func_return *ret = (void *)buf;

		h->kind = BC_REC_FUNC_RETURN;
		h->size = sizeof(*ret);
		h->depth = --m->depth;
		ret->func_id = m->stack[m->depth];
		ret->entry_ktime = r % 31 == 0 ? 0 : m->entry[m->depth];
		ret->cpu = (uint32_t)(next() % 3 == 0);
		ret->retval = r % 5 == 0 ? next() : (uint64_t)(int64_t)(next() % 200 - 100);
		m->sp += 16;
		if (r % 41 == 0)
			h->depth += 7; /* a depth the state does not predict */
	} else if (r % 10 == 8) {
		struct bc_rec_syscall *c = (void *)buf;

		h->kind = BC_REC_SYSCALL;
		h->size = sizeof(*c);
		h->depth = m->depth;
		c->nr = (uint32_t)(next() % 450);
		c->cpu = (uint32_t)(next() % 2);
		c->ret = (int64_t)(next() % 9000) - 4000;
		c->enter_ktime = h->ktime - next() % 100000;
		c->enter_cpu = next() % 4 ? c->cpu : 7;
		c->enter_depth = next() % 4 ? h->depth : h->depth + 2;
		for (int a = 0; a < 6; a++)
			c->args[a] = next() % 3 ? next() % 64 : next();
	} else {
		/* another kind, raw: a lost record's size */
		h->kind = r % 2 ? BC_REC_SYS_ENTER : BC_REC_LOST;
		h->size = 32 + 8 * (uint16_t)(next() % 20);
		for (size_t b = sizeof(*h); b < h->size; b++)
			buf[b] = (uint8_t)next();
	}
	return h->size;
}

struct stream {
	uint8_t *raw, *enc;
	size_t raw_len, enc_len;
	size_t nblocks, nrec;
	size_t block_off[4096], block_len[4096];
};

/* Encodes raw records into blocks as the writer does: a new block when one is full. */
static void encode_all(struct stream *s, size_t nthreads, size_t block_bytes)
{
	struct bc_rc_state *st = malloc(sizeof(*st));
	struct sim *sims = calloc(nthreads, sizeof(*sims));
	size_t start = 0;

	assert_non_null(st);
	assert_non_null(sims);
	for (size_t i = 0; i < nthreads; i++)
		sims[i].sp = 0x7ffd00000000ull;
	s->raw = malloc(NREC * 512);
	s->enc = malloc(NREC * 600);
	s->raw_len = s->enc_len = s->nblocks = s->nrec = 0;
	bc_rc_reset(st);
	for (size_t i = 0; i < NREC; i++) {
		uint8_t *rec = s->raw + s->raw_len;
		size_t size = make_record(sims, nthreads, rec);
		int n;

		if (s->enc_len - start + BC_RC_MAX_ENCODED(size) > block_bytes ||
		    (n = bc_rc_encode(st, (void *)rec, s->enc + s->enc_len)) == -ENOSPC) {
			s->block_off[s->nblocks] = start;
			s->block_len[s->nblocks++] = s->enc_len - start;
			start = s->enc_len;
			bc_rc_reset(st);
			n = bc_rc_encode(st, (void *)rec, s->enc + s->enc_len);
		}
		assert_true(n > 0);
		assert_true((size_t)n <= BC_RC_MAX_ENCODED(size));
		s->enc_len += (size_t)n;
		s->raw_len += size;
		s->nrec++;
	}
	s->block_off[s->nblocks] = start;
	s->block_len[s->nblocks++] = s->enc_len - start;
	free(sims);
	free(st);
}

static void decode_and_compare(struct stream *s)
{
	struct bc_rc_state *st = malloc(sizeof(*st));
	uint8_t *out = aligned_alloc(8, s->raw_len + 512);
	size_t used = 0, records = 0;

	for (size_t b = 0; b < s->nblocks; b++) {
		int n = bc_rc_decode(st, s->enc + s->block_off[b], s->block_len[b], out, s->raw_len,
				     &used);

		assert_true(n >= 0);
		records += (size_t)n;
	}
	assert_int_equal(records, s->nrec);
	assert_int_equal(used, s->raw_len);
	assert_memory_equal(out, s->raw, s->raw_len);
	free(out);
	free(st);
}

static void test_roundtrip_few_threads(void **state)
{
	struct stream *s = calloc(1, sizeof(*s));

	(void)state;
	encode_all(s, 3, 64 * 1024);
	decode_and_compare(s);
	print_message("%zu records: %zu bytes raw, %zu encoded\n", s->nrec, s->raw_len, s->enc_len);
	/* a fifth of them raw or random: still less than half */
	assert_true(s->enc_len * 2 < s->raw_len);
	free(s->raw);
	free(s->enc);
	free(s);
}

static void test_roundtrip_many_threads(void **state)
{
	struct stream *s = calloc(1, sizeof(*s));

	(void)state;
	/* more threads than a block speaks of: blocks end early */
	encode_all(s, 200, 1 << 20);
	assert_true(s->nblocks > 1);
	decode_and_compare(s);
	free(s->raw);
	free(s->enc);
	free(s);
}

/* Ordinary calls of one thread, a leaf function in a loop: under 8 bytes an event. */
static void test_leaf_calls_are_small(void **state)
{
	struct bc_rc_state *st = malloc(sizeof(*st));
	uint8_t out[256];
	size_t total = 0;

	(void)state;
	bc_rc_reset(st);
	for (int i = 0; i < 1000; i++) {
		struct bc_rec_func_entry e = {
			.h = {.size = sizeof(e),
			      .kind = BC_REC_FUNC_ENTRY,
			      .depth = 1,
			      .pid = 7,
			      .tid = 7,
			      .seq = 2 * i + 1,
			      .ktime = 1000000 + 3000 * i},
			.func_id = 3,
			.sp = 0x7ffc1000,
		};
		struct bc_rec_func_return r = {
			.h = {.size = sizeof(r),
			      .kind = BC_REC_FUNC_RETURN,
			      .depth = 1,
			      .pid = 7,
			      .tid = 7,
			      .seq = 2 * i + 2,
			      .ktime = e.h.ktime + 1500},
			.func_id = 3,
			.entry_ktime = e.h.ktime,
			.retval = (uint64_t)i,
		};
		int n = bc_rc_encode(st, &e.h, out);

		assert_true(n > 0);
		total += (size_t)n;
		n = bc_rc_encode(st, &r.h, out);
		assert_true(n > 0);
		total += (size_t)n;
	}
	assert_true(total < 8 * 2000);
	free(st);
}

/* Every cut and every flipped byte of a real block: refused or decoded, never overrun. */
static void test_damaged_blocks(void **state)
{
	struct stream *s = calloc(1, sizeof(*s));
	struct bc_rc_state *st = malloc(sizeof(*st));
	size_t cap = 1 << 20, len;
	uint8_t *out = aligned_alloc(8, cap), *copy;

	(void)state;
	encode_all(s, 5, 4096);
	len = s->block_len[0];
	copy = malloc(len);
	for (size_t cut = 0; cut < len; cut++) {
		size_t used = 0;
		int n = bc_rc_decode(st, s->enc, cut, out, cap, &used);

		assert_true(n == -EINVAL || (n >= 0 && used <= cap));
	}
	for (size_t i = 0; i < len; i++) {
		size_t used = 0;
		int n;

		memcpy(copy, s->enc, len);
		copy[i] ^= (uint8_t)(1 + next() % 255);
		n = bc_rc_decode(st, copy, len, out, cap, &used);
		assert_true(n == -EINVAL || n >= 0);
	}
	/* too little room: said, nothing claimed */
	{
		size_t used = 0;

		assert_int_equal(bc_rc_decode(st, s->enc, len, out, 40, &used), -ENOBUFS);
		assert_int_equal(used, 0);
	}
	free(copy);
	free(out);
	free(st);
	free(s->raw);
	free(s->enc);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip_few_threads),
		cmocka_unit_test(test_roundtrip_many_threads),
		cmocka_unit_test(test_leaf_calls_are_small),
		cmocka_unit_test(test_damaged_blocks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
