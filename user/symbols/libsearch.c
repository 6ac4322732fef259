// SPDX-License-Identifier: MIT
/*
 * Finding a DT_NEEDED library as ld.so does (see libsearch.h).
 */
#include <dirent.h>
#include <errno.h>
#include <gelf.h>
#include <glob.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpfcollect/elf_symbols.h"
#include "libsearch.h"
#include "bpfcollect/symbols.h"
#include "bpfcollect/symutil.h"

/* ld.so.conf includes nest; a loop of includes must end. */
#define MAX_CONF_DEPTH 8

static const char *const default_lib_dirs[] = {
	"/lib/x86_64-linux-gnu",
	"/usr/lib/x86_64-linux-gnu",
	"/lib64",
	"/usr/lib64",
	"/lib",
	"/usr/lib",
};

static int strvec_push_n(struct bc_strvec *sv, const char *s, size_t len)
{
	if (sv->n == sv->cap) {
		size_t cap = sv->cap ? sv->cap * 2 : 16;
		char **v = realloc(sv->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		sv->v = v;
		sv->cap = cap;
	}
	sv->v[sv->n] = strndup(s, len);
	if (!sv->v[sv->n])
		return -ENOMEM;
	sv->n++;
	return 0;
}

static int strvec_push(struct bc_strvec *sv, const char *s)
{
	return strvec_push_n(sv, s, strlen(s));
}

static void strvec_free(struct bc_strvec *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	memset(sv, 0, sizeof(*sv));
}

/* The canonical absolute path of a file we found. */
static int canonical_file(const char *path, char *out, size_t outlen)
{
	char buf[PATH_MAX];

	if (!realpath(path, buf))
		return -errno;
	return bc_copy_path(out, outlen, buf);
}

void bc_dyn_info_free(struct bc_dyn_info *di)
{
	strvec_free(&di->needed);
	free(di->rpath);
	free(di->runpath);
	memset(di, 0, sizeof(*di));
}

int bc_read_dynamic(const char *path, struct bc_dyn_info *di)
{
	size_t entsize;
	Elf_Scn *scn = NULL;
	struct bc_elf_file f;
	int ret = 0;

	memset(di, 0, sizeof(*di));
	if (bc_elf_file_open(&f, path, NULL, 0))
		return 0;
	entsize = gelf_fsize(f.elf, ELF_T_DYN, 1, EV_CURRENT);
	while (!ret && entsize && (scn = elf_nextscn(f.elf, scn))) {
		Elf_Data *data;
		GElf_Shdr sh;
		size_t n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || (data->d_size && !data->d_buf))
			continue;
		n = data->d_size / entsize;
		for (size_t i = 0; i < n && i <= INT_MAX && !ret; i++) {
			const char *s;
			GElf_Dyn dyn;

			if (!gelf_getdyn(data, (int)i, &dyn) || dyn.d_tag == DT_NULL)
				break;
			if (dyn.d_tag != DT_NEEDED && dyn.d_tag != DT_RPATH &&
			    dyn.d_tag != DT_RUNPATH)
				continue;
			s = elf_strptr(f.elf, sh.sh_link, dyn.d_un.d_val);
			if (!s || !*s)
				continue;
			if (dyn.d_tag == DT_NEEDED) {
				ret = strvec_push(&di->needed, s);
			} else {
				char **slot = dyn.d_tag == DT_RPATH ? &di->rpath : &di->runpath;

				free(*slot);
				*slot = strdup(s);
				if (!*slot)
					ret = -ENOMEM;
			}
		}
	}
	bc_elf_file_close(&f);
	if (ret)
		bc_dyn_info_free(di);
	return ret;
}

static int parse_ld_so_conf(const char *file, int depth, struct bc_strvec *dirs);

/* "include PATTERN..." in an ld.so.conf file; relative patterns are relative to it. */
static int ld_so_conf_include(const char *file, char *patterns, int depth, struct bc_strvec *dirs)
{
	char *save = NULL;
	int ret = 0;

	for (char *pat = strtok_r(patterns, " \t", &save); pat && !ret;
	     pat = strtok_r(NULL, " \t", &save)) {
		char full[PATH_MAX];
		glob_t g;

		if (pat[0] == '/') {
			if (bc_copy_path(full, sizeof(full), pat))
				continue;
		} else {
			const char *slash = strrchr(file, '/');
			int dirlen = slash ? (int)(slash - file) : 1;

			if (snprintf(full, sizeof(full), "%.*s/%s", dirlen, slash ? file : ".",
				     pat) >= (int)sizeof(full))
				continue;
		}
		if (glob(full, 0, NULL, &g))
			continue;
		for (size_t i = 0; i < g.gl_pathc && !ret; i++)
			ret = parse_ld_so_conf(g.gl_pathv[i], depth + 1, dirs);
		globfree(&g);
	}
	return ret;
}

