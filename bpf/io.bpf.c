// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * I/O tracing (-i on): the file system calls of traced threads, one
 * BC_REC_IO record each at the call's exit, with the caller's stack; opens
 * carry the path the program gave and the file system the descriptor is
 * on. gprofng's libcollector gets the same from interposed libc functions;
 * the raw system calls also see I/O done by code that bypasses them.
 *
 * The stack comes from ustack.bpf.h: frame pointers alone lose the caller
 * of the libc wrapper the system call sits in.
 */
#include "common.bpf.h"
#include "ustack.bpf.h"

#define IO_REC_STACK (sizeof(struct bc_rec_io) + 8 * BC_IO_MAX_FRAMES)
#define IO_REC_MAX   (IO_REC_STACK + BC_PATH_LEN)

/* ustack_syscall()'s work area. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ustack_work);
} io_stack_work SEC(".maps");

#define F_DUPFD		0
#define F_DUPFD_CLOEXEC 1030

#define S_IFMT	0170000
#define S_IFCHR 0020000
#define S_IFBLK 0060000

/* What a system call is to the I/O trace. */
enum io_class {
	IO_NONE = -1,
	IO_READ = BC_IO_READ,
	IO_WRITE = BC_IO_WRITE,
	IO_OPEN = BC_IO_OPEN, /* a path: the name is kept */
	IO_CLOSE = BC_IO_CLOSE,
	IO_OTHER = BC_IO_OTHER,
	IO_DUP,	   /* an open of fd args[0]'s file */
	IO_NEWFD,  /* an open without a name: socket, accept */
	IO_FDPAIR, /* two new descriptors in an int[2]: pipe, socketpair */
};

/* x86_64 system call numbers. */
static __always_inline int io_class(long nr, __u64 arg1)
{
	switch (nr) {
	case 0:	  /* read */
	case 17:  /* pread64 */
	case 19:  /* readv */
	case 45:  /* recvfrom */
	case 47:  /* recvmsg */
	case 295: /* preadv */
	case 327: /* preadv2 */
		return IO_READ;
	case 1:	  /* write */
	case 18:  /* pwrite64 */
	case 20:  /* writev */
	case 40:  /* sendfile (to args[0]) */
	case 44:  /* sendto */
	case 46:  /* sendmsg */
	case 296: /* pwritev */
	case 328: /* pwritev2 */
		return IO_WRITE;
	case 2:	  /* open */
	case 85:  /* creat */
	case 257: /* openat */
	case 437: /* openat2 */
		return IO_OPEN;
	case 3: /* close */
		return IO_CLOSE;
	case 32:  /* dup */
	case 33:  /* dup2 */
	case 292: /* dup3 */
		return IO_DUP;
	case 72: /* fcntl: only F_DUPFD makes a descriptor */
		return arg1 == F_DUPFD || arg1 == F_DUPFD_CLOEXEC ? IO_DUP : IO_NONE;
	case 41:  /* socket */
	case 43:  /* accept */
	case 288: /* accept4 */
		return IO_NEWFD;
	case 22:  /* pipe */
	case 293: /* pipe2 */
	case 53:  /* socketpair */
		return IO_FDPAIR;
	case 8:	  /* lseek */
	case 73:  /* flock */
	case 74:  /* fsync */
	case 75:  /* fdatasync */
	case 76:  /* truncate */
	case 77:  /* ftruncate */
	case 82:  /* rename */
	case 83:  /* mkdir */
	case 84:  /* rmdir */
	case 87:  /* unlink */
	case 217: /* getdents64 */
	case 258: /* mkdirat */
	case 263: /* unlinkat */
	case 264: /* renameat */
	case 277: /* sync_file_range */
	case 285: /* fallocate */
	case 316: /* renameat2 */
		return IO_OTHER;
	}
	return IO_NONE;
}

/* The descriptor an "other" call works on; -1 for those given a path. */
static __always_inline long other_fd(long nr, struct pt_regs *regs)
{
	switch (nr) {
	case 76:  /* truncate */
	case 82:  /* rename */
	case 83:  /* mkdir */
	case 84:  /* rmdir */
	case 87:  /* unlink */
	case 258: /* mkdirat */
	case 263: /* unlinkat */
	case 264: /* renameat */
	case 316: /* renameat2 */
		return -1;
	}
	return (long)regs->di;
}

/* gprofng's FileSystem_type of descriptor fd of the current process. */
static __always_inline __u16 fd_fstype(long fd)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct fdtable *fdt = BPF_CORE_READ(task, files, fdt);
	struct file **files, *file = NULL;
	struct inode *inode;
	unsigned long magic;
	umode_t mode;

	if (!fdt || fd < 0 || fd >= BPF_CORE_READ(fdt, max_fds))
		return BC_FS_UNKNOWN;
	files = BPF_CORE_READ(fdt, fd);
	if (bpf_probe_read_kernel(&file, sizeof(file), &files[fd]) < 0 || !file)
		return BC_FS_UNKNOWN;
	inode = BPF_CORE_READ(file, f_inode);
	mode = BPF_CORE_READ(inode, i_mode);
	if ((mode & S_IFMT) == S_IFCHR || (mode & S_IFMT) == S_IFBLK)
		return BC_FS_SPECFS;
	magic = BPF_CORE_READ(inode, i_sb, s_magic);
	return bc_fs_type_of_magic(magic);
}

