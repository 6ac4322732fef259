// SPDX-License-Identifier: MIT
/*
 * The PRF sink: every event of the model as a PRF record (docs/prf.md).
 *
 * Per thread it keeps what the fields need beyond the record itself: the
 * hash (fixed when the thread is first known), the last serial number (a
 * jump is written as an ErrRec before the next record), and the functions
 * still open (their returns, if they never come, are written as ErrRec when
 * the thread exits or execs, or at the end).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpfcollect/demangle.h"
#include "bpfcollect/outfile.h"
#include "bpfcollect/capture_fmt.h"
#include "bpfcollect/hostinfo.h"
#include "bpfcollect/names.h"
#include "bpfcollect/prf.h"
#include "bpfcollect/syscalls.h"
#include "bpfcollect/sysdecode.h"
#include "prf_sink.h"

/* ------------------------------------------------------------ tables */

/* Field values (prf.h) that only the sink uses. */
uint32_t bc_prf_thread_hash(uint32_t pid, uint32_t tid, uint64_t birth_ktime)
{
	uint8_t b[16];
	uint32_t h = 2166136261u;

	for (int i = 0; i < 4; i++) {
		b[i] = (uint8_t)(pid >> (8 * i));
		b[4 + i] = (uint8_t)(tid >> (8 * i));
	}
	for (int i = 0; i < 8; i++)
		b[8 + i] = (uint8_t)(birth_ktime >> (8 * i));
	for (size_t i = 0; i < sizeof(b); i++) {
		h ^= b[i];
		h *= 16777619u;
	}
	return h;
}

void bc_prf_entry_time(uint8_t out[16], int64_t wall_ns)
{
	int64_t sec = wall_ns / 1000000000, ns = wall_ns % 1000000000;

	if (ns < 0) {
		ns += 1000000000;
		sec--;
	}
	bc_prf_put_be64(out, (uint64_t)sec);
	bc_prf_put_be64(out + 8, (uint64_t)(ns / 1000));
}

static size_t mix32(uint32_t x)
{
	return (size_t)(x * 2654435761u);
}

static struct prf_thread *thread_find(struct prf_sink *p, uint32_t tid)
{
	if (!tid)
		return p->zero_seen ? &p->zero : NULL;
	return bc_pidtab_find(&p->threads, tid);
}

static void release_thread(void *entry, void *ctx)
{
	(void)ctx;
	free(((struct prf_thread *)entry)->frames);
}

/* Resets the state of tid (a new thread, or the tid reused), creating it if needed. */
static struct prf_thread *thread_new(struct prf_sink *p, uint32_t tid, uint32_t pid, uint64_t birth)
{
	struct prf_thread *t;

	if (!tid) {
		/* thread 0 lives beside the table */
		t = &p->zero;
		p->zero_seen = true;
		goto reset;
	}
	/* a tid used again is a new entry: an exit noted of the one before must not release it */
	bc_pidtab_remove(&p->threads, tid);
	t = bc_pidtab_add(&p->threads, tid);
	if (!t)
		return NULL;
reset:
	t->tid = tid;
	t->pid = pid;
	t->hash = bc_prf_thread_hash(pid, tid, birth);
	t->dead = false;
	t->last_seq = 0;
	t->gap_seq = 0;
	t->confirm_seq = 0;
	t->depth = 0;
	t->comm[0] = '\0';
	return t;
}

