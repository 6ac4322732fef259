// SPDX-License-Identifier: MIT
/*
 * `report procs`: per process, what the kernel saw of it: CPU time, time
 * off CPU (blocked, and runnable but waiting for a CPU), context switches,
 * syscalls, lifetime and exit. The kernel experiment's founder (record -k,
 * -a) holds these records for every traced process; a plain experiment
 * holds its own process's (record --offcpu).
 *
 * CPU time is exact where the kernel's own count covers the recording: a
 * process born while recording that exited carries its total CPU in its
 * exit record. Otherwise it is what the off-CPU records show: each carries
 * the thread's CPU total at switch-out, so CPU between the first and the
 * last switch-out seen is exact, and for a thread born while recording the
 * first total counts from zero. Time on CPU before the first or after the
 * last switch of a thread that lived on is not seen; such rows are marked
 * with '+' (at least this much).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bpfcollect/termsafe.h"
#include "bpfcollect/experiment.h"
#include "bpfcollect/containers.h"
#include "bpfcollect/report_procs.h"
#include "table.h"

struct thread_acc {
	uint32_t tid, pid;
	uint64_t first_exec, last_exec; /* CPU totals at the first and last switch-out seen */
	bool seen_switch;
	bool born; /* created while recording: its CPU total started at 0 here */
};

struct proc_acc {
	uint32_t pid;
	char comm[BC_COMM_LEN * BC_TERM_ESC_MAX + 1];
	uint64_t first_ktime, last_ktime;
	uint64_t off_ns, sleep_ns, wait_ns, longest_ns;
	uint64_t voluntary, preempted;
	uint64_t syscalls, sys_errors, sys_ns;
	uint64_t exit_cpu_ns; /* from its exit record */
	uint64_t exit_ktime;
	uint64_t cpu_ns;  /* what the table shows */
	bool cpu_partial; /* at least cpu_ns */
	size_t threads;
	int exit_code;
	bool born, exited;
};

struct procs_sink {
	struct bc_sink base;
	uint32_t only_pid;
	struct proc_acc *procs;
	size_t n_procs, cap_procs;
	struct bc_idmap proc_index; /* pid -> index + 1 */
	struct thread_acc *threads;
	size_t n_threads, cap_threads;
	struct bc_idmap thread_index; /* pid << 32 | tid -> index + 1 */
	uint64_t records;	      /* kernel-side records seen */
	int err;
};

static struct proc_acc *proc_get(struct procs_sink *s, uint32_t pid)
{
	struct proc_acc *v;
	uint32_t *i;

	if (bc_idmap_get_or_add(&s->proc_index, pid, 0, &i))
		return NULL;
	if (*i)
		return &s->procs[*i - 1];
	if (BC_GROW(s->procs, s->cap_procs, s->n_procs + 1))
		return NULL;
	v = &s->procs[s->n_procs];
	memset(v, 0, sizeof(*v));
	v->pid = pid;
	*i = (uint32_t)++s->n_procs;
	return v;
}

/*
 * A record of pid made after its process exited is another process's,
 * which got the pid again: in rows of its own. (Each experiment of a tree
 * is read in turn, so a time, not the order records come in, tells.)
 */
static void forget_exited(struct procs_sink *s, uint32_t pid, uint64_t ktime)
{
	uint32_t *i = bc_idmap_find(&s->proc_index, pid);

	if (!i || !*i || !s->procs[*i - 1].exited || ktime <= s->procs[*i - 1].exit_ktime)
		return;
	bc_idmap_remove(&s->proc_index, pid);
	/* its main thread's tid is the pid: the new one's starts afresh */
	bc_idmap_remove(&s->thread_index, (uint64_t)pid << 32 | pid);
}

static struct thread_acc *thread_get(struct procs_sink *s, uint32_t tid, uint32_t pid)
{
	struct thread_acc *v;
	uint32_t *i;

	if (bc_idmap_get_or_add(&s->thread_index, (uint64_t)pid << 32 | tid, 0, &i))
		return NULL;
	if (*i)
		return &s->threads[*i - 1];
	if (BC_GROW(s->threads, s->cap_threads, s->n_threads + 1))
		return NULL;
	v = &s->threads[s->n_threads];
	memset(v, 0, sizeof(*v));
	v->tid = tid;
	v->pid = pid;
	*i = (uint32_t)++s->n_threads;
	return v;
}

