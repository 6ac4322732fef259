// SPDX-License-Identifier: MIT
/*
 * Finding the executable and the load object an OBJ name means (see
 * objfind.h and bc_symbols_find_object in symbols.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libsearch.h"
#include "objfind.h"
#include "bpfcollect/symbols.h"
#include "bpfcollect/symutil.h"

/* Bounds the DT_NEEDED closure; real programs need a few dozen objects. */
#define MAX_NEEDED_OBJECTS 1024

static bool ends_with(const char *s, const char *suffix)
{
	size_t len = strlen(s), slen = strlen(suffix);

	return len >= slen && strcmp(s + len - slen, suffix) == 0;
}

/* The directory part of an absolute path: "/a/b" -> "/a", "/b" -> "/". */
static void dir_of(const char *path, char *out, size_t outlen)
{
	int len = (int)(bc_base_name(path) - path) - 1;

	snprintf(out, outlen, "%.*s", len > 0 ? len : 1, path);
}

/* ------------------------------------------------------------------- paths */

/* Whether process pid sees the same "/" we do (not in a container's root). */
static bool same_root(int pid)
{
	char proc_root[64];
	struct stat theirs, ours;

	snprintf(proc_root, sizeof(proc_root), "/proc/%d/root", pid);
	return stat(proc_root, &theirs) == 0 && stat("/", &ours) == 0 &&
	       theirs.st_dev == ours.st_dev && theirs.st_ino == ours.st_ino;
}

/*
 * The canonical absolute path of `path` as process pid sees it (pid <= 0:
 * as we see it), one we can open.
 */
static int canonical_path(int pid, const char *path, char *out, size_t outlen)
{
	char buf[PATH_MAX];

	if (pid > 0 && path[0] == '/' && !same_root(pid)) {
		/*
		 * The target has another root (a container): reach its files
		 * through /proc/PID/root. realpath() would resolve its absolute
		 * symlinks against our root, so the path stays as it is.
		 */
		if (snprintf(buf, sizeof(buf), "/proc/%d/root%s", pid, path) >= (int)sizeof(buf))
			return -ENAMETOOLONG;
		if (access(buf, F_OK))
			return -errno;
		return bc_copy_path(out, outlen, buf);
	}
	if (!realpath(path, buf))
		return -errno;
	return bc_copy_path(out, outlen, buf);
}

/* Where execvp(3) would find a command name without '/'. */
static int search_exec_path(const char *name, char *out, size_t outlen)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];

	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (path) {
		const char *colon = strchr(path, ':');
		size_t len = colon ? (size_t)(colon - path) : strlen(path);
		struct stat st;
		int n;

		/* An empty element means the current directory. */
		if (len)
			n = snprintf(buf, sizeof(buf), "%.*s/%s", (int)len, path, name);
		else
			n = snprintf(buf, sizeof(buf), "%s", name);
		if (n > 0 && n < (int)sizeof(buf) && stat(buf, &st) == 0 && S_ISREG(st.st_mode) &&
		    access(buf, X_OK) == 0)
			return bc_copy_path(out, outlen, buf);
		path = colon ? colon + 1 : NULL;
	}
	return -ENOENT;
}

/* Why process pid's link (its exe or maps) cannot be read, in words, into err. */
static void exe_unreadable(int pid, const char *link, int ret, char *err, size_t errlen)
{
	char dir[64];

	snprintf(dir, sizeof(dir), "/proc/%d", pid);
	if (access(dir, F_OK) < 0)
		bc_set_err(err, errlen, "process %d is not running; check the pid", pid);
	else if (ret == -EACCES || ret == -EPERM)
		bc_set_err(err, errlen,
			   "process %d runs, but %s cannot be read (%s): it is hidden from "
			   "bpfcollect (another namespace, or protected), so it cannot be traced",
			   pid, link, strerror(-ret));
	else if (ret == -ENOENT)
		bc_set_err(err, errlen,
			   "process %d has no executable (a kernel thread, or it is exiting); "
			   "-P attaches to running user processes",
			   pid);
	else
		bc_set_err(err, errlen, "process %d: cannot read %s: %s", pid, link,
			   strerror(-ret));
}

