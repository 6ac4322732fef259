// SPDX-License-Identifier: MIT
/*
 * Symbol resolution: `-u [OBJ:]GLOB` specs to uprobe targets (see symbols.h).
 *
 * This file parses specs, selects the matching symbols of each object and
 * builds the function table. Reading ELF files is elf_symbols.c; finding the
 * executable and the objects specs name is objfind.c (with libsearch.c).
 */
#include <errno.h>
#include <gelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpfcollect/demangle.h"
#include "bpfcollect/elf_symbols.h"
#include "bpfcollect/go_binary.h"
#include "objfind.h"
#include "bpfcollect/symbols.h"
#include "bpfcollect/symutil.h"

/* Room for an error line that quotes a spec and a path or two. */
#define ERR_LINE_MAX (2 * PATH_MAX + 512)

/* ---------------------------------------------------------------- select */

/* Marks the probe-able symbols matching glob, counting them and the IFUNCs it matched. */
static void select_matching(struct bc_elf_object *obj, const char *glob, size_t *nfuncs,
			    size_t *nifuncs)
{
	*nfuncs = 0;
	*nifuncs = 0;
	for (size_t i = 0; i < obj->nsyms; i++) {
		struct bc_elf_sym *s = &obj->syms[i];

		if (!bc_sym_glob_match(glob, s->name))
			continue;
		if (s->ifunc) {
			(*nifuncs)++;
			continue;
		}
		s->selected = true;
		(*nfuncs)++;
	}
}

/* Marks the executable's own functions: what "no -u" traces. */
static size_t select_entry_points(struct bc_elf_object *obj)
{
	size_t n = 0;

	for (size_t i = 0; i < obj->nsyms; i++) {
		struct bc_elf_sym *s = &obj->syms[i];

		if (s->ifunc || s->helper)
			continue;
		s->selected = true;
		n++;
	}
	return n;
}

static int bind_rank(unsigned char bind)
{
	return bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2;
}

/* By offset; at one offset the alias whose name we keep comes first. */
static int cmp_sym_ptr(const void *pa, const void *pb)
{
	const struct bc_elf_sym *a = *(const struct bc_elf_sym *const *)pa;
	const struct bc_elf_sym *b = *(const struct bc_elf_sym *const *)pb;
	size_t alen, blen;

	if (a->offset != b->offset)
		return a->offset < b->offset ? -1 : 1;
	if (bind_rank(a->bind) != bind_rank(b->bind))
		return bind_rank(a->bind) - bind_rank(b->bind);
	alen = strlen(a->name);
	blen = strlen(b->name);
	if (alen != blen)
		return alen < blen ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

static int cmp_u64(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return a < b ? -1 : a > b;
}

/* Appends obj's selected symbols to out: one per offset, none already there. */
static int emit_object(const struct bc_elf_object *obj, struct bc_functab *out)
{
	const struct bc_elf_sym **sel = NULL;
	uint64_t *known = NULL;
	size_t nsel = 0, nknown = 0;
	int ret = 0;

	for (size_t i = 0; i < obj->nsyms; i++)
		nsel += obj->syms[i].selected;
	if (!nsel)
		return 0;
	sel = malloc(nsel * sizeof(*sel));
	if (!sel)
		return -ENOMEM;
	nsel = 0;
	for (size_t i = 0; i < obj->nsyms; i++)
		if (obj->syms[i].selected)
			sel[nsel++] = &obj->syms[i];
	qsort(sel, nsel, sizeof(*sel), cmp_sym_ptr);

	/* Offsets of this object that out already has, from an earlier call. */
	for (size_t i = 0; i < out->n; i++)
		nknown += !strcmp(out->v[i].object, obj->path);
	if (nknown) {
		known = malloc(nknown * sizeof(*known));
		if (!known) {
			ret = -ENOMEM;
			goto out;
		}
		nknown = 0;
		for (size_t i = 0; i < out->n; i++)
			if (!strcmp(out->v[i].object, obj->path))
				known[nknown++] = out->v[i].offset;
		qsort(known, nknown, sizeof(*known), cmp_u64);
	}

	for (size_t i = 0; i < nsel; i++) {
		const struct bc_elf_sym *s = sel[i];

		if (i && sel[i - 1]->offset == s->offset)
			continue;
		if (nknown && bsearch(&s->offset, known, nknown, sizeof(*known), cmp_u64))
			continue;
		ret = bc_functab_add(out, s->name, obj->path, s->addr, s->size, s->offset);
		if (ret)
			goto out;
	}
out:
	free(known);
	free(sel);
	return ret;
}

/* ----------------------------------------------------------------- resolve */

/* Objects loaded so far in one bc_symbols_resolve() call, in first-use order. */
struct resolver {
	struct bc_elf_object **objs;
	size_t n;
	size_t cap;
};

static void resolver_free(struct resolver *r)
{
	for (size_t i = 0; i < r->n; i++)
		bc_elf_object_free(r->objs[i]);
	free(r->objs);
	memset(r, 0, sizeof(*r));
}

static int resolver_get(struct resolver *r, const char *path, struct bc_elf_object **objp,
			char *err, size_t errlen)
{
	struct bc_elf_object *obj = NULL;
	int ret;

	for (size_t i = 0; i < r->n; i++) {
		if (!strcmp(r->objs[i]->path, path)) {
			*objp = r->objs[i];
			return 0;
		}
	}
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 8;
		struct bc_elf_object **v = realloc(r->objs, cap * sizeof(*v));

		if (!v) {
			bc_set_err(err, errlen, "out of memory");
			return -ENOMEM;
		}
		r->objs = v;
		r->cap = cap;
	}
	ret = bc_elf_object_load(path, &obj, err, errlen);
	if (ret)
		return ret;
	r->objs[r->n++] = obj;
	*objp = obj;
	return 0;
}