static int name_intern(struct prf_sink *p, const char *intf, const char *opr, uint32_t *idx)
{
	size_t a = strlen(intf), b = strlen(opr), len = a + b + 2;
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < a; i++)
		h = (h ^ (uint8_t)intf[i]) * 16777619u;
	h = (h ^ 0xff) * 16777619u;
	for (i = 0; i < b; i++)
		h = (h ^ (uint8_t)opr[i]) * 16777619u;
	if ((p->nnames + 1) * 2 > p->nslot_cap) {
		size_t cap = p->nslot_cap ? p->nslot_cap * 2 : 256;
		uint32_t *v = calloc(cap, sizeof(*v));

		if (!v)
			return -ENOMEM;
		for (size_t k = 0; k < p->nslot_cap; k++) {
			uint32_t e = p->nslots[k];
			const struct prf_name *n;
			uint32_t nh = 2166136261u;

			if (!e)
				continue;
			n = &p->names[e - 1];
			for (size_t j = 0; j < n->len; j++)
				nh = (nh ^ (n->s[j] ? (uint8_t)n->s[j] : 0xff)) * 16777619u;
			for (i = mix32(nh) & (cap - 1); v[i]; i = (i + 1) & (cap - 1))
				;
			v[i] = e;
		}
		free(p->nslots);
		p->nslots = v;
		p->nslot_cap = cap;
	}
	for (i = mix32(h) & (p->nslot_cap - 1); p->nslots[i]; i = (i + 1) & (p->nslot_cap - 1)) {
		const struct prf_name *n = &p->names[p->nslots[i] - 1];

		if (n->len == len - 1 && !memcmp(n->s, intf, a + 1) && !strcmp(n->s + a + 1, opr)) {
			*idx = p->nslots[i] - 1;
			return 0;
		}
	}
	if (p->nnames == p->ncap) {
		size_t cap = p->ncap ? p->ncap * 2 : 64;
		struct prf_name *v = realloc(p->names, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		p->names = v;
		p->ncap = cap;
	}
	char *s = malloc(len);

	if (!s)
		return -ENOMEM;
	memcpy(s, intf, a + 1);
	memcpy(s + a + 1, opr, b + 1);
	/* len counts the bytes hashed: both names and the NUL between them */
	p->names[p->nnames] = (struct prf_name){.s = s, .len = len - 1};
	p->nslots[i] = (uint32_t)++p->nnames;
	*idx = (uint32_t)(p->nnames - 1);
	return 0;
}

/* ----------------------------------------------------------- writing */

static int64_t wall(const struct prf_sink *p, uint64_t ktime)
{
	return bc_wall_ns(ktime, p->wall_offset);
}

/* --prf-name, else the leader's comm, else the comm the thread was created with. */
static const char *process_name_of(struct prf_sink *p, uint32_t pid, const struct prf_thread *t)
{
	const struct prf_thread *leader;

	if (p->process_name)
		return p->process_name;
	leader = thread_find(p, pid);
	if (leader && leader->comm[0])
		return leader->comm;
	return t && t->comm[0] ? t->comm : "unknown";
}

static void write_header(struct prf_sink *p)
{
	if (p->header_done)
		return;
	p->header_done = true;
	if (p->o.format == BC_PRF_CSV)
		fprintf(p->out, "%s\n", bc_prf_csv_header(p->o.layout));
}

/* A record of thread t (NULL: pid/tid 0) with the sink's common fields filled in. */
int prf_emit(struct prf_sink *p, const struct prf_thread *t, uint32_t pid, uint64_t trace,
	     unsigned int event, uint64_t ktime, uint64_t rc, bool err, const char *intf,
	     const char *opr, size_t opt_len)
{
	struct bc_prf_record r = {
		.err = err,
		.pid = t ? t->pid : pid,
		.tid = t ? t->tid : 0,
		.hash = t ? t->hash : 0,
		.trace = trace,
		.process_name = process_name_of(p, t ? t->pid : pid, t),
		.event = event,
		.wall_ns = wall(p, ktime),
		.rc = rc,
		.client = p->client,
		.root = {.ip = p->host_ip, .pid = p->root_pid},
		.intf = intf,
		.opr = opr,
		.opt = p->opt,
		.opt_len = opt_len,
	};
	int written;

	memset(&p->client, 0, sizeof(p->client));
	write_header(p);
	written = bc_prf_write(p->out, &p->o, &r);
	/* a record's end: several are written in one step (a gap's ErrRec, the end's open calls) */
	bc_outfile_record(p->base.file);
	return written;
}

/* Appends text after n bytes of OPT, up to BC_PRF_OPT_MAX; returns the new length. */
size_t prf_opt_text(struct prf_sink *p, size_t n, const char *s, size_t len)
{
	if (len > BC_PRF_OPT_MAX - n)
		len = BC_PRF_OPT_MAX - n;
	memcpy(p->opt + n, s, len);
	return n + len;
}

