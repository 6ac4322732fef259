// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Process lifecycle of traced processes: fork/clone, exec, exit. Children of
 * traced processes join traced_pids here, in the parent's fork, before the
 * child first runs: nothing a descendant does can be missed.
 */
#include "frames.bpf.h"

/* -F off: children are reported but not traced. */
const volatile bool follow_children = true;

#define CLONE_VM      0x00000100
#define CLONE_FS      0x00000200
#define CLONE_FILES   0x00000400
#define CLONE_SIGHAND 0x00000800
#define CLONE_VFORK   0x00004000
#define CLONE_THREAD  0x00010000

/*
 * The tracepoint does not pass clone flags; rebuild the ones that tell a
 * thread, a fork-like child and other clones apart from what the child shares.
 */
static __always_inline __u64 shared_with_parent(struct task_struct *parent,
						struct task_struct *child)
{
	__u64 flags = 0;

	/*
	 * Probe reads, not direct loads: each pointer loaded through a BTF
	 * pointer makes the verifier search the kernel's BTF for whether it
	 * is trusted, about a millisecond apiece at load time.
	 */
	if (BPF_CORE_READ(child, mm) == BPF_CORE_READ(parent, mm))
		flags |= CLONE_VM;
	if (BPF_CORE_READ(child, fs) == BPF_CORE_READ(parent, fs))
		flags |= CLONE_FS;
	if (BPF_CORE_READ(child, files) == BPF_CORE_READ(parent, files))
		flags |= CLONE_FILES;
	if (BPF_CORE_READ(child, sighand) == BPF_CORE_READ(parent, sighand))
		flags |= CLONE_SIGHAND;
	if (child->tgid == parent->tgid)
		flags |= CLONE_THREAD;
	if (BPF_CORE_READ(child, vfork_done))
		flags |= CLONE_VFORK;
	return flags;
}

#define NR_CLONE  56
#define NR_VFORK  58
#define NR_CLONE3 435

/*
 * CLONE_VFORK from the system call the parent is in: the child's
 * vfork_done is only set after this tracepoint, so vfork, posix_spawn and
 * clone(CLONE_VM|CLONE_VFORK) would otherwise look like a thread-less clone.
 */
static __always_inline __u64 vfork_of_syscall(struct task_struct *parent)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(parent);
	__u64 nr, flags = 0;

	if (!regs)
		return 0;
	nr = BPF_CORE_READ(regs, orig_ax);
	if (nr == NR_VFORK)
		return CLONE_VFORK;
	if (nr == NR_CLONE)
		flags = BPF_CORE_READ(regs, di);
	else if (nr == NR_CLONE3 &&
		 bpf_probe_read_user(&flags, sizeof(flags), (const void *)BPF_CORE_READ(regs, di)))
		flags = 0; /* struct clone_args starts with the flags */
	return flags & CLONE_VFORK;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(proc_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 parent_tgid = parent->tgid, child_tgid = child->tgid;
	bool is_thread = child_tgid == parent_tgid;
	struct bc_rec_fork *rec;
	struct task_state *ts;
	__u64 now;

	if (!pid_is_traced(parent_tgid))
		return 0;
	if (!is_thread && follow_children && !trace_all) {
		__u32 one = 1;

		bpf_map_update_elem(&traced_pids, &child_tgid, &one, BPF_NOEXIST);
	}
	now = bpf_ktime_get_ns();
	ts = current_task_state();
	rec = record_reserve(sizeof(*rec), is_thread ? BC_REC_THREAD_START : BC_REC_PROC_FORK,
			     BC_LOSS_PROC, ts, ts ? ts->fr.depth : 0, now);
	if (!rec)
		return 0;
	rec->child_pid = child_tgid;
	rec->child_tid = child->pid;
	rec->clone_flags = shared_with_parent(parent, child) | vfork_of_syscall(parent);
	__builtin_memcpy(rec->comm, child->comm, sizeof(rec->comm));
	record_submit(rec);
	return 0;
}

/* The exec record and the argv behind it. */
struct exec_rec {
	struct bc_rec_exec x;
	struct bc_rec_exec_args a;
};

