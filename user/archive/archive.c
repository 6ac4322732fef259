// SPDX-License-Identifier: MIT
/*
 * Archiving the load objects of an experiment (docs/archives.md): gprofng's
 * archive names, the objects map.xml names, copying them into the founder's
 * archives/ and finding them again.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "archive_hits.h"
#include "bpfcollect/archive.h"
#include "bpfcollect/containers.h"
#include "bpfcollect/symutil.h"
#include "bpfcollect/xml.h"

#define NSEC_PER_SEC 1000000000LL
#define MAX_XML_FILE (256u << 20) /* log.xml, map.xml: text, never this big */
#define COPY_CHUNK   (256u << 10)
#define NO_TIME	     INT64_MAX
#define ARCHIVES     "archives"

static bool ends_with(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len >= n && !memcmp(s + len - n, suffix, n);
}

/* ------------------------------------------------------------ the report */

static void report_note(struct bc_archive_report *rep, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Notes are advisory: one lost to a failed allocation beats failing the run. */
static void report_note(struct bc_archive_report *rep, const char *fmt, ...)
{
	char *line, *all;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&line, fmt, ap) < 0) {
		va_end(ap);
		return;
	}
	va_end(ap);
	for (char *p = line; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	if (asprintf(&all, "%s%s\n", rep->notes ? rep->notes : "", line) >= 0) {
		free(rep->notes);
		rep->notes = all;
	}
	free(line);
}

static void report_skip(struct bc_archive_report *rep, enum bc_archive_skip why, const char *path,
			const char *detail)
{
	rep->skipped++;
	rep->by_reason[why]++;
	if (!rep->first_skipped[why])
		rep->first_skipped[why] = strdup(path);
	report_note(rep, "%s: not archived (%s): %s", path, bc_archive_skip_name(why), detail);
}

const char *bc_archive_skip_name(enum bc_archive_skip why)
{
	static const char *const names[BC_ARCHIVE_NSKIP] = {
		[BC_ARCHIVE_SKIP_MISSING] = "missing",
		[BC_ARCHIVE_SKIP_UNREADABLE] = "unreadable",
		[BC_ARCHIVE_SKIP_NOT_ELF] = "not ELF",
		[BC_ARCHIVE_SKIP_CHANGED] = "changed",
		[BC_ARCHIVE_SKIP_CONFLICT] = "conflict",
		[BC_ARCHIVE_SKIP_LIMIT] = "over the limit",
	};

	return (unsigned int)why < BC_ARCHIVE_NSKIP ? names[why] : "?";
}

void bc_archive_report_free(struct bc_archive_report *rep)
{
	if (!rep)
		return;
	for (int i = 0; i < BC_ARCHIVE_NSKIP; i++)
		free(rep->first_skipped[i]);
	free(rep->notes);
	memset(rep, 0, sizeof(*rep));
}

/* ------------------------------------------------- what map.xml names */

struct object {
	char *path;
	int64_t mapped; /* wall-clock ns of its first mapping; NO_TIME if unknown */
	uint64_t hits;	/* stack frames and probe entries in it (BC_ARCHIVE_HITS) */
};

struct scan {
	struct object *objs;
	size_t nobjs;
	size_t cap;
	enum bc_archive_policy policy; /* AUTO until the founder's log.xml is read */
	struct archive_hits hits;      /* BC_ARCHIVE_HITS: what the data of each experiment hits */
};

/* Reads a whole small file of dir; a live file may grow meanwhile: its size at open is read. */
static int read_text(int dirfd, const char *name, char **buf, size_t *len)
{
	struct stat st;
	size_t done = 0;
	int fd, ret = 0;

	*buf = NULL;
	*len = 0;
	fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size > MAX_XML_FILE) {
		ret = -EINVAL;
		goto out;
	}
	*buf = malloc((size_t)st.st_size + 1);
	if (!*buf) {
		ret = -ENOMEM;
		goto out;
	}
	while (done < (size_t)st.st_size) {
		ssize_t n = read(fd, *buf + done, (size_t)st.st_size - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			goto out;
		}
		if (!n)
			break; /* truncated meanwhile */
		done += (size_t)n;
	}
	(*buf)[done] = '\0';
	*len = done;
out:
	if (ret) {
		free(*buf);
		*buf = NULL;
	}
	close(fd);
	return ret;
}