size_t prf_opt_entry_time(struct prf_sink *p, uint64_t entry_ktime)
{
	if (entry_ktime)
		bc_prf_entry_time(p->opt, wall(p, entry_ktime));
	else
		memset(p->opt, 0, 16);
	return 16;
}

/* How close_frames ends the frames it takes. */
enum close_how {
	CLOSE_SILENT, /* nothing written: the records of the gap stand for them */
	CLOSE_BROKEN, /* their returns never came: ErrRec 0x0101 */
	CLOSE_AT_END, /* still running when the recording ended: Rec 0x0102 */
};

/*
 * Ends t's open frames of depth min_depth and more, innermost first, at
 * ktime, as how says. A frame entered before a gap that no later record
 * confirmed may have returned in the gap: it goes silently (the gap's
 * ErrRec stands for it).
 */
static int close_frames(struct prf_sink *p, struct prf_thread *t, uint64_t ktime,
			uint32_t min_depth, enum close_how how)
{
	static const char open_text[] = "open at detach";
	int rc = 0;

	while (t->depth && t->frames[t->depth - 1].depth >= min_depth && !rc) {
		const struct prf_frame *f = &t->frames[--t->depth];
		const char *intf = p->names[f->name].s, *opr = intf + strlen(intf) + 1;
		size_t n;

		if (how == CLOSE_SILENT || (f->seq < t->gap_seq && t->confirm_seq < t->gap_seq))
			continue;
		n = prf_opt_entry_time(p, f->entry_ktime);
		if (how == CLOSE_AT_END) {
			n = prf_opt_text(p, n, open_text, sizeof(open_text) - 1);
			rc = prf_emit(p, t, 0, 0, BC_PRF_EV_FUNC_OPEN, ktime, 0, false, intf, opr,
				      n);
			continue;
		}
		bc_prf_put_be64(p->opt + n, 0);
		rc = prf_emit(p, t, 0, 0, BC_PRF_EV_FUNC_RETURN, ktime, BC_PRF_RC_NO_RETURN, true,
			      intf, opr, n + 8);
	}
	return rc;
}

/* INT and OPR of a function event; OPR is the whole name (its end matters to truncation). */
static const char *func_names(const struct bc_event *ev, uint32_t func_id, char *buf, size_t buflen,
			      const char **intf)
{
	const char *obj = ev->func ? ev->func->object : NULL, *slash;

	*intf = "unknown";
	if (obj && *obj) {
		slash = strrchr(obj, '/');
		*intf = slash && slash[1] ? slash + 1 : obj;
	}
	if (ev->func && ev->func->name)
		return bc_sym_display(ev->func->name);
	snprintf(buf, buflen, "func_%" PRIu32, func_id);
	return buf;
}

static int func_event(struct prf_sink *p, struct prf_thread *t, const struct bc_event *ev)
{
	const struct bc_rec_head *h = ev->rec;
	bool entry = h->kind == BC_REC_FUNC_ENTRY;
	uint32_t func_id = entry ? ((const struct bc_rec_func_entry *)h)->func_id
				 : ((const struct bc_rec_func_return *)h)->func_id;
	const char *intf, *opr;
	char buf[32];
	size_t n = 0;
	int len, rc;

	opr = func_names(ev, func_id, buf, sizeof(buf), &intf);
	/*
	 * BPF's depth says which frames are open. Before an entry at depth d
	 * every frame from d up has returned: the returns were lost. A return
	 * at depth d ends frame d; frames above it were abandoned (longjmp,
	 * exceptions), and all are when BPF had no entry time left.
	 */
	if (entry) {
		rc = close_frames(p, t, h->ktime, h->depth, CLOSE_SILENT);
	} else {
		const struct bc_rec_func_return *r = (const void *)h;

		rc = close_frames(p, t, h->ktime, r->entry_ktime ? h->depth + 1 : 0, CLOSE_BROKEN);
		if (!rc && r->entry_ktime && t->depth && t->frames[t->depth - 1].depth == h->depth)
			t->depth--;
	}
	if (rc)
		return rc;
	if (h->seq)
		t->confirm_seq = h->seq;
	if (entry) {
		uint32_t idx;

		if (t->depth == t->cap) {
			uint32_t cap = t->cap ? t->cap * 2 : 16;
			struct prf_frame *v = realloc(t->frames, cap * sizeof(*v));

			if (!v)
				return -ENOMEM;
			t->frames = v;
			t->cap = cap;
		}
		rc = name_intern(p, intf, opr, &idx);
		if (rc < 0)
			return rc;
		t->frames[t->depth++] = (struct prf_frame){h->ktime, h->seq, h->depth, idx};
	} else {
		const struct bc_rec_func_return *r = (const void *)h;

		n = prf_opt_entry_time(p, r->entry_ktime);
		bc_prf_put_be64(p->opt + n, r->retval);
		n += 8;
	}
	len = bc_format_func_captures(ev, " ", p->text, sizeof(p->text));
	if (len > 0)
		n = prf_opt_text(p, n, p->text, strnlen(p->text, sizeof(p->text)));
	if (!entry && !((const struct bc_rec_func_return *)h)->entry_ktime)
		return prf_emit(p, t, 0, h->seq, BC_PRF_EV_FUNC_RETURN, h->ktime,
				BC_PRF_RC_NO_ENTRY, true, intf, opr, n);
	return prf_emit(p, t, 0, h->seq, entry ? BC_PRF_EV_FUNC_ENTRY : BC_PRF_EV_FUNC_RETURN,
			h->ktime, 0, false, intf, opr, n);
}