/* The canonical path of the target executable, not yet checked. */
static int find_exe(const char *exe, int pid, char *out, size_t outlen, char *err, size_t errlen)
{
	char buf[PATH_MAX];
	int ret;

	if (!exe || !*exe) {
		char link[64];
		ssize_t len;

		if (pid <= 0) {
			bc_set_err(err, errlen, "no executable given (give a program or a pid)");
			return -EINVAL;
		}
		snprintf(link, sizeof(link), "/proc/%d/exe", pid);
		len = readlink(link, buf, sizeof(buf) - 1);
		if (len < 0) {
			ret = -errno;
			exe_unreadable(pid, link, ret, err, errlen);
			return ret;
		}
		buf[len] = '\0';
		ret = canonical_path(pid, buf, out, outlen);
		if (ret)
			bc_set_err(err, errlen, "process %d: executable %s: %s", pid, buf,
				   strerror(-ret));
		return ret;
	}
	if (!strchr(exe, '/')) {
		ret = search_exec_path(exe, buf, sizeof(buf));
		if (ret) {
			bc_set_err(err, errlen, "%s: command not found in $PATH (give its path)",
				   exe);
			return ret;
		}
		exe = buf;
	}
	ret = canonical_path(0, exe, out, outlen);
	if (ret)
		bc_set_err(err, errlen, "%s: %s", exe, strerror(-ret));
	return ret;
}

int bc_resolve_exe(const char *exe, int pid, char *out, size_t outlen, char *err, size_t errlen)
{
	int ret = find_exe(exe, pid, out, outlen, err, errlen);

	return ret ? ret : bc_elf_check(out, err, errlen);
}

/* --------------------------------------------------------- object lookup */

/* A load object OBJ may name. */
struct candidate {
	char *name;	 /* as listed: DT_NEEDED entry, maps path, exe as given */
	char *path;	 /* canonical; NULL when a DT_NEEDED library was not found */
	char *needed_by; /* the object whose DT_NEEDED listed it, or NULL */
	bool deleted;	 /* mapped, but the file is gone or was replaced */
};

struct candidates {
	struct candidate *v;
	size_t n;
	size_t cap;
};

static void candidates_free(struct candidates *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].name);
		free(c->v[i].path);
		free(c->v[i].needed_by);
	}
	free(c->v);
	memset(c, 0, sizeof(*c));
}

static int candidates_add(struct candidates *c, const char *name, const char *path,
			  const char *needed_by, bool deleted)
{
	struct candidate *cand;

	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 32;
		struct candidate *v = realloc(c->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		c->v = v;
		c->cap = cap;
	}
	cand = &c->v[c->n];
	memset(cand, 0, sizeof(*cand));
	cand->deleted = deleted;
	cand->name = strdup(name);
	cand->path = path ? strdup(path) : NULL;
	cand->needed_by = needed_by ? strdup(needed_by) : NULL;
	if (!cand->name || (path && !cand->path) || (needed_by && !cand->needed_by)) {
		free(cand->name);
		free(cand->path);
		free(cand->needed_by);
		return -ENOMEM;
	}
	c->n++;
	return 0;
}

static bool candidates_have_name(const struct candidates *c, const char *name)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->v[i].name, name))
			return true;
	return false;
}

/* The executable mappings of a running process. */
static int maps_candidates(int pid, struct candidates *c, char *err, size_t errlen)
{
	char maps[64], canon[PATH_MAX];
	char *line = NULL;
	size_t linecap = 0;
	ssize_t len;
	FILE *fp;
	int ret = 0;

	snprintf(maps, sizeof(maps), "/proc/%d/maps", pid);
	fp = fopen(maps, "re");
	if (!fp) {
		ret = -errno;
		exe_unreadable(pid, maps, ret, err, errlen);
		return ret;
	}
	while ((len = getline(&line, &linecap, fp)) > 0) {
		char perms[8], *path;
		bool deleted;
		int pos = 0;

		if (line[len - 1] == '\n')
			line[--len] = '\0';
		/* start-end perms offset major:minor inode   path */
		if (sscanf(line, "%*x-%*x %7s %*x %*x:%*x %*u %n", perms, &pos) < 1 || pos <= 0 ||
		    pos > len)
			continue;
		path = line + pos;
		if (!strchr(perms, 'x') || path[0] != '/')
			continue;
		deleted = ends_with(path, " (deleted)");
		if (deleted)
			path[strlen(path) - strlen(" (deleted)")] = '\0';
		if (candidates_have_name(c, path))
			continue;
		if (!deleted && canonical_path(pid, path, canon, sizeof(canon)))
			deleted = true;
		ret = candidates_add(c, path, deleted ? NULL : canon, NULL, deleted);
		if (ret)
			break;
	}
	free(line);
	fclose(fp);
	return ret;
}

