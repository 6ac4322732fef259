/* SPDX-License-Identifier: MIT */
/*
 * Finding a shared library as ld.so does (internal; used by objfind.c):
 * what an object's dynamic section says about its dependencies, and where a
 * DT_NEEDED name is found: DT_RPATH, LD_LIBRARY_PATH, DT_RUNPATH ($ORIGIN
 * expanded), the directories of /etc/ld.so.conf (with its includes), then
 * the default directories. Files of the wrong class or machine are skipped,
 * as ld.so skips them.
 */
#ifndef BPFCOLLECT_LIBSEARCH_H
#define BPFCOLLECT_LIBSEARCH_H

#include <stdbool.h>
#include <stddef.h>

struct bc_strvec {
	char **v;
	size_t n;
	size_t cap;
};

/* What the dynamic section of an object says about its dependencies. */
struct bc_dyn_info {
	struct bc_strvec needed; /* DT_NEEDED, in order */
	char *rpath;
	char *runpath;
};

/*
 * Reads DT_NEEDED, DT_RPATH, DT_RUNPATH of the ELF file at path into *di
 * (zeroed first). An unreadable object just has none; only -ENOMEM fails.
 */
int bc_read_dynamic(const char *path, struct bc_dyn_info *di);
void bc_dyn_info_free(struct bc_dyn_info *di);

/* Library search state for one lookup: ld.so.conf is read once. Zero it to start. */
struct bc_lib_search {
	struct bc_strvec conf_dirs;
	bool conf_read;
	const char *exe_rpath;	/* the executable's DT_RPATH, unless it has DT_RUNPATH */
	const char *exe_origin; /* the executable's directory */
};

/*
 * Finds DT_NEEDED library `name` of the object `loader` describes, whose
 * directory is loader_origin, as ld.so would; writes its canonical path into
 * out[outlen]. -ENOENT if not found, -ENOMEM.
 */
int bc_lib_search_find(struct bc_lib_search *ls, const char *name, const struct bc_dyn_info *loader,
		       const char *loader_origin, char *out, size_t outlen);
/*
 * A library no DT_NEEDED names (one the program dlopens): the first shared
 * object whose file name is `name`, or `name` followed by '.' or '-' and
 * ".so" (libfoo: libfoo.so, libfoo.so.1), along LD_LIBRARY_PATH, the
 * ld.so.conf directories and the default ones, as dlopen would search.
 */
int bc_lib_search_like(struct bc_lib_search *ls, const char *name, char *out, size_t outlen);
void bc_lib_search_free(struct bc_lib_search *ls);

#endif /* BPFCOLLECT_LIBSEARCH_H */
