// SPDX-License-Identifier: MIT
/* The function table and the one record decoder every producer uses. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpfcollect/model.h"
#include "bpfcollect/overview.h"
#include "bpfcollect/syscalls.h"

void bc_functab_init(struct bc_functab *t)
{
	memset(t, 0, sizeof(*t));
}

void bc_functab_free(struct bc_functab *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->v[i].name);
		free(t->v[i].object);
		free(t->v[i].exits);
	}
	free(t->v);
	memset(t, 0, sizeof(*t));
}

int bc_functab_filter(struct bc_functab *t,
		      int (*judge)(void *ctx, struct bc_func *f, char *why, size_t len), void *ctx,
		      void (*warn)(const struct bc_func *f, const char *why))
{
	size_t kept = 0, i;
	int dropped = 0, rc = 0;
	char why[256];

	for (i = 0; i < t->n; i++) {
		struct bc_func *f = &t->v[i];

		why[0] = 0;
		rc = judge(ctx, f, why, sizeof(why));
		if (rc < 0)
			break;
		if (rc == 0) {
			if (warn)
				warn(f, why);
			free(f->name);
			free(f->object);
			free(f->exits);
			dropped++;
			continue;
		}
		t->v[kept] = *f;
		t->v[kept].id = (uint32_t)kept;
		kept++;
	}
	/* on an error, the functions not judged yet stay as they were */
	for (; i < t->n; i++)
		t->v[kept++] = t->v[i];
	t->n = kept;
	return rc < 0 ? rc : dropped;
}

int bc_functab_add(struct bc_functab *t, const char *name, const char *object, uint64_t addr,
		   uint64_t size, uint64_t offset)
{
	if (t->n >= UINT32_MAX)
		return -E2BIG;
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		struct bc_func *v = realloc(t->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		t->v = v;
		t->cap = cap;
	}
	struct bc_func *f = &t->v[t->n];

	memset(f, 0, sizeof(*f));
	f->name = strdup(name);
	f->object = strdup(object);
	if (!f->name || !f->object) {
		free(f->name);
		free(f->object);
		return -ENOMEM;
	}
	f->id = (uint32_t)t->n;
	f->addr = addr;
	f->size = size;
	f->offset = offset;
	t->n++;
	return 0;
}

const struct bc_func *bc_functab_get(const struct bc_functab *t, uint32_t id)
{
	return t && id < t->n ? &t->v[id] : NULL;
}

size_t bc_rec_min_size(unsigned int kind)
{
	switch (kind) {
	case BC_REC_FUNC_ENTRY:
		return sizeof(struct bc_rec_func_entry);
	case BC_REC_FUNC_RETURN:
		return sizeof(struct bc_rec_func_return);
	case BC_REC_SYS_ENTER:
		return sizeof(struct bc_rec_sys_enter);
	case BC_REC_SYS_EXIT:
		return sizeof(struct bc_rec_sys_exit);
	case BC_REC_SYSCALL:
		return sizeof(struct bc_rec_syscall);
	case BC_REC_PROC_FORK:
	case BC_REC_THREAD_START:
		return sizeof(struct bc_rec_fork);
	case BC_REC_PROC_EXEC:
		return sizeof(struct bc_rec_exec);
	case BC_REC_THREAD_EXIT:
	case BC_REC_PROC_EXIT:
		return sizeof(struct bc_rec_exit);
	case BC_REC_LOST:
		return sizeof(struct bc_rec_lost);
	case BC_REC_MMAP:
		return sizeof(struct bc_rec_mmap);
	case BC_REC_MUNMAP:
		return sizeof(struct bc_rec_munmap);
	case BC_REC_PROFILE:
		return sizeof(struct bc_rec_profile);
	case BC_REC_OFFCPU:
		return sizeof(struct bc_rec_offcpu);
	case BC_REC_PROC_NAME:
		return sizeof(struct bc_rec_proc_name);
	case BC_REC_HEAP:
		return sizeof(struct bc_rec_heap);
	case BC_REC_SYNC:
		return sizeof(struct bc_rec_sync);
	case BC_REC_IO:
		return sizeof(struct bc_rec_io);
	case BC_REC_USAGE:
		return sizeof(struct bc_rec_usage);
	default:
		return 0;
	}
}

