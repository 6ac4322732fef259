// SPDX-License-Identifier: MIT
/* Trace events armed in the traced tree (bpfcollect/tree_probes.h). */
#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "bpfcollect/tree_probes.h"

static int open_event(int id, pid_t tid, bool inherit)
{
	struct perf_event_attr attr = {.size = sizeof(attr),
				       .type = PERF_TYPE_TRACEPOINT,
				       .config = (uint64_t)id,
				       .sample_period = 1,
				       .inherit = inherit};
	int fd = (int)syscall(__NR_perf_event_open, &attr, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

static int push(int **fds, size_t *n, int fd)
{
	int *v = realloc(*fds, (*n + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	*fds = v;
	v[(*n)++] = fd;
	return 0;
}

int bc_tree_keep_process(int id, pid_t pid, bool inherit, int **fds, size_t *n)
{
	char dir[64];
	struct dirent *d;
	size_t kept = 0;
	int rc = 0, fd;
	DIR *tasks;

	snprintf(dir, sizeof(dir), "/proc/%d/task", (int)pid);
	tasks = opendir(dir);
	if (!tasks)
		return errno == ENOENT ? -ESRCH : -errno;
	while (rc == 0 && (d = readdir(tasks))) {
		pid_t tid = (pid_t)atoi(d->d_name);

		if (tid <= 0)
			continue;
		fd = open_event(id, tid, inherit);
		if (fd == -ESRCH)
			continue; /* the thread ended meanwhile */
		if (fd < 0) {
			rc = fd;
			break;
		}
		if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) < 0 || (rc = push(fds, n, fd)) < 0) {
			rc = rc ? rc : -errno;
			close(fd);
			break;
		}
		kept++;
	}
	closedir(tasks);
	return rc < 0 ? rc : kept ? 0 : -ESRCH;
}

/*
 * Where the program rides: a kernel thread has no address space, so an
 * event on it arms nothing, and closing the keepers first disarms every
 * traced process before any event is disabled. kthreadd (pid 2) never
 * exits; where it is not there (a pid namespace) the event goes on tid.
 */
static pid_t carrier_task(pid_t tid)
{
	char comm[32] = "";
	FILE *f = fopen("/proc/2/comm", "re");

	if (f) {
		if (!fgets(comm, sizeof(comm), f))
			comm[0] = '\0';
		fclose(f);
	}
	return !strcmp(comm, "kthreadd\n") ? 2 : tid;
}

struct bpf_link *bc_tree_carry(struct bpf_program *prog, int id, pid_t tid, uint64_t cookie)
{
	LIBBPF_OPTS(bpf_perf_event_opts, opts, .bpf_cookie = cookie);
	int fd = open_event(id, carrier_task(tid), false);
	struct bpf_link *link;

	if (fd == -ESRCH || fd == -EACCES || fd == -EPERM)
		fd = open_event(id, tid, false);
	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	link = bpf_program__attach_perf_event_opts(prog, fd, &opts);
	if (!link) {
		int err = errno;

		close(fd);
		errno = err;
	}
	return link;
}
