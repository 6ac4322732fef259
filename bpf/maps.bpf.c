// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Executable file mappings of traced processes, for map.xml. Two sources,
 * one per recording (user/agent/ldso_hook.c chooses):
 *
 * - maps_exit, on every syscall's return: mmap and munmap of traced
 *   processes. Every other syscall of every process returns at its first
 *   comparison.
 * - ldso_debug_state, a uprobe on the dynamic linker's _dl_debug_state()
 *   (the debugger interface of <link.h>, called once the program's
 *   libraries are loaded and after each dlopen and dlclose): it walks the
 *   process's mappings and sends each executable file mapping, then an end
 *   record (BC_REC_MMAP in record.h). Used only where the kernel can keep
 *   the probe to the one traced process: a uprobe writes a breakpoint into
 *   every process mapping the file, and programs that run translated code
 *   (valgrind, emulators) read that breakpoint as their own and die of
 *   SIGTRAP.
 */
#include "mapping.bpf.h"

#define VM_EXEC 0x4

extern int bpf_iter_task_vma_new(struct bpf_iter_task_vma *it, struct task_struct *task,
				 __u64 addr) __ksym __weak;
extern struct vm_area_struct *bpf_iter_task_vma_next(struct bpf_iter_task_vma *it) __ksym __weak;
extern void bpf_iter_task_vma_destroy(struct bpf_iter_task_vma *it) __ksym __weak;

/*
 * One executable file mapping as a snapshot record: 0 sent, -1 no room in
 * the ring. A global function: the verifier checks it once, not once per
 * state of the caller's mapping walk (the path walk inside would make that
 * walk cost tens of milliseconds at load). Its arguments are plain numbers
 * for that reason; the file is read with CO-RE probe reads.
 */
__noinline int ldso_send_vma(__u64 file_addr, __u64 start, __u64 end, __u64 pgoff, __u64 flags)
{
	struct bc_rec_mmap *rec = record_reserve(sizeof(*rec), BC_REC_MMAP, BC_LOSS_PROC, NULL, 0,
						 bpf_ktime_get_ns());

	if (!rec)
		return -1;
	send_file_mapping(rec, (struct file *)file_addr, start, end, pgoff, flags,
			  BC_MMAP_SNAPSHOT);
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(maps_exit, struct pt_regs *regs, long ret)
{
	long nr = regs->orig_ax;
	struct task_state *ts;

	if (nr != NR_MMAP && nr != NR_MUNMAP)
		return 0;
	ts = traced_task_state();
	if (ts)
		track_mapping(ts, nr, regs, ret, bpf_ktime_get_ns());
	return 0;
}

SEC("uprobe")
int ldso_debug_state(struct pt_regs *ctx)
{
	struct task_state *ts = traced_task_state();
	struct bpf_iter_task_vma it;
	struct vm_area_struct *vma;
	struct bc_rec_mmap *end;
	__u64 now = bpf_ktime_get_ns(), sent = 0, missed = 0;

	if (!ts)
		return 0;
	bpf_iter_task_vma_new(&it, bpf_get_current_task_btf(), 0);
	/* an open-coded iterator: the kernel bounds the walk, the verifier checks one round */
	while ((vma = bpf_iter_task_vma_next(&it))) {
		/* read through probe reads: numbers, which a global function may take */
		__u64 file = (__u64)BPF_CORE_READ(vma, vm_file),
		      flags = BPF_CORE_READ(vma, vm_flags);

		if (!(flags & VM_EXEC) || !file)
			continue;
		if (ldso_send_vma(file, BPF_CORE_READ(vma, vm_start), BPF_CORE_READ(vma, vm_end),
				  BPF_CORE_READ(vma, vm_pgoff), flags) == 0)
			sent++;
		else
			missed = 1;
	}
	bpf_iter_task_vma_destroy(&it);
	end = record_reserve(sizeof(*end), BC_REC_MMAP, BC_LOSS_PROC, NULL, ts->fr.depth, now);
	if (!end)
		return 0;
	end->start = sent;
	end->end = missed;
	end->pgoff = end->vm_flags = end->ino = 0;
	end->dev = 0;
	end->path_len = 0;
	end->truncated = 0;
	end->origin = BC_MMAP_SNAPSHOT_END;
	record_submit(end);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