static bool child_return(const char *sys)
{
	return !strcmp(sys, "clone") || !strcmp(sys, "clone3") || !strcmp(sys, "fork") ||
	       !strcmp(sys, "vfork");
}

static int sys_event(struct prf_sink *p, struct prf_thread *t, const struct bc_event *ev)
{
	const struct bc_rec_head *h = ev->rec;
	char opr[32];
	size_t n = 0;

	if (h->kind == BC_REC_SYS_ENTER) {
		const struct bc_rec_sys_enter *e = (const void *)h;

		if (ev->sys_name)
			snprintf(opr, sizeof(opr), "%s", ev->sys_name);
		else
			snprintf(opr, sizeof(opr), "syscall_%" PRIu32, e->nr);
		if (bc_sys_format_enter(e, h->size, p->text, sizeof(p->text)) != -EINVAL)
			n = prf_opt_text(p, 0, p->text, strnlen(p->text, sizeof(p->text)));
		return prf_emit(p, t, 0, h->seq, BC_PRF_EV_SYS_ENTER, h->ktime, 0, false, "syscall",
				opr, n);
	}
	const struct bc_rec_sys_exit *x = (const void *)h;
	uint64_t rc = bc_prf_sys_rc(x->ret);

	if (ev->sys_name)
		snprintf(opr, sizeof(opr), "%s", ev->sys_name);
	else
		snprintf(opr, sizeof(opr), "syscall_%" PRIu32, x->nr);
	n = prf_opt_entry_time(p, x->enter_ktime);
	bc_prf_put_be64(p->opt + n, (uint64_t)x->ret);
	n += 8;
	/* A new thread or process returns from clone/fork it never entered: that is no repair. */
	if (!rc && !x->enter_ktime && !(x->ret == 0 && child_return(opr)))
		rc = BC_PRF_RC_NO_ENTRY;
	return prf_emit(p, t, 0, h->seq, BC_PRF_EV_SYS_EXIT, h->ktime, rc, rc != 0, "syscall", opr,
			n);
}

