// SPDX-License-Identifier: MIT
/*
 * The timeline and flame graph sinks (chrome, folded) and what they stand
 * on: JSON strings from untrusted bytes, call-path ids that do not depend
 * on the order stacks come in, a thread's system call merged with its exit.
 *
 * Every expected value is written out by hand, never produced by the code
 * under test.
 */
#include "producer_fixture.h"

#include "bpfcollect/demangle.h"
#include "bpfcollect/chrome.h"
#include "bpfcollect/folded.h"
#include "bpfcollect/json.h"
#include "bpfcollect/stack_names.h"
#include "bpfcollect/sys_merge.h"

/* ---------------------------------------------------------------- JSON */

static char *json_of(const char *s, size_t len)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	assert_non_null(f);
	bc_json_string(f, s, len);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void expect_json(const char *in, size_t len, const char *want)
{
	char *got = json_of(in, len);

	assert_string_equal(got, want);
	free(got);
}

static void test_json_strings(void **state)
{
	(void)state;
	expect_json("plain", (size_t)-1, "\"plain\"");
	expect_json("a\"b\\c", (size_t)-1, "\"a\\\"b\\\\c\"");
	expect_json("tab\there\n\x7f", (size_t)-1, "\"tab\\u0009here\\u000a\\u007f\"");
	/* é (C3 A9) and € (E2 82 AC) and 😀 (F0 9F 98 80) stay as they are */
	expect_json("\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", (size_t)-1,
		    "\"\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");
	/* a lone byte, a cut sequence, an overlong '/', a surrogate: each byte as U+00NN */
	expect_json("\xff", (size_t)-1, "\"\\u00ff\"");
	expect_json("x\xc3", (size_t)-1, "\"x\\u00c3\"");
	expect_json("\xc0\xaf", (size_t)-1, "\"\\u00c0\\u00af\"");
	expect_json("\xed\xa0\x80", (size_t)-1, "\"\\u00ed\\u00a0\\u0080\"");
	/* with a length: a NUL inside is a character, and the bytes after len are not read */
	expect_json("a\0b!", 3, "\"a\\u0000b\"");
	/* a sequence cut by the length, not by a NUL */
	expect_json("\xe2\x82\xac", 2, "\"\\u00e2\\u0082\"");
}

static void test_json_us(void **state)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	(void)state;
	assert_non_null(f);
	bc_json_us(f, 1234567);
	fputc(' ', f);
	bc_json_us(f, 0);
	fputc(' ', f);
	bc_json_us(f, -5);
	fputc(' ', f);
	bc_json_us(f, INT64_MIN);
	assert_int_equal(fclose(f), 0);
	assert_string_equal(buf, "1234.567 0.000 -0.005 -9223372036854775.808");
	free(buf);
}

/* ---------------------------------------------------------------- call paths */

/* The node of names[0];names[1];... from the root. */
static int path_of(struct bc_stack_names *sn, const char *const *names, size_t n)
{
	int node = BC_STACK_ROOT;

	for (size_t i = 0; i < n; i++) {
		int fn = bc_stack_fn(sn, names[i], "obj");

		assert_true(fn >= 0);
		node = bc_stack_child(sn, (uint32_t)node, (uint32_t)fn);
		assert_true(node > 0);
	}
	return node;
}

static void test_path_ids(void **state)
{
	static const char *const ab[] = {"a", "b"}, *const ac[] = {"a", "c"}, *const b[] = {"b"};
	struct bc_stack_names one = {0}, two = {0};
	int ab1, ac1, b1, ab2, ac2, b2;

	(void)state;
	ab1 = path_of(&one, ab, 2);
	ac1 = path_of(&one, ac, 2);
	b1 = path_of(&one, b, 1);
	/* the other order: other node numbers, the same ids */
	b2 = path_of(&two, b, 1);
	ac2 = path_of(&two, ac, 2);
	ab2 = path_of(&two, ab, 2);
	assert_int_not_equal(ab1, ab2);
	assert_true(one.nodes[ab1].id == two.nodes[ab2].id);
	assert_true(one.nodes[ac1].id == two.nodes[ac2].id);
	assert_true(one.nodes[b1].id == two.nodes[b2].id);
	/* b alone and b under a are other paths */
	assert_true(one.nodes[b1].id != one.nodes[ab1].id);
	assert_true(one.nodes[ab1].id != one.nodes[ac1].id);
	/* the same path again is the same node */
	assert_int_equal(path_of(&one, ab, 2), ab1);
	bc_stack_names_free(&one);
	bc_stack_names_free(&two);
}

