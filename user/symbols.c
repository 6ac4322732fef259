// SPDX-License-Identifier: MIT
/*
 * Symbol resolution: `-u [OBJ:]GLOB` specs to uprobe targets (see symbols.h).
 *
 * Files are read with libelf in ELF_C_READ mode, not mmap: a file truncated
 * while we read it must give an error, not SIGBUS. Every count and index that
 * comes from a file is checked before use.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <glob.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bpfcollect/symbols.h"

/* Bounds the DT_NEEDED closure; real programs need a few dozen objects. */
#define MAX_NEEDED_OBJECTS 1024
/* ld.so.conf includes nest; a loop of includes must end. */
#define MAX_CONF_DEPTH 8
/* Room for an error line that quotes a spec and a path or two. */
#define ERR_LINE_MAX (2 * PATH_MAX + 512)

static const char *const default_lib_dirs[] = {
	"/lib/x86_64-linux-gnu",
	"/usr/lib/x86_64-linux-gnu",
	"/lib64",
	"/usr/lib64",
	"/lib",
	"/usr/lib",
};

/* Functions every executable gets from crt*.o and the toolchain, not from its author. */
static const char *const crt_helpers[] = {
	"_start",
	"_init",
	"_fini",
	"__libc_csu_init",
	"__libc_csu_fini",
	"deregister_tm_clones",
	"register_tm_clones",
	"__do_global_dtors_aux",
	"frame_dummy",
	"_dl_relocate_static_pie",
};

__attribute__((format(printf, 3, 4))) static void set_err(char *err, size_t errlen, const char *fmt,
							  ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	/* One line, whatever bytes a spec or a file name brought in. */
	for (char *p = err; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
}

/* ------------------------------------------------------------ small helpers */

struct strvec {
	char **v;
	size_t n;
	size_t cap;
};

static int strvec_push_n(struct strvec *sv, const char *s, size_t len)
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

static int strvec_push(struct strvec *sv, const char *s)
{
	return strvec_push_n(sv, s, strlen(s));
}

static void strvec_free(struct strvec *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	memset(sv, 0, sizeof(*sv));
}

static int copy_path(char *dst, size_t dstlen, const char *src)
{
	size_t len = strlen(src);

	if (len >= dstlen)
		return -ENAMETOOLONG;
	memcpy(dst, src, len + 1);
	return 0;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t len = strlen(s), slen = strlen(suffix);

	return len >= slen && strcmp(s + len - slen, suffix) == 0;
}

/* The directory part of an absolute path: "/a/b" -> "/a", "/b" -> "/". */
static void dir_of(const char *path, char *out, size_t outlen)
{
	int len = (int)(base_name(path) - path) - 1;

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
		return copy_path(out, outlen, buf);
	}
	if (!realpath(path, buf))
		return -errno;
	return copy_path(out, outlen, buf);
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
			return copy_path(out, outlen, buf);
		path = colon ? colon + 1 : NULL;
	}
	return -ENOENT;
}

/* The canonical path of the target executable. */
static int resolve_exe(const char *exe, int pid, char *out, size_t outlen, char *err, size_t errlen)
{
	char buf[PATH_MAX];
	int ret;

	if (!exe || !*exe) {
		char link[64];
		ssize_t len;

		if (pid <= 0) {
			set_err(err, errlen, "no executable given (give a program or a pid)");
			return -EINVAL;
		}
		snprintf(link, sizeof(link), "/proc/%d/exe", pid);
		len = readlink(link, buf, sizeof(buf) - 1);
		if (len < 0) {
			ret = -errno;
			set_err(err, errlen, "process %d: cannot read %s: %s (is it running?)", pid,
				link, strerror(-ret));
			return ret;
		}
		buf[len] = '\0';
		ret = canonical_path(pid, buf, out, outlen);
		if (ret)
			set_err(err, errlen, "process %d: executable %s: %s", pid, buf,
				strerror(-ret));
		return ret;
	}
	if (!strchr(exe, '/')) {
		ret = search_exec_path(exe, buf, sizeof(buf));
		if (ret) {
			set_err(err, errlen, "%s: command not found in $PATH (give its path)", exe);
			return ret;
		}
		exe = buf;
	}
	ret = canonical_path(0, exe, out, outlen);
	if (ret)
		set_err(err, errlen, "%s: %s", exe, strerror(-ret));
	return ret;
}