static int parse_ld_so_conf(const char *file, int depth, struct bc_strvec *dirs)
{
	char *line = NULL;
	size_t linecap = 0;
	FILE *fp;
	int ret = 0;

	if (depth > MAX_CONF_DEPTH)
		return 0;
	fp = fopen(file, "re");
	if (!fp)
		return 0;
	while (!ret && getline(&line, &linecap, fp) > 0) {
		char *p = line, *save = NULL, *hash = strchr(line, '#');

		if (hash)
			*hash = '\0';
		p += strspn(p, " \t\r\n");
		if (!strncmp(p, "include", 7) && (p[7] == ' ' || p[7] == '\t')) {
			p[strcspn(p, "\r\n")] = '\0';
			ret = ld_so_conf_include(file, p + 8, depth, dirs);
			continue;
		}
		if (!strncmp(p, "hwcap", 5) && (p[5] == ' ' || p[5] == '\t'))
			continue;
		/* Directories, separated by blanks, ':' or ','; old syntax "dir=TYPE". */
		for (char *dir = strtok_r(p, " \t\r\n:,", &save); dir && !ret;
		     dir = strtok_r(NULL, " \t\r\n:,", &save)) {
			char *eq = strchr(dir, '=');

			if (eq)
				*eq = '\0';
			if (dir[0] == '/')
				ret = strvec_push(dirs, dir);
		}
	}
	free(line);
	fclose(fp);
	return ret;
}

/* Tries dir/name; dir may use $ORIGIN, the directory of the object that needs name. */
static int try_lib_dir(const char *dir, size_t dirlen, const char *origin, const char *name,
		       char *out, size_t outlen)
{
	char expanded[PATH_MAX], file[PATH_MAX];
	size_t n = 0;

	/* An empty element means the current directory, as in ld.so. */
	if (!dirlen) {
		dir = ".";
		dirlen = 1;
	}
	for (size_t i = 0; i < dirlen;) {
		const char *piece = dir + i;
		size_t piecelen = 1;

		if (dirlen - i >= 7 && !strncmp(dir + i, "$ORIGIN", 7)) {
			piece = origin;
			piecelen = strlen(origin);
			i += 7;
		} else if (dirlen - i >= 9 && !strncmp(dir + i, "${ORIGIN}", 9)) {
			piece = origin;
			piecelen = strlen(origin);
			i += 9;
		} else {
			i++;
		}
		if (n + piecelen >= sizeof(expanded))
			return -ENAMETOOLONG;
		memcpy(expanded + n, piece, piecelen);
		n += piecelen;
	}
	expanded[n] = '\0';
	if (snprintf(file, sizeof(file), "%s/%s", expanded, name) >= (int)sizeof(file))
		return -ENAMETOOLONG;
	/* ld.so skips files of the wrong class or machine, so do we. */
	if (bc_elf_check(file, NULL, 0))
		return -ENOENT;
	return canonical_file(file, out, outlen);
}

/* Tries each directory of a ':'/';'-separated list. */
static int try_lib_path_list(const char *list, const char *origin, const char *name, char *out,
			     size_t outlen)
{
	while (list) {
		size_t len = strcspn(list, ":;");

		if (!try_lib_dir(list, len, origin, name, out, outlen))
			return 0;
		list = list[len] ? list + len + 1 : NULL;
	}
	return -ENOENT;
}

