/* SPDX-License-Identifier: MIT */
/* Facts about a running process, read from /proc: what -P and the experiment tree need. */
#ifndef BPFCOLLECT_PROCINFO_H
#define BPFCOLLECT_PROCINFO_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bc_proc_info {
	uint32_t pid;  /* the process (thread group) id */
	uint32_t tid;  /* the id asked about: pid, or one of its threads */
	uint32_t ppid; /* its parent process */
	char comm[16]; /* the kernel's name of the thread asked about */
	bool kthread;  /* a kernel thread: no user space to trace */
};

/*
 * Looks at id under procfs ("/proc"; tests may point elsewhere): whether it
 * exists, its process id (id may name a thread), its comm, whether it is a
 * kernel thread. 0, or -ESRCH (gone or a zombie), -EINVAL (unreadable
 * stat), with one line in err naming the id and what to do.
 */
int bc_proc_inspect(const char *procfs, uint32_t id, struct bc_proc_info *pi, char *err,
		    size_t errlen);

/*
 * The command line of pid as a NULL-terminated argv (pointing into *buf_out);
 * [fallback] when it is gone or has none. Free both. 0 or -ENOMEM.
 */
int bc_proc_argv(uint32_t pid, const char *fallback, char ***argv_out, char **buf_out);

/*
 * comm made safe for a file name (collect's _COMM_PID_PID.1.er): characters
 * other than letters, digits, '.', '-' and '_' become '_'; empty becomes
 * "unknown".
 */
void bc_comm_for_filename(const char *comm, char *out, size_t outlen);
#endif