/* --------------------------------------------------------------------- ELF */

struct elf_file {
	int fd;
	Elf *elf;
	uint64_t size;
};

/* Says what a file that is not ELF is, since "not ELF" alone rarely helps. */
static void describe_non_elf(int fd, const char *path, char *err, size_t errlen)
{
	char head[256];
	ssize_t len = pread(fd, head, sizeof(head) - 1, 0);

	head[len > 0 ? len : 0] = '\0';
	if (head[0] == '#' && head[1] == '!')
		set_err(err, errlen,
			"%s: not an ELF file but a '#!' script; trace its interpreter or the "
			"program it runs",
			path);
	else if (strstr(head, "GNU ld script") || !strncmp(head, "INPUT", 5) ||
		 !strncmp(head, "GROUP", 5))
		set_err(err, errlen,
			"%s: not an ELF file but a linker script; name the library it points to "
			"(e.g. libc.so.6)",
			path);
	else
		set_err(err, errlen, "%s: not an ELF file", path);
}

static int check_elf(Elf *elf, int fd, const char *path, char *err, size_t errlen)
{
	GElf_Ehdr ehdr;

	switch (elf_kind(elf)) {
	case ELF_K_ELF:
		break;
	case ELF_K_AR:
		set_err(err, errlen,
			"%s: an ar archive (static library), not an executable or shared library",
			path);
		return -ENOEXEC;
	default:
		describe_non_elf(fd, path, err, errlen);
		return -ENOEXEC;
	}
	if (gelf_getclass(elf) != ELFCLASS64) {
		set_err(err, errlen,
			"%s: a 32-bit ELF file; only 64-bit x86-64 programs and libraries can be "
			"traced",
			path);
		return -ENOEXEC;
	}
	if (!gelf_getehdr(elf, &ehdr)) {
		set_err(err, errlen, "%s: corrupt ELF header: %s", path, elf_errmsg(-1));
		return -ENOEXEC;
	}
	if (ehdr.e_machine != EM_X86_64) {
		set_err(err, errlen,
			"%s: an ELF file for another machine (e_machine %u), not x86-64", path,
			ehdr.e_machine);
		return -ENOEXEC;
	}
	switch (ehdr.e_type) {
	case ET_EXEC:
	case ET_DYN:
		return 0;
	case ET_REL:
		set_err(err, errlen,
			"%s: a relocatable object (.o), not an executable or shared library; link "
			"it first",
			path);
		break;
	case ET_CORE:
		set_err(err, errlen, "%s: a core dump, not an executable or shared library", path);
		break;
	default:
		set_err(err, errlen,
			"%s: ELF type %u is neither an executable nor a shared library", path,
			ehdr.e_type);
		break;
	}
	return -ENOEXEC;
}

static void elf_file_close(struct elf_file *f)
{
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	f->elf = NULL;
	f->fd = -1;
}

