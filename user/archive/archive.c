// SPDX-License-Identifier: MIT
/*
 * Archiving the load objects of an experiment (docs/archives.md): copying
 * the objects archive_scan.c found into the founder's archives/, one copy
 * per build id, within the size limit.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "archive_hits.h"
#include "archive_scan.h"
#include "bpfcollect/archive.h"
#include "bpfcollect/containers.h"
#include "bpfcollect/outmode.h"
#include "bpfcollect/symutil.h"

#define NSEC_PER_SEC 1000000000LL
#define COPY_CHUNK   (256u << 10)
#define ARCHIVES     "archives"

/* --------------------------------------------------------------- copying */

/* An ELF file archives/ holds, by build id: later objects with the same bytes link to it. */
struct held {
	char build_id[2 * 64 + 1];
	off_t size;
	char name[BC_ARCHIVE_NAME_MAX];
};

struct ctx {
	const char *founder;
	int expfd;
	int archfd;	/* founder/archives, -1 until needed */
	uint64_t limit; /* bytes this run may copy; 0: no limit */
	struct held *held;
	size_t nheld, capheld;
	struct bc_archive_report *rep;
	char *err;
	size_t errlen;
};

static int64_t mtime_ns(const struct stat *st)
{
	return (int64_t)st->st_mtim.tv_sec * NSEC_PER_SEC + st->st_mtim.tv_nsec;
}

static int64_t ctime_ns(const struct stat *st)
{
	return (int64_t)st->st_ctim.tv_sec * NSEC_PER_SEC + st->st_ctim.tv_nsec;
}