/* Skips a glob bracket expression "[...]"; returns its ']' or NULL if unterminated. */
static const char *bracket_end(const char *open)
{
	const char *p = open + 1;

	if (*p == '!' || *p == '^')
		p++;
	if (*p == ']') /* a ']' first is a member, not the end */
		p++;
	while (*p && *p != ']') {
		/* [:class:], [.coll.], [=equiv=] may contain ']' */
		if (p[0] == '[' && (p[1] == ':' || p[1] == '.' || p[1] == '=')) {
			const char *q = p + 2;

			while (*q && !(q[0] == p[1] && q[1] == ']'))
				q++;
			if (!*q)
				return NULL;
			p = q + 2;
			continue;
		}
		p++;
	}
	return *p ? p : NULL;
}

const char *bc_spec_separator(const char *spec)
{
	const char *sep = NULL;

	for (const char *p = spec; *p; p++) {
		if (*p == '\\' && p[1]) {
			p++;
		} else if (*p == '[') {
			const char *end = bracket_end(p);

			if (end)
				p = end;
		} else if (*p == ':' && p[1] == ':') {
			p++; /* "ns::f": C++ and Rust scopes are the name's, never a separator */
		} else if (*p == ':') {
			sep = p;
		}
	}
	return sep;
}

bool bc_spec_has_object(const char *spec)
{
	const char *sep = bc_spec_separator(spec);

	return sep && sep != spec;
}

/* ------------------------------------------------------------- IFUNC hint */

/* An error line lists at most this many names, in about this many characters. */
#define HINT_MAX_NAMES	4
#define HINT_LIST_CHARS 90

static int cmp_name(const void *pa, const void *pb)
{
	return strcmp(*(const char *const *)pa, *(const char *const *)pb);
}

/* Sorts names and drops repeats; returns how many are left. */
static size_t sort_unique(const char **names, size_t n)
{
	size_t m = 0;

	if (!n)
		return 0;
	qsort(names, n, sizeof(*names), cmp_name);
	for (size_t i = 0; i < n; i++)
		if (!m || strcmp(names[m - 1], names[i]))
			names[m++] = names[i];
	return m;
}

/* Appends s to the string in buf[buflen], truncating. */
static void append(char *buf, size_t buflen, const char *s)
{
	size_t len = strlen(buf);

	if (len + 1 < buflen)
		snprintf(buf + len, buflen - len, "%s", s);
}

/* "a, b, c, d, ...": the first names that fit the line. */
static void list_names(char *buf, size_t buflen, const char *const *names, size_t n)
{
	size_t shown;

	buf[0] = '\0';
	for (shown = 0; shown < n && shown < HINT_MAX_NAMES; shown++) {
		if (shown && strlen(buf) + 2 + strlen(names[shown]) > HINT_LIST_CHARS)
			break;
		if (shown)
			append(buf, buflen, ", ");
		append(buf, buflen, names[shown]);
	}
	if (shown < n)
		append(buf, buflen, ", ...");
}

/* What glibc prefixes the implementations of IFUNC name with: "strlen" -> "__strlen_". */
static const char *impl_prefix(const char *name)
{
	return strncmp(name, "__", 2) ? "__" : "";
}

/*
 * Whether name looks like one of glibc's implementations of IFUNC ifunc:
 * "__strlen_avx2" and "__strlen_evex512" for "strlen", "__memcpy_chk_erms"
 * for "__memcpy_chk".
 */