static bool parse_i64(const char *s, int64_t *v)
{
	char *end;

	if (!s || !*s)
		return false;
	errno = 0;
	*v = strtoll(s, &end, 10);
	return !errno && (!*end || *end == ' ');
}

/*
 * Wall-clock ns of the experiment's run event: precise from bpfcollect's
 * clock comment, else the end of the `time` second; NO_TIME if unknown.
 */
static int64_t run_wall_time(int dirfd, bool *whole)
{
	int64_t wall = NO_TIME, offset = 0, secs;
	uint64_t tstamp = 0;
	bool have_offset = false, have_tstamp = false;
	struct bc_xml_elem e;
	struct bc_xml x;
	size_t len;
	char *buf;

	if (read_text(dirfd, "log.xml", &buf, &len))
		return NO_TIME;
	bc_xml_init(&x, buf, len);
	while (bc_xml_next(&x, &e) > 0) {
		const char *kind = bc_xml_attr(&e, "kind"), *p;

		if (strcmp(e.name, "event") || !kind)
			continue;
		if (!strcmp(kind, "run") && wall == NO_TIME) {
			have_tstamp = bc_xml_parse_tstamp(bc_xml_attr(&e, "tstamp"), &tstamp);
			if (parse_i64(bc_xml_attr(&e, "time"), &secs) && secs >= 0 &&
			    secs < INT64_MAX / NSEC_PER_SEC - 1)
				wall = (secs + 1) * NSEC_PER_SEC;
		} else if (!strcmp(kind, "comment") && !strncmp(e.text, "bpfcollect: clock ", 18) &&
			   (p = strstr(e.text, " wall_offset_ns="))) {
			have_offset = parse_i64(p + 16, &offset);
		} else if (whole && !strcmp(kind, "comment") &&
			   !strncmp(e.text, "bpfcollect: session ", 20)) {
			*whole = strstr(e.text, " exp_kernel=1") ||
				 strstr(e.text, " exp_system_wide=1");
		}
	}
	bc_xml_fini(&x);
	free(buf);
	if (have_offset && have_tstamp && tstamp <= INT64_MAX / 2 && offset > -INT64_MAX / 2 &&
	    offset < INT64_MAX / 2)
		return (int64_t)tstamp + offset;
	return wall;
}

/* gprofng makes no load object of LinuxKernel, <DYNAMIC_FUNCTIONS>, [vdso]... */
static bool archivable_name(const char *name)
{
	return *name && *name != '<' && *name != '[' && strcmp(name, "LinuxKernel");
}