int bc_decode(const void *data, size_t len, const struct bc_functab *funcs, struct bc_event *ev)
{
	const struct bc_rec_head *h = data;
	size_t need;

	memset(ev, 0, sizeof(*ev));
	if (!data || len < sizeof(*h) || ((uintptr_t)data & 7))
		return -EINVAL;
	if (h->size < sizeof(*h) || h->size > len || (h->size & 7))
		return -EINVAL;
	need = bc_rec_min_size(h->kind);
	if (!need || h->size < need)
		return -EINVAL;

	switch (h->kind) {
	case BC_REC_FUNC_ENTRY:
		ev->func = bc_functab_get(funcs, ((const struct bc_rec_func_entry *)h)->func_id);
		break;
	case BC_REC_FUNC_RETURN:
		ev->func = bc_functab_get(funcs, ((const struct bc_rec_func_return *)h)->func_id);
		break;
	case BC_REC_SYS_ENTER:
		ev->sys_name = bc_syscall_name(((const struct bc_rec_sys_enter *)h)->nr);
		break;
	case BC_REC_SYS_EXIT:
		ev->sys_name = bc_syscall_name(((const struct bc_rec_sys_exit *)h)->nr);
		break;
	case BC_REC_SYSCALL:
		ev->sys_name = bc_syscall_name(((const struct bc_rec_syscall *)h)->nr);
		break;
	case BC_REC_PROC_EXEC: {
		const struct bc_rec_exec *x = (const void *)h;
		const struct bc_rec_exec_args *a = (const void *)(x + 1);

		if (x->filename_len >= BC_PATH_LEN)
			return -EINVAL;
		/* the argv after it, when there is one: exactly its size, a sane length */
		if (h->size != sizeof(*x) &&
		    (h->size != sizeof(*x) + sizeof(*a) || a->args_len > BC_EXEC_ARGS_MAX))
			return -EINVAL;
		break;
	}
	case BC_REC_LOST:
		if (((const struct bc_rec_lost *)h)->loss_class >= BC_LOSS_NR)
			return -EINVAL;
		break;
	case BC_REC_PROC_NAME: {
		const struct bc_rec_exec_args *a =
			(const void *)((const char *)h + sizeof(struct bc_rec_proc_name));

		if (h->size != sizeof(struct bc_rec_proc_name) &&
		    (h->size != sizeof(struct bc_rec_proc_name) + sizeof(*a) ||
		     a->args_len > BC_EXEC_ARGS_MAX))
			return -EINVAL;
		break;
	}
	case BC_REC_MMAP:
		if (((const struct bc_rec_mmap *)h)->path_len > BC_MMAP_PATH_MAX)
			return -EINVAL;
		break;
	case BC_REC_PROFILE: {
		const struct bc_rec_profile *p = (const void *)h;

		if (p->n_kernel > BC_PROFILE_MAX_FRAMES || p->n_user > BC_PROFILE_MAX_FRAMES ||
		    h->size != sizeof(*p) + 8u * ((size_t)p->n_kernel + p->n_user))
			return -EINVAL;
		break;
	}
	case BC_REC_OFFCPU: {
		const struct bc_rec_offcpu *o = (const void *)h;

		if (o->n_user > BC_OFFCPU_MAX_FRAMES || h->size != sizeof(*o) + 8u * o->n_user ||
		    o->off_ktime > h->ktime)
			return -EINVAL;
		break;
	}
	case BC_REC_HEAP: {
		const struct bc_rec_heap *m = (const void *)h;

		if (m->n_user > BC_HEAP_MAX_FRAMES || h->size != sizeof(*m) + 8u * m->n_user ||
		    m->htype > BC_HEAP_MUNMAP || m->fn >= BC_HEAP_FN_NR)
			return -EINVAL;
		break;
	}
	case BC_REC_SYNC: {
		const struct bc_rec_sync *y = (const void *)h;

		if (y->n_user > BC_SYNC_MAX_FRAMES || h->size != sizeof(*y) + 8u * y->n_user ||
		    y->fn >= BC_SYNC_FN_NR || y->start_ktime > h->ktime)
			return -EINVAL;
		break;
	}
	case BC_REC_IO: {
		const struct bc_rec_io *o = (const void *)h;
		size_t want =
			sizeof(*o) + 8u * o->n_user + (((size_t)o->name_len + 7) & ~(size_t)7);

		if (o->n_user > BC_IO_MAX_FRAMES || o->name_len > BC_PATH_LEN || h->size != want ||
		    o->iotype >= BC_IO_ERROR_OFFSET * 2 || o->start_ktime > h->ktime)
			return -EINVAL;
		break;
	}
	default:
		break;
	}
	ev->rec = h;
	return h->size;
}