static void test_sys_merge(void **state)
{
	struct bc_sys_merge m = {0};
	struct bc_rec_sys_enter e = {
		.h = {.size = sizeof(e), .kind = BC_REC_SYS_ENTER, .pid = 7, .tid = 8}, .nr = 1};
	struct bc_rec_sys_exit x = {
		.h = {.size = sizeof(x), .kind = BC_REC_SYS_EXIT, .pid = 7, .tid = 8}, .nr = 1};
	struct bc_rec_sys_enter e9 = e;
	const struct bc_rec_sys_enter *got;
	size_t size = 0;

	(void)state;
	e9.h.tid = 9;
	e.args[0] = 0x1234;
	assert_int_equal(bc_sys_merge_enter(&m, &e), 0);
	assert_int_equal(bc_sys_merge_enter(&m, &e9), 0);
	got = bc_sys_merge_exit(&m, &x.h, &size);
	assert_non_null(got);
	assert_int_equal(size, sizeof(e));
	assert_int_equal(got->args[0], 0x1234);
	/* used up */
	assert_null(bc_sys_merge_exit(&m, &x.h, &size));
	/* thread 8 gone: thread 9's entry, moved into its slot, is still found */
	assert_int_equal(bc_sys_merge_enter(&m, &e), 0);
	bc_sys_merge_forget(&m, 8);
	assert_null(bc_sys_merge_exit(&m, &x.h, &size));
	x.h.tid = 9;
	assert_non_null(bc_sys_merge_exit(&m, &x.h, &size));
	bc_sys_merge_free(&m);
}

/* ---------------------------------------------------------------- a stream of calls */

#define PID 100u
#define TID 101u
#define T   (50 * NS)

static char *demo_argv[] = {"/opt/demo", NULL};

struct stream {
	struct bc_functab funcs;
	union any_rec recs[8];
	size_t n;
};

static union any_rec *rec(struct stream *st, uint16_t size, uint16_t kind, uint64_t ktime)
{
	union any_rec *r = &st->recs[st->n];

	memset(r, 0, sizeof(*r));
	r->h = (struct bc_rec_head){.size = size,
				    .kind = kind,
				    .pid = PID,
				    .tid = TID,
				    .seq = ++st->n,
				    .ktime = T + ktime};
	return r;
}

static void entry(struct stream *st, uint32_t func, uint64_t at)
{
	rec(st, sizeof(struct bc_rec_func_entry), BC_REC_FUNC_ENTRY, at)->fe.func_id = func;
}

static void ret(struct stream *st, uint32_t func, uint64_t at, uint64_t from)
{
	union any_rec *r = rec(st, sizeof(struct bc_rec_func_return), BC_REC_FUNC_RETURN, at);

	r->fr.func_id = func;
	r->fr.entry_ktime = T + from;
	r->fr.retval = 7;
}

/*
 * main [1000, 9000] calls work [2000, 5000], then work again at 6000, which
 * never returns (main's return closes it at 9000). Then work at 9500, still
 * running when the recording ends at 12000.
 */
static void make_stream(struct stream *st)
{
	memset(st, 0, sizeof(*st));
	bc_functab_init(&st->funcs);
	assert_int_equal(bc_functab_add(&st->funcs, "main", "/opt/demo", 0x1000, 16, 0x1000), 0);
	assert_int_equal(bc_functab_add(&st->funcs, "work", "/opt/lib,x.so", 0x2000, 16, 0x2000),
			 0);
	entry(st, 0, 1000);
	entry(st, 1, 2000);
	ret(st, 1, 5000, 2000);
	entry(st, 1, 6000);
	ret(st, 0, 9000, 1000);
	entry(st, 1, 9500);
}

