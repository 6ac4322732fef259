// SPDX-License-Identifier: MIT
/*
 * The data layout of each record kind in GTF (gtf_layout.h), the FID and
 * EID table docs/gtf.md shows, and the decoder gtf-dump prints events with.
 * The decoder reads untrusted bytes: every length is checked against what
 * is left.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "bpfcollect/capture.h"
#include "bpfcollect/gtf.h"
#include "bpfcollect/names.h"
#include "bpfcollect/record.h"
#include "gtf_layout.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))
#define F(t, field, type)                                                                          \
	{                                                                                          \
#field, type, offsetof(t, field), 0                                                \
	}
#define FN(t, name, field, type)                                                                   \
	{                                                                                          \
		name, type, offsetof(t, field), 0                                                  \
	}
#define FC(t, name, type, field, count)                                                            \
	{                                                                                          \
		name, type, offsetof(t, field), offsetof(t, count)                                 \
	}

/* ---------------------------------------------------------------- the table */

static const struct gtf_field func_entry[] = {
	F(struct bc_rec_func_entry, func_id, GTF_U32),
	F(struct bc_rec_func_entry, cpu, GTF_U32),
	F(struct bc_rec_func_entry, sp, GTF_X64),
	{"captures", GTF_CAPS, sizeof(struct bc_rec_func_entry), 0},
};

static const struct gtf_field func_return[] = {
	F(struct bc_rec_func_return, func_id, GTF_U32),
	F(struct bc_rec_func_return, cpu, GTF_U32),
	FN(struct bc_rec_func_return, "entry", entry_ktime, GTF_TOD),
	F(struct bc_rec_func_return, retval, GTF_X64),
	{"captures", GTF_CAPS, sizeof(struct bc_rec_func_return), 0},
};

static const struct gtf_field sys_enter[] = {
	F(struct bc_rec_sys_enter, nr, GTF_U32),
	F(struct bc_rec_sys_enter, cpu, GTF_U32),
	FN(struct bc_rec_sys_enter, "arg1", args[0], GTF_X64),
	FN(struct bc_rec_sys_enter, "arg2", args[1], GTF_X64),
	FN(struct bc_rec_sys_enter, "arg3", args[2], GTF_X64),
	FN(struct bc_rec_sys_enter, "arg4", args[3], GTF_X64),
	FN(struct bc_rec_sys_enter, "arg5", args[4], GTF_X64),
	FN(struct bc_rec_sys_enter, "arg6", args[5], GTF_X64),
	{"captures", GTF_CAPS, sizeof(struct bc_rec_sys_enter), 0},
};

static const struct gtf_field sys_exit[] = {
	F(struct bc_rec_sys_exit, nr, GTF_U32),
	F(struct bc_rec_sys_exit, cpu, GTF_U32),
	F(struct bc_rec_sys_exit, ret, GTF_S64),
	FN(struct bc_rec_sys_exit, "entry", enter_ktime, GTF_TOD),
	{"captures", GTF_CAPS, sizeof(struct bc_rec_sys_exit), 0},
};

static const struct gtf_field fork[] = {
	F(struct bc_rec_fork, child_pid, GTF_U32),
	F(struct bc_rec_fork, child_tid, GTF_U32),
	F(struct bc_rec_fork, clone_flags, GTF_X64),
};

static const struct gtf_field exec[] = {
	F(struct bc_rec_exec, old_tid, GTF_U32),
	FC(struct bc_rec_exec, "filename", GTF_FILENAME, filename, filename_len),
	F(struct bc_rec_exec, code_start, GTF_X64),
	F(struct bc_rec_exec, code_end, GTF_X64),
	F(struct bc_rec_exec, interp_base, GTF_X64),
	{"argv", GTF_ARGS, sizeof(struct bc_rec_exec), 0},
};

static const struct gtf_field exit_[] = {
	F(struct bc_rec_exit, exit_code, GTF_S32),
	FN(struct bc_rec_exit, "start", start_time, GTF_TOD),
	F(struct bc_rec_exit, utime, GTF_U64),
	F(struct bc_rec_exit, stime, GTF_U64),
	F(struct bc_rec_exit, sum_exec, GTF_U64),
	F(struct bc_rec_exit, run_delay, GTF_U64),
	F(struct bc_rec_exit, nvcsw, GTF_U64),
	F(struct bc_rec_exit, nivcsw, GTF_U64),
	F(struct bc_rec_exit, min_flt, GTF_U64),
	F(struct bc_rec_exit, maj_flt, GTF_U64),
};

static const struct gtf_field lost[] = {
	F(struct bc_rec_lost, loss_class, GTF_U32),
	F(struct bc_rec_lost, cpu, GTF_U32),
	F(struct bc_rec_lost, count, GTF_U64),
};