/* The path in r, NUL-terminated within name_len and the record; "" when there is none. */
const char *bc_io_path(const struct bc_rec_io *r, size_t *len)
{
	size_t off = sizeof(*r) + 8 * (size_t)r->n_user;
	const char *name = (const char *)r + off;
	size_t max = r->h.size > off ? r->h.size - off : 0;

	if (max > r->name_len)
		max = r->name_len;
	*len = max ? strnlen(name, max) : 0;
	if (*len == max) /* no NUL inside: keep what is whole */
		*len = max ? max - 1 : 0;
	return *len ? name : "";
}

const char *bc_exec_args(const struct bc_rec_exec *x, size_t *len)
{
	const struct bc_rec_exec_args *a = (const void *)(x + 1);

	*len = 0;
	if (x->h.size < sizeof(*x) + sizeof(*a) || !a->args_len || a->args_len > BC_EXEC_ARGS_MAX)
		return NULL;
	*len = a->args_len;
	return a->args;
}

void bc_usage_to_record(const struct bc_usage *u, uint32_t pid, struct bc_rec_usage *r)
{
	*r = (struct bc_rec_usage){
		.h = {.size = sizeof(*r),
		      .kind = BC_REC_USAGE,
		      .pid = pid,
		      .tid = pid,
		      .ktime = u->tstamp},
		.create = u->create,
		.rtime = u->rtime,
		.utime = u->utime,
		.stime = u->stime,
		.wait = u->wait,
		.sleep = u->sleep,
		.vctx = u->vctx,
		.ictx = u->ictx,
		.minf = u->minf,
		.majf = u->majf,
		.inblk = u->inblk,
		.oublk = u->oublk,
		.ioch = u->ioch,
		.sysc = u->sysc,
	};
}

void bc_usage_from_record(const struct bc_rec_usage *r, struct bc_usage *u)
{
	*u = (struct bc_usage){
		.tstamp = r->h.ktime,
		.create = r->create,
		.rtime = r->rtime,
		.utime = r->utime,
		.stime = r->stime,
		.wait = r->wait,
		.sleep = r->sleep,
		.vctx = r->vctx,
		.ictx = r->ictx,
		.minf = r->minf,
		.majf = r->majf,
		.inblk = r->inblk,
		.oublk = r->oublk,
		.ioch = r->ioch,
		.sysc = r->sysc,
	};
}

int bc_argv_split(const char *blob, size_t len, const char *fallback, char ***argv_out,
		  char **buf_out)
{
	char *buf, **argv;
	size_t n = 0;

	*argv_out = NULL;
	*buf_out = NULL;
	if (!blob || !len) {
		blob = fallback;
		len = strlen(fallback) + 1;
	}
	buf = malloc(len + 1);
	if (!buf)
		return -ENOMEM;
	memcpy(buf, blob, len);
	buf[len] = 0; /* a last word cut without its NUL ends here */
	for (size_t i = 0; i < len; i += strlen(buf + i) + 1)
		n++;
	argv = calloc(n + 1, sizeof(*argv));
	if (!argv) {
		free(buf);
		return -ENOMEM;
	}
	n = 0;
	for (size_t i = 0; i < len; i += strlen(buf + i) + 1)
		argv[n++] = buf + i;
	*argv_out = argv;
	*buf_out = buf;
	return 0;
}

int bc_argv_join(char *const *argv, char **blob, size_t *len)
{
	size_t n = 0;
	char *b;

	for (char *const *a = argv; a && *a; a++)
		n += strlen(*a) + 1;
	b = malloc(n ? n : 1);
	if (!b)
		return -ENOMEM;
	n = 0;
	for (char *const *a = argv; a && *a; a++) {
		size_t l = strlen(*a) + 1;

		memcpy(b + n, *a, l);
		n += l;
	}
	*blob = b;
	*len = n;
	return 0;
}

const char *bc_proc_name_args(const struct bc_rec_proc_name *n, size_t *len)
{
	const struct bc_rec_exec_args *a = (const void *)(n + 1);

	*len = 0;
	if (n->h.size < sizeof(*n) + sizeof(*a) || !a->args_len || a->args_len > BC_EXEC_ARGS_MAX)
		return NULL;
	*len = a->args_len;
	return a->args;
}

int bc_mapping_from_record(const struct bc_rec_mmap *rec, char *path, size_t pathlen,
			   struct bc_mapping *m)
{
	const char *comp[BC_MMAP_DEPTH];
	size_t n = 0, pos = 0, len = rec->path_len;