static int scan_add(struct scan *sc, const char *path, int64_t mapped)
{
	if (sc->nobjs == sc->cap) {
		size_t cap = sc->cap ? sc->cap * 2 : 32;
		struct object *v = realloc(sc->objs, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		sc->objs = v;
		sc->cap = cap;
	}
	sc->objs[sc->nobjs].path = strdup(path);
	if (!sc->objs[sc->nobjs].path)
		return -ENOMEM;
	sc->objs[sc->nobjs++].mapped = mapped;
	return 0;
}

/* Adds the objects of one experiment's map.xml; damage there is a note, not an error. */
static int scan_experiment(struct scan *sc, int dirfd, const char *exp,
			   struct bc_archive_report *rep, bool *whole)
{
	int64_t run = run_wall_time(dirfd, whole);
	struct bc_xml_elem e;
	struct bc_xml x;
	unsigned int line;
	size_t len;
	char *buf;
	int ret;

	ret = read_text(dirfd, "map.xml", &buf, &len);
	if (ret == -ENOMEM)
		return ret;
	if (ret) {
		if (ret != -ENOENT)
			report_note(rep, "%s/map.xml: cannot read: %s", exp, strerror(-ret));
		return 0;
	}
	rep->experiments++;
	bc_xml_init(&x, buf, len);
	while ((ret = bc_xml_next(&x, &e)) > 0) {
		const char *kind = bc_xml_attr(&e, "kind"), *obj = bc_xml_attr(&e, "object");
		const char *name = bc_xml_attr(&e, "name"), *modes = bc_xml_attr(&e, "modes");
		int64_t mapped = NO_TIME;
		uint64_t t;

		if (strcmp(e.name, "event") || !kind || strcmp(kind, "map") || !obj ||
		    strcmp(obj, "segment") || !name || !archivable_name(name))
			continue;
		/* gprofng makes a load object of an r-x segment only */
		if (modes && strtoul(modes, NULL, 16) != 5)
			continue;
		if (run != NO_TIME && bc_xml_parse_tstamp(bc_xml_attr(&e, "tstamp"), &t) &&
		    t < (uint64_t)(INT64_MAX - run))
			mapped = run + (int64_t)t;
		ret = scan_add(sc, name, mapped);
		if (ret)
			break;
	}
	/* a torn last element is a live (or crashed) writer's: keep what came before */
	if (ret < 0 && ret != -ENOMEM && ret != -ENODATA) {
		const char *msg = bc_xml_error(&x, &line);

		report_note(rep, "%s/map.xml:%u: %s; later mappings not read", exp, line, msg);
	}
	bc_xml_fini(&x);
	free(buf);
	return ret == -ENOMEM ? ret : 0;
}

static int object_cmp(const void *a, const void *b)
{
	const struct object *x = a, *y = b;

	return strcmp(x->path, y->path);
}

/* Sorts by path and merges duplicates, keeping the earliest mapping. */
static void scan_dedup(struct scan *sc)
{
	size_t w = 0;

	if (!sc->nobjs)
		return;
	qsort(sc->objs, sc->nobjs, sizeof(*sc->objs), object_cmp);
	for (size_t r = 1; r < sc->nobjs; r++) {
		if (!strcmp(sc->objs[r].path, sc->objs[w].path)) {
			if (sc->objs[r].mapped < sc->objs[w].mapped)
				sc->objs[w].mapped = sc->objs[r].mapped;
			free(sc->objs[r].path);
		} else {
			sc->objs[++w] = sc->objs[r];
		}
	}
	sc->nobjs = w + 1;
}

static void scan_free(struct scan *sc)
{
	for (size_t i = 0; i < sc->nobjs; i++)
		free(sc->objs[i].path);
	free(sc->objs);
	archive_hits_free(&sc->hits);
}

static int hits_first(const void *a, const void *b)
{
	const struct object *x = a, *y = b;

	if (x->hits != y->hits)
		return x->hits < y->hits ? 1 : -1;
	return strcmp(x->path, y->path);
}

/*
 * BC_ARCHIVE_HITS: only the objects some data hits, most-hit first (so a
 * size limit leaves out the least used); the others are counted as not hit.
 */
static void scan_keep_hits(struct scan *sc, struct bc_archive_report *rep)
{
	size_t w = 0;

	archive_hits_done(&sc->hits);
	for (size_t r = 0; r < sc->nobjs; r++) {
		sc->objs[r].hits = archive_hits_of(&sc->hits, sc->objs[r].path);
		if (sc->objs[r].hits) {
			sc->objs[w++] = sc->objs[r];
		} else {
			rep->not_hit++;
			free(sc->objs[r].path);
		}
	}
	sc->nobjs = w;
	if (w)
		qsort(sc->objs, w, sizeof(*sc->objs), hits_first);
}

/* One experiment: its map.xml, and under BC_ARCHIVE_HITS what its data hits. */
static int scan_one(struct scan *sc, int dirfd, const char *exp, struct bc_archive_report *rep)
{
	bool whole = false;
	int ret = scan_experiment(sc, dirfd, exp, rep, &whole);

	if (sc->policy == BC_ARCHIVE_AUTO) /* the founder's kind decides */
		sc->policy = whole ? BC_ARCHIVE_HITS : BC_ARCHIVE_ALL;
	if (!ret && sc->policy == BC_ARCHIVE_HITS)
		ret = archive_hits_experiment(&sc->hits, dirfd);
	return ret;
}

/* The founder's map.xml, then each _*.er subexperiment's. */
static int scan_all(struct scan *sc, int expfd, const char *founder, struct bc_archive_report *rep,
		    char *err, size_t errlen)
{
	struct dirent *de;
	DIR *dir;
	int dupfd, ret;

	ret = scan_one(sc, expfd, founder, rep);
	dupfd = ret ? -1 : openat(expfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (!ret && (dupfd < 0 || !(dir = fdopendir(dupfd)))) {
		ret = -errno;
		if (dupfd >= 0)
			close(dupfd);
		bc_set_err(err, errlen, "cannot list %s: %s", founder, strerror(-ret));
		return ret;
	}
	while (!ret && (de = readdir(dir))) {
		char sub[PATH_MAX];
		int subfd;

		if (de->d_name[0] != '_' || !ends_with(de->d_name, strlen(de->d_name), ".er"))
			continue;
		subfd = openat(expfd, de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (subfd < 0)
			continue; /* not a directory: gprofng skips it too */
		snprintf(sub, sizeof(sub), "%s/%s", founder, de->d_name);
		ret = scan_one(sc, subfd, sub, rep);
		close(subfd);
	}
	if (dupfd >= 0)
		closedir(dir);
	if (ret == -ENOMEM)
		bc_set_err(err, errlen, "out of memory reading %s", founder);
	if (!ret)
		scan_dedup(sc);
	rep->hits_only = sc->policy == BC_ARCHIVE_HITS;
	if (!ret && rep->hits_only)
		scan_keep_hits(sc, rep);
	return ret;
}

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
		c->archfd = openat(c->expfd, ARCHIVES, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		return 0;
	}
	if (mkdirat(c->expfd, ARCHIVES, 0755) && errno != EEXIST) {
		ret = -errno;
		bc_set_err(c->err, c->errlen, "cannot create %s/" ARCHIVES ": %s", c->founder,
			   strerror(errno));
		return ret;
	}
	c->archfd = openat(c->expfd, ARCHIVES, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (c->archfd < 0) {
		ret = -errno;
		bc_set_err(c->err, c->errlen, "cannot open %s/" ARCHIVES ": %s", c->founder,
			   strerror(errno));
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

	if (snprintf(tmp, sizeof(tmp), "%s/" ARCHIVES "/.bctmp.XXXXXX", c->founder) >=
	    (int)sizeof(tmp)) {
		ret = -ENAMETOOLONG;
		goto fail;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		goto fail;
	}
	buf = malloc(COPY_CHUNK);
	if (!buf || fchmod(fd, 0644)) {
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
	if (!ret && renameat(AT_FDCWD, tmp, c->archfd, name))
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
	if (ret != -ENAMETOOLONG)
		unlink(tmp);
	free(buf);
	return ret;
}

/* Writes archives/idx for the copy archives/name unless it exists (or force). */
static int index_object(struct ctx *c, const char *path, const char *name, const char *idx,
			const struct stat *st, bool force)
{
	char copy[PATH_MAX], idxpath[PATH_MAX], why[PATH_MAX + 64];
	int ret;

	if (!force && !faccessat(c->archfd, idx, F_OK, 0))
		return 0;
	if (snprintf(copy, sizeof(copy), "%s/" ARCHIVES "/%s", c->founder, name) >=
		    (int)sizeof(copy) ||
	    snprintf(idxpath, sizeof(idxpath), "%s/" ARCHIVES "/%s", c->founder, idx) >=
		    (int)sizeof(idxpath)) {
		report_note(c->rep, "%s: symbols not indexed: path too long", path);
		return 0;
	}
	ret = bc_archive_index_write(copy, idxpath, path, (uint64_t)st->st_size, mtime_ns(st), why,
				     sizeof(why));
	if (!ret) {
		c->rep->indexed++;
		return 0;
	}
	if (ret == -ENOEXEC) { /* magic but no readable ELF: the copy stays, unindexed */
		report_note(c->rep, "%s: symbols not indexed: %s", path, why);
		return 0;
	}
	bc_set_err(c->err, c->errlen, "%s", why);
	return ret;
}

/* The archived copy when the original cannot be read: kept, indexed if need be. */
static int keep_copy(struct ctx *c, const char *path, const char *name, const char *idx)
{
	struct stat st;
	int fd = openat(c->archfd, name, O_RDONLY | O_CLOEXEC | O_NONBLOCK), ret;
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
		report_skip(c->rep, BC_ARCHIVE_SKIP_UNREADABLE, o->path, "not a file name");
		return 0;
	}
	open_archives(c, false);
	src = open(o->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (src < 0) {
		int e = errno;

		ret = keep_copy(c, o->path, name, idx);
		if (!ret)
			report_skip(c->rep,
				    e == ENOENT || e == ENOTDIR ? BC_ARCHIVE_SKIP_MISSING
								: BC_ARCHIVE_SKIP_UNREADABLE,
				    o->path, strerror(e));
		return ret < 0 ? ret : 0;
	}
	if (fstat(src, &st) || !S_ISREG(st.st_mode)) {
		report_skip(c->rep, BC_ARCHIVE_SKIP_UNREADABLE, o->path, "not a regular file");
		goto out;
	}
	if (!has_elf_magic(src)) {
		report_skip(c->rep, BC_ARCHIVE_SKIP_NOT_ELF, o->path,
			    "not an ELF file; gprofng cannot use a copy of it");
		goto out;
	}
	if (archive_build_id(src, build_id, sizeof(build_id)) < 0)
		build_id[0] = '\0';
	copy = openat(c->archfd, name, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (copy >= 0 && !fstat(copy, &cst) && S_ISREG(cst.st_mode) && has_elf_magic(copy)) {
		/* there already: identical (same size and mtime, or same bytes) or kept */
		ret = cst.st_size != st.st_size		? 0
		      : mtime_ns(&cst) == mtime_ns(&st) ? 1
							: same_bytes(src, copy, st.st_size);
		if (ret == -ENOMEM) {
			goto out;
		} else if (ret < 0) {
			report_skip(c->rep, BC_ARCHIVE_SKIP_UNREADABLE, o->path, strerror(-ret));
			ret = 0;
		} else if (ret) {
			c->rep->present++;
			hold(c, build_id, st.st_size, name);
			ret = index_object(c, o->path, name, idx, &st, false);
		} else {
			report_skip(c->rep, BC_ARCHIVE_SKIP_CONFLICT, o->path,
				    "differs from the copy archived earlier, which is kept "
				    "(rebuilt since?)");
		}
		goto out;
	}
	if (copy >= 0) {
		replace = !fstat(copy, &cst) && S_ISREG(cst.st_mode);
		if (!replace) {
			report_skip(c->rep, BC_ARCHIVE_SKIP_CONFLICT, o->path,
				    "something other than a file holds its archive name");
			goto out;
		}
	}
	/*
	 * A rebuild sets both; a future mtime alone (a clock-skewed tarball)
	 * or a ctime alone (chmod) does not make it another file.
	 */
	if (o->mapped != NO_TIME && mtime_ns(&st) > o->mapped && ctime_ns(&st) > o->mapped) {
		report_skip(c->rep, BC_ARCHIVE_SKIP_CHANGED, o->path,
			    "modified after the experiment mapped it");
		goto out;
	}
	if (!replace && link_held(c, build_id, st.st_size, name)) {
		c->rep->linked++;
		ret = index_object(c, o->path, name, idx, &st, true);
		goto out;
	}
	if (c->limit && (uint64_t)st.st_size > c->limit - c->rep->copied_bytes) {
		report_skip(c->rep, BC_ARCHIVE_SKIP_LIMIT, o->path,
			    "copying it would pass the limit");
		goto out;
	}
	ret = open_archives(c, true);
	if (!ret)
		ret = copy_in(c, src, &st, name);
	if (ret == 1) {
		report_skip(c->rep, BC_ARCHIVE_SKIP_CHANGED, o->path, "changed while being copied");
		ret = 0;
	} else if (!ret) {
		c->rep->copied++;
		c->rep->copied_bytes += (uint64_t)st.st_size;
		hold(c, build_id, st.st_size, name);
		if (replace)
			report_note(c->rep,
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
	c.expfd = open(founder, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (c.expfd < 0) {
		ret = -errno;
		bc_set_err(err, errlen, "%s: %s", founder,
			   errno == ENOTDIR ? "not an experiment (not a directory)"
					    : strerror(errno));
		return ret;
	}
	if (!ends_with(founder, strlen(founder), ".er") || fstatat(c.expfd, "log.xml", &st, 0) ||
	    !S_ISREG(st.st_mode)) {
		bc_set_err(err, errlen, "%s: not an experiment (%s)", founder,
			   ends_with(founder, strlen(founder), ".er") ? "no log.xml"
								      : "name does not end in .er");
		ret = -EINVAL;
		goto out;
	}
	ret = scan_all(&sc, c.expfd, founder, rep, err, errlen);
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
	scan_free(&sc);
	free(c.held);
	if (c.archfd >= 0)
		close(c.archfd);
	close(c.expfd);
	return ret;
}