/* The name as shown: one line, control characters escaped (termsafe.h). */
static void set_comm(struct proc_acc *p, const char *comm)
{
	char raw[BC_COMM_LEN + 1];

	memcpy(raw, comm, BC_COMM_LEN);
	raw[BC_COMM_LEN] = 0;
	bc_term_escape(p->comm, sizeof(p->comm), raw);
}

static int on_offcpu(struct procs_sink *s, struct proc_acc *p, const struct bc_rec_offcpu *o)
{
	struct thread_acc *t = thread_get(s, o->h.tid, o->h.pid);
	uint64_t sleep, wait, len = o->h.ktime - o->off_ktime;

	if (!t)
		return -ENOMEM;
	bc_offcpu_split(o, &sleep, &wait);
	p->off_ns += len;
	p->sleep_ns += sleep;
	p->wait_ns += wait;
	if (len > p->longest_ns)
		p->longest_ns = len;
	if (o->state && !o->preempt)
		p->voluntary++;
	else
		p->preempted++;
	if (!t->seen_switch) {
		t->first_exec = o->sum_exec;
		t->seen_switch = true;
	}
	if (o->sum_exec > t->last_exec)
		t->last_exec = o->sum_exec;
	return 0;
}

static int procs_event(struct bc_sink *sink, const struct bc_event *ev)
{
	struct procs_sink *s = (struct procs_sink *)sink;
	const struct bc_rec_head *h = ev->rec;
	struct proc_acc *p;
	uint32_t pid = h->pid;

	if (h->kind == BC_REC_PROC_FORK || h->kind == BC_REC_THREAD_START)
		pid = ((const struct bc_rec_fork *)h)->child_pid;
	if (h->kind == BC_REC_LOST || h->kind == BC_REC_FUNC_ENTRY ||
	    h->kind == BC_REC_FUNC_RETURN || h->kind == BC_REC_PROFILE)
		return 0;
	if (s->only_pid && pid != s->only_pid)
		return 0;
	/* the agent's usage of a process can be read as it exits: never a new one's */
	if (h->kind != BC_REC_USAGE)
		forget_exited(s, pid, h->ktime);
	p = proc_get(s, pid);
	if (!p)
		return -ENOMEM;
	s->records++;
	/* Its fork seen first: born while recording. */
	if (!p->first_ktime) {
		p->first_ktime = h->ktime;
		p->born = h->kind == BC_REC_PROC_FORK;
	}
	if (h->ktime > p->last_ktime)
		p->last_ktime = h->ktime;
	switch (h->kind) {
	case BC_REC_OFFCPU:
		return on_offcpu(s, p, (const struct bc_rec_offcpu *)h);
	case BC_REC_PROC_FORK:
	case BC_REC_THREAD_START: {
		const struct bc_rec_fork *f = (const void *)h;
		struct thread_acc *t = thread_get(s, f->child_tid, f->child_pid);

		if (!t)
			return -ENOMEM;
		t->born = true;
		if (h->kind == BC_REC_PROC_FORK)
			set_comm(p, f->comm);
		return 0;
	}
	case BC_REC_PROC_EXEC: {
		struct thread_acc *t = thread_get(s, h->tid, h->pid);

		if (!t)
			return -ENOMEM;
		/*
		 * An exec before it ever left the CPU: a launched command, whose
		 * CPU before it is the launcher's (next to nothing), or a process
		 * forked just before recording began. Counted as born here.
		 */
		if (!p->voluntary && !p->preempted)
			p->born = t->born = true;
		set_comm(p, ((const struct bc_rec_exec *)h)->comm);
		return 0;
	}
	case BC_REC_PROC_EXIT: {
		const struct bc_rec_exit *x = (const void *)h;

		p->exited = true;
		p->exit_ktime = h->ktime;
		p->exit_code = x->exit_code;
		p->exit_cpu_ns = x->sum_exec;
		set_comm(p, x->comm);
		return 0;
	}
	case BC_REC_PROC_NAME:
		set_comm(p, ((const struct bc_rec_proc_name *)h)->comm);
		return 0;
	case BC_REC_THREAD_EXIT:
		if (!p->comm[0])
			set_comm(p, ((const struct bc_rec_exit *)h)->comm);
		return 0;
	case BC_REC_SYS_EXIT: {
		const struct bc_rec_sys_exit *x = (const void *)h;

		p->syscalls++;
		if (x->ret < 0 && x->ret >= -4095)
			p->sys_errors++;
		if (x->enter_ktime && x->enter_ktime <= h->ktime)
			p->sys_ns += h->ktime - x->enter_ktime;
		return 0;
	}
	default:
		return 0;
	}
}

