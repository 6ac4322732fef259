/* SPDX-License-Identifier: MIT */
/*
 * Records written by the BPF programs into the ring buffer.
 *
 * This header is shared by bpf/ (compiled against vmlinux.h) and user/
 * (compiled against <linux/types.h>); it holds nothing but fixed-width
 * types. The same byte layout is what the `.er` private data files store
 * (docs/experiment-format.md), so a record travels from the kernel to disk
 * unchanged and a reader validates it exactly like the ring decoder does.
 *
 * Every record starts with struct bc_rec_head. `size` is the whole record in
 * bytes, always a multiple of 8, so records can be laid end to end as
 * packets of a gprofng-style data file (u16 tsize, u16 type).
 */
#ifndef BPFCOLLECT_RECORD_H
#define BPFCOLLECT_RECORD_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* Record kinds. Values are part of the on-disk format: never renumber. */
enum bc_rec_kind {
	BC_REC_FUNC_ENTRY = 0x101,   /* uprobe on a traced function */
	BC_REC_FUNC_RETURN = 0x102,  /* uretprobe of the same function */
	BC_REC_SYS_ENTER = 0x103,    /* raw syscall entry */
	BC_REC_SYS_EXIT = 0x104,     /* raw syscall exit */
	BC_REC_PROC_FORK = 0x105,    /* new process (fork/vfork/clone) */
	BC_REC_THREAD_START = 0x106, /* new thread in a traced process */
	BC_REC_PROC_EXEC = 0x107,    /* successful execve */
	BC_REC_THREAD_EXIT = 0x108,  /* a thread exited (not the last one) */
	BC_REC_PROC_EXIT = 0x109,    /* the last thread of a process exited */
	BC_REC_LOST = 0x10a,	     /* written by the agent: events lost */
	BC_REC_MMAP = 0x10b,	     /* an executable file mapping was made */
	BC_REC_MUNMAP = 0x10c,	     /* a range was unmapped */
	BC_REC_PROFILE = 0x10d,	     /* a clock-profile sample of a traced thread (-p) */
	BC_REC_OFFCPU = 0x10e,	     /* an interval a traced thread spent off CPU */
	BC_REC_PROC_NAME = 0x10f,    /* written by the agent: a process seen first mid-life */
	BC_REC_HEAP = 0x110,	     /* an allocator call returned (-H) */
	BC_REC_SYNC = 0x111,	     /* a thread waited on a lock, condition or join (-s) */
	BC_REC_IO = 0x112,	     /* an I/O system call returned (-i) */
	BC_REC_USAGE = 0x113,	     /* written by the agent: a process's usage so far (-S) */
	BC_REC_SYSCALL = 0x114,	     /* a system call's entry and exit in one ring record */
};

/* Loss counters are kept per CPU and per class (index into the array). */
enum bc_loss_class {
	BC_LOSS_FUNC = 0,
	BC_LOSS_SYSCALL = 1,
	BC_LOSS_PROC = 2,
	BC_LOSS_SAMPLE = 3, /* clock-profile samples */
	BC_LOSS_SCHED = 4,  /* off-CPU intervals */
	BC_LOSS_HEAP = 5,
	BC_LOSS_SYNC = 6,
	BC_LOSS_IO = 7,
	/*
	 * Counted by the agent, never by BPF: records it read but could not
	 * write, once an output failed (a full disk): the recording was cut short.
	 */
	BC_LOSS_UNWRITTEN = 8,
	BC_LOSS_NR = 9,
};

#define BC_COMM_LEN  16
#define BC_PATH_LEN  256
#define BC_MAX_DEPTH 128 /* pending entries kept per thread (power of 2) */
/*
 * A Go function's records carry its goroutine as their tid: this plus the
 * goroutine id (kernel thread ids stay below 2^22), with sequence numbers
 * of their own (docs/design.md, "Goroutines in the outputs").
 */
#define BC_GOROUTINE_TID_BASE (1u << 30)

struct bc_rec_head {
	__u16 size;  /* whole record, bytes, multiple of 8 */
	__u16 kind;  /* enum bc_rec_kind */
	__u32 depth; /* traced-function call depth of the thread */
	__u32 pid;   /* thread group id */
	__u32 tid;   /* kernel thread id */
	__u64 seq;   /* per-thread sequence number, from 1 */
	__u64 ktime; /* bpf_ktime_get_ns(): CLOCK_MONOTONIC, ns */
};

