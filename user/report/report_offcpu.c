// SPDX-License-Identifier: MIT
/*
 * `report offcpu`: the off-CPU intervals (BC_REC_OFFCPU) of a tree of
 * experiments, by thread, by the syscall a thread was in when switched out,
 * and by function of its user stack at switch-out.
 *
 * Each interval [off_ktime, h.ktime] is split as the experiment's clock
 * data splits it for gprofng (Sleep, User Lock, Wait CPU): a thread that
 * blocked (state != 0, not preempted) sleeps until its wakeup (wake_ktime
 * when it lies in (off, on], else the whole interval), as User Lock when it
 * blocked in a futex, and waits for a CPU the rest; a preempted or runnable
 * thread waits for a CPU the whole interval.
 *
 * Where the records and the mappings are: a kernel experiment (record -k,
 * -a) keeps every process's records in the founder (pid 0) and its map.xml
 * in its subexperiment _COMM_PID_PID.N.er; a plain one (--offcpu) keeps
 * both in the same experiment. So every experiment of the tree is read
 * first (its pid, start and segments, and its records), then each record's
 * frames are named with the segments of the experiment of its pid: the
 * latest one started by the switch-out (an exec makes a new one), else the
 * first. A record of a pid with no experiment has <Unknown> frames.
 *
 * Functions: frames are named as the clock profile names them
 * (bpfcollect/pcname.h); the leaf is the exact pc, callers are return
 * addresses, named at pc - 1 (gprofng does the same) so a call ending a
 * function stays in it. Exclusive time goes to the leaf frame's function
 * whatever its object, as gprofng's leaf attribution does: a thread
 * blocked in read() through libc shows `read` of libc.so.6 (the shortest
 * alias), not its caller in the program, which has the time inclusive.
 * Inclusive time goes once per interval to every distinct function on the
 * stack. An interval without user frames (a kernel thread, or a stack that
 * could not be walked) counts for <no user stack>. The pid filter applies
 * as records are read; the naming tables come from every experiment.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bpfcollect/demangle.h"
#include "bpfcollect/experiment.h"
#include "bpfcollect/pcname.h"
#include "bpfcollect/report_offcpu.h"
#include "bpfcollect/syscalls.h"
#include "table.h"

#define NO_STACK "<no user stack>"

/* One experiment of the tree. */
struct exp_data {
	char *path;
	uint32_t pid;
	uint64_t start;
	struct bc_segments segs;
	bool timeless; /* names can be cached by pc */
};

/* One off-CPU interval, after the pid filter. */
struct interval {
	uint32_t pid, tid;
	uint64_t off, len, sleep, lock, wait; /* ns */
	int32_t syscall;
	bool voluntary;
	uint32_t n_pcs;
	size_t first_pc; /* into report.pcs */
};

struct func_total {
	const char *name; /* owned by report.index */
	const char *object;
	uint64_t excl, excl_sleep, excl_lock, excl_wait, incl;
	size_t last; /* interval serial + 1 that last counted inclusive */
};

/* Names already found for a pc of a timeless experiment. */
struct pc_slot {
	uint64_t pc;
	uint32_t exp_plus1; /* 0: free */
	int32_t fn;
};

struct report {
	uint32_t only_pid;
	struct exp_data *exps;
	size_t n_exps;
	size_t *by_pid; /* indexes into exps by pid */
	struct interval *iv;
	size_t n_iv, cap_iv;
	uint64_t *pcs;
	size_t n_pcs, cap_pcs;
	uint64_t records; /* before the pid filter */
	struct bc_pcnamer namer;
	struct bc_fnindex index;
	struct func_total *funcs;
	size_t n_funcs, cap_funcs;
	struct pc_slot *cache;
	size_t n_cache, cap_cache; /* cap: power of 2 */
};

/* ------------------------------------------------------------ reading */

struct collect_sink {
	struct bc_sink base;
	struct report *r;
	struct bc_segments *segs;
};