static const struct bc_sink_ops procs_ops = {.name = "procs", .event = procs_event};

/* CPU of p: exact from its exit when born here, else from its threads' switches. */
static void proc_cpu(const struct procs_sink *s, struct proc_acc *p)
{
	uint64_t cpu = 0;

	p->threads = 0;
	for (size_t i = 0; i < s->n_threads; i++) {
		const struct thread_acc *t = &s->threads[i];

		if (t->pid != p->pid)
			continue;
		p->threads++;
		if (!t->seen_switch)
			continue;
		cpu += t->last_exec - (t->born ? 0 : t->first_exec);
	}
	p->cpu_partial = !(p->exited && p->born);
	p->cpu_ns = p->cpu_partial ? cpu : p->exit_cpu_ns;
}

static int cmp_cpu_off(const void *a, const void *b)
{
	const struct proc_acc *x = a, *y = b;
	uint64_t tx = x->off_ns + x->cpu_ns, ty = y->off_ns + y->cpu_ns;

	if (tx != ty)
		return tx < ty ? 1 : -1;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

static void exit_text(const struct proc_acc *p, char *buf, size_t len)
{
	int st = p->exit_code;

	if (!p->exited)
		snprintf(buf, len, "running");
	else if ((st & 0x7f) == 0)
		snprintf(buf, len, "exit %d", (st >> 8) & 0xff);
	else
		snprintf(buf, len, "signal %d", st & 0x7f);
}

/* One experiment of the tree into the sink. */
static int each_exp(const char *path, const char *name, size_t index, void *arg, char *err,
		    size_t errlen)
{
	struct bc_er_info info;
	int rc = bc_er_read(path, arg, &info, err, errlen);

	(void)name;
	(void)index;
	bc_er_info_free(&info);
	return rc;
}

int bc_report_procs(const char *exp_path, bool descendants, uint32_t pid, FILE *out, char *err,
		    size_t errlen)
{
	struct procs_sink s = {.base.ops = &procs_ops, .only_pid = pid};
	int rc;

	rc = bc_er_tree_each(exp_path, descendants, each_exp, &s.base, err, errlen);
	if (rc < 0)
		goto out;
	if (!s.n_procs) {
		if (pid)
			snprintf(err, errlen, "%s: no record of process %" PRIu32, exp_path, pid);
		else
			snprintf(err, errlen, "%s: no process records", exp_path);
		rc = -ENOENT;
		goto out;
	}
	for (size_t i = 0; i < s.n_procs; i++)
		proc_cpu(&s, &s.procs[i]);
	qsort(s.procs, s.n_procs, sizeof(*s.procs), cmp_cpu_off);
	int cw = 7;

	for (size_t i = 0; i < s.n_procs; i++)
		cw = bc_max_int(cw, bc_slen(s.procs[i].comm));
	fprintf(out, "Processes (%zu), by CPU + off-CPU time:\n", s.n_procs);
	fprintf(out, "%7s  %-*s  %7s  %10s  %10s  %10s  %10s  %8s  %8s  %8s  %10s  %s\n", "PID", cw,
		"Command", "Threads", "CPU (s)", "Off-CPU (s)", "Sleep (s)", "Wait CPU", "Vol.",
		"Preempt", "Syscalls", "Sys. (s)", "End");
	for (size_t i = 0; i < s.n_procs; i++) {
		const struct proc_acc *p = &s.procs[i];
		char cpu_s[32], end[32];

		snprintf(cpu_s, sizeof(cpu_s), "%.3f%s", (double)p->cpu_ns / 1e9,
			 p->cpu_partial ? "+" : "");
		exit_text(p, end, sizeof(end));
		fprintf(out,
			"%7" PRIu32 "  %-*s  %7zu  %10s  %10.3f  %10.3f  %10.3f  %8" PRIu64
			"  %8" PRIu64 "  %8" PRIu64 "  %10.3f  %s\n",
			p->pid, cw, p->comm[0] ? p->comm : "?", p->threads, cpu_s,
			(double)p->off_ns / 1e9, (double)p->sleep_ns / 1e9,
			(double)p->wait_ns / 1e9, p->voluntary, p->preempted, p->syscalls,
			(double)p->sys_ns / 1e9, end);
	}
	fprintf(out, "(CPU with '+': the process ran before or after what was seen; at least "
		     "this much)\n");
	rc = 0;
out:
	free(s.procs);
	free(s.threads);
	bc_idmap_free(&s.proc_index);
	bc_idmap_free(&s.thread_index);
	return rc;
}
