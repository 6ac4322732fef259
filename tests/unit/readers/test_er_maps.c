// SPDX-License-Identifier: MIT
/*
 * map.xml as the `.er` reader streams it: unmaps replayed (and written
 * again by a conversion), a file of more mappings than the reorder window
 * holds replayed in time order with what the state keeps staying small,
 * and a mapping too far out of order replayed late with a note.
 */
#include "er_fixture.h"

#include "bpfcollect/state.h"
#include "readers/er_replay.h"

#define LIB   "/usr/lib/libdl test.so"
#define VADDR 0x7f2000000000ULL

/* Counts what a replay gives and checks it comes in time order. */
struct order_sink {
	struct bc_sink sink;
	const struct bc_state *state;
	size_t segments, unmaps, events, late, max_live;
	uint64_t last;
};

static int os_begin(struct bc_sink *s, const struct bc_session *sess)
{
	((struct order_sink *)s)->state = sess->state;
	return 0;
}

static void os_time(struct order_sink *o, uint64_t ktime)
{
	o->late += ktime < o->last;
	if (ktime > o->last)
		o->last = ktime;
}

static int os_event(struct bc_sink *s, const struct bc_event *ev)
{
	struct order_sink *o = (struct order_sink *)s;

	os_time(o, ev->rec->ktime);
	o->events++;
	return 0;
}

static int os_mapping(struct bc_sink *s, const struct bc_mapping *m)
{
	struct order_sink *o = (struct order_sink *)s;

	os_time(o, m->ktime);
	if (m->unmap) {
		assert_int_equal(m->end, m->start + 1);
		o->unmaps++;
	} else {
		assert_string_equal(m->path, LIB);
		o->segments++;
	}
	if (o->state && o->state->maps.n > o->max_live)
		o->max_live = o->state->maps.n;
	return 0;
}

static const struct bc_sink_ops order_ops = {
	.name = "order", .begin = os_begin, .event = os_event, .mapping = os_mapping};

static void put_segment(FILE *f, uint64_t rel_ns, uint64_t vaddr)
{
	char t[BC_XML_TSTAMP_LEN];

	fprintf(f,
		"<event kind=\"map\" object=\"segment\" tstamp=\"%s\" vaddr=\"0x%016llX\" "
		"size=\"65536\" pagesz=\"4096\" foffset=\"+0x00001000\" modes=\"0x005\" "
		"chksum=\"0x0\" name=\"%s\"/>\n",
		bc_xml_format_tstamp(t, rel_ns), (unsigned long long)vaddr, LIB);
}

static void put_unmap(FILE *f, uint64_t rel_ns, uint64_t vaddr)
{
	char t[BC_XML_TSTAMP_LEN];

	fprintf(f, "<event kind=\"unmap\" tstamp=\"%s\" vaddr=\"0x%016llX\"/>\n",
		bc_xml_format_tstamp(t, rel_ns), (unsigned long long)vaddr);
}

