// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bpfcollect/launch.h"

static int check_executable(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EACCES;
	if (access(path, X_OK) < 0)
		return -errno;
	return 0;
}

int bc_launch_find_program(const char *argv0, char *path, size_t pathlen, char *err, size_t errlen)
{
	const char *env = getenv("PATH");
	char dirs[PATH_MAX * 4], *save = NULL, *dir;
	int rc, first_err = -ENOENT;

	if (!argv0 || !*argv0) {
		snprintf(err, errlen,
			 "no command given; usage: bpfcollect record [OPTIONS] -- CMD [ARGS]");
		return -EINVAL;
	}
	if (strchr(argv0, '/')) {
		rc = check_executable(argv0);
		if (rc < 0)
			goto fail;
		if (!realpath(argv0, path) || strlen(path) >= pathlen) {
			rc = -errno;
			goto fail;
		}
		return 0;
	}
	snprintf(dirs, sizeof(dirs), "%s", env && *env ? env : "/usr/local/bin:/usr/bin:/bin");
	for (dir = strtok_r(dirs, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		char cand[PATH_MAX];

		if (snprintf(cand, sizeof(cand), "%s/%s", *dir ? dir : ".", argv0) >=
		    (int)sizeof(cand))
			continue;
		rc = check_executable(cand);
		if (rc == 0) {
			if (!realpath(cand, path) || strlen(path) >= pathlen)
				continue;
			return 0;
		}
		if (rc == -EACCES)
			first_err = rc;
	}
	rc = first_err;
fail:
	snprintf(err, errlen, "%s: %s%s", argv0, strerror(-rc),
		 rc == -ENOENT ? " (command not found; check the name and PATH)" : "");
	return rc;
}

int bc_launch_prepare(const char *path, char *const argv[], const sigset_t *sigmask,
		      struct bc_child *child, char *err, size_t errlen)
{
	int release[2] = {-1, -1}, status[2] = {-1, -1};
	pid_t pid;
	int rc;

	if (pipe2(release, O_CLOEXEC) < 0 || pipe2(status, O_CLOEXEC) < 0) {
		rc = -errno;
		snprintf(err, errlen, "cannot create pipes for the command: %s", strerror(-rc));
		goto fail;
	}
	pid = fork();
	if (pid < 0) {
		rc = -errno;
		snprintf(err, errlen, "cannot fork the command: %s", strerror(-rc));
		goto fail;
	}
	if (pid == 0) {
		char go;
		int e;

		/* Wait until the agent has attached; EOF means it gave up. */
		close(release[1]);
		close(status[0]);
		if (read(release[0], &go, 1) != 1)
			_exit(127);
		sigprocmask(SIG_SETMASK, sigmask, NULL);
		/* the agent ignores SIGPIPE (a closed output is an error it reports): not the
		 * command */
		signal(SIGPIPE, SIG_DFL);
		execv(path, argv);
		e = errno;
		if (write(status[1], &e, sizeof(e)) != (ssize_t)sizeof(e))
			_exit(127);
		_exit(127);
	}
	close(release[0]);
	close(status[1]);
	child->pid = pid;
	child->release_fd = release[1];
	child->error_fd = status[0];
	return 0;
fail:
	for (int i = 0; i < 2; i++) {
		if (release[i] >= 0)
			close(release[i]);
		if (status[i] >= 0)
			close(status[i]);
	}
	return rc;
}

int bc_launch_release(struct bc_child *child, char *err, size_t errlen)
{
	char go = 1;
	int e = 0;
	ssize_t n;

	if (write(child->release_fd, &go, 1) != 1) {
		int rc = -errno;

		snprintf(err, errlen, "cannot start the command: %s", strerror(-rc));
		return rc;
	}
	close(child->release_fd);
	child->release_fd = -1;
	do {
		n = read(child->error_fd, &e, sizeof(e));
	} while (n < 0 && errno == EINTR);
	close(child->error_fd);
	child->error_fd = -1;
	if (n == (ssize_t)sizeof(e)) {
		snprintf(err, errlen, "cannot execute the command: %s", strerror(e));
		return -e;
	}
	return 0;
}

void bc_launch_abort(struct bc_child *child)
{
	if (child->release_fd >= 0)
		close(child->release_fd);
	if (child->error_fd >= 0)
		close(child->error_fd);
	child->release_fd = child->error_fd = -1;
	if (child->pid > 0) {
		kill(child->pid, SIGKILL);
		waitpid(child->pid, NULL, 0);
		child->pid = 0;
	}
}
