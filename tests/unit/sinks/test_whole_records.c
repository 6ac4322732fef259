// SPDX-License-Identifier: MIT
/*
 * Every single-file format on a full disk (a file size limit here, which
 * fails a write as a full disk does, with EFBIG): the file a recording or
 * a conversion leaves ends at its last whole record, valid for its format
 * (chrome: a JSON document with its end; GTF: whole records; text, PRF:
 * whole lines), what it holds is what the format writes with room to
 * spare, up to there, and the line commit gives says how many records it
 * lacks. The format's sink sees no error: the stream goes on, counted.
 * RTL's files, one per process, say so themselves.
 */
#include <signal.h>
#include <sys/resource.h>

#include "producer_fixture.h"

#include "bpfcollect/formats.h"
#include "bpfcollect/gtf_dump.h"
#include "bpfcollect/outfile.h"

#define CALLS 200
#define LIMIT 3000

struct output {
	int commit_rc;
	char err[1024];
	char *text; /* the file's bytes, NUL-terminated */
	size_t len;
};

/* A call on tid: its entry, a write(2) inside, its return; 1 ms apart, past reorder windows. */
static void call(struct fixture *fx, struct bc_sink *s, uint32_t tid, uint64_t *seq, uint64_t at)
{
	union any_rec r;

	memset(&r, 0, sizeof(r));
	r.h = (struct bc_rec_head){.size = sizeof(r.fe),
				   .kind = BC_REC_FUNC_ENTRY,
				   .pid = (uint32_t)getpid(),
				   .tid = tid,
				   .seq = ++*seq,
				   .ktime = at};
	r.fe.func_id = 1;
	feed_raw(s, &r, &fx->funcs);
	r.h.size = sizeof(r.se), r.h.kind = BC_REC_SYS_ENTER, r.h.seq = ++*seq, r.h.depth = 1;
	r.h.ktime = at + 1000;
	memset(&r.se.nr, 0, sizeof(r) - sizeof(r.h));
	r.se.nr = NR_WRITE, r.se.args[0] = 1, r.se.args[2] = 42;
	feed_raw(s, &r, &fx->funcs);
	r.h.size = sizeof(r.sx), r.h.kind = BC_REC_SYS_EXIT, r.h.seq = ++*seq;
	r.h.ktime = at + 2000;
	memset(&r.sx.nr, 0, sizeof(r) - sizeof(r.h));
	r.sx.nr = NR_WRITE, r.sx.ret = 42, r.sx.enter_ktime = at + 1000;
	feed_raw(s, &r, &fx->funcs);
	r.h.size = sizeof(r.fr), r.h.kind = BC_REC_FUNC_RETURN, r.h.seq = ++*seq, r.h.depth = 0;
	r.h.ktime = at + 3000;
	memset(&r.fr.func_id, 0, sizeof(r) - sizeof(r.h));
	r.fr.func_id = 1, r.fr.entry_ktime = at, r.fr.retval = 42;
	feed_raw(s, &r, &fx->funcs);
}

static struct rlimit saved_fsize;

/* Files grow to limit bytes (0: as they were), no more: a write past it fails with EFBIG. */
static void limit_files(rlim_t limit)
{
	struct rlimit lim;

	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &saved_fsize), 0);
	lim = saved_fsize;
	if (limit)
		lim.rlim_cur = limit;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
}

static void unlimit_files(void)
{
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &saved_fsize), 0);
	signal(SIGXFSZ, SIG_DFL);
}

/* The stream into s, begun and ended; the end's return. Every event op returns 0. */
static int stream(struct fixture *fx, struct bc_sink *s)
{
	struct bc_session sess = session(fx);
	struct bc_session_end end = {.exit_status = 0, .end_ktime = T0 + CALLS * NS / 1000};
	uint64_t seq[2] = {0, 0};

	begin(s, &sess);
	for (uint64_t i = 0; i < CALLS; i++)
		call(fx, s, i % 2 ? TID_WORKER : (uint32_t)getpid(), &seq[i % 2],
		     T0 + i * NS / 1000);
	return bc_sink_end(s, &end);
}

/* Writes the stream in format into file name of fx->dir, with files limited to limit (0: not). */
static void run(struct fixture *fx, const char *format, const char *name, rlim_t limit,
		struct output *out)
{
	struct bc_format_opts opts;
	struct bc_format_args a = {.opts = &opts};
	struct bc_outfile o;
	struct bc_sink *s;
	char path[4200];

