/* SPDX-License-Identifier: MIT */
/*
 * Opening a file someone else may have made: an experiment's files (log.xml,
 * data files, gprofng's packet files, overview, notes, kallmodsyms, archived
 * symbol indexes), read by report, convert and archive. Whoever planted a
 * FIFO or device under such a name must not hang the reader in open() or
 * read(), and a symbolic link in an experiment points where the experiment
 * is not: both are refused with one line that names the file and says why.
 */
#ifndef BPFCOLLECT_INFILE_H
#define BPFCOLLECT_INFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

/*
 * Opens dirfd/name (AT_FDCWD: a path) read-only with O_NONBLOCK (a FIFO
 * or device never blocks the open), and with O_NOFOLLOW unless follow
 * (a symbolic link is -ELOOP); then keeps it only if it is a regular file
 * (else -EINVAL). The fd, or -errno; st describes what was found (for
 * -EINVAL, what the name holds instead).
 */
int bc_in_openat(int dirfd, const char *name, bool follow, struct stat *st);

/*
 * One line for bc_in_openat's error rc on path, into buf: "PATH is a FIFO,
 * not a regular file: refused ...", "PATH is a symbolic link: refused ...",
 * "PATH: No such file or directory". st NULL: what path holds is looked at
 * again. Returns buf.
 */
const char *bc_in_error(char *buf, size_t len, const char *path, int rc, const struct stat *st);

#endif /* BPFCOLLECT_INFILE_H */