/* Opens path as an ELF file we can probe (see bc_elf_check). */
static int elf_file_open(struct elf_file *f, const char *path, char *err, size_t errlen)
{
	struct stat st;
	int ret;

	f->fd = -1;
	f->elf = NULL;
	if (elf_version(EV_CURRENT) == EV_NONE) {
		set_err(err, errlen, "libelf is too old: %s", elf_errmsg(-1));
		return -ENOTSUP;
	}
	f->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0) {
		ret = -errno;
		set_err(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	if (fstat(f->fd, &st)) {
		ret = -errno;
		set_err(err, errlen, "%s: %s", path, strerror(-ret));
		goto err_out;
	}
	if (!S_ISREG(st.st_mode)) {
		set_err(err, errlen, "%s: not a regular file", path);
		ret = S_ISDIR(st.st_mode) ? -EISDIR : -ENOEXEC;
		goto err_out;
	}
	f->size = (uint64_t)st.st_size;
	f->elf = elf_begin(f->fd, ELF_C_READ, NULL);
	if (!f->elf) {
		set_err(err, errlen, "%s: cannot read: %s", path, elf_errmsg(-1));
		ret = -EIO;
		goto err_out;
	}
	ret = check_elf(f->elf, f->fd, path, err, errlen);
	if (ret)
		goto err_out;
	return 0;

err_out:
	elf_file_close(f);
	return ret;
}

int bc_elf_check(const char *path, char *err, size_t errlen)
{
	struct elf_file f;
	int ret;

	if (err && errlen)
		err[0] = '\0';
	if (!path || !*path) {
		set_err(err, errlen, "empty file name");
		return -EINVAL;
	}
	ret = elf_file_open(&f, path, err, errlen);
	if (!ret)
		elf_file_close(&f);
	return ret;
}

/* A PT_LOAD segment with PF_X: where code lives, in memory and in the file. */
struct exec_seg {
	uint64_t vaddr;
	uint64_t filesz;
	uint64_t offset;
};

static int read_exec_segments(struct elf_file *f, const char *path, struct exec_seg **segsp,
			      size_t *nsegsp, char *err, size_t errlen)
{
	struct exec_seg *segs = NULL;
	size_t phnum, nsegs = 0;

	if (elf_getphdrnum(f->elf, &phnum)) {
		set_err(err, errlen, "%s: corrupt program headers: %s", path, elf_errmsg(-1));
		return -ENOEXEC;
	}
	for (size_t i = 0; i < phnum && i <= INT_MAX; i++) {
		GElf_Phdr ph;
		struct exec_seg *grown;

		if (!gelf_getphdr(f->elf, (int)i, &ph)) {
			set_err(err, errlen, "%s: corrupt program header %zu: %s", path, i,
				elf_errmsg(-1));
			free(segs);
			return -ENOEXEC;
		}
		if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X) || !ph.p_filesz)
			continue;
		/* A segment reaching past the file (or wrapping) is corrupt: ignore it. */
		if (ph.p_offset > f->size || ph.p_filesz > f->size - ph.p_offset ||
		    ph.p_vaddr + ph.p_filesz < ph.p_vaddr)
			continue;
		grown = realloc(segs, (nsegs + 1) * sizeof(*segs));
		if (!grown) {
			free(segs);
			return -ENOMEM;
		}
		segs = grown;
		segs[nsegs].vaddr = ph.p_vaddr;
		segs[nsegs].filesz = ph.p_filesz;
		segs[nsegs].offset = ph.p_offset;
		nsegs++;
	}
	*segsp = segs;
	*nsegsp = nsegs;
	return 0;
}

static const struct exec_seg *find_exec_seg(const struct exec_seg *segs, size_t nsegs,
					    uint64_t addr)
{
	for (size_t i = 0; i < nsegs; i++)
		if (addr >= segs[i].vaddr && addr - segs[i].vaddr < segs[i].filesz)
			return &segs[i];
	return NULL;
}

/* ----------------------------------------------------------------- symbols */

struct elf_sym {
	char *name; /* without @VERSION */
	uint64_t addr;
	uint64_t size;
	uint64_t offset;
	uint32_t order; /* index in the symbol table: "first" among aliases */
	unsigned char bind;
	bool ifunc;  /* not probed: an IFUNC, or a compat version of an IFUNC's name */
	bool hidden; /* a non-default version (name@VER, not name@@VER) */
	bool helper; /* left out when no spec is given */
	bool selected;
};

struct elf_object {
	char *path; /* canonical */
	struct elf_sym *syms;
	size_t nsyms;
	size_t cap;
};

static void object_free(struct elf_object *obj)
{
	if (!obj)
		return;
	for (size_t i = 0; i < obj->nsyms; i++)
		free(obj->syms[i].name);
	free(obj->syms);
	free(obj->path);
	free(obj);
}

static struct elf_sym *object_add_sym(struct elf_object *obj, const char *name, size_t namelen)
{
	struct elf_sym *s;

	if (obj->nsyms == obj->cap) {
		size_t cap = obj->cap ? obj->cap * 2 : 256;
		struct elf_sym *v = realloc(obj->syms, cap * sizeof(*v));

		if (!v)
			return NULL;
		obj->syms = v;
		obj->cap = cap;
	}
	s = &obj->syms[obj->nsyms];
	memset(s, 0, sizeof(*s));
	s->name = strndup(name, namelen);
	if (!s->name)
		return NULL;
	obj->nsyms++;
	return s;
}