static int proc_event(struct prf_sink *p, struct prf_thread *t, const struct bc_event *ev)
{
	const struct bc_rec_head *h = ev->rec;
	size_t n;
	int rc;

	switch (h->kind) {
	case BC_REC_PROC_FORK:
	case BC_REC_THREAD_START: {
		const struct bc_rec_fork *f = (const void *)h;
		bool fork = h->kind == BC_REC_PROC_FORK;
		struct prf_thread *c;

		bc_prf_put_be64(p->opt, f->child_pid);
		bc_prf_put_be64(p->opt + 8, f->child_tid);
		bc_prf_put_be64(p->opt + 16, f->clone_flags);
		n = prf_opt_text(p, 24, f->comm, strnlen(f->comm, sizeof(f->comm)));
		rc = prf_emit(p, t, 0, h->seq, fork ? BC_PRF_EV_PROC_FORK : BC_PRF_EV_THREAD_START,
			      h->ktime, 0, false, "process", fork ? "fork" : "thread_start", n);
		/* The child is known from now on: its hash is fixed here. */
		if (f->child_tid) {
			c = thread_new(p, f->child_tid, fork ? f->child_pid : h->pid, h->ktime);
			if (!c)
				return -ENOMEM;
			snprintf(c->comm, sizeof(c->comm), "%.*s", (int)sizeof(f->comm), f->comm);
		}
		return rc;
	}
	case BC_REC_PROC_EXEC: {
		const struct bc_rec_exec *x = (const void *)h;
		struct prf_thread *leader;

		/* The old image's calls never return. */
		if ((rc = close_frames(p, t, h->ktime, 0, CLOSE_BROKEN)))
			return rc;
		leader = thread_find(p, h->pid);
		if (leader)
			snprintf(leader->comm, sizeof(leader->comm), "%.*s", (int)sizeof(x->comm),
				 x->comm);
		n = prf_opt_text(p, 0, x->filename, strnlen(x->filename, x->filename_len));
		return prf_emit(p, t, 0, h->seq, BC_PRF_EV_PROC_EXEC, h->ktime, 0, false, "process",
				"exec", n);
	}
	default: {
		const struct bc_rec_exit *x = (const void *)h;
		bool proc = h->kind == BC_REC_PROC_EXIT;

		if ((rc = close_frames(p, t, h->ktime, 0, CLOSE_BROKEN)))
			return rc;
		if (h->tid == h->pid && !t->comm[0])
			snprintf(t->comm, sizeof(t->comm), "%.*s", (int)sizeof(x->comm), x->comm);
		bc_prf_put_be64(p->opt, (uint64_t)(int64_t)x->exit_code);
		bc_prf_put_be64(p->opt + 8, x->sum_exec);
		n = prf_opt_text(p, 16, x->comm, strnlen(x->comm, sizeof(x->comm)));
		/* kept a while for late records, then its slot serves another thread */
		if (!t->dead && t != &p->zero && (rc = bc_pidtab_exited(&p->threads, t->tid)))
			return rc;
		t->dead = true;
		return prf_emit(p, t, 0, h->seq, proc ? BC_PRF_EV_PROC_EXIT : BC_PRF_EV_THREAD_EXIT,
				h->ktime, 0, false, "process", proc ? "exit" : "thread_exit", n);
	}
	}
}

static int lost_event(struct prf_sink *p, const struct bc_rec_head *h)
{
	const struct bc_rec_lost *l = (const void *)h;
	const char *name = bc_loss_class_name(l->loss_class);
	char opr[32];

	snprintf(opr, sizeof(opr), "lost%s%s", name ? "_" : "", name ? name : "");

	bc_prf_put_be64(p->opt, l->count);
	bc_prf_put_be64(p->opt + 8, ((uint64_t)l->loss_class << 32) | l->cpu);
	return prf_emit(p, NULL, h->pid, h->seq, BC_PRF_EV_LOST_RING, h->ktime, BC_PRF_RC_LOST,
			true, "agent", opr, 16);
}

/*
 * The thread state for a record: created when first seen; reset when the
 * serial number goes back (a new thread with a reused tid); after an exec
 * by a non-leader thread, the exec'ing thread's state moves to its new tid.
 */
static struct prf_thread *thread_of(struct prf_sink *p, const struct bc_rec_head *h)
{
	struct prf_thread *t;

	if (h->kind == BC_REC_PROC_EXEC) {
		uint32_t old = ((const struct bc_rec_exec *)h)->old_tid;
		struct prf_thread *o = old && old != h->tid ? thread_find(p, old) : NULL;

		if (o) {
			struct prf_thread keep = *o;

			o->dead = true;
			o->depth = 0;
			o->frames = NULL;
			o->cap = 0;
			t = thread_find(p, h->tid);
			if (t) {
				free(t->frames);
				memcpy(keep.comm, t->comm, sizeof(keep.comm));
			} else if (!(t = thread_new(p, h->tid, h->pid, h->ktime))) {
				free(keep.frames);
				return NULL;
			}
			keep.tid = h->tid;
			keep.pid = h->pid;
			*t = keep;
			return t;
		}
	}
	t = thread_find(p, h->tid);
	if (t && t->pid == h->pid && (!h->seq || !t->last_seq || h->seq > t->last_seq))
		return t;
	if (t && t->pid == h->pid) {
		/* The same process: its name stays. */
		char comm[sizeof(t->comm)];

		memcpy(comm, t->comm, sizeof(comm));
		t = thread_new(p, h->tid, h->pid, h->ktime);
		if (t)
			memcpy(t->comm, comm, sizeof(comm));
		return t;
	}
	return thread_new(p, h->tid, h->pid, h->ktime);
}