	snprintf(path, sizeof(path), "%s/%s", fx->dir, name);
	bc_format_opts_init(&opts);
	assert_int_equal(
		bc_outfile_open(&o, path, BC_OUTFILE_CREATE, NULL, out->err, sizeof(out->err)), 0);
	s = bc_format_file_sink_new(bc_format_find(format), &a, &o, out->err, sizeof(out->err));
	assert_non_null(s);
	limit_files(limit);
	/* a full disk is no error of the format's: its ops all return 0 */
	assert_int_equal(stream(fx, s), 0);
	bc_sink_destroy(s);
	out->commit_rc = bc_outfile_commit(&o, out->err, sizeof(out->err));
	unlimit_files();
	out->text = slurp(fx->dir, name, &out->len);
}

/*
 * The rtl format into PREFIX_PID.log of fx->dir (a file per process, of
 * its own): out->commit_rc is its end's return, out->err what it said on
 * stderr.
 */
static void run_rtl(struct fixture *fx, const char *prefix, rlim_t limit, struct output *out)
{
	struct bc_format_opts opts;
	char path[4200], name[64];
	struct bc_format_args a = {.opts = &opts, .prefix = path};
	struct bc_sink *s;
	int saved, fd;

	snprintf(path, sizeof(path), "%s/%s.err", fx->dir, prefix);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	snprintf(path, sizeof(path), "%s/%s", fx->dir, prefix);
	bc_format_opts_init(&opts);
	s = bc_format_find("rtl")->new_sink(&a, out->err, sizeof(out->err));
	assert_non_null(s);
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	assert_int_equal(dup2(fd, STDERR_FILENO), STDERR_FILENO);
	close(fd);
	limit_files(limit);
	out->commit_rc = stream(fx, s);
	bc_sink_destroy(s);
	unlimit_files();
	fflush(stderr);
	assert_int_equal(dup2(saved, STDERR_FILENO), STDERR_FILENO);
	close(saved);
	snprintf(name, sizeof(name), "%s.err", prefix);
	out->text = slurp(fx->dir, name, &out->len);
	snprintf(out->err, sizeof(out->err), "%s", out->text);
	free(out->text);
	snprintf(name, sizeof(name), "%s_%d.log", prefix, (int)getpid());
	out->text = slurp(fx->dir, name, &out->len);
}

/* The N of "N records were not written" in err. */
static uint64_t unwritten_said(const char *err)
{
	const char *at = strstr(err, "it ends at its last whole record, and ");
	unsigned long long n;

	if (!at || sscanf(at + strlen("it ends at its last whole record, and "),
			  "%llu records were not written", &n) != 1)
		fail_msg("'%s' does not say where the file ends and what it lacks", err);
	return n;
}

static size_t count_lines(const char *s, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++)
		n += s[i] == '\n';
	return n;
}

/*
 * The format written whole, and with a limit: the one cut short is the
 * whole one up to a record end (and the tail), said as such. Returns the
 * count said; *whole and *cut hold the two files.
 */
static uint64_t cut_and_whole(struct fixture *fx, const char *format, struct output *whole,
			      struct output *cut, size_t tail_len)
{
	run(fx, format, "whole", 0, whole);
	assert_int_equal(whole->commit_rc, 0);
	assert_true(whole->len > LIMIT);
	run(fx, format, "cut", LIMIT, cut);
	assert_int_equal(cut->commit_rc, -EFBIG);
	assert_true(cut->len > tail_len && cut->len <= LIMIT);
	assert_memory_equal(cut->text, whole->text, cut->len - tail_len);
	return unwritten_said(cut->err);
}

static void free_outputs(struct output *a, struct output *b)
{
	free(a->text);
	free(b->text);
}

static void test_text(void **state)
{
	struct output whole, cut;
	uint64_t n = cut_and_whole(*state, "text", &whole, &cut, 0);

	assert_int_equal(cut.text[cut.len - 1], '\n');
	assert_int_equal(count_lines(cut.text, cut.len) + n, count_lines(whole.text, whole.len));
	free_outputs(&whole, &cut);
}

static void test_prf_csv(void **state)
{
	struct output whole, cut;
	uint64_t n = cut_and_whole(*state, "prf-csv", &whole, &cut, 0);

	/* whole lines: the header, then the records; the header is no record */
	assert_int_equal(cut.text[cut.len - 1], '\n');
	assert_true(count_lines(cut.text, cut.len) > 1);
	assert_int_equal(count_lines(cut.text, cut.len) + n, count_lines(whole.text, whole.len));
	free_outputs(&whole, &cut);
}

static void test_prf_dump(void **state)
{
	struct output whole, cut;

	cut_and_whole(*state, "prf-dump", &whole, &cut, 0);
	/* a record is a block of lines; the next begins after the blank line that ends it */
	assert_true(cut.len >= 2 && !memcmp(cut.text + cut.len - 2, "\n\n", 2));
	free_outputs(&whole, &cut);
}