static bool is_impl_name(const char *name, const char *ifunc)
{
	size_t plen = strlen(impl_prefix(ifunc)), len = strlen(ifunc);

	return !strncmp(name, impl_prefix(ifunc), plen) && !strncmp(name + plen, ifunc, len) &&
	       name[plen + len] == '_' && name[plen + len + 1];
}

/*
 * The error line for a glob that matches only IFUNCs, which are not probed:
 * it lists the implementations they select from, the glibc-style "__NAME_*"
 * functions of the same object, and the -u that traces them; or, when the
 * object has none, says why and what to do instead. glob matches at least
 * one IFUNC of obj. 0 or -ENOMEM.
 */
static int explain_ifuncs(const struct bc_elf_object *obj, const char *spec, const char *sep,
			  const char *glob, char *err, size_t errlen)
{
	const char **ifuncs = NULL, **impls = NULL;
	size_t nifuncs = 0, nimpls = 0;
	char what[512], list[256];
	const char *objname = bc_base_name(obj->path);
	/* The OBJ: of the spec, for the -u we suggest. */
	int objlen = sep ? (int)(sep - spec) + 1 : 0;
	int ret = 0;

	ifuncs = calloc(obj->nsyms, sizeof(*ifuncs));
	impls = calloc(obj->nsyms, sizeof(*impls));
	if (!ifuncs || !impls) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < obj->nsyms; i++)
		if (obj->syms[i].ifunc && bc_sym_glob_match(glob, obj->syms[i].name))
			ifuncs[nifuncs++] = obj->syms[i].name;
	nifuncs = sort_unique(ifuncs, nifuncs);
	for (size_t i = 0; i < obj->nsyms; i++) {
		const struct bc_elf_sym *s = &obj->syms[i];

		if (s->ifunc)
			continue;
		for (size_t j = 0; j < nifuncs; j++) {
			if (is_impl_name(s->name, ifuncs[j])) {
				impls[nimpls++] = s->name;
				break;
			}
		}
	}
	nimpls = sort_unique(impls, nimpls);

	if (nifuncs == 1) {
		snprintf(what, sizeof(what), "%s is a GNU IFUNC", ifuncs[0]);
	} else {
		list_names(list, sizeof(list), ifuncs, nifuncs);
		snprintf(what, sizeof(what), "'%s' matches only GNU IFUNCs (%s)", glob, list);
	}
	if (nimpls) {
		list_names(list, sizeof(list), impls, nimpls);
		bc_set_err(err, errlen,
			   "-u '%s': %s in %s, not probed; %s select%s from %s: trace %s -u "
			   "'%.*s%s%s_*'",
			   spec, what, objname, nifuncs > 1 ? "they" : "it", nifuncs > 1 ? "" : "s",
			   list, nifuncs > 1 ? "them by name, e.g." : "them with", objlen, spec,
			   impl_prefix(ifuncs[0]), ifuncs[0]);
	} else if (obj->from_dynsym) {
		bc_set_err(err, errlen,
			   "-u '%s': %s in %s, not probed; the implementation%s %s select%s at run "
			   "time ha%s no symbol%s there (stripped): trace a caller instead",
			   spec, what, objname, nifuncs > 1 ? "s" : "", nifuncs > 1 ? "they" : "it",
			   nifuncs > 1 ? "" : "s", nifuncs > 1 ? "ve" : "s",
			   nifuncs > 1 ? "s" : "");
	} else {
		bc_set_err(err, errlen,
			   "-u '%s': %s in %s, not probed; no function there is named like an "
			   "implementation (%s%s_*): trace a caller instead",
			   spec, what, objname, impl_prefix(ifuncs[0]), ifuncs[0]);
	}
out:
	free(impls);
	free(ifuncs);
	return ret;
}