/* ---------------------------------------------------------------- ops */

static int prf_begin(struct bc_sink *s, const struct bc_session *sess)
{
	struct prf_sink *p = (struct prf_sink *)s;
	struct prf_thread *t;

	p->root_pid = sess->root_pid;
	p->wall_offset = sess->wall_offset_ns;
	if (!p->have_ip) {
		char me[256];

		/*
		 * The recording host's address, as the session says. An experiment
		 * from before it did: this host's, if it was recorded here.
		 */
		if (sess->host_ip)
			p->host_ip = sess->host_ip;
		else if (sess->hostname &&
			 (gethostname(me, sizeof(me)) < 0 || strcmp(me, sess->hostname)))
			p->host_ip = 0;
		else
			p->host_ip = bc_host_ipv4();
		p->have_ip = true;
	}
	if (sess->root_pid && !thread_find(p, sess->root_pid)) {
		const char *cmd = sess->argv && sess->argv[0] ? sess->argv[0] : "";
		const char *base = strrchr(cmd, '/');

		t = thread_new(p, sess->root_pid, sess->root_pid, sess->start_ktime);
		if (!t)
			return -ENOMEM;
		/* What the kernel makes the comm of an exec'd file: its basename, cut at 15. */
		snprintf(t->comm, sizeof(t->comm), "%.*s", BC_COMM_LEN - 1, base ? base + 1 : cmd);
	}
	write_header(p);
	return ferror(p->out) ? bc_io_errno() : 0;
}

static int prf_event(struct bc_sink *s, const struct bc_event *ev)
{
	struct prf_sink *p = (struct prf_sink *)s;
	const struct bc_rec_head *h = ev->rec;
	struct prf_thread *t;
	int rc;

	if (h->ktime > p->last_ktime)
		p->last_ktime = h->ktime;
	if (h->kind == BC_REC_LOST)
		return lost_event(p, h);
	if (h->kind == BC_REC_MMAP || h->kind == BC_REC_MUNMAP)
		return 0; /* mappings are not events (the mapping op; PRF has no use for them) */
	t = thread_of(p, h);
	if (!t)
		return -ENOMEM;
	if (h->seq && t->last_seq && h->seq > t->last_seq + 1) {
		/* The records in between were lost: one ErrRec, at the first missing number. */
		bc_prf_put_be64(p->opt, h->seq - t->last_seq - 1);
		rc = prf_emit(p, t, 0, t->last_seq + 1, BC_PRF_EV_LOST_GAP, h->ktime,
			      BC_PRF_RC_LOST, true, "agent", "lost", 8);
		if (rc)
			return rc;
		t->gap_seq = h->seq;
	}
	if (h->seq)
		t->last_seq = h->seq;
	if ((rc = bc_prf_peers_event(p->peers, h, &p->client)))
		return rc;
	switch (h->kind) {
	case BC_REC_FUNC_ENTRY:
	case BC_REC_FUNC_RETURN:
		return func_event(p, t, ev);
	case BC_REC_SYS_ENTER:
	case BC_REC_SYS_EXIT:
		return sys_event(p, t, ev);
	case BC_REC_PROC_FORK:
	case BC_REC_THREAD_START:
	case BC_REC_PROC_EXEC:
	case BC_REC_THREAD_EXIT:
	case BC_REC_PROC_EXIT:
		return proc_event(p, t, ev);
	case BC_REC_PROFILE:
		return prf_sample_event(p, t, ev);
	case BC_REC_HEAP:
		return prf_heap_event(p, t, ev);
	case BC_REC_SYNC:
		return prf_sync_event(p, t, ev);
	case BC_REC_IO:
		return prf_io_event(p, t, ev);
	case BC_REC_USAGE:
		return prf_usage_event(p, t, ev);
	case BC_REC_OFFCPU:
		return prf_sched_event(p, t, ev);
	case BC_REC_PROC_NAME: {
		const struct bc_rec_proc_name *nm = (const void *)h;
		size_t n;

		if (!t->comm[0])
			snprintf(t->comm, sizeof(t->comm), "%.*s", (int)sizeof(nm->comm), nm->comm);
		bc_prf_put_be64(p->opt, nm->ppid);
		bc_prf_put_be64(p->opt + 8, nm->flags);
		n = prf_opt_text(p, 16, nm->comm, strnlen(nm->comm, sizeof(nm->comm)));
		return prf_emit(p, t, 0, 0, BC_PRF_EV_PROC_NAME, h->ktime, 0, false, "process",
				"name", n);
	}
	default: {
		char opr[32];
		size_t n = h->size < BC_PRF_OPT_MAX ? h->size : BC_PRF_OPT_MAX;

		snprintf(opr, sizeof(opr), "kind_0x%x", h->kind);
		memcpy(p->opt, h, n);
		return prf_emit(p, t, 0, h->seq, BC_PRF_EV_UNKNOWN, h->ktime, BC_PRF_RC_UNKNOWN,
				true, "agent", opr, n);
	}
	}
}