static void test_gtf(void **state)
{
	struct bc_gtf_dump_stats cs = {0}, ws = {0};
	struct bc_gtf_dump_opts o = {.no_hex = true};
	struct output whole, cut;
	uint64_t n = cut_and_whole(*state, "gtf", &whole, &cut, 0);
	FILE *null = fopen("/dev/null", "w");

	assert_non_null(null);
	assert_int_equal(bc_gtf_dump((uint8_t *)cut.text, cut.len, "cut", &o, null, null, &cs), 0);
	assert_int_equal(
		bc_gtf_dump((uint8_t *)whole.text, whole.len, "whole", &o, null, null, &ws), 0);
	fclose(null);
	assert_true(cs.events > 0);
	assert_int_equal(cs.events + n, ws.events);
	free_outputs(&whole, &cut);
}

/* ---------------------------------------------------------------- JSON, to be sure of it */

static const char *json_value(const char *p);

static const char *json_ws(const char *p)
{
	while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
		p++;
	return p;
}

static const char *json_string(const char *p)
{
	if (*p++ != '"')
		return NULL;
	for (; *p && *p != '"'; p++)
		if (*p == '\\' && !*++p)
			return NULL;
	return *p == '"' ? p + 1 : NULL;
}

/* The members of an object or the items of an array, up to close. */
static const char *json_items(const char *p, char close, bool members)
{
	p = json_ws(p + 1);
	if (*p == close)
		return p + 1;
	for (;;) {
		if (members) {
			p = json_string(json_ws(p));
			if (!p || *(p = json_ws(p)) != ':')
				return NULL;
			p++;
		}
		p = json_value(p);
		if (!p)
			return NULL;
		p = json_ws(p);
		if (*p == close)
			return p + 1;
		if (*p++ != ',')
			return NULL;
	}
}

static const char *json_value(const char *p)
{
	p = json_ws(p);
	if (*p == '{')
		return json_items(p, '}', true);
	if (*p == '[')
		return json_items(p, ']', false);
	if (*p == '"')
		return json_string(p);
	if (!strncmp(p, "true", 4) || !strncmp(p, "null", 4))
		return p + 4;
	if (!strncmp(p, "false", 5))
		return p + 5;
	if (*p != '-' && (*p < '0' || *p > '9'))
		return NULL;
	while (*p == '-' || *p == '+' || *p == '.' || *p == 'e' || *p == 'E' ||
	       (*p >= '0' && *p <= '9'))
		p++;
	return p;
}

static bool json_valid(const char *text)
{
	const char *end = json_value(text);

	return end && !*json_ws(end);
}

static void test_chrome(void **state)
{
	struct output whole, cut;
	uint64_t n = cut_and_whole(*state, "chrome", &whole, &cut, strlen("\n]}\n"));

	assert_true(json_valid(whole.text));
	/* the events up to a whole one, then the array's and the object's ends */
	assert_true(json_valid(cut.text));
	assert_string_equal(cut.text + cut.len - 4, "\n]}\n");
	assert_int_equal(cut.text[cut.len - 5], '}');
	assert_true(n > 0);
	free_outputs(&whole, &cut);
}

static void test_rtl(void **state)
{
	struct output whole, cut;
	uint64_t n;

	run_rtl(*state, "whole", 0, &whole);
	assert_int_equal(whole.commit_rc, 0);
	assert_string_equal(whole.err, "");
	assert_true(whole.len > LIMIT);
	run_rtl(*state, "cut", LIMIT, &cut);
	/* said, and the end's error, so that the command ends with it */
	assert_int_equal(cut.commit_rc, -EFBIG);
	if (!strstr(cut.err, "/cut_") || !strstr(cut.err, ".log: File too large"))
		fail_msg("'%s' does not name the file", cut.err);
	n = unwritten_said(cut.err);
	assert_true(cut.len > 0 && cut.len <= LIMIT);
	assert_int_equal(cut.text[cut.len - 1], '\n');
	assert_memory_equal(cut.text, whole.text, cut.len);
	assert_int_equal(count_lines(cut.text, cut.len) + n, count_lines(whole.text, whole.len));
	free_outputs(&whole, &cut);
}

static void test_json_check(void **state)
{
	(void)state;
	assert_true(json_valid("{\"a\":[1,-2.5e3,\"x\\\"y\",{},[]],\"b\":null}\n"));
	assert_false(json_valid("{\"a\":[1,2}"));
	assert_false(json_valid("{\"traceEvents\":[\n{\"ph\":\"X\",\"ts\":1"));
	assert_false(json_valid("[1,]"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_check),
		cmocka_unit_test_setup_teardown(test_text, setup, teardown),
		cmocka_unit_test_setup_teardown(test_prf_csv, setup, teardown),
		cmocka_unit_test_setup_teardown(test_prf_dump, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gtf, setup, teardown),
		cmocka_unit_test_setup_teardown(test_chrome, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rtl, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
