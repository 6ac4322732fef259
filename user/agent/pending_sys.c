// SPDX-License-Identifier: MIT
/*
 * System calls still in progress when the recording ends. A call whose
 * entry can wait for its exit writes nothing at entry (bpf/syscalls.bpf.c,
 * BC_REC_SYSCALL): a thread blocked in read when tracing stops would leave
 * no trace of the call it is in, the one a user most wants to see. At the
 * end, once the programs are detached and the ring drained, the agent reads
 * each traced thread's state from task storage (keyed by a pidfd of the
 * thread) and writes the entry record that call's entry would have written.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpfcollect/recorder.h"
#include "collect.skel.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD 0200 /* O_EXCL: a pidfd of a thread, not only of a leader (6.9+) */
#endif

/* A pidfd of thread tid, or -1 (gone, or a kernel without PIDFD_THREAD and not a leader). */
static int thread_pidfd(unsigned long pid, unsigned long tid)
{
	int fd = (int)syscall(SYS_pidfd_open, (pid_t)tid, PIDFD_THREAD);

	if (fd < 0 && errno == EINVAL && pid == tid)
		fd = (int)syscall(SYS_pidfd_open, (pid_t)tid, 0);
	return fd;
}

/* Thread tid's call in progress, as its entry record. 1 when it has one, 0, or -errno. */
static int pending_call(int map_fd, void *value, unsigned long pid, unsigned long tid,
			struct bc_rec_sys_enter *rec)
{
	const struct bc_task_sys *sys = value;
	int fd = thread_pidfd(pid, tid), rc;

	if (fd < 0)
		return 0;
	rc = bpf_map_lookup_elem(map_fd, &fd, value);
	close(fd);
	if (rc < 0 || !sys->enter_ktime || !sys->deferred)
		return 0;
	*rec = (struct bc_rec_sys_enter){
		.h = {.size = sizeof(*rec),
		      .kind = BC_REC_SYS_ENTER,
		      .depth = sys->depth,
		      .pid = (uint32_t)pid,
		      .tid = (uint32_t)tid,
		      .seq = sys->seq + 1,
		      .ktime = sys->enter_ktime},
		.nr = sys->nr,
		.cpu = sys->cpu,
	};
	memcpy(rec->args, sys->args, sizeof(rec->args));
	return 1;
}

/* The threads of process pid (/proc/PID/task): their calls in progress. */
static int process_calls(struct recorder *r, int map_fd, void *value, unsigned long pid)
{
	char path[64];
	struct dirent *d;
	DIR *dir;
	int rc = 0;

	snprintf(path, sizeof(path), "/proc/%lu/task", pid);
	dir = opendir(path);
	if (!dir)
		return 0;
	while (rc >= 0 && (d = readdir(dir))) {
		struct bc_rec_sys_enter rec;
		char *end;
		unsigned long tid = strtoul(d->d_name, &end, 10);

		if (!tid || *end || pending_call(map_fd, value, pid, tid, &rec) <= 0)
			continue;
		rc = bc_recorder_on_record(r, &rec, sizeof(rec));
	}
	closedir(dir);
	return rc;
}

int bc_recorder_flush_pending_syscalls(struct recorder *r)
{
	const struct bpf_map *map = r->skel->maps.task_states;
	size_t size = bpf_map__value_size(map);
	struct dirent *d;
	void *value;
	DIR *proc;
	int rc = 0;

	if (size < sizeof(struct bc_task_sys))
		return -EINVAL;
	value = calloc(1, size);
	proc = opendir("/proc");
	if (!value || !proc) {
		free(value);
		if (proc)
			closedir(proc);
		return value ? 0 : -ENOMEM;
	}
	/* only the threads that have task storage answer: the traced ones */
	while (rc >= 0 && (d = readdir(proc))) {
		char *end;
		unsigned long pid = strtoul(d->d_name, &end, 10);

		if (pid && !*end)
			rc = process_calls(r, bpf_map__fd(map), value, pid);
	}
	closedir(proc);
	free(value);
	return rc;
}
