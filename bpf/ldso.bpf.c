// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Library mappings of traced processes without a syscall tracepoint. The
 * dynamic linker calls _dl_debug_state() (the debugger interface of
 * <link.h>, what gdb stops on) after it loaded the program's libraries and
 * after every dlopen and dlclose; a uprobe there walks the process's
 * mappings and sends each executable file mapping, then an end record (see
 * BC_REC_MMAP in record.h). Only processes that change their library list
 * pay for it, a few times in their life, where a sys_exit program would
 * make every syscall of every process on the machine pay.
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
	struct file *file = (void *)file_addr;
	struct bc_rec_mmap *rec;
	struct inode *inode;

	rec = record_reserve(sizeof(*rec), BC_REC_MMAP, BC_LOSS_PROC, NULL, 0, bpf_ktime_get_ns());
	if (!rec)
		return -1;
	rec->start = start;
	rec->end = end;
	rec->pgoff = pgoff;
	rec->vm_flags = flags & 0x7;
	inode = BPF_CORE_READ(file, f_inode);
	rec->ino = BPF_CORE_READ(inode, i_ino);
	rec->dev = BPF_CORE_READ(inode, i_sb, s_dev);
	rec->origin = BC_MMAP_SNAPSHOT;
	path_components(rec, file);
	record_submit(rec);
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
	end = record_reserve(sizeof(*end), BC_REC_MMAP, BC_LOSS_PROC, NULL, ts->depth, now);
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