/* argv of the new image, from its own stack, where execve has just copied it. */
static __always_inline void read_exec_args(struct mm_struct *mm, struct bc_rec_exec_args *a)
{
	__u64 start = BPF_CORE_READ(mm, arg_start), end = BPF_CORE_READ(mm, arg_end);
	__u64 n = end > start ? end - start : 0;

	a->truncated = n > BC_EXEC_ARGS_MAX;
	if (n > BC_EXEC_ARGS_MAX)
		n = BC_EXEC_ARGS_MAX;
	a->args_len = 0;
	if (n && bpf_probe_read_user(a->args, n, (const void *)start) == 0)
		a->args_len = (__u32)n;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(proc_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	struct exec_rec *full;
	struct bc_rec_exec *rec;
	struct task_state *ts;
	long len;
	__u64 now;

	if (!pid_is_traced(p->tgid))
		return 0;
	now = bpf_ktime_get_ns();
	ts = current_task_state();
	full = record_reserve(sizeof(*full), BC_REC_PROC_EXEC, BC_LOSS_PROC, ts, 0, now);
	if (!full)
		return 0;
	rec = &full->x;
	/* A new image has no traced frames open: the old ones never return. */
	if (ts)
		ts->fr.depth = 0;
	rec->old_tid = old_pid;
	__builtin_memcpy(rec->comm, p->comm, sizeof(rec->comm));
	len = bpf_probe_read_kernel_str(rec->filename, sizeof(rec->filename), bprm->filename);
	rec->filename_len = len > 0 ? len - 1 : 0;
	if (len <= 0)
		rec->filename[0] = 0;
	/* execve maps the image itself: where it went, for the agent's map.xml */
	struct mm_struct *mm = BPF_CORE_READ(p, mm);

	rec->code_start = BPF_CORE_READ(mm, start_code);
	rec->code_end = BPF_CORE_READ(mm, end_code);
	rec->interp_base = 0;
	for (int i = 0; i + 1 < 56; i += 2) {
		__u64 type = BPF_CORE_READ(mm, saved_auxv[i]);

		if (type == 0) /* AT_NULL */
			break;
		if (type == 7) { /* AT_BASE */
			rec->interp_base = BPF_CORE_READ(mm, saved_auxv[i + 1]);
			break;
		}
	}
	read_exec_args(mm, &full->a);
	record_submit(full);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(proc_exit, struct task_struct *p)
{
	__u32 tgid = p->tgid;
	struct bc_rec_exit *rec;
	struct task_state *ts;
	bool group_dead;
	__u64 now;

	if (!pid_is_traced(tgid))
		return 0;
	/* signal->live is already decremented for this thread: 0 means last one. */
	group_dead = BPF_CORE_READ(p, signal, live.counter) == 0;
	now = bpf_ktime_get_ns();
	ts = current_task_state();
	/* frames a longjmp or an exception left before the thread ended: they end there */
	if (ts && ts->fr.depth && !entries_stopped)
		ts->fr.depth = pop_left(ts, &ts->fr, ((struct pt_regs *)bpf_task_pt_regs(p))->sp,
					POP_AT_EXIT, now);
	rec = record_reserve(sizeof(*rec), group_dead ? BC_REC_PROC_EXIT : BC_REC_THREAD_EXIT,
			     BC_LOSS_PROC, ts, ts ? ts->fr.depth : 0, now);
	if (rec) {
		struct signal_struct *sig = BPF_CORE_READ(p, signal);

		rec->exit_code = p->exit_code;
		rec->pad = 0;
		__builtin_memcpy(rec->comm, p->comm, sizeof(rec->comm));
		/* signal_struct holds the threads already gone; add this one's own */
		rec->start_time = BPF_CORE_READ(p, group_leader, start_time);
		rec->utime = BPF_CORE_READ(sig, utime) + p->utime;
		rec->stime = BPF_CORE_READ(sig, stime) + p->stime;
		rec->sum_exec = BPF_CORE_READ(sig, sum_sched_runtime) + p->se.sum_exec_runtime;
		rec->run_delay = BPF_CORE_READ(p, sched_info.run_delay);
		rec->nvcsw = BPF_CORE_READ(sig, nvcsw) + p->nvcsw;
		rec->nivcsw = BPF_CORE_READ(sig, nivcsw) + p->nivcsw;
		rec->min_flt = BPF_CORE_READ(sig, min_flt) + p->min_flt;
		rec->maj_flt = BPF_CORE_READ(sig, maj_flt) + p->maj_flt;
		record_submit(rec);
	}
	if (group_dead)
		bpf_map_delete_elem(&traced_pids, &tgid);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