/* Every record of the stream into s, then its end at 12000; returns what s wrote. */
static char *run(struct stream *st, struct bc_sink *s, FILE *f, char **buf)
{
	struct bc_session sess = {.argv = demo_argv,
				  .root_pid = PID,
				  .start_ktime = T,
				  .wall_offset_ns = 1000,
				  .funcs = &st->funcs};
	struct bc_session_end end = {.end_ktime = T + 12000};

	begin(s, &sess);
	for (size_t i = 0; i < st->n; i++)
		feed_raw(s, &st->recs[i], &st->funcs);
	assert_int_equal(bc_sink_end(s, &end), 0);
	bc_sink_destroy(s);
	bc_functab_free(&st->funcs);
	assert_int_equal(fclose(f), 0);
	return *buf;
}

static void test_chrome_calls(void **state)
{
	static const char want[] =
		"{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":\"bpfcollect\","
		"\"command\":\"/opt/demo\",\"start_wall_ns\":50000001000},\n"
		"\"traceEvents\":[\n"
		/* the first record names the tracks (the root's name before any exec) */
		"{\"ph\":\"M\",\"pid\":100,\"tid\":0,\"name\":\"process_name\",\"args\":{\"name\":"
		"\"demo\"}},\n"
		"{\"ph\":\"M\",\"pid\":100,\"tid\":101,\"name\":\"thread_name\",\"args\":{\"name\":"
		"\"demo 100/101\"}},\n"
		/* the object is the second category; no args when nothing differs per call */
		"{\"ph\":\"X\",\"pid\":100,\"tid\":101,\"ts\":2.000,\"name\":\"work\",\"cat\":"
		"\"function,lib_x.so\",\"dur\":3.000},\n"
		/* main's return first ends the work it left open, then main */
		"{\"ph\":\"X\",\"pid\":100,\"tid\":101,\"ts\":6.000,\"name\":\"work\",\"cat\":"
		"\"function,lib_x.so\",\"dur\":3.000,\"args\":{\"note\":\"no return seen: a caller "
		"returned\"}},\n"
		"{\"ph\":\"X\",\"pid\":100,\"tid\":101,\"ts\":1.000,\"name\":\"main\",\"cat\":"
		"\"function,demo\",\"dur\":8.000},\n"
		"{\"ph\":\"X\",\"pid\":100,\"tid\":101,\"ts\":9.500,\"name\":\"work\",\"cat\":"
		"\"function,lib_x.so\",\"dur\":2.500,\"args\":{\"note\":\"open at detach\"}}\n"
		"],\n"
		"\"stackFrames\":{}}\n";
	struct stream st;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(f);
	make_stream(&st);
	assert_string_equal(run(&st, bc_chrome_sink_new(f, NULL), f, &buf), want);
	free(buf);
}

/* Overview samples: a counter of the CPU used since the process's last sample, or its start. */
static void test_chrome_usage(void **state)
{
	static const char want[] =
		"{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":\"bpfcollect\","
		"\"command\":\"/opt/demo\",\"start_wall_ns\":50000001000},\n"
		"\"traceEvents\":[\n"
		/* 0.5 s user, 0.25 s system, 0.1 s waiting of the 2 s since its start */
		"{\"ph\":\"C\",\"pid\":100,\"tid\":0,\"ts\":2000000.000,\"name\":\"CPU %\",\"cat\":"
		"\"usage\",\"args\":{\"user\":25.0,\"system\":12.5,\"waiting for a CPU\":5.0}},\n"
		/* one more second, all of it user */
		"{\"ph\":\"C\",\"pid\":100,\"tid\":0,\"ts\":3000000.000,\"name\":\"CPU %\",\"cat\":"
		"\"usage\",\"args\":{\"user\":100.0,\"system\":0.0,\"waiting for a CPU\":0.0}}\n"
		/* then a sample whose counts went back (a reused pid's): no counter */
		"],\n"
		"\"stackFrames\":{}}\n";
	struct bc_rec_usage u[3] = {0};
	struct stream st;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(f);
	memset(&st, 0, sizeof(st));
	bc_functab_init(&st.funcs);
	for (int i = 0; i < 3; i++) {
		u[i].h = (struct bc_rec_head){.size = sizeof(u[i]),
					      .kind = BC_REC_USAGE,
					      .pid = PID,
					      .tid = PID,
					      .ktime = T + (uint64_t)(2 + i) * NS};
		u[i].create = T;
	}
	u[0].utime = NS / 2, u[0].stime = NS / 4, u[0].wait = NS / 10;
	u[1].utime = NS / 2 + NS, u[1].stime = NS / 4, u[1].wait = NS / 10;
	u[2].utime = 1, u[2].stime = NS, u[2].wait = NS;
	_Static_assert(sizeof(st.recs[0]) >= sizeof(u[0]), "a usage record fits a stream slot");
	memcpy(&st.recs[0], &u[0], sizeof(u[0]));
	memcpy(&st.recs[1], &u[1], sizeof(u[1]));
	memcpy(&st.recs[2], &u[2], sizeof(u[2]));
	st.n = 3;
	assert_string_equal(run(&st, bc_chrome_sink_new(f, NULL), f, &buf), want);
	free(buf);
}