struct bc_rec_func_entry {
	struct bc_rec_head h;
	__u32 func_id; /* BPF cookie: index into the function table */
	__u32 cpu;
	__u64 sp; /* user stack pointer at entry */
};

struct bc_rec_func_return {
	struct bc_rec_head h;
	__u32 func_id;
	__u32 cpu;
	__u64 entry_ktime; /* 0 when the entry was not seen */
	__u64 retval;	   /* raw rax */
};

struct bc_rec_sys_enter {
	struct bc_rec_head h;
	__u32 nr;
	__u32 cpu;
	__u64 args[6];
};

struct bc_rec_sys_exit {
	struct bc_rec_head h;
	__u32 nr;
	__u32 cpu;
	__s64 ret;
	__u64 enter_ktime; /* 0 when the entry was not seen */
};

/*
 * BC_REC_SYSCALL: a system call, written at its exit, when its entry wrote
 * nothing (no path to capture, and it returns: not exit, exit_group or
 * execve): half the ring records, and the traced thread pays one record per
 * call. It exists in the ring only: the agent turns it into the
 * BC_REC_SYS_ENTER and BC_REC_SYS_EXIT it stands for (bc_syscall_split)
 * before anything else sees it, so sinks and files know the two. Its head
 * is the exit's; the entry's sequence number is the one before.
 */
struct bc_rec_syscall {
	struct bc_rec_head h;
	__u32 nr;
	__u32 cpu; /* at exit */
	__s64 ret;
	__u64 enter_ktime;
	__u32 enter_cpu;
	__u32 enter_depth;
	__u64 args[6];
};

/*
 * The head of each traced thread's state in BPF task storage: its last
 * sequence number and the system call it is in, when that call's entry
 * wrote no record. The agent reads it at the end of a recording: a call
 * still in progress then (blocked in read, say) becomes the
 * BC_REC_SYS_ENTER its entry would have written.
 */
struct bc_task_sys {
	__u64 seq;	   /* last sequence number handed out */
	__u64 enter_ktime; /* 0: no call in progress */
	__u64 args[6];
	__u32 nr;
	__u32 cpu;
	__u32 depth;	  /* traced-function frames open at entry */
	__u32 deferred;	  /* 1: the entry wrote nothing: the exit writes BC_REC_SYSCALL */
	__u32 retry_mask; /* path arguments whose read faulted at entry: retry at exit */
	__u32 pad;
};

/* BC_REC_PROC_FORK and BC_REC_THREAD_START; written by the parent thread. */
struct bc_rec_fork {
	struct bc_rec_head h;
	__u32 child_pid;
	__u32 child_tid;
	__u64 clone_flags;
	char comm[BC_COMM_LEN];
};

struct bc_rec_exec {
	struct bc_rec_head h;
	__u32 old_tid;
	__u32 filename_len; /* bytes of filename used, without NUL */
	char comm[BC_COMM_LEN];
	char filename[BC_PATH_LEN];
	/*
	 * Where execve put the new image (it maps it itself, not through mmap
	 * syscalls): the executable's code range (mm->start_code/end_code) and
	 * the interpreter's load base (AT_BASE), 0 without one.
	 */
	__u64 code_start;
	__u64 code_end;
	__u64 interp_base;
};

/*
 * What follows a bc_rec_exec when its size says so (format 2): the new
 * image's argv as execve gave it, NUL-separated, read from the process's
 * own memory (mm->arg_start..arg_end) as the image starts. The sinks take
 * a process's command line from here, never from /proc.
 */
#define BC_EXEC_ARGS_MAX 1024

struct bc_rec_exec_args {
	__u32 args_len;	 /* bytes of args used, the last NUL included; 0: none read */
	__u32 truncated; /* 1: argv was longer than BC_EXEC_ARGS_MAX */
	char args[BC_EXEC_ARGS_MAX];
};

/*
 * BC_REC_THREAD_EXIT and BC_REC_PROC_EXIT. A PROC_EXIT also carries the
 * process's final usage (what /proc can no longer tell): thread-group totals
 * (signal_struct, for threads already gone) plus the last thread's own.
 */
struct bc_rec_exit {
	struct bc_rec_head h;
	__s32 exit_code; /* task->exit_code: wait(2) status encoding */
	__u32 pad;
	char comm[BC_COMM_LEN];
	__u64 start_time; /* group leader's start, CLOCK_MONOTONIC ns */
	__u64 utime;	  /* ns, tick-sampled (scale by sum_exec) */
	__u64 stime;
	__u64 sum_exec;	 /* ns of CPU, exact */
	__u64 run_delay; /* ns runnable but waiting, this thread */
	__u64 nvcsw;
	__u64 nivcsw;
	__u64 min_flt;
	__u64 maj_flt;
};

