// SPDX-License-Identifier: MIT
/*
 * The message of each `|` line: what a record says, in words (docs/rtl.md,
 * "Events and their lines"). The sink adds the time, thread and scope.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "bpfcollect/capture_fmt.h"
#include "bpfcollect/names.h"
#include "bpfcollect/syscalls.h"
#include "bpfcollect/sysdecode.h"
#include "rtl_sink.h"

static void sys_name(unsigned int nr, char *buf, size_t len)
{
	const char *name = bc_syscall_name(nr);

	if (name)
		snprintf(buf, len, "%s", name);
	else
		snprintf(buf, len, "syscall_%u", nr);
}

/* "openat(AT_FDCWD, "/etc/x", O_RDONLY) = 3", from the thread's entry when there is one. */
static int sys_msg(const struct bc_rec_sys_exit *x, const struct bc_rec_sys_enter *enter, char *out,
		   size_t len)
{
	char call[2048], result[256], name[32];

	sys_name(x->nr, name, sizeof(name));
	if (!enter || bc_sys_format_enter(enter, enter->h.size, call, sizeof(call)) < 0)
		snprintf(call, sizeof(call), "%s(...)", name);
	/* the result reads "= 3", "= -1 ENOENT (...)" */
	if (bc_sys_format_result(x->ret, x->nr, result, sizeof(result)) < 0)
		snprintf(result, sizeof(result), "= %" PRId64, (int64_t)x->ret);
	return snprintf(out, len, "%s %s", call, result);
}

static int exit_msg(const struct bc_rec_exit *x, char *out, size_t len)
{
	int status = x->exit_code;

	if (x->h.kind == BC_REC_THREAD_EXIT)
		return snprintf(out, len, "thread exit");
	if ((status & 0x7f) == 0)
		return snprintf(out, len, "exit %d", (status >> 8) & 0xff);
	return snprintf(out, len, "killed by signal %d", status & 0x7f);
}

static int heap_msg(const struct bc_rec_heap *r, char *out, size_t len)
{
	const char *fn = bc_heap_fn_name(r->fn);
	int n = snprintf(out, len, "heap %s size=%" PRIu64 " addr=0x%" PRIx64, fn ? fn : "?",
			 (uint64_t)r->size, (uint64_t)r->addr);

	if (r->htype == BC_HEAP_REALLOC && n >= 0 && (size_t)n < len)
		n += snprintf(out + n, len - (size_t)n, " old=0x%" PRIx64, (uint64_t)r->old_addr);
	return n;
}

static int io_msg(const struct bc_rec_io *r, char *out, size_t len)
{
	bool failed = r->iotype >= BC_IO_ERROR_OFFSET;
	const char *type = bc_io_type_name(failed ? r->iotype - BC_IO_ERROR_OFFSET : r->iotype);
	const char *call = r->nr == BC_IO_NR_INHERITED ? "inherited" : bc_syscall_name(r->nr);
	size_t plen;
	const char *path = bc_io_path(r, &plen);

	return snprintf(out, len, "io %s %s fd=%" PRId32 " bytes=%" PRIu64 " = %" PRId64 "%s%.*s",
			call ? call : "?", type ? type : "?", r->fd, (uint64_t)r->nbyte,
			(int64_t)r->ret, plen ? " file=" : "", (int)plen, path);
}

static int lost_msg(const struct bc_rec_lost *l, char *out, size_t len)
{
	const char *name = bc_loss_class_name(l->loss_class);

	return snprintf(out, len, "lost %" PRIu64 " %s events on cpu %" PRIu32, (uint64_t)l->count,
			name ? name : "?", l->cpu);
}

int rtl_message(const struct bc_event *ev, const struct bc_rec_sys_enter *enter, bool samples,
		char *out, size_t len)
{
	const struct bc_rec_head *h = ev->rec;

	out[0] = '\0';
	switch (h->kind) {
	case BC_REC_FUNC_ENTRY:
		return bc_format_func_captures(ev, " ", out, len) < 0 ? -EINVAL : 0;
	case BC_REC_FUNC_RETURN: {
		const struct bc_rec_func_return *r = (const void *)h;
		int n = snprintf(out, len, "ret=0x%" PRIx64, (uint64_t)r->retval);

		if (n > 0 && (size_t)n + 1 < len && ev->func &&
		    ev->func->capture.n_return + ev->func->capture.n_entry) {
			out[n] = ' ';
			bc_format_func_captures(ev, " ", out + n + 1, len - (size_t)n - 1);
			if (!out[n + 1])
				out[n] = '\0';
		}
		return 0;
	}
	case BC_REC_SYS_EXIT:
		return sys_msg((const void *)h, enter, out, len) < 0 ? -EINVAL : 0;
	case BC_REC_PROC_FORK:
		return snprintf(out, len, "fork child %" PRIu32,
				((const struct bc_rec_fork *)h)->child_pid) < 0;
	case BC_REC_THREAD_START:
		return snprintf(out, len, "thread %" PRIu32 " started",
				((const struct bc_rec_fork *)h)->child_tid) < 0;
	case BC_REC_PROC_EXEC: {
		const struct bc_rec_exec *x = (const void *)h;

		return snprintf(out, len, "exec %.*s", (int)x->filename_len, x->filename) < 0;
	}
	case BC_REC_THREAD_EXIT:
	case BC_REC_PROC_EXIT:
		return exit_msg((const void *)h, out, len) < 0;
	case BC_REC_LOST:
		return lost_msg((const void *)h, out, len) < 0;
	case BC_REC_HEAP:
		return heap_msg((const void *)h, out, len) < 0;
	case BC_REC_SYNC: {
		const struct bc_rec_sync *r = (const void *)h;
		const char *fn = bc_sync_fn_name(r->fn);

		return snprintf(out, len, "sync %s waited %" PRIu64 " us object=0x%" PRIx64,
				fn ? fn : "?", (uint64_t)(h->ktime - r->start_ktime) / 1000,
				(uint64_t)r->object) < 0;
	}
	case BC_REC_IO:
		return io_msg((const void *)h, out, len) < 0;
	case BC_REC_OFFCPU: {
		const struct bc_rec_offcpu *o = (const void *)h;

		return snprintf(out, len, "off cpu %" PRIu64 " us, %s",
				(uint64_t)(h->ktime - o->off_ktime) / 1000,
				o->state && !o->preempt ? "blocked" : "preempted") < 0;
	}
	case BC_REC_PROFILE: {
		const struct bc_rec_profile *p = (const void *)h;

		if (!samples)
			return -ENOENT;
		/* the user pc (the kernel's when the sample has no user stack) */
		return snprintf(out, len, "sample pc=0x%" PRIx64 "%s",
				(uint64_t)p->ips[p->n_user ? p->n_kernel : 0],
				p->n_user ? "" : " in the kernel") < 0;
	}
	}
	return -ENOENT; /* no line: sys_enter (with its exit), names, usage samples */
}