static int prf_flush(struct bc_sink *s)
{
	return fflush(((struct prf_sink *)s)->out) ? bc_io_errno() : 0;
}

static int prf_end(struct bc_sink *s, const struct bc_session_end *end)
{
	struct prf_sink *p = (struct prf_sink *)s;
	uint64_t when = end && end->end_ktime ? end->end_ktime : p->last_ktime;
	int rc = 0;

	/* Calls still running when the recording ended: open at detach, no error. */
	for (size_t i = 0; i < p->threads.n && !rc; i++) {
		struct prf_thread *t = bc_pidtab_at(&p->threads, i);

		if (t->tid && !t->dead)
			rc = close_frames(p, t, when, 0, CLOSE_AT_END);
	}
	write_header(p);
	if (fflush(p->out) || ferror(p->out))
		return bc_io_errno();
	return rc;
}

static void prf_destroy(struct bc_sink *s)
{
	struct prf_sink *p = (struct prf_sink *)s;

	bc_pidtab_free(&p->threads);
	free(p->zero.frames);
	for (size_t i = 0; i < p->nnames; i++)
		free(p->names[i].s);
	free(p->names);
	free(p->nslots);
	free(p->process_name);
	bc_prf_peers_free(p->peers);
	free(p);
}

static const struct bc_sink_ops prf_ops = {
	.name = "prf",
	.begin = prf_begin,
	.event = prf_event,
	.end = prf_end,
	.flush = prf_flush,
	.destroy = prf_destroy,
};

int bc_prf_sink_set_host_ip(struct bc_sink *s, const char *ip)
{
	struct prf_sink *p = (struct prf_sink *)s;
	uint32_t a;

	if (!s || s->ops != &prf_ops)
		return -EINVAL;
	if (!ip) {
		p->host_ip = bc_host_ipv4();
	} else {
		if (bc_prf_parse_ip(ip, &a) < 0)
			return -EINVAL;
		p->host_ip = a;
	}
	p->have_ip = true;
	return 0;
}

struct bc_sink *bc_prf_sink_new(FILE *out, const struct bc_prf_opts *o)
{
	struct prf_sink *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->base.ops = &prf_ops;
	bc_pidtab_init(&p->threads, sizeof(struct prf_thread), release_thread, NULL);
	p->out = out;
	if (o)
		p->o = *o;
	else
		bc_prf_opts_init(&p->o);
	if (!(p->peers = bc_prf_peers_new()) ||
	    (p->o.process_name && !(p->process_name = strdup(p->o.process_name))) ||
	    (p->o.host_ip && bc_prf_parse_ip(p->o.host_ip, &p->host_ip) < 0)) {
		prf_destroy(&p->base);
		return NULL;
	}
	p->have_ip = p->o.host_ip != NULL;
	p->o.process_name = NULL; /* the caller's strings are not kept */
	p->o.host_ip = NULL;
	return &p->base;
}