/* GCC's out-of-line unlikely parts: "foo.cold", older GCC "foo.cold.12". */
static bool is_cold_part(const char *name)
{
	for (const char *p = strstr(name, ".cold"); p; p = strstr(p + 1, ".cold"))
		if (p[5] == '\0' || p[5] == '.' || p[5] == '@')
			return true;
	return false;
}

static bool is_crt_helper(const char *name)
{
	if (!strncmp(name, "__x86.get_pc_thunk.", 19))
		return true;
	for (size_t i = 0; i < sizeof(crt_helpers) / sizeof(crt_helpers[0]); i++)
		if (!strcmp(name, crt_helpers[i]))
			return true;
	return false;
}

/* Symbols some linkers put on PLT entries: stubs that jump elsewhere. */
static bool in_plt_section(Elf *elf, size_t shstrndx, size_t shndx)
{
	Elf_Scn *scn;
	GElf_Shdr sh;
	const char *name;

	if (shstrndx == SHN_UNDEF || shndx >= SHN_LORESERVE)
		return false;
	scn = elf_getscn(elf, shndx);
	if (!scn || !gelf_getshdr(scn, &sh))
		return false;
	name = elf_strptr(elf, shstrndx, sh.sh_name);
	return name && (!strncmp(name, ".plt", 4) || !strcmp(name, ".iplt"));
}

static int read_symbols(struct elf_file *f, const char *path, Elf_Scn *symscn, Elf_Scn *verscn,
			const struct exec_seg *segs, size_t nsegs, struct elf_object *obj,
			char *err, size_t errlen)
{
	size_t entsize = gelf_fsize(f->elf, ELF_T_SYM, 1, EV_CURRENT);
	Elf_Data *data, *vdata = NULL;
	size_t shstrndx, nsyms;
	GElf_Shdr sh;

	if (!gelf_getshdr(symscn, &sh) || !(data = elf_getdata(symscn, NULL)) || !entsize ||
	    (data->d_size && !data->d_buf)) {
		set_err(err, errlen, "%s: corrupt symbol table: %s", path, elf_errmsg(-1));
		return -ENOEXEC;
	}
	/* Without section names we only lose the PLT check. */
	if (elf_getshdrstrndx(f->elf, &shstrndx))
		shstrndx = SHN_UNDEF;
	/* Version info is a refinement; a broken .gnu.version is ignored. */
	if (verscn) {
		vdata = elf_getdata(verscn, NULL);
		if (vdata && vdata->d_size && !vdata->d_buf)
			vdata = NULL;
	}
	nsyms = data->d_size / entsize;
	if (nsyms > INT_MAX)
		nsyms = INT_MAX;

	for (size_t i = 1; i < nsyms; i++) {
		const struct exec_seg *seg;
		const char *name, *at;
		struct elf_sym *s;
		GElf_Versym vs;
		uint64_t offset;
		GElf_Sym sym;
		int type;

		if (!gelf_getsym(data, (int)i, &sym)) {
			set_err(err, errlen, "%s: corrupt symbol %zu: %s", path, i, elf_errmsg(-1));
			return -ENOEXEC;
		}
		type = GELF_ST_TYPE(sym.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF ||
		    !sym.st_value)
			continue;
		name = elf_strptr(f->elf, sh.sh_link, sym.st_name);
		if (!name || !*name || *name == '@')
			continue;
		seg = find_exec_seg(segs, nsegs, sym.st_value);
		if (!seg)
			continue;
		offset = sym.st_value - seg->vaddr + seg->offset;
		if (offset < seg->offset || offset >= f->size)
			continue;
		at = strchr(name, '@');
		if (at && !strcmp(at, "@plt"))
			continue;
		/* Parts are never entry points; dropped here so no mode sees them. */
		if (is_cold_part(name) || in_plt_section(f->elf, shstrndx, sym.st_shndx))
			continue;

		s = object_add_sym(obj, name, at ? (size_t)(at - name) : strlen(name));
		if (!s)
			return -ENOMEM;
		s->addr = sym.st_value;
		s->size = sym.st_size;
		s->offset = offset;
		s->order = (uint32_t)i;
		s->bind = GELF_ST_BIND(sym.st_info);
		s->ifunc = type == STT_GNU_IFUNC;
		/* .symtab spells versions in the name, .dynsym in .gnu.version. */
		if (at)
			s->hidden = at[1] != '@';
		else if (vdata && gelf_getversym(vdata, (int)i, &vs))
			s->hidden = (vs & 0x8000) != 0;
		s->helper = !sym.st_size || is_crt_helper(s->name);
	}
	return 0;
}