/*
 * BC_REC_MMAP: an executable file mapping. The file's path travels as its
 * components, leaf first, each NUL-terminated, in path[0..path_len): the
 * agent joins them in reverse. The agent turns these (and the image an exec
 * maps) into map.xml events; they are not stored.
 *
 * origin says where it comes from: an mmap() returning (BC_MMAP_SYSCALL), or
 * a snapshot of the process's executable mappings taken when its dynamic
 * linker announced a change of its library list (BC_MMAP_SNAPSHOT, one
 * record per mapping). A snapshot ends with a BC_MMAP_SNAPSHOT_END record,
 * which names no mapping: its start is the number of snapshot records sent
 * before it, its end 1 when some could not be sent. Mappings the process
 * had before and the complete snapshot lacks are gone (dlclose).
 */
enum bc_mmap_origin {
	BC_MMAP_SYSCALL = 0,
	BC_MMAP_SNAPSHOT = 1,
	BC_MMAP_SNAPSHOT_END = 2,
};
#define BC_MMAP_PATH_MAX 1024
#define BC_MMAP_DEPTH	 32 /* path components walked at most */

struct bc_rec_mmap {
	struct bc_rec_head h;
	__u64 start;
	__u64 end;
	__u64 pgoff;	/* file offset of start, in pages */
	__u64 vm_flags; /* VM_READ 0x1, VM_WRITE 0x2, VM_EXEC 0x4 */
	__u64 ino;
	__u32 dev;	/* kernel dev_t: major << 20 | minor */
	__u16 path_len; /* bytes used in path */
	__u8 truncated; /* 1: deeper than BC_MMAP_DEPTH or longer than the buffer */
	__u8 origin;	/* enum bc_mmap_origin */
	char path[BC_MMAP_PATH_MAX];
};

struct bc_rec_munmap {
	struct bc_rec_head h;
	__u64 start;
	__u64 len;
};

/*
 * BC_REC_PROFILE: a cpu-clock sample (-p) of a traced thread, taken by a
 * perf_event program every period of CPU time. Call stacks as
 * bpf_get_stack gives them: n_kernel kernel frames (leaf first, the exact
 * kernel pc, then return addresses; none when user code was interrupted),
 * then n_user user frames (the exact user pc, then return addresses, found
 * through frame pointers). size = 40 + 8 * (n_kernel + n_user). Its seq is
 * 0: samples are not part of the thread's event sequence.
 */
#define BC_PROFILE_MAX_FRAMES 127 /* per side: the kernel's default perf_event_max_stack */

struct bc_rec_profile {
	struct bc_rec_head h;
	__u32 cpu;
	__u16 n_kernel;
	__u16 n_user;
	__u64 ips[];
};

/*
 * BC_REC_OFFCPU (-k, -a, --offcpu): one interval a traced thread spent off
 * a CPU, written when the scheduler switches it back in (h.ktime; h.pid and
 * h.tid are that thread's, h.seq is 0). Switched out at off_ktime in `state`
 * (the task state the scheduler saw: 0 runnable, so it was preempted or
 * yielded; else it blocked); made runnable again at wake_ktime by waker
 * (0 when no wakeup was seen: a preemption, or a wakeup before tracing).
 * syscall is the system call it was in at switch-out (-1: in user code).
 * sum_exec is the thread's CPU time so far (ns, exact) at switch-out.
 * ips: its user stack at switch-out, leaf first, the return address
 * chain through frame pointers; size = 80 + 8 * n_user.
 */
#define BC_OFFCPU_MAX_FRAMES 32

struct bc_rec_offcpu {
	struct bc_rec_head h;
	__u64 off_ktime;
	__u64 wake_ktime;
	__u64 sum_exec;
	__u32 waker_pid;
	__u32 waker_tid;
	__u32 state;   /* TASK_INTERRUPTIBLE 1, TASK_UNINTERRUPTIBLE 2, ...; 0 runnable */
	__s32 syscall; /* -1: none */
	__u32 cpu;     /* where it runs again */
	__u16 n_user;
	__u8 preempt; /* 1: the scheduler preempted it */
	__u8 pad;
	__u64 ips[];
};