static void split(const struct bc_rec_offcpu *o, struct interval *iv)
{
	uint64_t sleep, wait;

	bc_offcpu_split(o, &sleep, &wait);
	iv->len = sleep + wait;
	iv->voluntary = o->state != 0 && !o->preempt;
	iv->lock = bc_offcpu_is_lock(o) ? sleep : 0;
	iv->sleep = sleep - iv->lock;
	iv->wait = wait;
}

static int add_interval(struct report *r, const struct bc_rec_offcpu *o, size_t rec_size)
{
	/* The decoder checked it; still no frame past the record. */
	size_t room = (rec_size - sizeof(*o)) / sizeof(o->ips[0]);
	size_t n = o->n_user < room ? o->n_user : room;
	struct interval *iv;

	if (r->n_iv == r->cap_iv) {
		size_t cap = r->cap_iv ? 2 * r->cap_iv : 256;
		struct interval *v = realloc(r->iv, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		r->iv = v;
		r->cap_iv = cap;
	}
	if (r->n_pcs + n > r->cap_pcs) {
		size_t cap = r->cap_pcs ? 2 * r->cap_pcs : 1024;
		uint64_t *v;

		while (cap < r->n_pcs + n)
			cap *= 2;
		v = realloc(r->pcs, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		r->pcs = v;
		r->cap_pcs = cap;
	}
	iv = &r->iv[r->n_iv++];
	memset(iv, 0, sizeof(*iv));
	iv->pid = o->h.pid;
	iv->tid = o->h.tid;
	iv->off = o->off_ktime;
	iv->syscall = o->syscall;
	split(o, iv);
	iv->n_pcs = (uint32_t)n;
	iv->first_pc = r->n_pcs;
	if (n)
		memcpy(r->pcs + r->n_pcs, o->ips, n * sizeof(o->ips[0]));
	r->n_pcs += n;
	return 0;
}

static int collect_event(struct bc_sink *s, const struct bc_event *ev)
{
	struct collect_sink *c = (struct collect_sink *)s;
	const struct bc_rec_head *h = ev->rec;

	if (h->kind != BC_REC_OFFCPU || h->size < sizeof(struct bc_rec_offcpu))
		return 0;
	c->r->records++;
	if (c->r->only_pid && h->pid != c->r->only_pid)
		return 0;
	return add_interval(c->r, (const struct bc_rec_offcpu *)h, h->size);
}

static int collect_mapping(struct bc_sink *s, const struct bc_mapping *m)
{
	return bc_segments_add(((struct collect_sink *)s)->segs, m);
}

static const struct bc_sink_ops collect_ops = {
	.name = "offcpu",
	.event = collect_event,
	.mapping = collect_mapping,
};

static int read_exp(struct report *r, const char *path, char *err, size_t errlen)
{
	struct exp_data *v = realloc(r->exps, (r->n_exps + 1) * sizeof(*v)), *x;
	struct collect_sink sink = {.base.ops = &collect_ops, .r = r};
	struct bc_er_info info;
	int rc;

	if (!v)
		return -ENOMEM;
	r->exps = v;
	x = &v[r->n_exps];
	memset(x, 0, sizeof(*x));
	x->path = strdup(path);
	if (!x->path)
		return -ENOMEM;
	r->n_exps++;
	sink.segs = &x->segs;
	memset(&info, 0, sizeof(info));
	rc = bc_er_read(path, &sink.base, &info, err, errlen);
	x->pid = info.root_pid;
	x->start = info.start_ktime;
	x->timeless = bc_segments_timeless(&x->segs);
	bc_er_info_free(&info);
	return rc;
}

/* ------------------------------------------------------------ naming */

static int cmp_exp_pid(const void *a, const void *b, void *arg)
{
	const struct exp_data *v = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	if (v[x].pid != v[y].pid)
		return v[x].pid < v[y].pid ? -1 : 1;
	return (x > y) - (x < y);
}

/* r->by_pid: the experiments' indexes by pid (then tree order). -ENOMEM. */
static int index_exps(struct report *r)
{
	r->by_pid = malloc((r->n_exps ? r->n_exps : 1) * sizeof(*r->by_pid));
	if (!r->by_pid)
		return -ENOMEM;
	for (size_t i = 0; i < r->n_exps; i++)
		r->by_pid[i] = i;
	qsort_r(r->by_pid, r->n_exps, sizeof(*r->by_pid), cmp_exp_pid, r->exps);
	return 0;
}

/*
 * The experiment naming the frames of an interval, or -1: of its pid, the
 * latest started by its switch-out, else the first.
 */
static long exp_for(const struct report *r, const struct interval *iv)
{
	size_t lo = 0, hi = r->n_exps;
	long best = -1;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->exps[r->by_pid[mid]].pid < iv->pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < r->n_exps && r->exps[r->by_pid[i]].pid == iv->pid; i++) {
		const struct exp_data *x = &r->exps[r->by_pid[i]];

		if (x->start <= iv->off && (best < 0 || x->start > r->exps[best].start))
			best = (long)r->by_pid[i];
	}
	if (best < 0 && lo < r->n_exps && r->exps[r->by_pid[lo]].pid == iv->pid)
		best = (long)r->by_pid[lo];
	return best;
}

static int func_get(struct report *r, const char *name, const char *object)
{
	int fi = bc_fnindex_get(&r->index, name, object);

	if (fi < 0 || (size_t)fi < r->n_funcs)
		return fi;
	if (r->n_funcs == r->cap_funcs) {
		size_t cap = r->cap_funcs ? 2 * r->cap_funcs : 64;
		struct func_total *v = realloc(r->funcs, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		r->funcs = v;
		r->cap_funcs = cap;
	}
	r->funcs[r->n_funcs] = (struct func_total){.name = bc_sym_display(r->index.v[fi].name),
						   .object = r->index.v[fi].object};
	return (int)r->n_funcs++;
}

static size_t pc_hash(uint64_t pc, uint32_t exp)
{
	uint64_t h = (pc ^ ((uint64_t)exp << 48)) * 0x9e3779b97f4a7c15ULL;

	return (size_t)(h >> 17);
}

static struct pc_slot *cache_slot(struct report *r, uint64_t pc, uint32_t exp_plus1)
{
	size_t mask = r->cap_cache - 1, i = pc_hash(pc, exp_plus1) & mask;

	while (r->cache[i].exp_plus1 &&
	       (r->cache[i].pc != pc || r->cache[i].exp_plus1 != exp_plus1))
		i = (i + 1) & mask;
	return &r->cache[i];
}

static void cache_put(struct report *r, uint64_t pc, uint32_t exp_plus1, int fn)
{
	struct pc_slot *s;

	if (2 * (r->n_cache + 1) > r->cap_cache) {
		size_t cap = r->cap_cache ? 2 * r->cap_cache : 1024;
		struct pc_slot *old = r->cache, *v = calloc(cap, sizeof(*v));
		size_t old_cap = r->cap_cache;

		if (!v)
			return; /* no cache: names are found again */
		r->cache = v;
		r->cap_cache = cap;
		for (size_t i = 0; i < old_cap; i++)
			if (old[i].exp_plus1)
				*cache_slot(r, old[i].pc, old[i].exp_plus1) = old[i];
		free(old);
	}
	s = cache_slot(r, pc, exp_plus1);
	if (!s->exp_plus1)
		r->n_cache++;
	*s = (struct pc_slot){pc, exp_plus1, fn};
}

/* The function index of frame pc of an interval named through experiment x (-1: none). */
static int name_frame(struct report *r, long x, uint64_t pc, uint64_t when)
{
	static const struct bc_segments none;
	static const struct bc_ksyms no_ksyms;
	const struct exp_data *e = x >= 0 ? &r->exps[x] : NULL;
	uint32_t key = (uint32_t)(x + 1);
	const char *name, *object;
	int rc;

	if (e && e->timeless && r->cap_cache) {
		const struct pc_slot *s = cache_slot(r, pc, key);

		if (s->exp_plus1)
			return s->fn;
	}
	rc = bc_pcname(&r->namer, e ? e->path : "", e ? &e->segs : &none, &no_ksyms, pc, when,
		       &name, &object);
	if (rc < 0)
		return rc;
	rc = func_get(r, name, object);
	if (rc >= 0 && e && e->timeless)
		cache_put(r, pc, key, rc);
	return rc;
}

static int name_intervals(struct report *r)
{
	for (size_t i = 0; i < r->n_iv; i++) {
		const struct interval *iv = &r->iv[i];
		long x = exp_for(r, iv);
		int fi;

		if (!iv->n_pcs) {
			fi = func_get(r, NO_STACK, "");
			if (fi < 0)
				return fi;
			r->funcs[fi].excl += iv->len;
			r->funcs[fi].excl_sleep += iv->sleep;
			r->funcs[fi].excl_lock += iv->lock;
			r->funcs[fi].excl_wait += iv->wait;
			r->funcs[fi].incl += iv->len;
			continue;
		}
		for (size_t f = 0; f < iv->n_pcs; f++) {
			uint64_t pc = r->pcs[iv->first_pc + f];

			fi = name_frame(r, x, f && pc ? pc - 1 : pc, iv->off);
			if (fi < 0)
				return fi;
			struct func_total *t = &r->funcs[fi];

			if (f == 0) {
				t->excl += iv->len;
				t->excl_sleep += iv->sleep;
				t->excl_lock += iv->lock;
				t->excl_wait += iv->wait;
			}
			if (t->last != i + 1) {
				t->last = i + 1;
				t->incl += iv->len;
			}
		}
	}
	return 0;
}

/* ------------------------------------------------------------ tables */

struct row {
	uint32_t pid, tid; /* threads */
	int32_t syscall;   /* syscalls */
	uint64_t count, off, sleep, lock, wait, voluntary, preempted, longest;
};

static int cmp_thread_key(const void *a, const void *b)
{
	const struct interval *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

static int cmp_syscall_key(const void *a, const void *b)
{
	const struct interval *x = a, *y = b;

	return (x->syscall > y->syscall) - (x->syscall < y->syscall);
}

static const char *syscall_label(int32_t nr, char *buf, size_t len)
{
	const char *name = nr >= 0 ? bc_syscall_name((unsigned int)nr) : NULL;

	if (nr == -1)
		return "(user code)";
	if (name)
		return name;
	snprintf(buf, len, "syscall_%" PRId32, nr);
	return buf;
}

static int cmp_row(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	char bx[32], by[32];

	if (x->off != y->off)
		return x->off < y->off ? 1 : -1;
	if (x->pid != y->pid) /* threads; syscall rows have pid 0 */
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return strcmp(syscall_label(x->syscall, bx, sizeof(bx)),
		      syscall_label(y->syscall, by, sizeof(by)));
}

/*
 * Rows of the intervals grouped by key (sorted by it first), biggest
 * off-CPU first. NULL on -ENOMEM; *n rows.
 */
static struct row *group(struct report *r, int (*key)(const void *, const void *), bool thread,
			 size_t *n)
{
	struct row *rows = calloc(r->n_iv ? r->n_iv : 1, sizeof(*rows));

	*n = 0;
	if (!rows)
		return NULL;
	qsort(r->iv, r->n_iv, sizeof(*r->iv), key);
	for (size_t i = 0; i < r->n_iv; i++) {
		const struct interval *iv = &r->iv[i];
		struct row *w = &rows[*n ? *n - 1 : 0];

		if (!*n || key(iv, &r->iv[i - 1])) {
			w = &rows[(*n)++];
			if (thread) {
				w->pid = iv->pid;
				w->tid = iv->tid;
			} else {
				w->syscall = iv->syscall;
			}
		}
		w->count++;
		w->off += iv->len;
		w->sleep += iv->sleep;
		w->lock += iv->lock;
		w->wait += iv->wait;
		*(iv->voluntary ? &w->voluntary : &w->preempted) += 1;
		if (iv->len > w->longest)
			w->longest = iv->len;
	}
	qsort(rows, *n, sizeof(*rows), cmp_row);
	return rows;
}

static void secs(FILE *out, int width, uint64_t ns)
{
	fprintf(out, "  %*.3f", width, (double)ns / 1e9);
}

static void print_threads(FILE *out, const struct row *rows, size_t n)
{
	fprintf(out, "By thread:\n");
	fprintf(out, "  %8s  %8s  %9s  %9s  %9s  %9s  %9s  %9s  %9s  %9s\n", "PID", "TID",
		"Intervals", "Off-CPU", "Sleep", "User Lock", "Wait CPU", "Voluntary", "Preempted",
		"Longest");
	fprintf(out, "  %8s  %8s  %9s  %9s  %9s  %9s  %9s  %9s  %9s  %9s\n", "", "", "", "(s)",
		"(s)", "(s)", "(s)", "", "", "(ms)");
	for (size_t i = 0; i < n; i++) {
		const struct row *w = &rows[i];

		fprintf(out, "  %8" PRIu32 "  %8" PRIu32 "  %9" PRIu64, w->pid, w->tid, w->count);
		secs(out, 9, w->off);
		secs(out, 9, w->sleep);
		secs(out, 9, w->lock);
		secs(out, 9, w->wait);
		fprintf(out, "  %9" PRIu64 "  %9" PRIu64 "  %9.3f\n", w->voluntary, w->preempted,
			(double)w->longest / 1e6);
	}
}

static void print_syscalls(FILE *out, const struct row *rows, size_t n)
{
	char buf[32];
	int w = bc_slen("Syscall");

	for (size_t i = 0; i < n; i++)
		w = bc_max_int(w, bc_slen(syscall_label(rows[i].syscall, buf, sizeof(buf))));
	fprintf(out, "By syscall at switch-out:\n");
	fprintf(out, "  %-*s  %9s  %9s  %9s  %9s  %9s\n", w, "Syscall", "Intervals", "Off-CPU",
		"Sleep", "User Lock", "Wait CPU");
	fprintf(out, "  %-*s  %9s  %9s  %9s  %9s  %9s\n", w, "", "", "(s)", "(s)", "(s)", "(s)");
	for (size_t i = 0; i < n; i++) {
		fprintf(out, "  %-*s  %9" PRIu64, w,
			syscall_label(rows[i].syscall, buf, sizeof(buf)), rows[i].count);
		secs(out, 9, rows[i].off);
		secs(out, 9, rows[i].sleep);
		secs(out, 9, rows[i].lock);
		secs(out, 9, rows[i].wait);
		fputc('\n', out);
	}
}

static int cmp_func(const void *a, const void *b)
{
	const struct func_total *x = a, *y = b;
	int c;

	if (x->excl != y->excl)
		return x->excl < y->excl ? 1 : -1;
	if (x->incl != y->incl)
		return x->incl < y->incl ? 1 : -1;
	c = strcmp(x->name, y->name);
	return c ? c : strcmp(x->object, y->object);
}

static void print_funcs(FILE *out, struct report *r, size_t top, const struct row *total)
{
	size_t shown;
	int objw = bc_slen("Object");

	if (r->n_funcs)
		qsort(r->funcs, r->n_funcs, sizeof(*r->funcs), cmp_func);
	shown = top && top < r->n_funcs ? top : r->n_funcs;
	if (shown < r->n_funcs)
		fprintf(out, "By function, top %zu of %zu by exclusive off-CPU:\n", shown,
			r->n_funcs);
	else
		fprintf(out, "By function:\n");
	for (size_t i = 0; i < shown; i++)
		objw = bc_max_int(objw, bc_slen(r->funcs[i].object));
	fprintf(out, "  %13s  %11s  %15s  %14s  %13s  %-*s  %s\n", "Excl. Off-CPU", "Excl. Sleep",
		"Excl. User Lock", "Excl. Wait CPU", "Incl. Off-CPU", objw, "Object", "Name");
	fprintf(out, "  %13s  %11s  %15s  %14s  %13s  %-*s  %s\n", "(s)", "(s)", "(s)", "(s)",
		"(s)", objw, "", "");
	secs(out, 13, total->off);
	secs(out, 11, total->sleep);
	secs(out, 15, total->lock);
	secs(out, 14, total->wait);
	secs(out, 13, total->off);
	fprintf(out, "  %-*s  %s\n", objw, "", "<Total>");
	for (size_t i = 0; i < shown; i++) {
		const struct func_total *f = &r->funcs[i];

		secs(out, 13, f->excl);
		secs(out, 11, f->excl_sleep);
		secs(out, 15, f->excl_lock);
		secs(out, 14, f->excl_wait);
		secs(out, 13, f->incl);
		fprintf(out, "  %-*s  %s\n", objw, f->object, f->name);
	}
}

/* ------------------------------------------------------------ the view */

static void report_free(struct report *r)
{
	for (size_t i = 0; i < r->n_exps; i++) {
		free(r->exps[i].path);
		bc_segments_free(&r->exps[i].segs);
	}
	free(r->exps);
	free(r->by_pid);
	free(r->iv);
	free(r->pcs);
	free(r->funcs);
	free(r->cache);
	bc_fnindex_free(&r->index);
	bc_pcnamer_free(&r->namer);
}

static int each_exp(const char *path, const char *name, size_t index, void *arg, char *err,
		    size_t errlen)
{
	(void)name;
	(void)index;
	return read_exp(arg, path, err, errlen);
}

int bc_report_offcpu(const char *exp_path, bool descendants, uint32_t pid, size_t top, FILE *out,
		     char *err, size_t errlen)
{
	struct report r = {.only_pid = pid};
	struct row *threads = NULL, *syscalls = NULL;
	size_t n_threads = 0, n_syscalls = 0;
	struct row total = {0};
	char dummy[1];
	int rc;

	if (!err) {
		err = dummy;
		errlen = sizeof(dummy);
	}
	rc = bc_er_tree_each(exp_path, descendants, each_exp, &r, err, errlen);
	if (rc < 0)
		goto out;
	if (!r.n_iv) {
		if (r.records && pid)
			snprintf(err, errlen, "%s has no off-CPU data for process %" PRIu32,
				 exp_path, pid);
		else
			snprintf(err, errlen, "%s has no off-CPU data (record with -k or --offcpu)",
				 exp_path);
		rc = -ENOENT;
		goto out;
	}
	rc = index_exps(&r);
	if (rc == 0)
		rc = name_intervals(&r);
	if (rc < 0)
		goto out;
	for (size_t i = 0; i < r.n_iv; i++) {
		total.off += r.iv[i].len;
		total.sleep += r.iv[i].sleep;
		total.lock += r.iv[i].lock;
		total.wait += r.iv[i].wait;
	}
	threads = group(&r, cmp_thread_key, true, &n_threads);
	syscalls = threads ? group(&r, cmp_syscall_key, false, &n_syscalls) : NULL;
	if (!syscalls) {
		rc = -ENOMEM;
		goto out;
	}
	fprintf(out,
		"Off-CPU: %zu interval%s in %zu thread%s: %.3f s off CPU (sleep %.3f s, user lock "
		"%.3f s, wait CPU %.3f s)\n\n",
		r.n_iv, r.n_iv == 1 ? "" : "s", n_threads, n_threads == 1 ? "" : "s",
		(double)total.off / 1e9, (double)total.sleep / 1e9, (double)total.lock / 1e9,
		(double)total.wait / 1e9);
	print_threads(out, threads, n_threads);
	fputc('\n', out);
	print_syscalls(out, syscalls, n_syscalls);
	fputc('\n', out);
	print_funcs(out, &r, top, &total);
	rc = 0;
out:
	if (rc == -ENOMEM)
		snprintf(err, errlen, "out of memory reading the off-CPU data of %s", exp_path);
	free(threads);
	free(syscalls);
	report_free(&r);
	return rc;
}
