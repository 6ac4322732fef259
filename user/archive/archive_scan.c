// SPDX-License-Identifier: MIT
/*
 * Which load objects an experiment names (archive_scan.h): the founder's and
 * each subexperiment's map.xml, under the hits policy only those its data
 * hits; and the report of what an archive run did.
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
#include "archive_scan.h"
#include "bpfcollect/symutil.h"
#include "bpfcollect/xml.h"

#define NSEC_PER_SEC 1000000000LL

/* ------------------------------------------------------------ the report */

/* Notes are advisory: one lost to a failed allocation beats failing the run. */
void archive_note(struct bc_archive_report *rep, const char *fmt, ...)
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

void archive_skip(struct bc_archive_report *rep, enum bc_archive_skip why, const char *path,
		  const char *detail)
{
	rep->skipped++;
	rep->by_reason[why]++;
	if (!rep->first_skipped[why])
		rep->first_skipped[why] = strdup(path);
	archive_note(rep, "%s: not archived (%s): %s", path, bc_archive_skip_name(why), detail);
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

	if (archive_open_xml(dirfd, "log.xml", &x))
		return NO_TIME;
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

static void scan_dedup(struct scan *sc);

/* Adds the objects of one experiment's map.xml; damage there is a note, not an error. */
static int scan_experiment(struct scan *sc, int dirfd, const char *exp,
			   struct bc_archive_report *rep, bool *whole)
{
	int64_t run = run_wall_time(dirfd, whole);
	struct bc_xml_elem e;
	struct bc_xml x;
	unsigned int line;
	int ret;

	ret = archive_open_xml(dirfd, "map.xml", &x);
	if (ret) {
		if (ret != -ENOENT)
			archive_note(rep, "%s/map.xml: cannot read: %s", exp, strerror(-ret));
		return 0;
	}
	rep->experiments++;
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
		/* merged as they come, so memory follows the distinct objects */
		if (sc->nobjs >= sc->dedup_at) {
			scan_dedup(sc);
			sc->dedup_at = 2 * sc->nobjs > 1024 ? 2 * sc->nobjs : 1024;
		}
	}
	/* a torn last element is a live (or crashed) writer's: keep what came before */
	if (ret < 0 && ret != -ENOMEM && ret != -ENODATA) {
		const char *msg = bc_xml_error(&x, &line);

		archive_note(rep, "%s/map.xml:%u: %s; later mappings not read", exp, line, msg);
	}
	bc_xml_fini(&x);
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

void archive_scan_free(struct scan *sc)
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
int archive_scan_all(struct scan *sc, int expfd, const char *founder, struct bc_archive_report *rep,
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

		if (de->d_name[0] != '_' ||
		    !archive_ends_with(de->d_name, strlen(de->d_name), ".er"))
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