	if (len > BC_MMAP_PATH_MAX || pathlen < 2)
		return -EINVAL;
	/* Leaf first, each NUL-terminated; a component without its NUL is dropped. */
	for (size_t i = 0; i < len && n < BC_MMAP_DEPTH;) {
		const char *c = rec->path + i;
		size_t l = strnlen(c, len - i);

		if (i + l >= len)
			break;
		comp[n++] = c;
		i += l + 1;
	}
	path[0] = 0;
	for (size_t k = n; k-- > 0;) {
		size_t l = strlen(comp[k]);

		if (pos + 1 + l + 1 > pathlen)
			return -ENAMETOOLONG;
		path[pos++] = '/';
		memcpy(path + pos, comp[k], l);
		pos += l;
		path[pos] = 0;
	}
	if (!pos) {
		path[0] = '/';
		path[1] = 0;
	}
	memset(m, 0, sizeof(*m));
	m->pid = rec->h.pid;
	m->ktime = rec->h.ktime;
	m->start = rec->start;
	m->end = rec->end;
	m->offset = rec->pgoff * 4096;
	m->prot = (uint32_t)(rec->vm_flags & 0x7); /* VM_READ|VM_WRITE|VM_EXEC = PROT_* */
	m->path = path;
	return 0;
}

int bc_func_label_dup(const struct bc_func *func, uint32_t func_id, char **name, char **object)
{
	*name = NULL;
	*object = NULL;
	if (func) {
		*name = strdup(func->name);
		*object = strdup(func->object);
	} else {
		if (asprintf(name, "<unknown id %u>", func_id) < 0)
			*name = NULL;
		*object = strdup("");
	}
	if (!*name || !*object) {
		free(*name);
		free(*object);
		*name = *object = NULL;
		return -ENOMEM;
	}
	return 0;
}

char bc_task_state_char(uint32_t state)
{
	/* ps(1)'s letters; TASK_FREEZABLE and other modifier bits above 0xff do not count */
	if (state & 0x0400 && state & 0x0002)
		return 'I'; /* TASK_IDLE: uninterruptible, not counted as load */
	switch (state & 0xff) {
	case 0x00:
		return 'R';
	case 0x01:
		return 'S';
	case 0x02:
		return 'D';
	case 0x04:
		return 'T';
	case 0x08:
		return 't';
	default:
		return state & 0x10 ? 'X' : state & 0x20 ? 'Z' : '?';
	}
}

void bc_offcpu_split(const struct bc_rec_offcpu *o, uint64_t *sleep_ns, uint64_t *wait_ns)
{
	uint64_t off = o->off_ktime, on = o->h.ktime;

	*sleep_ns = *wait_ns = 0;
	if (on < off)
		return;
	if (o->state == 0 || o->preempt) {
		*wait_ns = on - off;
	} else if (o->wake_ktime > off && o->wake_ktime <= on) {
		*sleep_ns = o->wake_ktime - off;
		*wait_ns = on - o->wake_ktime;
	} else {
		*sleep_ns = on - off;
	}
}

bool bc_offcpu_is_lock(const struct bc_rec_offcpu *o)
{
	/* x86-64: futex 202, futex_waitv 449 (what pthread mutexes, conds, joins block in) */
	return o->syscall == 202 || o->syscall == 449;
}

void bc_syscall_split(const struct bc_rec_syscall *call, struct bc_rec_sys_enter *enter,
		      struct bc_rec_sys_exit *exit)
{
	*enter = (struct bc_rec_sys_enter){
		.h = call->h,
		.nr = call->nr,
		.cpu = call->enter_cpu,
	};
	enter->h.size = sizeof(*enter);
	enter->h.kind = BC_REC_SYS_ENTER;
	enter->h.depth = call->enter_depth;
	enter->h.seq = call->h.seq ? call->h.seq - 1 : 0;
	enter->h.ktime = call->enter_ktime;
	memcpy(enter->args, call->args, sizeof(enter->args));
	*exit = (struct bc_rec_sys_exit){
		.h = call->h,
		.nr = call->nr,
		.cpu = call->cpu,
		.ret = call->ret,
		.enter_ktime = call->enter_ktime,
	};
	exit->h.size = sizeof(*exit);
	exit->h.kind = BC_REC_SYS_EXIT;
}

int bc_sink_event_split(struct bc_sink *s, const struct bc_event *e)
{
	struct bc_rec_sys_enter enter;
	struct bc_rec_sys_exit exit;
	struct bc_event half;
	int rc;

	if (!s->ops->event)
		return 0;
	bc_syscall_split((const struct bc_rec_syscall *)e->rec, &enter, &exit);
	half = *e;
	half.rec = &enter.h;
	rc = s->ops->event(s, &half);
	if (rc)
		return rc;
	half.rec = &exit.h;
	return s->ops->event(s, &half);
}