static FILE *open_map(struct fixture *fx)
{
	char path[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/map.xml", fx->exp);
	f = fopen(path, "w");
	assert_non_null(f);
	return f;
}

/* An unmap ends the segment at its vaddr: replayed, and written again by a conversion. */
static void test_unmap_replayed(void **state)
{
	struct fixture *fx = *state;
	struct keep_sink *k = keep_new();
	struct bc_er_info info;
	char err[512], dst[256];
	struct bc_sink *s;
	size_t n = 0, len;
	char *map;

	write_exp(fx, false, NULL);
	append_file(fx->exp, "map.xml",
		    "<event kind=\"unmap\" tstamp=\"0.000001600\" vaddr=\"0x00007F1000000000\"/>\n"
		    "<event kind=\"unmap\" tstamp=\"0.000001700\"/>\n");
	assert_int_equal(read_exp(fx->exp, k, &info, err, sizeof(err)), 0);
	assert_int_equal(info.mappings, 2); /* segments */
	assert_non_null(info.notes);
	assert_non_null(strstr(info.notes, "map.xml: 1 unmap events unreadable; ignored"));
	for (size_t i = 0; i < k->n; i++) {
		if (k->v[i].what != 'M' || !k->v[i].m.unmap)
			continue;
		n++;
		assert_int_equal(k->v[i].m.ktime, T0 + 1600);
		assert_int_equal(k->v[i].m.start, 0x7f1000000000);
		assert_int_equal(k->v[i].m.end, 0x7f1000000001);
		assert_int_equal(k->v[i].m.pid, getpid());
		/* after every record of its time or before, before the later ones */
		assert_true(i == 0 || k->v[i - 1].what == 'M' ||
			    k->v[i - 1].rec.h.ktime <= T0 + 1600);
		assert_true(i + 1 == k->n || k->v[i + 1].what == 'M' ||
			    k->v[i + 1].rec.h.ktime > T0 + 1600);
	}
	assert_int_equal(n, 1);
	bc_er_info_free(&info);
	free(k);

	assert_int_equal(
		bc_exp_create(fx->dir, "copy.er", dst, sizeof(dst), NULL, err, sizeof(err)), 0);
	s = bc_er_sink_new(dst, err, sizeof(err));
	assert_non_null(s);
	memset(&info, 0, sizeof(info));
	assert_int_equal(bc_er_read(fx->exp, s, &info, err, sizeof(err)), 0);
	bc_sink_destroy(s);
	bc_er_info_free(&info);
	map = slurp(dst, "map.xml", &len);
	assert_non_null(strstr(map, "<event kind=\"unmap\" tstamp=\"0.000001600\" "
				    "vaddr=\"0x00007F1000000000\"/>\n"));
	free(map);
}

/*
 * dlopen and dlclose, many times more than the reorder window holds, each
 * pair written in reverse (the unmap first, then its segment, a little
 * earlier): replayed in time order, the state holding one mapping at most.
 */
static void test_many_mappings_in_order(void **state)
{
	struct fixture *fx = *state;
	struct order_sink o = {.sink.ops = &order_ops};
	struct bc_er_info info;
	const size_t cycles = 3 * BC_ER_MAPQ_PENDING;
	char err[512];
	FILE *f;

	write_exp(fx, false, NULL);
	f = open_map(fx);
	for (size_t i = 0; i < cycles; i++) {
		put_unmap(f, 10000 + 1000 * i + 500, VADDR);
		put_segment(f, 10000 + 1000 * i, VADDR);
	}
	fclose(f);
	memset(&info, 0, sizeof(info));
	assert_int_equal(bc_er_read(fx->exp, &o.sink, &info, err, sizeof(err)), 0);
	assert_int_equal(info.mappings, cycles);
	assert_int_equal(o.segments, cycles);
	assert_int_equal(o.unmaps, cycles);
	assert_int_equal(o.late, 0);
	assert_int_equal(o.max_live, 1);
	assert_true(o.events > 0);
	assert_null(info.notes);
	bc_er_info_free(&info);
}

/* One mapping further out of order than the window holds: replayed late, said so. */
static void test_mapping_too_late(void **state)
{
	struct fixture *fx = *state;
	struct order_sink o = {.sink.ops = &order_ops};
	struct bc_er_info info;
	const size_t n = BC_ER_MAPQ_PENDING + 10;
	char err[512];
	FILE *f;

	write_exp(fx, false, NULL);
	f = open_map(fx);
	for (size_t i = 0; i < n; i++)
		put_segment(f, 1000000 + i, VADDR + 0x100000 * i);
	put_segment(f, 5, VADDR - 0x100000);
	fclose(f);
	memset(&info, 0, sizeof(info));
	assert_int_equal(bc_er_read(fx->exp, &o.sink, &info, err, sizeof(err)), 0);
	assert_int_equal(o.segments, n + 1);
	assert_int_equal(o.late, 1);
	assert_non_null(info.notes);
	assert_non_null(strstr(info.notes, "map.xml: 1 mappings more than 4096 events out of "
					   "time order; replayed late"));
	bc_er_info_free(&info);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_unmap_replayed),
		T(test_many_mappings_in_order),
		T(test_mapping_too_late),
	};

	return cmocka_run_group_tests_name("er_maps", tests, NULL, NULL);
}
