// SPDX-License-Identifier: MIT
/*
 * Uprobe trace events (bpfcollect/tracefs.h): the one kind of uprobe whose
 * perf events a traced process's children inherit, so the kernel installs
 * its breakpoint in the traced tree and nowhere else.
 *
 * tracefs need not be mounted: the agent mounts its own in a mount
 * namespace of its own (a slave of the host's, so mounts made meanwhile
 * still reach the agent), keeps a descriptor of the mount's root and
 * detaches the mount at once. Nothing is mounted where anyone else can
 * see it. Its events are named bpfcollect_AGENTPID/NAME; those of agents
 * that died are removed by the next one.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bpfcollect/tracefs.h"

#define GROUP_PREFIX "bpfcollect_"

static bool has_uprobe_events(int fd)
{
	return fd >= 0 && faccessat(fd, "uprobe_events", W_OK, 0) == 0;
}

int bc_tracefs_open(void)
{
	char dir[] = "/tmp/bpfcollect-tracefs.XXXXXX";
	int fd = open("/sys/kernel/tracing", O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc;

	if (has_uprobe_events(fd))
		return fd;
	if (fd >= 0)
		close(fd);
	if (unshare(CLONE_NEWNS) < 0)
		return -errno;
	/* ours does not reach the host; the host's still reach us */
	if (mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) < 0 || !mkdtemp(dir))
		return -errno;
	if (mount("tracefs", dir, "tracefs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0) {
		rc = -errno;
		rmdir(dir);
		return rc;
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	rc = fd < 0 ? -errno : 0;
	umount2(dir, MNT_DETACH);
	rmdir(dir);
	if (!rc && !has_uprobe_events(fd)) {
		close(fd);
		return -ENOTSUP;
	}
	return rc ? rc : fd;
}

static int write_events(int tfd, const char *line)
{
	int fd = openat(tfd, "uprobe_events", O_WRONLY | O_APPEND | O_CLOEXEC), rc = 0;
	size_t n = strlen(line);

	if (fd < 0)
		return -errno;
	if (write(fd, line, n) != (ssize_t)n)
		rc = errno ? -errno : -EIO;
	close(fd);
	return rc;
}

int bc_tracefs_uprobe_append(int tfd, const char *event, const char *path, uint64_t offset,
			     bool retprobe)
{
	char line[4200];

	if (strpbrk(path, " \t\n") ||
	    snprintf(line, sizeof(line), "%c:%s%d/%s %s:0x%" PRIx64 "\n", retprobe ? 'r' : 'p',
		     GROUP_PREFIX, (int)getpid(), event, path, offset) >= (int)sizeof(line))
		return -EINVAL; /* the events file splits on spaces */
	return write_events(tfd, line);
}

int bc_tracefs_event_id(int tfd, const char *event)
{
	char idpath[256], buf[32];
	int fd, id;
	ssize_t n;

	snprintf(idpath, sizeof(idpath), "events/%s%d/%s/id", GROUP_PREFIX, (int)getpid(), event);
	fd = openat(tfd, idpath, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	id = atoi(buf);
	return id > 0 ? id : -EIO;
}

int bc_tracefs_uprobe_add(int tfd, const char *event, const char *path, uint64_t offset)
{
	int rc = bc_tracefs_uprobe_append(tfd, event, path, offset, false);

	return rc < 0 ? rc : bc_tracefs_event_id(tfd, event);
}

int bc_tracefs_uprobe_remove(int tfd, const char *event)
{
	char line[256];

	snprintf(line, sizeof(line), "-:%s%d/%s\n", GROUP_PREFIX, (int)getpid(), event);
	return write_events(tfd, line);
}

/*
 * Removes the events of agent pid (0: of every agent no longer alive);
 * how many were removed.
 */
static int remove_events(int tfd, int only_pid)
{
	char line[4200], gone[300];
	int fd = openat(tfd, "uprobe_events", O_RDONLY | O_CLOEXEC);
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
	int removed = 0;

	if (!f) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	while (fgets(line, sizeof(line), f)) {
		char event[200];
		int pid;

		/* "p:bpfcollect_PID/NAME PATH:OFFSET" (or r:) of that agent, or of one gone */
		if ((line[0] != 'p' && line[0] != 'r') ||
		    sscanf(line + 1, ":" GROUP_PREFIX "%d/%199[^ ]", &pid, event) != 2 || pid <= 0)
			continue;
		if (only_pid ? pid != only_pid : kill(pid, 0) == 0 || errno != ESRCH)
			continue;
		snprintf(gone, sizeof(gone), "-:" GROUP_PREFIX "%d/%s\n", pid, event);
		if (write_events(tfd, gone) == 0)
			removed++;
	}
	fclose(f);
	return removed;
}

int bc_tracefs_sweep(int tfd)
{
	return remove_events(tfd, 0);
}

int bc_tracefs_remove_agent(int agent_pid)
{
	int tfd = bc_tracefs_open(), removed;

	if (tfd < 0)
		return tfd;
	removed = remove_events(tfd, agent_pid);
	close(tfd);
	return removed;
}