static const struct gtf_field profile[] = {
	F(struct bc_rec_profile, cpu, GTF_U32),
	FC(struct bc_rec_profile, "ips", GTF_IPS_KU, ips, n_kernel),
};

static const struct gtf_field offcpu[] = {
	FN(struct bc_rec_offcpu, "off", off_ktime, GTF_TOD),
	FN(struct bc_rec_offcpu, "wake", wake_ktime, GTF_TOD),
	F(struct bc_rec_offcpu, sum_exec, GTF_U64),
	F(struct bc_rec_offcpu, waker_pid, GTF_U32),
	F(struct bc_rec_offcpu, waker_tid, GTF_U32),
	F(struct bc_rec_offcpu, state, GTF_U32),
	F(struct bc_rec_offcpu, syscall, GTF_S32),
	F(struct bc_rec_offcpu, cpu, GTF_U32),
	F(struct bc_rec_offcpu, preempt, GTF_U8),
	FC(struct bc_rec_offcpu, "ips", GTF_IPS, ips, n_user),
};

static const struct gtf_field proc_name[] = {
	F(struct bc_rec_proc_name, ppid, GTF_U32),
	F(struct bc_rec_proc_name, flags, GTF_U32),
	{"argv", GTF_ARGS, sizeof(struct bc_rec_proc_name), 0},
};

static const struct gtf_field heap[] = {
	FN(struct bc_rec_heap, "start", start_ktime, GTF_TOD),
	F(struct bc_rec_heap, size, GTF_U64),
	F(struct bc_rec_heap, addr, GTF_X64),
	F(struct bc_rec_heap, old_addr, GTF_X64),
	F(struct bc_rec_heap, pc, GTF_X64),
	F(struct bc_rec_heap, htype, GTF_U16),
	F(struct bc_rec_heap, fn, GTF_U16),
	FC(struct bc_rec_heap, "ips", GTF_IPS, ips, n_user),
};

static const struct gtf_field sync_[] = {
	FN(struct bc_rec_sync, "start", start_ktime, GTF_TOD),
	F(struct bc_rec_sync, object, GTF_X64),
	F(struct bc_rec_sync, pc, GTF_X64),
	F(struct bc_rec_sync, fn, GTF_U16),
	FC(struct bc_rec_sync, "ips", GTF_IPS, ips, n_user),
};

static const struct gtf_field io[] = {
	FN(struct bc_rec_io, "start", start_ktime, GTF_TOD),
	F(struct bc_rec_io, ret, GTF_S64),
	F(struct bc_rec_io, nbyte, GTF_U64),
	F(struct bc_rec_io, fd, GTF_S32),
	F(struct bc_rec_io, ofd, GTF_S32),
	F(struct bc_rec_io, nr, GTF_U32),
	F(struct bc_rec_io, iotype, GTF_U16),
	F(struct bc_rec_io, fstype, GTF_U16),
	FC(struct bc_rec_io, "ips", GTF_IPS, ips, n_user),
	{"path", GTF_PATH, 0, 0},
};

static const struct gtf_field usage[] = {
	F(struct bc_rec_usage, create, GTF_U64), F(struct bc_rec_usage, rtime, GTF_U64),
	F(struct bc_rec_usage, utime, GTF_U64),	 F(struct bc_rec_usage, stime, GTF_U64),
	F(struct bc_rec_usage, wait, GTF_U64),	 F(struct bc_rec_usage, sleep, GTF_U64),
	F(struct bc_rec_usage, vctx, GTF_U64),	 F(struct bc_rec_usage, ictx, GTF_U64),
	F(struct bc_rec_usage, minf, GTF_U64),	 F(struct bc_rec_usage, majf, GTF_U64),
	F(struct bc_rec_usage, inblk, GTF_U64),	 F(struct bc_rec_usage, oublk, GTF_U64),
	F(struct bc_rec_usage, ioch, GTF_U64),	 F(struct bc_rec_usage, sysc, GTF_U64),
};

#define L(kind, fid, says, f)                                                                      \
	{                                                                                          \
		kind, fid, says, f, NELEM(f)                                                       \
	}

