/* SPDX-License-Identifier: MIT */
/*
 * The names of every enum in the record format, one table each, so every
 * sink, reader and report spells them the same way. Each returns NULL for a
 * value outside its enum; records reaching a sink were checked by
 * bc_decode(), so only untrusted callers need the NULL.
 */
#ifndef BPFCOLLECT_NAMES_H
#define BPFCOLLECT_NAMES_H

/* enum bc_rec_kind: "func_entry", "heap", ...; the word `report events` prints. */
const char *bc_rec_kind_name(unsigned int kind);
/* enum bc_loss_class: "func", "syscall", ...; log.xml's lost KEY=N and PRF's lost_KEY. */
const char *bc_loss_class_name(unsigned int loss_class);
/* enum bc_heap_fn: the libc function, "malloc" ... "munmap". */
const char *bc_heap_fn_name(unsigned int fn);
/* enum bc_heap_type: gprofng's heap trace types, "malloc", "free", "realloc", "mmap", "munmap". */
const char *bc_heap_type_name(unsigned int htype);
/* enum bc_sync_fn: the libc function, "pthread_mutex_lock" ... */
const char *bc_sync_fn_name(unsigned int fn);
/* enum bc_io_type without BC_IO_ERROR_OFFSET: "read", "write", "open", "close", "other". */
const char *bc_io_type_name(unsigned int iotype);
/* gprofng's FileSystem_type (enum bc_fs_type is the part Linux maps to): "ext4", ... */
const char *bc_fs_type_name(unsigned int fstype);

#include <stddef.h>
#include <stdint.h>

/*
 * A record's tid as people read it: the kernel's thread id, or "g18" for
 * the records of goroutine 18 (BC_GOROUTINE_TID_BASE + 18). Into buf.
 */
const char *bc_tid_label(uint32_t tid, char *buf, size_t len);

#endif /* BPFCOLLECT_NAMES_H */