/*
 * "memcpy@GLIBC_2.2.5" is a FUNC but only binaries linked before 2.14 call
 * it; today's callers bind to the "memcpy@@GLIBC_2.14" IFUNC. Probing the
 * compat version alone would show no calls, so a name whose default version
 * is an IFUNC is not probed at all: its compat versions count as IFUNCs.
 */
static void mark_ifunc_compat_versions(struct elf_object *obj)
{
	for (size_t i = 0; i < obj->nsyms; i++) {
		if (!obj->syms[i].ifunc || obj->syms[i].hidden)
			continue;
		for (size_t j = 0; j < obj->nsyms; j++)
			if (obj->syms[j].hidden && !strcmp(obj->syms[j].name, obj->syms[i].name))
				obj->syms[j].ifunc = true;
	}
}

static int load_object(const char *path, struct elf_object **objp, char *err, size_t errlen)
{
	Elf_Scn *scn = NULL, *symtab = NULL, *dynsym = NULL, *versym = NULL;
	struct elf_object *obj = NULL;
	struct exec_seg *segs = NULL;
	struct elf_file f;
	size_t nsegs = 0;
	int ret;

	ret = elf_file_open(&f, path, err, errlen);
	if (ret)
		return ret;
	ret = read_exec_segments(&f, path, &segs, &nsegs, err, errlen);
	if (ret)
		goto out;
	obj = calloc(1, sizeof(*obj));
	if (!obj || !(obj->path = strdup(path))) {
		ret = -ENOMEM;
		goto out;
	}
	while ((scn = elf_nextscn(f.elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh)) {
			set_err(err, errlen, "%s: corrupt section header: %s", path,
				elf_errmsg(-1));
			ret = -ENOEXEC;
			goto out;
		}
		if (sh.sh_type == SHT_SYMTAB && !symtab)
			symtab = scn;
		else if (sh.sh_type == SHT_DYNSYM && !dynsym)
			dynsym = scn;
		else if (sh.sh_type == SHT_GNU_versym && !versym)
			versym = scn;
	}
	/* .symtab has everything, static functions too; stripped files keep .dynsym. */
	if (symtab)
		ret = read_symbols(&f, path, symtab, NULL, segs, nsegs, obj, err, errlen);
	else if (dynsym)
		ret = read_symbols(&f, path, dynsym, versym, segs, nsegs, obj, err, errlen);
	if (ret)
		goto out;
	mark_ifunc_compat_versions(obj);
	*objp = obj;
	obj = NULL;
out:
	if (ret == -ENOMEM)
		set_err(err, errlen, "%s: out of memory reading symbols", path);
	object_free(obj);
	free(segs);
	elf_file_close(&f);
	return ret;
}