int bc_lib_search_find(struct bc_lib_search *ls, const char *name, const struct bc_dyn_info *loader,
		       const char *loader_origin, char *out, size_t outlen)
{
	const char *llp = getenv("LD_LIBRARY_PATH");
	int ret;

	if (strchr(name, '/'))
		return bc_elf_check(name, NULL, 0) ? -ENOENT : canonical_file(name, out, outlen);
	if (!loader->runpath) {
		if (loader->rpath &&
		    !try_lib_path_list(loader->rpath, loader_origin, name, out, outlen))
			return 0;
		if (ls->exe_rpath &&
		    !try_lib_path_list(ls->exe_rpath, ls->exe_origin, name, out, outlen))
			return 0;
	}
	if (llp && *llp && !try_lib_path_list(llp, loader_origin, name, out, outlen))
		return 0;
	if (loader->runpath &&
	    !try_lib_path_list(loader->runpath, loader_origin, name, out, outlen))
		return 0;
	if (!ls->conf_read) {
		ls->conf_read = true;
		ret = parse_ld_so_conf("/etc/ld.so.conf", 0, &ls->conf_dirs);
		if (ret)
			return ret;
	}
	for (size_t i = 0; i < ls->conf_dirs.n; i++) {
		const char *dir = ls->conf_dirs.v[i];

		if (!try_lib_dir(dir, strlen(dir), loader_origin, name, out, outlen))
			return 0;
	}
	for (size_t i = 0; i < sizeof(default_lib_dirs) / sizeof(default_lib_dirs[0]); i++) {
		const char *dir = default_lib_dirs[i];

		if (!try_lib_dir(dir, strlen(dir), loader_origin, name, out, outlen))
			return 0;
	}
	return -ENOENT;
}

/* A shared object's file name that `name` designates: exact, or name + '.' or '-' ... ".so". */
static bool lib_name_like(const char *file, const char *name)
{
	size_t n = strlen(name);

	if (strncmp(file, name, n) != 0)
		return false;
	if (file[n] == 0)
		return true;
	return (file[n] == '.' || file[n] == '-') && strstr(file + n, ".so") != NULL;
}

/* The first ELF file in dir whose name is like `name`, in readdir order of best match. */
static int find_like_in_dir(const char *dir, const char *name, char *out, size_t outlen)
{
	char best[NAME_MAX + 1] = "", file[PATH_MAX];
	struct dirent *d;
	DIR *dp = opendir(dir);

	if (!dp)
		return -ENOENT;
	while ((d = readdir(dp))) {
		if (!lib_name_like(d->d_name, name))
			continue;
		if (snprintf(file, sizeof(file), "%s/%s", dir, d->d_name) >= (int)sizeof(file) ||
		    bc_elf_check(file, NULL, 0))
			continue;
		/* The shortest name wins (libfoo.so over libfoo.so.1.2.3): stable across runs. */
		if (!best[0] || strlen(d->d_name) < strlen(best) ||
		    (strlen(d->d_name) == strlen(best) && strcmp(d->d_name, best) < 0))
			snprintf(best, sizeof(best), "%s", d->d_name);
	}
	closedir(dp);
	if (!best[0])
		return -ENOENT;
	if (snprintf(file, sizeof(file), "%s/%s", dir, best) >= (int)sizeof(file))
		return -ENAMETOOLONG;
	return canonical_file(file, out, outlen);
}

int bc_lib_search_like(struct bc_lib_search *ls, const char *name, char *out, size_t outlen)
{
	const char *llp = getenv("LD_LIBRARY_PATH");
	char dir[PATH_MAX];
	int ret;

	while (llp && *llp) {
		size_t len = strcspn(llp, ":;");

		if (len && len < sizeof(dir)) {
			memcpy(dir, llp, len);
			dir[len] = 0;
			if (!find_like_in_dir(dir, name, out, outlen))
				return 0;
		}
		llp = llp[len] ? llp + len + 1 : NULL;
	}
	if (!ls->conf_read) {
		ls->conf_read = true;
		ret = parse_ld_so_conf("/etc/ld.so.conf", 0, &ls->conf_dirs);
		if (ret)
			return ret;
	}
	for (size_t i = 0; i < ls->conf_dirs.n; i++)
		if (!find_like_in_dir(ls->conf_dirs.v[i], name, out, outlen))
			return 0;
	for (size_t i = 0; i < sizeof(default_lib_dirs) / sizeof(default_lib_dirs[0]); i++)
		if (!find_like_in_dir(default_lib_dirs[i], name, out, outlen))
			return 0;
	return -ENOENT;
}

void bc_lib_search_free(struct bc_lib_search *ls)
{
	strvec_free(&ls->conf_dirs);
	ls->conf_read = false;
}
