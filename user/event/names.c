// SPDX-License-Identifier: MIT
/* One name table per enum of the record format (see bpfcollect/names.h). */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>

#include "bpfcollect/names.h"
#include "bpfcollect/record.h"

#define KIND_FIRST BC_REC_FUNC_ENTRY
#define KIND_LAST  BC_REC_SYSCALL
#define NELEM(a)   (sizeof(a) / sizeof((a)[0]))

static const char *const rec_kind_names[KIND_LAST - KIND_FIRST + 1] = {
	[BC_REC_FUNC_ENTRY - KIND_FIRST] = "func_entry",
	[BC_REC_FUNC_RETURN - KIND_FIRST] = "func_return",
	[BC_REC_SYS_ENTER - KIND_FIRST] = "sys_enter",
	[BC_REC_SYS_EXIT - KIND_FIRST] = "sys_exit",
	[BC_REC_PROC_FORK - KIND_FIRST] = "fork",
	[BC_REC_THREAD_START - KIND_FIRST] = "thread",
	[BC_REC_PROC_EXEC - KIND_FIRST] = "exec",
	[BC_REC_THREAD_EXIT - KIND_FIRST] = "thread_exit",
	[BC_REC_PROC_EXIT - KIND_FIRST] = "exit",
	[BC_REC_LOST - KIND_FIRST] = "lost",
	[BC_REC_MMAP - KIND_FIRST] = "mmap",
	[BC_REC_MUNMAP - KIND_FIRST] = "munmap",
	[BC_REC_PROFILE - KIND_FIRST] = "sample",
	[BC_REC_OFFCPU - KIND_FIRST] = "offcpu",
	[BC_REC_PROC_NAME - KIND_FIRST] = "process",
	[BC_REC_HEAP - KIND_FIRST] = "heap",
	[BC_REC_SYNC - KIND_FIRST] = "sync",
	[BC_REC_IO - KIND_FIRST] = "io",
	[BC_REC_USAGE - KIND_FIRST] = "usage",
	[BC_REC_SYSCALL - KIND_FIRST] = "syscall",
};

static const char *const loss_class_names[BC_LOSS_NR] = {
	[BC_LOSS_FUNC] = "func",	   [BC_LOSS_SYSCALL] = "syscall",
	[BC_LOSS_PROC] = "proc",	   [BC_LOSS_SAMPLE] = "sample",
	[BC_LOSS_SCHED] = "sched",	   [BC_LOSS_HEAP] = "heap",
	[BC_LOSS_SYNC] = "sync",	   [BC_LOSS_IO] = "io",
	[BC_LOSS_UNWRITTEN] = "unwritten",
};

static const char *const heap_fn_names[BC_HEAP_FN_NR] = {
	[BC_HEAP_FN_MALLOC] = "malloc",
	[BC_HEAP_FN_CALLOC] = "calloc",
	[BC_HEAP_FN_REALLOC] = "realloc",
	[BC_HEAP_FN_REALLOCARRAY] = "reallocarray",
	[BC_HEAP_FN_FREE] = "free",
	[BC_HEAP_FN_POSIX_MEMALIGN] = "posix_memalign",
	[BC_HEAP_FN_ALIGNED_ALLOC] = "aligned_alloc",
	[BC_HEAP_FN_MEMALIGN] = "memalign",
	[BC_HEAP_FN_VALLOC] = "valloc",
	[BC_HEAP_FN_PVALLOC] = "pvalloc",
	[BC_HEAP_FN_MMAP] = "mmap",
	[BC_HEAP_FN_MUNMAP] = "munmap",
};

static const char *const heap_type_names[] = {
	[BC_HEAP_MALLOC] = "malloc", [BC_HEAP_FREE] = "free",	  [BC_HEAP_REALLOC] = "realloc",
	[BC_HEAP_MMAP] = "mmap",     [BC_HEAP_MUNMAP] = "munmap",
};

static const char *const sync_fn_names[BC_SYNC_FN_NR] = {
	[BC_SYNC_FN_MUTEX_LOCK] = "pthread_mutex_lock",
	[BC_SYNC_FN_COND_WAIT] = "pthread_cond_wait",
	[BC_SYNC_FN_COND_TIMEDWAIT] = "pthread_cond_timedwait",
	[BC_SYNC_FN_JOIN] = "pthread_join",
	[BC_SYNC_FN_SEM_WAIT] = "sem_wait",
	[BC_SYNC_FN_SEM_TIMEDWAIT] = "sem_timedwait",
	[BC_SYNC_FN_RWLOCK_RDLOCK] = "pthread_rwlock_rdlock",
	[BC_SYNC_FN_RWLOCK_WRLOCK] = "pthread_rwlock_wrlock",
};

static const char *const io_type_names[BC_IO_ERROR_OFFSET] = {
	[BC_IO_READ] = "read",	 [BC_IO_WRITE] = "write", [BC_IO_OPEN] = "open",
	[BC_IO_CLOSE] = "close", [BC_IO_OTHER] = "other",
};

/* gprofng's FileSystem_type, in its order (FileData::setFsType). */
static const char *const fs_type_names[] = {
	"zfs",	"nfs",	  "ufs",    "udfs",   "lofs",	 "vxfs",   "tmpfs",  "pcfs",
	"hsfs", "procfs", "fifofs", "swapfs", "cachefs", "autofs", "specfs", "sockfs",
	"fdfs", "mntfs",  "namefs", "objfs",  "sharefs", "ext2",   "ext3",   "ext4",
};

_Static_assert(NELEM(heap_type_names) == BC_HEAP_MUNMAP + 1, "one name per heap type");
_Static_assert(NELEM(fs_type_names) == BC_FS_UNKNOWN, "gprofng's file system names");

static const char *lookup(const char *const *names, size_t n, unsigned int v)
{
	return v < n ? names[v] : NULL;
}

const char *bc_rec_kind_name(unsigned int kind)
{
	if (kind < KIND_FIRST)
		return NULL;
	return lookup(rec_kind_names, NELEM(rec_kind_names), kind - KIND_FIRST);
}

const char *bc_loss_class_name(unsigned int loss_class)
{
	return lookup(loss_class_names, NELEM(loss_class_names), loss_class);
}

const char *bc_heap_fn_name(unsigned int fn)
{
	return lookup(heap_fn_names, NELEM(heap_fn_names), fn);
}

const char *bc_heap_type_name(unsigned int htype)
{
	return lookup(heap_type_names, NELEM(heap_type_names), htype);
}

const char *bc_sync_fn_name(unsigned int fn)
{
	return lookup(sync_fn_names, NELEM(sync_fn_names), fn);
}

const char *bc_io_type_name(unsigned int iotype)
{
	return lookup(io_type_names, NELEM(io_type_names), iotype);
}

const char *bc_fs_type_name(unsigned int fstype)
{
	return lookup(fs_type_names, NELEM(fs_type_names), fstype);
}

const char *bc_tid_label(uint32_t tid, char *buf, size_t len)
{
	if (tid >= BC_GOROUTINE_TID_BASE)
		snprintf(buf, len, "g%" PRIu32, tid - BC_GOROUTINE_TID_BASE);
	else
		snprintf(buf, len, "%" PRIu32, tid);
	return buf;
}