/* Marks the probe-able symbols matching glob, counting them and the IFUNCs it matched. */
static void select_matching(struct elf_object *obj, const char *glob, size_t *nfuncs,
			    size_t *nifuncs)
{
	*nfuncs = 0;
	*nifuncs = 0;
	for (size_t i = 0; i < obj->nsyms; i++) {
		struct elf_sym *s = &obj->syms[i];

		if (fnmatch(glob, s->name, 0))
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
static size_t select_entry_points(struct elf_object *obj)
{
	size_t n = 0;

	for (size_t i = 0; i < obj->nsyms; i++) {
		struct elf_sym *s = &obj->syms[i];

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
	const struct elf_sym *a = *(const struct elf_sym *const *)pa;
	const struct elf_sym *b = *(const struct elf_sym *const *)pb;
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
static int emit_object(const struct elf_object *obj, struct bc_functab *out)
{
	const struct elf_sym **sel = NULL;
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
		const struct elf_sym *s = sel[i];

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
		set_err(err, errlen, "process %d: cannot read %s: %s (is it running?)", pid, maps,
			strerror(-ret));
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

/* What the dynamic section of an object says about its dependencies. */
struct dyn_info {
	struct strvec needed;
	char *rpath;
	char *runpath;
};

static void dyn_info_free(struct dyn_info *di)
{
	strvec_free(&di->needed);
	free(di->rpath);
	free(di->runpath);
	memset(di, 0, sizeof(*di));
}

/* Reads DT_NEEDED, DT_RPATH, DT_RUNPATH. An unreadable object just has none. */
static int read_dynamic(const char *path, struct dyn_info *di)
{
	size_t entsize;
	Elf_Scn *scn = NULL;
	struct elf_file f;
	int ret = 0;

	memset(di, 0, sizeof(*di));
	if (elf_file_open(&f, path, NULL, 0))
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
	elf_file_close(&f);
	if (ret)
		dyn_info_free(di);
	return ret;
}

static int parse_ld_so_conf(const char *file, int depth, struct strvec *dirs);

/* "include PATTERN..." in an ld.so.conf file; relative patterns are relative to it. */
static int ld_so_conf_include(const char *file, char *patterns, int depth, struct strvec *dirs)
{
	char *save = NULL;
	int ret = 0;

	for (char *pat = strtok_r(patterns, " \t", &save); pat && !ret;
	     pat = strtok_r(NULL, " \t", &save)) {
		char full[PATH_MAX];
		glob_t g;

		if (pat[0] == '/') {
			if (copy_path(full, sizeof(full), pat))
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

static int parse_ld_so_conf(const char *file, int depth, struct strvec *dirs)
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
	return canonical_path(0, file, out, outlen);
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

/* Library search state for one lookup: ld.so.conf is read once. */
struct lib_search {
	struct strvec conf_dirs;
	bool conf_read;
	const char *exe_rpath;
	const char *exe_origin;
};

/* Finds a DT_NEEDED library as ld.so would (see bc_symbols_find_object). */
static int search_library(struct lib_search *ls, const char *name, const struct dyn_info *loader,
			  const char *loader_origin, char *out, size_t outlen)
{
	const char *llp = getenv("LD_LIBRARY_PATH");
	int ret;

	if (strchr(name, '/'))
		return bc_elf_check(name, NULL, 0) ? -ENOENT : canonical_path(0, name, out, outlen);
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

/* The executable and, breadth first, every library it needs. */
static int needed_candidates(const char *exe, const char *exe_as_given, struct candidates *c)
{
	struct lib_search ls = {0};
	struct dyn_info exe_dyn = {0};
	char exe_origin[PATH_MAX];
	int ret;

	ret = candidates_add(c, exe_as_given ? exe_as_given : exe, exe, NULL, false);
	if (ret)
		return ret;
	ret = read_dynamic(exe, &exe_dyn);
	if (ret)
		return ret;
	dir_of(exe, exe_origin, sizeof(exe_origin));
	ls.exe_rpath = exe_dyn.runpath ? NULL : exe_dyn.rpath;
	ls.exe_origin = exe_origin;

	for (size_t i = 0; i < c->n && !ret; i++) {
		struct dyn_info own = {0}, *di = &own;
		char origin[PATH_MAX], *loader;

		if (!c->v[i].path)
			continue;
		if (i == 0) {
			di = &exe_dyn;
		} else {
			ret = read_dynamic(c->v[i].path, &own);
			if (ret)
				break;
		}
		/* candidates_add may move c->v: keep our own copy of the loader's path. */
		loader = strdup(c->v[i].path);
		if (!loader) {
			ret = -ENOMEM;
			dyn_info_free(&own);
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
			ret = search_library(&ls, name, di, origin, found, sizeof(found));
			if (ret == -ENOMEM)
				break;
			ret = candidates_add(c, name, ret ? NULL : found, loader, false);
		}
		free(loader);
		dyn_info_free(&own);
	}
	dyn_info_free(&exe_dyn);
	strvec_free(&ls.conf_dirs);
	return ret;
}

static bool candidate_matches(const struct candidate *cand, const char *obj, bool exact)
{
	const char *names[2] = {base_name(cand->name), cand->path ? base_name(cand->path) : NULL};
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
			set_err(err, errlen,
				"'%s' is ambiguous: %s, %s%s (give a longer name or a path)", obj,
				best->path ? best->path : best->name,
				other->path ? other->path : other->name,
				nothers > 1 ? ", ..." : "");
			return -EINVAL;
		}
		if (best->deleted) {
			set_err(err, errlen,
				"'%s' is %s, deleted or replaced since process %d loaded it (give "
				"a "
				"path)",
				obj, best->name, pid);
			return -ENOENT;
		}
		if (!best->path) {
			set_err(err, errlen,
				"'%s' is needed by %s but not found in the library search path "
				"(set "
				"LD_LIBRARY_PATH or give a path)",
				best->name, best->needed_by ? best->needed_by : "the program");
			return -ENOENT;
		}
		if (copy_path(path, pathlen, best->path)) {
			set_err(err, errlen, "%s: path too long", best->path);
			return -ENAMETOOLONG;
		}
		return 0;
	}
	if (pid > 0)
		set_err(err, errlen, "no object named '%s' is loaded in process %d (give a path)",
			obj, pid);
	else
		set_err(err, errlen, "no loaded object or library named '%s' (give a path)", obj);
	return -ENOENT;
}

/* bc_symbols_find_object() once the executable is known (exe may be NULL if pid > 0). */
static int find_object(const char *exe, const char *exe_as_given, int pid, const char *obj,
		       char *path, size_t pathlen, char *err, size_t errlen)
{
	struct candidates c = {0};
	int ret;

	if (!obj || !*obj) {
		set_err(err, errlen, "empty object name (give a library name or a path)");
		return -EINVAL;
	}
	if (strchr(obj, '/')) {
		ret = canonical_path(obj[0] == '/' ? pid : 0, obj, path, pathlen);
		if (ret) {
			if (pid > 0 && obj[0] == '/')
				set_err(err, errlen, "%s (in the root of process %d): %s", obj, pid,
					strerror(-ret));
			else
				set_err(err, errlen, "%s: %s", obj, strerror(-ret));
			return ret;
		}
		return bc_elf_check(path, err, errlen);
	}
	if (pid > 0)
		ret = maps_candidates(pid, &c, err, errlen);
	else
		ret = needed_candidates(exe, exe_as_given, &c);
	if (ret == -ENOMEM)
		set_err(err, errlen, "out of memory looking for '%s'", obj);
	if (!ret)
		ret = pick_candidate(&c, obj, pid, path, pathlen, err, errlen);
	candidates_free(&c);
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
		set_err(err, errlen, "no room for the path");
		return -EINVAL;
	}
	/* Only a DT_NEEDED search starts from the executable. */
	if (pid <= 0 && obj && !strchr(obj, '/')) {
		ret = resolve_exe(exe, pid, exe_canon, sizeof(exe_canon), err, errlen);
		if (ret)
			return ret;
		ret = bc_elf_check(exe_canon, err, errlen);
		if (ret)
			return ret;
		return find_object(exe_canon, exe, pid, obj, path, pathlen, err, errlen);
	}
	return find_object(NULL, NULL, pid, obj, path, pathlen, err, errlen);
}

/* ----------------------------------------------------------------- resolve */

/* Objects loaded so far in one bc_symbols_resolve() call, in first-use order. */
struct resolver {
	struct elf_object **objs;
	size_t n;
	size_t cap;
};

static void resolver_free(struct resolver *r)
{
	for (size_t i = 0; i < r->n; i++)
		object_free(r->objs[i]);
	free(r->objs);
	memset(r, 0, sizeof(*r));
}

static int resolver_get(struct resolver *r, const char *path, struct elf_object **objp, char *err,
			size_t errlen)
{
	struct elf_object *obj = NULL;
	int ret;

	for (size_t i = 0; i < r->n; i++) {
		if (!strcmp(r->objs[i]->path, path)) {
			*objp = r->objs[i];
			return 0;
		}
	}
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 8;
		struct elf_object **v = realloc(r->objs, cap * sizeof(*v));

		if (!v) {
			set_err(err, errlen, "out of memory");
			return -ENOMEM;
		}
		r->objs = v;
		r->cap = cap;
	}
	ret = load_object(path, &obj, err, errlen);
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

/* The ':' between OBJ and GLOB: the last one outside a bracket expression. */
static const char *spec_separator(const char *spec)
{
	const char *sep = NULL;

	for (const char *p = spec; *p; p++) {
		if (*p == '\\' && p[1]) {
			p++;
		} else if (*p == '[') {
			const char *end = bracket_end(p);

			if (end)
				p = end;
		} else if (*p == ':') {
			sep = p;
		}
	}
	return sep;
}

static int resolve_spec(struct resolver *r, const char *exe, const char *exe_as_given, int pid,
			const char *spec, char *err, size_t errlen)
{
	char objpath[PATH_MAX], *sub, *objname = NULL;
	const char *sep, *glob, *path = exe;
	size_t nfuncs, nifuncs;
	struct elf_object *obj;
	int ret = 0;

	sub = malloc(ERR_LINE_MAX);
	if (!sub) {
		set_err(err, errlen, "out of memory");
		return -ENOMEM;
	}
	sub[0] = '\0';
	sep = spec_separator(spec);
	glob = sep ? sep + 1 : spec;
	if (!*glob) {
		set_err(err, errlen, "-u '%s': no function pattern (e.g. 'libc:malloc' or 'foo*')",
			spec);
		ret = -EINVAL;
		goto out;
	}
	if (sep) {
		if (sep == spec) {
			set_err(err, errlen,
				"-u '%s': no object before ':' (give a library name or path, or "
				"drop the ':')",
				spec);
			ret = -EINVAL;
			goto out;
		}
		objname = strndup(spec, (size_t)(sep - spec));
		if (!objname) {
			set_err(err, errlen, "out of memory");
			ret = -ENOMEM;
			goto out;
		}
		ret = find_object(exe, exe_as_given, pid, objname, objpath, sizeof(objpath), sub,
				  ERR_LINE_MAX);
		if (ret) {
			set_err(err, errlen, "-u '%s': %s", spec, sub);
			goto out;
		}
		path = objpath;
	}
	ret = resolver_get(r, path, &obj, sub, ERR_LINE_MAX);
	if (ret) {
		set_err(err, errlen, "-u '%s': %s", spec, sub);
		goto out;
	}
	select_matching(obj, glob, &nfuncs, &nifuncs);
	if (nfuncs)
		goto out;
	ret = -ENOENT;
	if (nifuncs)
		set_err(err, errlen,
			"-u '%s': no function matches '%s' in %s (only GNU IFUNC symbols do, "
			"which are not probed: name the implementations they select)",
			spec, glob, obj->path);
	else if (!obj->nsyms)
		set_err(err, errlen,
			"-u '%s': no function matches '%s' in %s (it has no function symbols: "
			"stripped?)",
			spec, glob, obj->path);
	else
		set_err(err, errlen, "-u '%s': no function matches '%s' in %s", spec, glob,
			obj->path);
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
	struct elf_object *obj;
	size_t orig_n;
	int ret;

	if (err && errlen)
		err[0] = '\0';
	if (!out || (nspecs && !specs)) {
		set_err(err, errlen, "internal error: no function table or specs");
		return -EINVAL;
	}
	orig_n = out->n;
	ret = resolve_exe(exe, pid, exe_canon, sizeof(exe_canon), err, errlen);
	if (ret)
		return ret;
	ret = bc_elf_check(exe_canon, err, errlen);
	if (ret)
		return ret;

	if (!nspecs) {
		ret = resolver_get(&r, exe_canon, &obj, err, errlen);
		if (ret)
			goto out;
		if (!select_entry_points(obj)) {
			set_err(err, errlen,
				"%s: no function symbols to trace (stripped?); rebuild it with "
				"symbols or name functions with -u",
				exe_canon);
			ret = -ENOENT;
			goto out;
		}
	}
	for (size_t i = 0; i < nspecs; i++) {
		if (!specs[i]) {
			set_err(err, errlen, "internal error: spec %zu is NULL", i);
			ret = -EINVAL;
			goto out;
		}
		ret = resolve_spec(&r, exe_canon, exe, pid, specs[i], err, errlen);
		if (ret)
			goto out;
	}
	for (size_t i = 0; i < r.n; i++) {
		ret = emit_object(r.objs[i], out);
		if (ret) {
			set_err(err, errlen, "out of memory building the function table");
			goto out;
		}
	}
out:
	if (ret)
		functab_truncate(out, orig_n);
	resolver_free(&r);
	return ret;
}