static int resolve_spec(struct resolver *r, const char *exe, const char *exe_as_given, int pid,
			const char *spec, char *err, size_t errlen)
{
	char objpath[PATH_MAX], *sub, *objname = NULL;
	const char *sep, *glob, *path = exe;
	size_t nfuncs, nifuncs;
	struct bc_elf_object *obj;
	int ret = 0;

	sub = malloc(ERR_LINE_MAX);
	if (!sub) {
		bc_set_err(err, errlen, "out of memory");
		return -ENOMEM;
	}
	sub[0] = '\0';
	sep = bc_spec_separator(spec);
	glob = sep ? sep + 1 : spec;
	if (!*glob) {
		bc_set_err(err, errlen,
			   "-u '%s': no function pattern (e.g. 'libc:malloc' or 'foo*')", spec);
		ret = -EINVAL;
		goto out;
	}
	if (sep) {
		if (sep == spec) {
			bc_set_err(err, errlen,
				   "-u '%s': no object before ':' (give a library name or path, or "
				   "drop the ':')",
				   spec);
			ret = -EINVAL;
			goto out;
		}
		objname = strndup(spec, (size_t)(sep - spec));
		if (!objname) {
			bc_set_err(err, errlen, "out of memory");
			ret = -ENOMEM;
			goto out;
		}
		ret = bc_find_object(exe, exe_as_given, pid, objname, objpath, sizeof(objpath), sub,
				     ERR_LINE_MAX);
		if (ret) {
			bc_set_err(err, errlen, "-u '%s': %s", spec, sub);
			goto out;
		}
		path = objpath;
	}
	ret = resolver_get(r, path, &obj, sub, ERR_LINE_MAX);
	if (ret) {
		bc_set_err(err, errlen, "-u '%s': %s", spec, sub);
		goto out;
	}
	select_matching(obj, glob, &nfuncs, &nifuncs);
	if (nfuncs)
		goto out;
	ret = -ENOENT;
	if (nifuncs) {
		if (explain_ifuncs(obj, spec, sep, glob, err, errlen)) {
			bc_set_err(err, errlen, "out of memory");
			ret = -ENOMEM;
		}
	} else if (bc_go_explain_stripped(obj->path, sub, ERR_LINE_MAX)) {
		/* a stripped Go binary keeps a .dynsym when it links libc: say why all the same */
		bc_set_err(err, errlen, "-u '%s': %s", spec, sub);
	} else if (!obj->nsyms) {
		bc_set_err(err, errlen,
			   "-u '%s': no function matches '%s' in %s (it has no function symbols: "
			   "stripped?)",
			   spec, glob, obj->path);
	} else {
		bc_set_err(err, errlen, "-u '%s': no function matches '%s' in %s", spec, glob,
			   obj->path);
	}
out:
	free(objname);
	free(sub);
	return ret;
}

/* Drops what this call appended, so a failed call leaves `t` as it was. */
static void functab_truncate(struct bc_functab *t, size_t n)
{
	while (t->n > n) {
		t->n--;
		free(t->v[t->n].name);
		free(t->v[t->n].object);
	}
}

int bc_symbols_resolve(const char *exe, int pid, const char *const *specs, size_t nspecs,
		       struct bc_functab *out, char *err, size_t errlen)
{
	char exe_canon[PATH_MAX];
	struct resolver r = {0};
	struct bc_elf_object *obj;
	size_t orig_n;
	int ret;

	if (err && errlen)
		err[0] = '\0';
	if (!out || (nspecs && !specs)) {
		bc_set_err(err, errlen, "internal error: no function table or specs");
		return -EINVAL;
	}
	orig_n = out->n;
	/* System-wide (no program, no process): every spec names its object. */
	if (!exe && pid <= 0) {
		if (!nspecs) {
			bc_set_err(err, errlen, "system-wide tracing needs -u OBJ:GLOB");
			return -EINVAL;
		}
		for (size_t i = 0; i < nspecs; i++) {
			if (specs[i] && !bc_spec_has_object(specs[i])) {
				bc_set_err(err, errlen,
					   "-u '%s': system-wide, name the object too (OBJ:GLOB)",
					   specs[i]);
				return -EINVAL;
			}
		}
		exe_canon[0] = 0;
	} else {
		ret = bc_resolve_exe(exe, pid, exe_canon, sizeof(exe_canon), err, errlen);
		if (ret)
			return ret;
	}

	if (!nspecs) {
		ret = resolver_get(&r, exe_canon, &obj, err, errlen);
		if (ret)
			goto out;
		if (!select_entry_points(obj)) {
			bc_set_err(err, errlen,
				   "%s: no function symbols to trace (stripped?); rebuild it with "
				   "symbols or name functions with -u",
				   exe_canon);
			ret = -ENOENT;
			goto out;
		}
	}
	for (size_t i = 0; i < nspecs; i++) {
		if (!specs[i]) {
			bc_set_err(err, errlen, "internal error: spec %zu is NULL", i);
			ret = -EINVAL;
			goto out;
		}
		ret = resolve_spec(&r, exe_canon[0] ? exe_canon : NULL, exe, pid, specs[i], err,
				   errlen);
		if (ret)
			goto out;
	}
	for (size_t i = 0; i < r.n; i++) {
		ret = emit_object(r.objs[i], out);
		if (ret) {
			bc_set_err(err, errlen, "out of memory building the function table");
			goto out;
		}
	}
out:
	if (ret)
		functab_truncate(out, orig_n);
	resolver_free(&r);
	return ret;
}
