/* SPDX-License-Identifier: MIT */
/*
 * A test that feeds a sink by hand plays the stream's producer: it keeps
 * the shared view of the processes (bpfcollect/state.h) and updates it
 * before each record and mapping reaches the sink, as the agent's drain
 * and the experiment reader do.
 */
#ifndef BC_TEST_PRODUCER_FIXTURE_H
#define BC_TEST_PRODUCER_FIXTURE_H

#include "er_fixture.h"

#include "bpfcollect/state.h"

static struct bc_state producer_state;

/* Begins s as a producer does: the state first, then the sink. */
static inline void begin(struct bc_sink *s, struct bc_session *sess)
{
	bc_state_free(&producer_state);
	bc_state_init(&producer_state);
	assert_int_equal(bc_state_begin(&producer_state, sess), 0);
	sess->state = &producer_state;
	assert_int_equal(bc_sink_begin(s, sess), 0);
}

static inline void feed_raw(struct bc_sink *s, const void *rec, const struct bc_functab *funcs)
{
	const struct bc_rec_head *h = rec;
	struct bc_event ev;

	assert_int_equal(bc_decode(rec, h->size, funcs, &ev), h->size);
	assert_int_equal(bc_state_event(&producer_state, h), 0);
	assert_int_equal(bc_sink_event(s, &ev), 0);
}

static inline void feed_mapping(struct bc_sink *s, const struct bc_mapping *m)
{
	assert_int_equal(bc_state_mapping(&producer_state, m), 0);
	assert_int_equal(bc_sink_mapping(s, m), 0);
}

#endif
