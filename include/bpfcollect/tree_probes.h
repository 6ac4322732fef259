/* SPDX-License-Identifier: MIT */
/*
 * Uprobe trace events armed in the traced processes alone
 * (user/agent/tree_probes.c). The kernel writes an event's breakpoints only
 * into the address spaces of the tasks its perf events watch; opened with
 * inherit, the events follow every child forked later (and survive exec),
 * so the probes follow the traced tree exactly and no other process on the
 * machine meets them.
 *
 * An event's program rides on one more event that no child copies (a
 * child's copy of an event carrying a program takes the program off the
 * trace event when the child exits), on a kernel thread, which arms
 * nothing. Detaching closes every keeper first: the last event of a trace
 * event to close disables it and waits for an SRCU grace period under the
 * kernel's event lock, and a traced thread that keeps making pending
 * returns through another event still armed held that wait (and every
 * other tracer's use of trace events) for as long as it ran.
 */
#ifndef BPFCOLLECT_TREE_PROBES_H
#define BPFCOLLECT_TREE_PROBES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct bpf_program;
struct bpf_link;

/*
 * Opens the keepers of trace event id (counting, no program) on every
 * thread of process pid, inherited by later children when inherit, and
 * appends their descriptors to *fds (*n of them, grown with realloc).
 * One keeper per thread: a child inherits the events of the thread that
 * forked it. A thread gone meanwhile is skipped. 0, or -errno (ESRCH: the
 * process is gone).
 */
int bc_tree_keep_process(int id, pid_t pid, bool inherit, int **fds, size_t *n);

/*
 * The event's program: prog on a new event of id that arms nothing (on a
 * kernel thread; on tid where there is none), not inherited, with cookie
 * as its BPF cookie. The link, or NULL with errno set.
 */
struct bpf_link *bc_tree_carry(struct bpf_program *prog, int id, pid_t tid, uint64_t cookie);

#endif