/* The executable and, breadth first, every library it needs. */
static int needed_candidates(const char *exe, const char *exe_as_given, struct candidates *c)
{
	struct bc_lib_search ls = {0};
	struct bc_dyn_info exe_dyn = {0};
	char exe_origin[PATH_MAX];
	int ret;

	ret = candidates_add(c, exe_as_given ? exe_as_given : exe, exe, NULL, false);
	if (ret)
		return ret;
	ret = bc_read_dynamic(exe, &exe_dyn);
	if (ret)
		return ret;
	dir_of(exe, exe_origin, sizeof(exe_origin));
	ls.exe_rpath = exe_dyn.runpath ? NULL : exe_dyn.rpath;
	ls.exe_origin = exe_origin;

	for (size_t i = 0; i < c->n && !ret; i++) {
		struct bc_dyn_info own = {0}, *di = &own;
		char origin[PATH_MAX], *loader;

		if (!c->v[i].path)
			continue;
		if (i == 0) {
			di = &exe_dyn;
		} else {
			ret = bc_read_dynamic(c->v[i].path, &own);
			if (ret)
				break;
		}
		/* candidates_add may move c->v: keep our own copy of the loader's path. */
		loader = strdup(c->v[i].path);
		if (!loader) {
			ret = -ENOMEM;
			bc_dyn_info_free(&own);
			break;
		}
		dir_of(loader, origin, sizeof(origin));
		for (size_t j = 0; j < di->needed.n && !ret; j++) {
			const char *name = di->needed.v[j];
			char found[PATH_MAX];

			if (candidates_have_name(c, name))
				continue;
			if (c->n >= MAX_NEEDED_OBJECTS)
				break;
			/* One not found is no error yet: only if OBJ names it. */
			ret = bc_lib_search_find(&ls, name, di, origin, found, sizeof(found));
			if (ret == -ENOMEM)
				break;
			ret = candidates_add(c, name, ret ? NULL : found, loader, false);
		}
		free(loader);
		bc_dyn_info_free(&own);
	}
	bc_dyn_info_free(&exe_dyn);
	bc_lib_search_free(&ls);
	return ret;
}

static bool candidate_matches(const struct candidate *cand, const char *obj, bool exact)
{
	const char *names[2] = {bc_base_name(cand->name),
				cand->path ? bc_base_name(cand->path) : NULL};
	size_t len = strlen(obj);

	for (int i = 0; i < 2; i++) {
		if (!names[i])
			continue;
		if (exact ? !strcmp(names[i], obj)
			  : !strncmp(names[i], obj, len) &&
				    (names[i][len] == '.' || names[i][len] == '-'))
			return true;
	}
	return false;
}

static bool same_file(const struct candidate *a, const struct candidate *b)
{
	if (a->path && b->path)
		return !strcmp(a->path, b->path);
	return !a->path && !b->path && !strcmp(a->name, b->name);
}