/* In record kind order; mappings (mmap, munmap) are no events of GTF's. */
static const struct gtf_layout layouts[] = {
	L(BC_REC_FUNC_ENTRY, BC_GTF_FID_FUNC, "the function", func_entry),
	L(BC_REC_FUNC_RETURN, BC_GTF_FID_FUNC, "the function", func_return),
	L(BC_REC_SYS_ENTER, BC_GTF_FID_SYSCALL, "the system call", sys_enter),
	L(BC_REC_SYS_EXIT, BC_GTF_FID_SYSCALL, "the system call", sys_exit),
	L(BC_REC_PROC_FORK, BC_GTF_FID_PROCESS, "the child's name", fork),
	L(BC_REC_THREAD_START, BC_GTF_FID_PROCESS, "the new thread's name", fork),
	L(BC_REC_PROC_EXEC, BC_GTF_FID_PROCESS, "the new image's name", exec),
	L(BC_REC_THREAD_EXIT, BC_GTF_FID_PROCESS, "the thread's name", exit_),
	L(BC_REC_PROC_EXIT, BC_GTF_FID_PROCESS, "the process's name", exit_),
	L(BC_REC_LOST, BC_GTF_FID_LOSS, "the loss class", lost),
	L(BC_REC_PROFILE, BC_GTF_FID_SAMPLE, "empty", profile),
	L(BC_REC_OFFCPU, BC_GTF_FID_SCHED, "the system call it was in, or empty", offcpu),
	L(BC_REC_PROC_NAME, BC_GTF_FID_PROCESS, "the process's name", proc_name),
	L(BC_REC_HEAP, BC_GTF_FID_HEAP, "the allocator function", heap),
	L(BC_REC_SYNC, BC_GTF_FID_SYNC, "the waiting function", sync_),
	L(BC_REC_IO, BC_GTF_FID_IO, "the system call", io),
	L(BC_REC_USAGE, BC_GTF_FID_USAGE, "empty", usage),
};

static const char *const fid_names[] = {
	[BC_GTF_FID_FUNC] = "function",	  [BC_GTF_FID_SYSCALL] = "syscall",
	[BC_GTF_FID_PROCESS] = "process", [BC_GTF_FID_SCHED] = "sched",
	[BC_GTF_FID_SAMPLE] = "sample",	  [BC_GTF_FID_HEAP] = "heap",
	[BC_GTF_FID_SYNC] = "sync",	  [BC_GTF_FID_IO] = "io",
	[BC_GTF_FID_USAGE] = "usage",	  [BC_GTF_FID_LOSS] = "loss",
};

const struct gtf_layout *gtf_layout_of(unsigned int eid)
{
	for (size_t i = 0; i < NELEM(layouts); i++)
		if (layouts[i].eid == eid)
			return &layouts[i];
	return NULL;
}

const char *bc_gtf_fid_name(unsigned int fid)
{
	return fid < NELEM(fid_names) ? fid_names[fid] : NULL;
}

unsigned int bc_gtf_fid_of(unsigned int eid)
{
	const struct gtf_layout *l = gtf_layout_of(eid);

	return l ? l->fid : 0;
}

void bc_gtf_ids_print(FILE *out)
{
	fprintf(out, "| FID | family | EID | event | name holds | fields after the name |\n");
	fprintf(out, "|---|---|---|---|---|---|\n");
	for (size_t i = 0; i < NELEM(layouts); i++) {
		const struct gtf_layout *l = &layouts[i];

		fprintf(out, "| %02X | %s | %04X | %s | %s | ", l->fid, bc_gtf_fid_name(l->fid),
			l->eid, bc_rec_kind_name(l->eid), l->name_says);
		for (size_t k = 0; k < l->nfields; k++)
			fprintf(out, "%s%s", k ? " " : "", l->fields[k].name);
		fprintf(out, " |\n");
	}
}

/* ---------------------------------------------------------------- decoding */

struct reader {
	const uint8_t *p;
	size_t left;
	char *out;
	size_t outlen, pos;
};