/*
 * BC_REC_PROC_NAME, written by the agent (never by BPF) into a kernel
 * experiment before the first record of a process that began before
 * recording did (no fork or exec record names it): its name then, from /proc.
 * Format 2: its argv follows, as a struct bc_rec_exec_args (the record's
 * size says whether it is there).
 */
#define BC_PROC_KTHREAD 1 /* flags: a kernel thread */

struct bc_rec_proc_name {
	struct bc_rec_head h;
	__u32 ppid;
	__u32 flags;
	char comm[BC_COMM_LEN];
};

/*
 * BC_REC_USAGE, written by the agent (never by BPF) every -S interval for
 * each process it waits for: what /proc says it used so far (struct
 * bc_usage, bpfcollect/overview.h, field for field), read at h.ktime. An
 * experiment's periodic overview samples are made from these records, so
 * a replay writes them again. h.seq is 0.
 */
struct bc_rec_usage {
	struct bc_rec_head h;
	__u64 create;
	__u64 rtime;
	__u64 utime;
	__u64 stime;
	__u64 wait;
	__u64 sleep;
	__u64 vctx;
	__u64 ictx;
	__u64 minf;
	__u64 majf;
	__u64 inblk;
	__u64 oublk;
	__u64 ioch;
	__u64 sysc;
};

/* Written by the agent (never by BPF) when reserve failures were counted. */
struct bc_rec_lost {
	struct bc_rec_head h;
	__u32 loss_class; /* enum bc_loss_class */
	__u32 cpu;
	__u64 count;
};

/*
 * BC_REC_HEAP (-H on): one allocator call of a traced thread, written when
 * it returns (h.ktime; free and munmap, which need no result, at entry).
 * htype is gprofng's: 0 malloc (malloc, calloc, memalign, posix_memalign,
 * aligned_alloc, valloc, pvalloc), 1 free, 2 realloc (old_addr to addr),
 * 3 mmap, 4 munmap. fn says which function it was (enum bc_heap_fn). Calls
 * made inside another traced allocator call (realloc's own malloc, malloc's
 * mmap) are not recorded: the outer call accounts for them. Failed calls
 * (NULL, MAP_FAILED) are not recorded. pc: the function's entry address
 * in the process (the stack's leaf); ips: the caller's user stack, every
 * frame a return address (the first is where the call returns to),
 * size = 80 + 8 * n_user; h.seq is 0 (no part of the thread's sequence).
 */
#define BC_HEAP_MAX_FRAMES 32

enum bc_heap_type {
	BC_HEAP_MALLOC = 0,
	BC_HEAP_FREE = 1,
	BC_HEAP_REALLOC = 2,
	BC_HEAP_MMAP = 3,
	BC_HEAP_MUNMAP = 4,
};

/* The probed functions; the BPF cookie of each probe. Never renumber. */
enum bc_heap_fn {
	BC_HEAP_FN_MALLOC = 0,
	BC_HEAP_FN_CALLOC,
	BC_HEAP_FN_REALLOC,
	BC_HEAP_FN_REALLOCARRAY,
	BC_HEAP_FN_FREE,
	BC_HEAP_FN_POSIX_MEMALIGN,
	BC_HEAP_FN_ALIGNED_ALLOC,
	BC_HEAP_FN_MEMALIGN,
	BC_HEAP_FN_VALLOC,
	BC_HEAP_FN_PVALLOC,
	BC_HEAP_FN_MMAP,
	BC_HEAP_FN_MUNMAP,
	BC_HEAP_FN_NR,
};

struct bc_rec_heap {
	struct bc_rec_head h;
	__u64 start_ktime; /* entry */
	__u64 size;	   /* bytes asked for (calloc: n * size) */
	__u64 addr;	   /* the block (free, munmap: the one given back) */
	__u64 old_addr;	   /* realloc: the block before */
	__u64 pc;	   /* the allocator function's entry */
	__u16 htype;	   /* enum bc_heap_type */
	__u16 fn;	   /* enum bc_heap_fn */
	__u16 n_user;
	__u16 pad;
	__u64 ips[];
};

/*
 * BC_REC_SYNC (-s on|US): a wait of a traced thread at or above the
 * threshold, written when the call returns (h.ktime); start_ktime is its
 * entry. object: the mutex (pthread_cond_*wait: the mutex given; rwlocks
 * and semaphores: themselves), or the thread waited for (pthread_join).
 * pc and ips as in BC_REC_HEAP; size = 64 + 8 * n_user; h.seq is 0.
 */
