/* SPDX-License-Identifier: MIT */
/*
 * Which load objects an experiment's data actually touches: the objects a
 * user-level PC of its stacks (data.frameinfo: clock, off-CPU, heap, sync
 * and I/O stacks) falls into, through its own map.xml, and the objects of
 * probed functions that were entered (functions + functrace). The archive
 * policy for system-wide and kernel experiments copies only these.
 */
#ifndef BPFCOLLECT_ARCHIVE_HITS_H
#define BPFCOLLECT_ARCHIVE_HITS_H

#include <stddef.h>
#include <stdint.h>

struct archive_hit {
	char *path;    /* as map.xml or functions names it */
	uint64_t hits; /* stack frames in it plus entries of its probed functions */
};

struct archive_hits {
	struct archive_hit *v; /* sorted by path once archive_hits_done ran */
	size_t n, cap;
};

/*
 * Adds what the experiment open at dirfd hits to h. Damage in its files
 * ends the read of that file quietly (the objects found so far count).
 * 0 or -ENOMEM.
 */
int archive_hits_experiment(struct archive_hits *h, int dirfd);
/* Sorts h by path and merges entries of one path. */
void archive_hits_done(struct archive_hits *h);
/* The hits of path (0 when none) once archive_hits_done ran. */
uint64_t archive_hits_of(const struct archive_hits *h, const char *path);
void archive_hits_free(struct archive_hits *h);

/*
 * Reads the whole regular file name of dirfd (not following a symlink), at
 * most max bytes, NUL-terminated; a file cut short meanwhile gives what it
 * had. 0, -ENOENT when absent, -EINVAL (not a regular file, too big), -errno.
 */
int archive_read_file(int dirfd, const char *name, size_t max, char **buf, size_t *len);

struct bc_xml;
/*
 * Opens the regular file name of dirfd (not following a symlink) for
 * streaming into x (bpfcollect/xml.h): log.xml and map.xml are read
 * through a window, however big. 0, -ENOENT when absent, -EINVAL (not a
 * regular file), -errno.
 */
int archive_open_xml(int dirfd, const char *name, struct bc_xml *x);

/*
 * The GNU build id of the ELF file open at fd, as lowercase hex, from its
 * program headers' notes (64-bit ELF only): 1 found, 0 none, <0 -errno.
 * Reads headers and notes with pread, never the whole file.
 */
int archive_build_id(int fd, char *hex, size_t hexlen);

#endif
