/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Executable file mappings of traced processes, from the mmap and munmap
 * syscalls as they return. (fentry programs, which could hook the kernel's
 * own mmap path, are refused on the kernels this runs on; an exec's own
 * mappings come from its EXEC record instead.)
 */
#ifndef BPFCOLLECT_MAPPING_BPF_H
#define BPFCOLLECT_MAPPING_BPF_H

#include "common.bpf.h"

#define NR_MMAP	  9
#define NR_MUNMAP 11
#define PROT_EXEC 0x4

/* Where a path walk is: one step per bpf_loop round. */
struct path_walk {
	struct bc_rec_mmap *rec;
	struct dentry *dentry;
	struct vfsmount *vfsmnt;
	struct mount *mnt;
	__u32 off;
};

/* One component, or one mount crossed: 0 go on, 1 done. */
static long path_step(__u32 i, void *ctx)
{
	struct path_walk *w = ctx;
	struct bc_rec_mmap *rec = w->rec;
	/* locals: CO-RE relocates the kernel's structs, not this one */
	struct dentry *dentry = w->dentry;
	struct vfsmount *vfsmnt = w->vfsmnt;
	struct mount *mnt = w->mnt;
	struct dentry *root = BPF_CORE_READ(vfsmnt, mnt_root);
	struct dentry *parent = BPF_CORE_READ(dentry, d_parent);
	__u32 off = w->off;
	long n;

	if (dentry == root || dentry == parent) {
		struct mount *up = BPF_CORE_READ(mnt, mnt_parent);

		if (up == mnt) {
			rec->truncated = 0; /* the root of it all */
			return 1;
		}
		w->dentry = BPF_CORE_READ(mnt, mnt_mountpoint);
		w->mnt = up;
		w->vfsmnt = &up->mnt;
		return 0;
	}
	if (off >= BC_MMAP_PATH_MAX - 256)
		return 1;
	n = bpf_probe_read_kernel_str(&rec->path[off], 256, BPF_CORE_READ(dentry, d_name.name));
	if (n <= 0)
		return 1;
	w->off = off + (__u32)n;
	w->dentry = parent;
	return 0;
}

/*
 * The file's path, leaf first: each component NUL-terminated, crossing
 * mounts upward. The walk is a bpf_loop callback, checked once by the
 * verifier: an unrolled loop of BC_MMAP_DEPTH rounds cost ~15 ms at load.
 */
static __always_inline void path_components(struct bc_rec_mmap *rec, struct file *file)
{
	struct path_walk w = {.rec = rec,
			      .dentry = BPF_CORE_READ(file, f_path.dentry),
			      .vfsmnt = BPF_CORE_READ(file, f_path.mnt)};

	w.mnt = container_of(w.vfsmnt, struct mount, mnt);
	rec->truncated = 1;
	bpf_loop(BC_MMAP_DEPTH, path_step, &w, 0);
	rec->path_len = w.off;
}

/*
 * Fills and sends a reserved mapping record: the range, the file's identity
 * and path, where it came from.
 */
static __always_inline void send_file_mapping(struct bc_rec_mmap *rec, struct file *file,
					      __u64 start, __u64 end, __u64 pgoff, __u64 flags,
					      __u8 origin)
{
	struct inode *inode = BPF_CORE_READ(file, f_inode);

	rec->start = start;
	rec->end = end;
	rec->pgoff = pgoff;
	rec->vm_flags = flags & 0x7; /* PROT_READ|WRITE|EXEC match VM_READ|WRITE|EXEC */
	rec->ino = BPF_CORE_READ(inode, i_ino);
	rec->dev = BPF_CORE_READ(inode, i_sb, s_dev);
	rec->origin = origin;
	path_components(rec, file);
	record_submit(rec);
}

static __always_inline struct file *fd_file(int fd)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct fdtable *fdt = BPF_CORE_READ(task, files, fdt);
	struct file **fds = BPF_CORE_READ(fdt, fd);
	struct file *file = NULL;

	if (fd < 0 || (unsigned int)fd >= BPF_CORE_READ(fdt, max_fds))
		return NULL;
	bpf_probe_read_kernel(&file, sizeof(file), &fds[fd]);
	return file;
}

/*
 * At the exit of mmap and munmap of a traced process: the mapping made or
 * removed. These records become map.xml events, not stored records, so they
 * take no sequence number (seq 0): a thread's sequence stays gapless.
 */
static __always_inline void track_mapping(struct task_state *ts, long nr, struct pt_regs *regs,
					  long ret, __u64 now)
{
	if (nr == NR_MUNMAP && ret == 0) {
		struct bc_rec_munmap *u = record_reserve(sizeof(*u), BC_REC_MUNMAP, BC_LOSS_PROC,
							 NULL, ts->fr.depth, now);

		if (!u)
			return;
		u->start = regs->di;
		u->len = regs->si;
		record_submit(u);
		return;
	}
	/* mmap(addr, len, prot, flags, fd, off): an executable mapping of a file */
	if (nr != NR_MMAP || (unsigned long)ret >= (unsigned long)-4095L ||
	    !(regs->dx & PROT_EXEC) || (long)regs->r8 < 0)
		return;
	struct file *file = fd_file((int)regs->r8);
	struct bc_rec_mmap *rec;

	if (!file)
		return;
	rec = record_reserve(sizeof(*rec), BC_REC_MMAP, BC_LOSS_PROC, NULL, ts->fr.depth, now);
	if (!rec)
		return;
	send_file_mapping(rec, file, ret, ret + ((regs->si + 4095) & ~4095ULL), regs->r9 >> 12,
			  regs->dx, BC_MMAP_SYSCALL);
}

#endif