static void expect_folded(enum bc_folded_weight weight, const char *want)
{
	struct bc_folded_opts o = {.weight = weight};
	struct stream st;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	make_stream(&st);
	assert_string_equal(run(&st, bc_folded_sink_new(f, &o, NULL), f, &buf), want);
	free(buf);
}

static void test_folded_calls(void **state)
{
	(void)state;
	/*
	 * main: 8000 in all, 3000 + 3000 of it in work: 2000 its own. work:
	 * 3000 + 3000, and 2500 more from 9500 to the end, under the root alone
	 * (main had returned). Frames are names, without their object.
	 */
	expect_folded(BC_FOLDED_EXCL, "demo;main 2000\n"
				      "demo;main;work 6000\n"
				      "demo;work 2500\n");
	expect_folded(BC_FOLDED_AUTO, "demo;main 2000\n"
				      "demo;main;work 6000\n"
				      "demo;work 2500\n");
	expect_folded(BC_FOLDED_INCL, "demo;main 8000\n"
				      "demo;main;work 6000\n"
				      "demo;work 2500\n");
}

/* A C++ function's frame: demangled, or raw with --no-demangle (bc_demangle_set). */
static char *folded_cxx(void)
{
	struct bc_folded_opts o = {.weight = BC_FOLDED_EXCL};
	struct stream st;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	make_stream(&st);
	free(st.funcs.v[1].name);
	st.funcs.v[1].name = strdup("_ZN2ns4workEi");
	assert_non_null(st.funcs.v[1].name);
	return run(&st, bc_folded_sink_new(f, &o, NULL), f, &buf);
}

static void test_demangled_names(void **state)
{
	char *out;

	(void)state;
	out = folded_cxx();
	assert_string_equal(out, "demo;main 2000\n"
				 "demo;main;ns::work(int) 6000\n"
				 "demo;ns::work(int) 2500\n");
	free(out);
	bc_demangle_set(false);
	out = folded_cxx();
	bc_demangle_set(true);
	/* lines in byte order: '_' before 'm' */
	assert_string_equal(out, "demo;_ZN2ns4workEi 2500\n"
				 "demo;main 2000\n"
				 "demo;main;_ZN2ns4workEi 6000\n");
	free(out);
	bc_demangle_cache_free();
}

static void test_folded_options(void **state)
{
	struct bc_folded_opts o = {0};
	char err[256];

	(void)state;
	assert_int_equal(bc_folded_weight_parse(&o, "incl", err, sizeof(err)), 0);
	assert_int_equal(o.weight, BC_FOLDED_INCL);
	assert_int_equal(bc_folded_weight_parse(&o, "INCL", err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "--weight takes samples, time, excl, incl or auto, not 'INCL'");
	o.offcpu = true;
	assert_int_equal(bc_folded_opts_check(&o, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "--offcpu stacks weigh their time (--weight=time), not "
				 "--weight=incl");
	o.weight = BC_FOLDED_TIME;
	assert_int_equal(bc_folded_opts_check(&o, err, sizeof(err)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_strings),	cmocka_unit_test(test_json_us),
		cmocka_unit_test(test_path_ids),	cmocka_unit_test(test_sys_merge),
		cmocka_unit_test(test_chrome_calls),	cmocka_unit_test(test_chrome_usage),
		cmocka_unit_test(test_folded_calls),	cmocka_unit_test(test_folded_options),
		cmocka_unit_test(test_demangled_names),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);

	bc_state_free(&producer_state);
	return rc;
}
