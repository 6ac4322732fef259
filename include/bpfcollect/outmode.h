/* SPDX-License-Identifier: MIT */
/*
 * The permissions of everything bpfcollect writes: experiments, archives,
 * converted and live output files. Traces hold command lines, captured
 * strings and copies of binaries, so by default only their owner reads
 * them: files 0600, directories 0700 (perf does the same for perf.data).
 * --mode MODE (record, convert, archive) widens them: files get MODE
 * exactly (the umask does not narrow it), directories MODE plus search
 * permission wherever MODE gives read permission (0640: 0750).
 */
#ifndef BPFCOLLECT_OUTMODE_H
#define BPFCOLLECT_OUTMODE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define BC_OUT_FILE_MODE_DEFAULT 0600
#define BC_OUT_DIR_MODE_DEFAULT	 0700

/* The mode to create files with, and directories. */
mode_t bc_out_file_mode(void);
mode_t bc_out_dir_mode(void);
/* Whether --mode was given: then what is created is chmod'ed to it, past the umask. */
bool bc_out_mode_given(void);

/*
 * --mode MODE: octal, owner read and write at least (0600..0666; no
 * execute, set-id or sticky bits), into *mode. 0, or -EINVAL with one line
 * in err.
 */
int bc_out_mode_parse(const char *arg, mode_t *mode, char *err, size_t errlen);
/* What the command creates from now on gets mode (files; directories from it). */
void bc_out_mode_set(mode_t mode);

/* Gives the open file fd, or directory path, the chosen mode when --mode was given; -errno. */
int bc_out_mode_fd(int fd, bool dir);
int bc_out_mode_path(int dirfd, const char *path, bool dir);

/* openat(dirfd, name, flags | O_CREAT) with the files' mode: the fd, or -1 with errno set. */
int bc_out_openat(int dirfd, const char *name, int flags);
/* mkdirat(dirfd, path) with the directories' mode: 0, or -1 with errno set (EEXIST too). */
int bc_out_mkdirat(int dirfd, const char *path);
/*
 * mkostemp relative to dirfd: tmpl ends in XXXXXX, replaced by the name
 * made (O_EXCL and O_NOFOLLOW: never through a link). The fd, open for
 * writing with the files' mode, or -1 with errno set.
 */
int bc_out_tmpat(int dirfd, char *tmpl);

#endif