#define BC_SYNC_MAX_FRAMES 32

enum bc_sync_fn {
	BC_SYNC_FN_MUTEX_LOCK = 0,
	BC_SYNC_FN_COND_WAIT,
	BC_SYNC_FN_COND_TIMEDWAIT,
	BC_SYNC_FN_JOIN,
	BC_SYNC_FN_SEM_WAIT,
	BC_SYNC_FN_SEM_TIMEDWAIT,
	BC_SYNC_FN_RWLOCK_RDLOCK,
	BC_SYNC_FN_RWLOCK_WRLOCK,
	BC_SYNC_FN_NR,
};

struct bc_rec_sync {
	struct bc_rec_head h;
	__u64 start_ktime;
	__u64 object;
	__u64 pc; /* the waiting function's entry */
	__u16 fn; /* enum bc_sync_fn */
	__u16 n_user;
	__u32 pad;
	__u64 ips[];
};

/*
 * BC_REC_IO (-i on): one I/O system call of a traced thread, written at its
 * exit (h.ktime); start_ktime is its entry (0: a descriptor that was already
 * open when tracing began, see nr). iotype is gprofng's IOTrace_type: read,
 * write, open (open, openat, openat2, creat, dup*, fcntl F_DUPFD*, pipe*,
 * socket, accept*), close, other (lseek, fsync, ftruncate, unlink, ...),
 * plus BC_IO_ERROR_OFFSET when the call failed (ret = -errno). fd: the
 * descriptor acted on, or the new one (open, dup); ofd: dup's original,
 * else -1. nbyte: bytes moved by a read or write that succeeded. fstype:
 * gprofng's FileSystem_type of the opened file, from its superblock's
 * magic. ips: the caller's user stack, leaf first (the system call
 * instruction in its libc wrapper, then return addresses); then name_len
 * bytes of the path given to open (NUL included; 0 when there is none).
 * size = 80 + 8 * n_user + name_len rounded up to 8; h.seq is 0.
 */
#define BC_IO_MAX_FRAMES   32
#define BC_IO_NR_INHERITED 0xffffffffu /* nr of an open made up for a descriptor open before */

enum bc_io_type {
	BC_IO_READ = 0,
	BC_IO_WRITE = 1,
	BC_IO_OPEN = 2,
	BC_IO_CLOSE = 3,
	BC_IO_OTHER = 4,
	BC_IO_ERROR_OFFSET = 5, /* READ_ERROR = 5 ... OTHER_ERROR = 9 */
};

/* gprofng's FileSystem_type values (only those a Linux superblock maps to). */
enum bc_fs_type {
	BC_FS_ZFS = 0,
	BC_FS_NFS = 1,
	BC_FS_TMPFS = 6,
	BC_FS_PROCFS = 9,
	BC_FS_FIFOFS = 10,
	BC_FS_AUTOFS = 13,
	BC_FS_SPECFS = 14, /* device files */
	BC_FS_SOCKFS = 15,
	BC_FS_EXT4 = 23, /* ext2, ext3 and ext4 share the magic */
	BC_FS_UNKNOWN = 24,
};

/* A superblock's magic (statfs f_type) as gprofng's FileSystem_type. */
static inline __u16 bc_fs_type_of_magic(__u64 magic)
{
	switch (magic) {
	case 0xef53: /* ext2, ext3, ext4 */
		return BC_FS_EXT4;
	case 0x01021994:
		return BC_FS_TMPFS;
	case 0x9fa0:
		return BC_FS_PROCFS;
	case 0x6969:
		return BC_FS_NFS;
	case 0x534f434b:
		return BC_FS_SOCKFS;
	case 0x50495045: /* pipefs */
		return BC_FS_FIFOFS;
	case 0x0187:
		return BC_FS_AUTOFS;
	case 0x2fc12fc1:
		return BC_FS_ZFS;
	}
	return BC_FS_UNKNOWN;
}

struct bc_rec_io {
	struct bc_rec_head h;
	__u64 start_ktime;
	__s64 ret;
	__u64 nbyte;
	__s32 fd;
	__s32 ofd;
	__u32 nr;     /* the system call */
	__u16 iotype; /* enum bc_io_type (+ BC_IO_ERROR_OFFSET) */
	__u16 fstype; /* enum bc_fs_type */
	__u16 n_user;
	__u16 name_len;
	__u32 pad;
	__u64 ips[];
};

#endif /* BPFCOLLECT_RECORD_H */