/* Opens founder/archives, creating it only when create (we have something to put there). */
static int open_archives(struct ctx *c, bool create)
{
	int ret;

	if (c->archfd >= 0)
		return 0;
	if (!create) {
		c->archfd =
			openat(c->expfd, ARCHIVES, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		return 0;
	}
	if (bc_out_mkdirat(c->expfd, ARCHIVES) && errno != EEXIST) {
		ret = -errno;
		bc_set_err(c->err, c->errlen, "cannot create %s/" ARCHIVES ": %s", c->founder,
			   strerror(errno));
		return ret;
	}
	/* a link planted in the experiment must not send copies elsewhere */
	c->archfd = openat(c->expfd, ARCHIVES, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (c->archfd < 0) {
		ret = errno == ELOOP || errno == ENOTDIR ? -ENOTDIR : -errno;
		bc_set_err(c->err, c->errlen,
			   ret == -ENOTDIR ? "%s/" ARCHIVES
					     " is not a directory (a symbolic link?): "
					     "not written through; remove it and archive again"
					   : "cannot open %s/" ARCHIVES ": %s",
			   c->founder, strerror(-ret));
		return ret;
	}
	return 0;
}

static bool has_elf_magic(int fd)
{
	unsigned char m[4];

	return pread(fd, m, 4, 0) == 4 && !memcmp(m, "\177ELF", 4);
}

/* 1 when both files hold the same bytes, 0 when not, <0 on a read error. */
static int same_bytes(int a, int b, off_t size)
{
	char *x = malloc(2 * COPY_CHUNK), *y = x + COPY_CHUNK;
	int ret = 1;

	if (!x)
		return -ENOMEM;
	for (off_t off = 0; off < size && ret == 1;) {
		size_t want = size - off > COPY_CHUNK ? COPY_CHUNK : (size_t)(size - off);
		ssize_t na = pread(a, x, want, off), nb = pread(b, y, want, off);

		if (na < 0 || nb < 0)
			ret = -EIO;
		else if (na != (ssize_t)want || nb != (ssize_t)want || memcmp(x, y, want))
			ret = 0;
		off += (off_t)want;
	}
	free(x);
	return ret;
}

/* Copies src (st: its stat) to archives/name through a temp file; 1 if src changed meanwhile. */
static int copy_in(struct ctx *c, int src, const struct stat *st, const char *name)
{
	struct timespec times[2] = {st->st_mtim, st->st_mtim};
	char tmp[PATH_MAX], *buf = NULL;
	struct stat after;
	off_t off = 0;
	int fd = -1, ret = 0;

	/* in archives/ as opened (never through a link), with the files' mode */
	snprintf(tmp, sizeof(tmp), ".bctmp.XXXXXX");
	fd = bc_out_tmpat(c->archfd, tmp);
	if (fd < 0) {
		ret = -errno;
		goto fail;
	}
	buf = malloc(COPY_CHUNK);
	if (!buf) {
		ret = buf ? -errno : -ENOMEM;
		goto fail;
	}
	while (off < st->st_size) {
		ssize_t n = pread(src, buf, COPY_CHUNK, off), w;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ret = 1; /* truncated, or unreadable past here */
			goto out;
		}
		for (ssize_t done = 0; done < n; done += w) {
			w = write(fd, buf + done, (size_t)(n - done));
			if (w < 0 && errno == EINTR) {
				w = 0;
			} else if (w <= 0) {
				ret = w < 0 ? -errno : -EIO;
				goto fail;
			}
		}
		off += n;
	}
	if (fstat(src, &after) || after.st_size != st->st_size ||
	    mtime_ns(&after) != mtime_ns(st)) {
		ret = 1;
		goto out;
	}
	/* the copy keeps the original's mtime: a later run sees "same size and mtime" */
	if (futimens(fd, times) || fsync(fd)) {
		ret = -errno;
		goto fail;
	}
	ret = close(fd) ? -errno : 0;
	fd = -1;
	if (!ret && renameat(c->archfd, tmp, c->archfd, name))
		ret = -errno;
	if (!ret) {
		free(buf);
		return 0;
	}
fail:
	bc_set_err(c->err, c->errlen, "cannot write %s/" ARCHIVES "/%s: %s", c->founder, name,
		   strerror(-ret));
out:
	if (fd >= 0)
		close(fd);
	unlinkat(c->archfd, tmp, 0);
	free(buf);
	return ret;
}

/* Writes archives/idx for the copy archives/name unless it exists (or force). */
static int index_object(struct ctx *c, const char *path, const char *name, const char *idx,
			const struct stat *st, bool force)
{
	char copy[PATH_MAX], why[PATH_MAX + 64];
	int ret;

	if (!force && !faccessat(c->archfd, idx, F_OK, AT_SYMLINK_NOFOLLOW))
		return 0;
	/* the copy is read through archives/ as opened: /proc/self/fd/N, not the path */
	if (snprintf(copy, sizeof(copy), "/proc/self/fd/%d/%s", c->archfd, name) >=
	    (int)sizeof(copy)) {
		archive_note(c->rep, "%s: symbols not indexed: path too long", path);
		return 0;
	}
	ret = bc_archive_index_write(copy, c->archfd, idx, path, (uint64_t)st->st_size,
				     mtime_ns(st), why, sizeof(why));
	if (!ret) {
		c->rep->indexed++;
		return 0;
	}
	if (ret == -ENOEXEC) { /* magic but no readable ELF: the copy stays, unindexed */
		archive_note(c->rep, "%s: symbols not indexed: %s", path, why);
		return 0;
	}
	bc_set_err(c->err, c->errlen, "%s", why);
	return ret;
}

/* The archived copy when the original cannot be read: kept, indexed if need be. */
static int keep_copy(struct ctx *c, const char *path, const char *name, const char *idx)
{
	struct stat st;
	int fd = openat(c->archfd, name, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW), ret;
	bool ok = fd >= 0 && !fstat(fd, &st) && S_ISREG(st.st_mode) && has_elf_magic(fd);

	if (fd >= 0)
		close(fd);
	if (!ok)
		return 0;
	c->rep->present++;
	ret = index_object(c, path, name, idx, &st, false);
	return ret ? ret : 1;
}

/* Remembers archives/name as the copy of the file with this build id (none: not kept). */
static void hold(struct ctx *c, const char *build_id, off_t size, const char *name)
{
	if (!*build_id || BC_GROW(c->held, c->capheld, c->nheld + 1))
		return; /* only a lost chance to link: never an error */
	snprintf(c->held[c->nheld].build_id, sizeof(c->held->build_id), "%s", build_id);
	snprintf(c->held[c->nheld].name, sizeof(c->held->name), "%s", name);
	c->held[c->nheld++].size = size;
}

/*
 * One copy per distinct object: a file with the build id and size of one
 * archived before (another path to the same library: a container's root,
 * a bind mount, a hard link) gets a hard link to that copy. 1 linked, 0 not.
 */
static int link_held(struct ctx *c, const char *build_id, off_t size, const char *name)
{
	for (size_t i = 0; *build_id && i < c->nheld; i++) {
		if (c->held[i].size != size || strcmp(c->held[i].build_id, build_id))
			continue;
		if (open_archives(c, true) < 0)
			return 0;
		return linkat(c->archfd, c->held[i].name, c->archfd, name, 0) == 0;
	}
	return 0;
}

static int archive_object(struct ctx *c, const struct object *o)
{
	char name[BC_ARCHIVE_NAME_MAX], idx[BC_ARCHIVE_NAME_MAX], build_id[2 * 64 + 1] = "";
	struct stat st, cst;
	int src = -1, copy = -1, ret = 0;
	bool replace = false;

	if (bc_archive_name(o->path, name, sizeof(name)) < 0 ||
	    bc_archive_index_name(name, idx, sizeof(idx))) {
		archive_skip(c->rep, BC_ARCHIVE_SKIP_UNREADABLE, o->path, "not a file name");
		return 0;
	}
	open_archives(c, false);
	/*
	 * Never through a link: a mapped file's path is the file's own, so a
	 * link there was put in its place since (a user swapping the library
	 * their process mapped for a link to a file only root may read).
	 */
	src = open(o->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW);
	if (src < 0 && errno == ELOOP) {
		archive_skip(c->rep, BC_ARCHIVE_SKIP_CHANGED, o->path,
			     "a link now, not the file that was mapped: not copied");
		return 0;
	}
	if (src < 0) {
		int e = errno;

		ret = keep_copy(c, o->path, name, idx);
		if (!ret)
			archive_skip(c->rep,
				     e == ENOENT || e == ENOTDIR ? BC_ARCHIVE_SKIP_MISSING
								 : BC_ARCHIVE_SKIP_UNREADABLE,
				     o->path, strerror(e));
		return ret < 0 ? ret : 0;
	}
	if (fstat(src, &st) || !S_ISREG(st.st_mode)) {
		archive_skip(c->rep, BC_ARCHIVE_SKIP_UNREADABLE, o->path, "not a regular file");
		goto out;
	}
	if (!has_elf_magic(src)) {
		archive_skip(c->rep, BC_ARCHIVE_SKIP_NOT_ELF, o->path,
			     "not an ELF file; gprofng cannot use a copy of it");
		goto out;
	}
	if (archive_build_id(src, build_id, sizeof(build_id)) < 0)
		build_id[0] = '\0';
	copy = openat(c->archfd, name, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
	if (copy >= 0 && !fstat(copy, &cst) && S_ISREG(cst.st_mode) && has_elf_magic(copy)) {
		/* there already: identical (same size and mtime, or same bytes) or kept */
		ret = cst.st_size != st.st_size		? 0
		      : mtime_ns(&cst) == mtime_ns(&st) ? 1
							: same_bytes(src, copy, st.st_size);
		if (ret == -ENOMEM) {
			goto out;
		} else if (ret < 0) {
			archive_skip(c->rep, BC_ARCHIVE_SKIP_UNREADABLE, o->path, strerror(-ret));
			ret = 0;
		} else if (ret) {
			c->rep->present++;
			hold(c, build_id, st.st_size, name);
			ret = index_object(c, o->path, name, idx, &st, false);
		} else {
			archive_skip(c->rep, BC_ARCHIVE_SKIP_CONFLICT, o->path,
				     "differs from the copy archived earlier, which is kept "
				     "(rebuilt since?)");
		}
		goto out;
	}
	if (copy >= 0) {
		replace = !fstat(copy, &cst) && S_ISREG(cst.st_mode);
		if (!replace) {
			archive_skip(c->rep, BC_ARCHIVE_SKIP_CONFLICT, o->path,
				     "something other than a file holds its archive name");
			goto out;
		}
	}
	/*
	 * A rebuild sets both; a future mtime alone (a clock-skewed tarball)
	 * or a ctime alone (chmod) does not make it another file.
	 */
	if (o->mapped != NO_TIME && mtime_ns(&st) > o->mapped && ctime_ns(&st) > o->mapped) {
		archive_skip(c->rep, BC_ARCHIVE_SKIP_CHANGED, o->path,
			     "modified after the experiment mapped it");
		goto out;
	}
	if (!replace && link_held(c, build_id, st.st_size, name)) {
		c->rep->linked++;
		ret = index_object(c, o->path, name, idx, &st, true);
		goto out;
	}
	if (c->limit && (uint64_t)st.st_size > c->limit - c->rep->copied_bytes) {
		archive_skip(c->rep, BC_ARCHIVE_SKIP_LIMIT, o->path,
			     "copying it would pass the limit");
		goto out;
	}
	ret = open_archives(c, true);
	if (!ret)
		ret = copy_in(c, src, &st, name);
	if (ret == 1) {
		archive_skip(c->rep, BC_ARCHIVE_SKIP_CHANGED, o->path,
			     "changed while being copied");
		ret = 0;
	} else if (!ret) {
		c->rep->copied++;
		c->rep->copied_bytes += (uint64_t)st.st_size;
		hold(c, build_id, st.st_size, name);
		if (replace)
			archive_note(c->rep,
				     "%s/" ARCHIVES
				     "/%s: was not an ELF file (it breaks gprofng); replaced",
				     c->founder, name);
		ret = index_object(c, o->path, name, idx, &st, true);
	}
out:
	if (copy >= 0)
		close(copy);
	close(src);
	return ret;
}

int bc_archive_experiment(const char *exp_path, struct bc_archive_report *rep, char *err,
			  size_t errlen)
{
	return bc_archive_experiment_opts(exp_path, NULL, rep, err, errlen);
}

int bc_archive_experiment_opts(const char *exp_path, const struct bc_archive_opts *opts,
			       struct bc_archive_report *rep, char *err, size_t errlen)
{
	static const struct bc_archive_opts defaults;
	char founder[PATH_MAX];
	struct ctx c = {.founder = founder,
			.expfd = -1,
			.archfd = -1,
			.rep = rep,
			.err = err,
			.errlen = errlen};
	struct scan sc = {0};
	struct stat st;
	int ret;

	memset(rep, 0, sizeof(*rep));
	if (err && errlen)
		err[0] = '\0';
	if (!opts)
		opts = &defaults;
	sc.policy = opts->policy;
	c.limit = opts->limit_bytes;
	ret = bc_archive_founder(exp_path, founder, sizeof(founder));
	if (ret) {
		bc_set_err(err, errlen, "%s: not an experiment path", exp_path);
		return ret;
	}
	c.expfd = open(opts->io_path ? opts->io_path : founder, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (c.expfd < 0) {
		ret = -errno;
		bc_set_err(err, errlen, "%s: %s", founder,
			   errno == ENOTDIR ? "not an experiment (not a directory)"
					    : strerror(errno));
		return ret;
	}
	if (!archive_ends_with(founder, strlen(founder), ".er") ||
	    fstatat(c.expfd, "log.xml", &st, 0) || !S_ISREG(st.st_mode)) {
		bc_set_err(err, errlen, "%s: not an experiment (%s)", founder,
			   archive_ends_with(founder, strlen(founder), ".er")
				   ? "no log.xml"
				   : "name does not end in .er");
		ret = -EINVAL;
		goto out;
	}
	ret = archive_scan_all(&sc, c.expfd, founder, rep, err, errlen);
	rep->objects = sc.nobjs + rep->not_hit;
	for (size_t i = 0; !ret && i < sc.nobjs; i++) {
		if (opts->progress)
			opts->progress(opts->progress_arg, i, sc.nobjs, rep->copied_bytes);
		ret = archive_object(&c, &sc.objs[i]);
	}
	if (!ret && opts->progress)
		opts->progress(opts->progress_arg, sc.nobjs, sc.nobjs, rep->copied_bytes);
	if (ret == -ENOMEM)
		bc_set_err(err, errlen, "out of memory archiving %s", founder);
out:
	archive_scan_free(&sc);
	free(c.held);
	if (c.archfd >= 0)
		close(c.archfd);
	close(c.expfd);
	return ret;
}