/* The one candidate obj names best; errors name what matched or what is missing. */
static int pick_candidate(const struct candidates *c, const char *obj, int pid, char *path,
			  size_t pathlen, char *err, size_t errlen)
{
	for (int exact = 1; exact >= 0; exact--) {
		const struct candidate *best = NULL, *other = NULL;
		size_t nothers = 0;

		for (size_t i = 0; i < c->n; i++) {
			if (!candidate_matches(&c->v[i], obj, exact))
				continue;
			if (!best) {
				best = &c->v[i];
			} else if (!same_file(best, &c->v[i])) {
				other = other ? other : &c->v[i];
				nothers++;
			}
		}
		if (!best)
			continue;
		if (other) {
			bc_set_err(err, errlen,
				   "'%s' is ambiguous: %s, %s%s (give a longer name or a path)",
				   obj, best->path ? best->path : best->name,
				   other->path ? other->path : other->name,
				   nothers > 1 ? ", ..." : "");
			return -EINVAL;
		}
		if (best->deleted) {
			bc_set_err(
				err, errlen,
				"'%s' is %s, deleted or replaced since process %d loaded it (give "
				"a "
				"path)",
				obj, best->name, pid);
			return -ENOENT;
		}
		if (!best->path) {
			bc_set_err(err, errlen,
				   "'%s' is needed by %s but not found in the library search path "
				   "(set "
				   "LD_LIBRARY_PATH or give a path)",
				   best->name, best->needed_by ? best->needed_by : "the program");
			return -ENOENT;
		}
		if (bc_copy_path(path, pathlen, best->path)) {
			bc_set_err(err, errlen, "%s: path too long", best->path);
			return -ENAMETOOLONG;
		}
		return 0;
	}
	if (pid > 0)
		bc_set_err(err, errlen,
			   "no object named '%s' is loaded in process %d (give a path)", obj, pid);
	else
		bc_set_err(err, errlen, "no loaded object or library named '%s' (give a path)",
			   obj);
	return -ENOENT;
}

/* bc_symbols_find_object() once the executable is known (exe may be NULL if pid > 0). */
int bc_find_object(const char *exe, const char *exe_as_given, int pid, const char *obj, char *path,
		   size_t pathlen, char *err, size_t errlen)
{
	struct candidates c = {0};
	int ret;

	if (!obj || !*obj) {
		bc_set_err(err, errlen, "empty object name (give a library name or a path)");
		return -EINVAL;
	}
	if (strchr(obj, '/')) {
		ret = canonical_path(obj[0] == '/' ? pid : 0, obj, path, pathlen);
		if (ret) {
			if (pid > 0 && obj[0] == '/')
				bc_set_err(err, errlen, "%s (in the root of process %d): %s", obj,
					   pid, strerror(-ret));
			else
				bc_set_err(err, errlen, "%s: %s", obj, strerror(-ret));
			return ret;
		}
		return bc_elf_check(path, err, errlen);
	}
	if (pid > 0)
		ret = maps_candidates(pid, &c, err, errlen);
	else if (exe)
		ret = needed_candidates(exe, exe_as_given, &c);
	else { /* system-wide: no program to start from, only where dlopen looks */
		bc_set_err(err, errlen,
			   "no library named '%s' in the library search path (give a path)", obj);
		ret = -ENOENT;
	}
	if (ret == -ENOMEM)
		bc_set_err(err, errlen, "out of memory looking for '%s'", obj);
	if (!ret)
		ret = pick_candidate(&c, obj, pid, path, pathlen, err, errlen);
	candidates_free(&c);
	/*
	 * Not loaded at start (dlopen): look where dlopen would. Probes on the
	 * file then catch it the moment it is mapped: uprobes live on the inode.
	 */
	if (ret == -ENOENT && (pid <= 0 || same_root(pid))) {
		struct bc_lib_search ls = {0};
		char why[512];

		snprintf(why, sizeof(why), "%s", err ? err : "");
		ret = bc_lib_search_like(&ls, obj, path, pathlen);
		bc_lib_search_free(&ls);
		if (ret == 0)
			return bc_elf_check(path, err, errlen);
		if (err)
			snprintf(err, errlen, "%s", why);
		ret = -ENOENT;
	}
	return ret;
}

int bc_symbols_find_object(const char *exe, int pid, const char *obj, char *path, size_t pathlen,
			   char *err, size_t errlen)
{
	char exe_canon[PATH_MAX];
	int ret;

	if (err && errlen)
		err[0] = '\0';
	if (!path || !pathlen) {
		bc_set_err(err, errlen, "no room for the path");
		return -EINVAL;
	}
	/* Only a DT_NEEDED search starts from the executable. */
	if (pid <= 0 && obj && !strchr(obj, '/')) {
		ret = bc_resolve_exe(exe, pid, exe_canon, sizeof(exe_canon), err, errlen);
		if (ret)
			return ret;
		return bc_find_object(exe_canon, exe, pid, obj, path, pathlen, err, errlen);
	}
	return bc_find_object(NULL, NULL, pid, obj, path, pathlen, err, errlen);
}