/*
 * with_path is a constant at each call (open and its kin): the record's size
 * then follows from it at compile time. Tested on path itself, a runtime
 * value, older verifiers (6.1) lose which of the two sizes was reserved.
 */
static __always_inline void emit(void *ctx, struct pt_regs *regs, __u64 now, __u64 start, long nr,
				 __u16 iotype, long fd, long ofd, long ret, const char *path,
				 const bool with_path)
{
	struct bc_rec_io *rec;
	__u32 name_len = 0, zero = 0;
	struct ustack_work *w = bpf_map_lookup_elem(&io_stack_work, &zero);
	__u64 n = 0;

	if (with_path)
		rec = record_reserve(IO_REC_MAX, BC_REC_IO, BC_LOSS_IO, NULL, 0, now);
	else
		rec = record_reserve(IO_REC_STACK, BC_REC_IO, BC_LOSS_IO, NULL, 0, now);
	if (!rec)
		return;
	rec->start_ktime = start;
	rec->ret = ret;
	rec->nbyte = (iotype == BC_IO_READ || iotype == BC_IO_WRITE) && ret > 0 ? ret : 0;
	rec->fd = (__s32)fd;
	rec->ofd = (__s32)ofd;
	rec->nr = (__u32)nr;
	rec->iotype = ret < 0 ? iotype + BC_IO_ERROR_OFFSET : iotype;
	rec->fstype = iotype == BC_IO_OPEN && ret >= 0 ? fd_fstype(fd) : BC_FS_UNKNOWN;
	rec->pad = 0;
	if (w) {
		w->sp = regs->sp;
		w->bp = regs->bp;
		w->ip = regs->ip;
		n = (__u32)ustack_syscall(w) & (2 * BC_IO_MAX_FRAMES - 1);
		if (n > BC_IO_MAX_FRAMES)
			n = BC_IO_MAX_FRAMES;
		/* the bound must hold on the register the name's offset is made from */
		barrier_var(n);
		__builtin_memcpy(rec->ips, w->ips, sizeof(w->ips));
	}
	rec->n_user = (__u16)n;
	if (with_path) {
		/* the kernel has just read the path: its page is present (NULL: a fault) */
		long len = bpf_probe_read_user_str((char *)rec->ips + 8 * n, BC_PATH_LEN, path);

		if (len > 0)
			name_len = (__u32)len;
	}
	rec->name_len = (__u16)name_len;
	rec->h.size = sizeof(*rec) + 8 * n + ((name_len + 7) & ~7u);
	record_submit(rec);
}

SEC("tp_btf/sys_enter")
int BPF_PROG(io_sys_enter, struct pt_regs *regs, long nr)
{
	struct task_state *ts;

	if (io_class(nr, regs->si) == IO_NONE)
		return 0;
	ts = traced_task_state();
	if (!ts)
		return 0;
	ts->io_nr = (__u32)nr;
	ts->io_start = bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(io_sys_exit, struct pt_regs *regs, long ret)
{
	long nr = regs->orig_ax;
	int cls = io_class(nr, regs->si);
	struct task_state *ts;
	__u64 now, start = 0;
	int fds[2];

	if (cls == IO_NONE)
		return 0;
	ts = traced_task_state();
	if (!ts)
		return 0;
	now = bpf_ktime_get_ns();
	if (ts->io_start && ts->io_nr == (__u32)nr)
		start = ts->io_start;
	ts->io_start = 0;

	switch (cls) {
	case IO_READ:
	case IO_WRITE:
	case IO_CLOSE:
		emit(ctx, regs, now, start, nr, cls, (long)regs->di, -1, ret, NULL, false);
		break;
	case IO_OTHER:
		emit(ctx, regs, now, start, nr, cls, other_fd(nr, regs), -1, ret, NULL, false);
		break;
	case IO_OPEN:
		emit(ctx, regs, now, start, nr, BC_IO_OPEN, ret, -1, ret,
		     (const char *)(nr == 2 || nr == 85 ? regs->di : regs->si), true);
		break;
	case IO_DUP:
		emit(ctx, regs, now, start, nr, BC_IO_OPEN, ret, (long)regs->di, ret, NULL, false);
		break;
	case IO_NEWFD:
		emit(ctx, regs, now, start, nr, BC_IO_OPEN, ret, -1, ret, NULL, false);
		break;
	case IO_FDPAIR:
		if (ret < 0 || bpf_probe_read_user(fds, sizeof(fds),
						   (void *)(nr == 53 ? regs->r10 : regs->di)) < 0) {
			emit(ctx, regs, now, start, nr, BC_IO_OPEN, -1, -1, ret < 0 ? ret : -14,
			     NULL, false);
			break;
		}
		emit(ctx, regs, now, start, nr, BC_IO_OPEN, fds[0], -1, ret, NULL, false);
		emit(ctx, regs, now, start, nr, BC_IO_OPEN, fds[1], -1, ret, NULL, false);
		break;
	}
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
