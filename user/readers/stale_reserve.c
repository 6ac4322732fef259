// SPDX-License-Identifier: MIT
/*
 * The space a killed recording held for its end. A recording keeps
 * RESERVE_NAME open and locked while it runs (user/sinks/er/er_writer.c);
 * one found unlocked was left by an agent that never reached its end
 * (SIGKILL): the next command reading the experiment removes it and says so.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "er_replay.h"

#define RESERVE_NAME	  ".bcreserve"
#define RESERVE_BYTES_MAX (64 * 1024)

void bc_er_remove_stale_reserve(int dirfd, struct bc_er_info *info)
{
	int fd = openat(dirfd, RESERVE_NAME, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;

	if (fd < 0)
		return;
	/* only what a recording makes: a regular file of at most the reserve's size, unlocked */
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= RESERVE_BYTES_MAX &&
	    flock(fd, LOCK_EX | LOCK_NB) == 0 && unlinkat(dirfd, RESERVE_NAME, 0) == 0)
		bc_er_note(info,
			   "removed " RESERVE_NAME ": the %lld bytes a killed recording held "
			   "for its end",
			   (long long)st.st_size);
	close(fd);
}