static void say(struct reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void say(struct reader *r, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(r->pos < r->outlen ? r->out + r->pos : NULL,
		      r->pos < r->outlen ? r->outlen - r->pos : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		r->pos += (size_t)n;
}

static bool take(struct reader *r, size_t n, uint64_t *v)
{
	if (r->left < n)
		return false;
	*v = 0;
	for (size_t i = 0; i < n; i++)
		*v = *v << 8 | r->p[i];
	r->p += n;
	r->left -= n;
	return true;
}

/* n bytes as a quoted string: printable ASCII, \xNN for the rest. */
static void say_bytes(struct reader *r, const uint8_t *b, size_t n)
{
	say(r, "\"");
	for (size_t i = 0; i < n; i++) {
		if (b[i] == '"' || b[i] == '\\')
			say(r, "\\%c", b[i]);
		else if (b[i] >= 0x20 && b[i] < 0x7f)
			say(r, "%c", b[i]);
		else
			say(r, "\\x%02x", b[i]);
	}
	say(r, "\"");
}

/* A 2-byte length and that many bytes. */
static bool say_counted(struct reader *r, const char *name)
{
	uint64_t n;

	if (!take(r, 2, &n) || r->left < n)
		return false;
	say(r, " %s=", name);
	say_bytes(r, r->p, (size_t)n);
	r->p += n;
	r->left -= (size_t)n;
	return true;
}

static bool say_ips(struct reader *r, const char *name)
{
	uint64_t n, ip;

	if (!take(r, 2, &n))
		return false;
	say(r, " %s=", name);
	for (uint64_t i = 0; i < n; i++) {
		if (!take(r, 8, &ip))
			return false;
		say(r, "%s0x%" PRIx64, i ? "," : "", ip);
	}
	if (!n)
		say(r, "-");
	return true;
}

static bool say_caps(struct reader *r)
{
	uint64_t n, src, idx, type, flags, len;

	if (!take(r, 1, &n))
		return false;
	for (uint64_t i = 0; i < n; i++) {
		if (!take(r, 1, &src) || !take(r, 1, &idx) || !take(r, 1, &type) ||
		    !take(r, 1, &flags) || !take(r, 2, &len) || r->left < len)
			return false;
		if (src == BC_SRC_RETVAL)
			say(r, " retval=");
		else
			say(r, " %sarg%" PRIu64 "=", src == BC_SRC_FPARG ? "fp" : "", idx + 1);
		if (flags & BC_CAPF_FAULT)
			say(r, "<fault>");
		else if (flags & BC_CAPF_NULL)
			say(r, "NULL");
		else if ((type == BC_CAP_INT || type == BC_CAP_FP) && len == 8) {
			uint64_t v = 0;

			take(r, 8, &v);
			say(r, "0x%" PRIx64, v);
			continue;
		} else
			say_bytes(r, r->p, (size_t)len);
		if (flags & BC_CAPF_TRUNCATED)
			say(r, "...");
		r->p += len;
		r->left -= (size_t)len;
	}
	return true;
}

static bool say_field(struct reader *r, const struct gtf_field *f)
{
	static const uint8_t width[] = {[GTF_U8] = 1,  [GTF_U16] = 2, [GTF_U32] = 4, [GTF_S32] = 4,
					[GTF_U64] = 8, [GTF_S64] = 8, [GTF_X64] = 8, [GTF_TOD] = 8};
	char when[64];
	uint64_t v;

	switch (f->type) {
	case GTF_FILENAME:
	case GTF_ARGS:
	case GTF_PATH:
		return say_counted(r, f->name);
	case GTF_IPS:
	case GTF_IPS_KU:
		return say_ips(r, f->name);
	case GTF_CAPS:
		return say_caps(r);
	}
	if (!take(r, width[f->type], &v))
		return false;
	if (f->type == GTF_S32)
		say(r, " %s=%" PRId32, f->name, (int32_t)(uint32_t)v);
	else if (f->type == GTF_S64)
		say(r, " %s=%" PRId64, f->name, (int64_t)v);
	else if (f->type == GTF_X64)
		say(r, " %s=0x%" PRIx64, f->name, v);
	else if (f->type == GTF_TOD && !v)
		say(r, " %s=-", f->name);
	else if (f->type == GTF_TOD)
		say(r, " %s=\"%s\"", f->name, bc_gtf_tod_format(v, when, sizeof(when)));
	else
		say(r, " %s=%" PRIu64, f->name, v);
	return true;
}

int bc_gtf_decode(unsigned int fid, unsigned int eid, const uint8_t *data, size_t len, char *out,
		  size_t outlen)
{
	const struct gtf_layout *l = gtf_layout_of(eid);
	struct reader r = {.p = data, .left = len, .out = out, .outlen = outlen};
	uint64_t tid, depth, serial, nlen;
	const char *failed = "the common fields";

	if (outlen)
		out[0] = 0;
	if (!l || l->fid != fid) {
		say(&r, "FID %02X with EID %04X is not one of bpfcollect's", fid, eid);
		return -EINVAL;
	}
	if (!take(&r, 4, &tid) || !take(&r, 4, &depth) || !take(&r, 8, &serial) ||
	    !take(&r, 1, &nlen) || r.left < nlen)
		goto bad;
	say(&r,
	    "%s tid=%" PRIu64 " depth=%" PRIu64 " serial=%" PRIu64 " name=", bc_rec_kind_name(eid),
	    tid, depth, serial);
	say_bytes(&r, r.p, (size_t)nlen);
	r.p += nlen;
	r.left -= (size_t)nlen;
	for (size_t i = 0; i < l->nfields; i++) {
		failed = l->fields[i].name;
		if (!say_field(&r, &l->fields[i]))
			goto bad;
	}
	if (r.left) {
		say(&r, " (%zu bytes more than the layout)", r.left);
		return -EINVAL;
	}
	return (int)(r.pos < INT32_MAX ? r.pos : INT32_MAX);
bad:
	say(&r, " (data ends inside %s, at byte %zu of %zu)", failed, len - r.left, len);
	return -EINVAL;
}
