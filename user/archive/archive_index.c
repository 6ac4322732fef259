// SPDX-License-Identifier: MIT
/*
 * bpfcollect's symbol index of an archived load object (docs/archives.md):
 * read from the ELF file with libelf, written as gzip-compressed text next
 * to the archived copy, read back (untrusted) and searched.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "bpfcollect/infile.h"
#include "bpfcollect/archive.h"
#include "bpfcollect/outmode.h"
#include "bpfcollect/symutil.h"

#define INDEX_MAGIC	"bcsyms 1"
#define INDEX_MAX_LINE	(64u << 10)
#define INDEX_MAX_SYMS	(16u << 20)
#define INDEX_MAX_LOADS 4096
#define INDEX_MAX_TEXT	(1ull << 30)
#define MAX_BUILD_ID	64 /* bytes; GNU build-ids are 20 */
#define NSEC_PER_SEC	1000000000LL

void bc_archive_syms_free(struct bc_archive_syms *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nsyms; i++)
		free(s->syms[i].name);
	free(s->syms);
	free(s->loads);
	free(s->path);
	free(s->build_id);
	free(s);
}

static int add_sym(struct bc_archive_syms *s, size_t *cap, const char *name, uint64_t value,
		   uint64_t size)
{
	struct bc_archive_sym *v;

	if (s->nsyms >= INDEX_MAX_SYMS)
		return -E2BIG;
	if (s->nsyms == *cap) {
		size_t n = *cap ? *cap * 2 : 256;

		v = realloc(s->syms, n * sizeof(*v));
		if (!v)
			return -ENOMEM;
		s->syms = v;
		*cap = n;
	}
	v = &s->syms[s->nsyms];
	v->name = strdup(name);
	if (!v->name)
		return -ENOMEM;
	v->value = value;
	v->size = size;
	s->nsyms++;
	return 0;
}

static int add_load(struct bc_archive_syms *s, const struct bc_archive_load *l)
{
	struct bc_archive_load *v;

	if (s->nloads >= INDEX_MAX_LOADS)
		return -E2BIG;
	v = realloc(s->loads, (s->nloads + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	s->loads = v;
	s->loads[s->nloads++] = *l;
	return 0;
}

static int sym_cmp(const void *a, const void *b)
{
	const struct bc_archive_sym *x = a, *y = b;

	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* ------------------------------------------------------------------- ELF */

static int hex_build_id(const unsigned char *p, size_t n, char **out)
{
	static const char digits[] = "0123456789abcdef";
	char *s;

	if (n > MAX_BUILD_ID)
		n = MAX_BUILD_ID;
	s = malloc(2 * n + 1);
	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		s[2 * i] = digits[p[i] >> 4];
		s[2 * i + 1] = digits[p[i] & 15];
	}
	s[2 * n] = '\0';
	free(*out);
	*out = s;
	return 0;
}

/* Looks for NT_GNU_BUILD_ID in one note block; 1 found, 0 not, <0 error. */
static int build_id_in(Elf_Data *data, char **out)
{
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nh;

	if (!data || !data->d_buf || (data->d_type != ELF_T_NHDR && data->d_type != ELF_T_NHDR8))
		return 0;
	while (off < data->d_size && (off = gelf_getnote(data, off, &nh, &name_off, &desc_off))) {
		const char *d = data->d_buf;

		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp(d + name_off, "GNU", 4) && nh.n_descsz) {
			int ret =
				hex_build_id((const unsigned char *)d + desc_off, nh.n_descsz, out);

			return ret ? ret : 1;
		}
	}
	return 0;
}

static int read_build_id(Elf *elf, char **out)
{
	Elf_Scn *scn = NULL;
	size_t phnum;
	int ret;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_NOTE &&
		    (ret = build_id_in(elf_getdata(scn, NULL), out)))
			return ret < 0 ? ret : 0;
	}
	/* no section headers (or no note sections): the PT_NOTE segments */
	if (elf_getphdrnum(elf, &phnum))
		return 0;
	for (size_t i = 0; i < phnum && i <= INT_MAX; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_NOTE)
			continue;
		ret = build_id_in(elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz,
						       ph.p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR),
				  out);
		if (ret)
			return ret < 0 ? ret : 0;
	}
	return 0;
}

static int read_loads(Elf *elf, struct bc_archive_syms *s)
{
	size_t phnum;
	int ret;

	if (elf_getphdrnum(elf, &phnum))
		return 0;
	for (size_t i = 0; i < phnum && i <= INT_MAX; i++) {
		struct bc_archive_load l;
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		l.offset = ph.p_offset;
		l.vaddr = ph.p_vaddr;
		l.filesz = ph.p_filesz;
		l.flags = ph.p_flags & (PF_R | PF_W | PF_X);
		ret = add_load(s, &l);
		if (ret)
			return ret;
	}
	return 0;
}

static int read_syms(Elf *elf, Elf_Scn *scn, struct bc_archive_syms *s)
{
	size_t entsize = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT), n, cap = 0;
	Elf_Data *data;
	GElf_Shdr sh;
	int ret;

	if (!gelf_getshdr(scn, &sh) || !(data = elf_getdata(scn, NULL)) || !entsize ||
	    (data->d_size && !data->d_buf))
		return -ENOEXEC;
	n = data->d_size / entsize;
	if (n > INT_MAX)
		n = INT_MAX;
	for (size_t i = 1; i < n; i++) {
		const char *name;
		GElf_Sym sym;
		int type;

		if (!gelf_getsym(data, (int)i, &sym))
			return -ENOEXEC;
		type = GELF_ST_TYPE(sym.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF)
			continue;
		name = elf_strptr(elf, sh.sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		ret = add_sym(s, &cap, name, sym.st_value, sym.st_size);
		if (ret)
			return ret;
	}
	return 0;
}

/* Reads loads, build-id and function symbols of the ELF file at path into s. */
static int read_elf(const char *path, struct bc_archive_syms *s, char *err, size_t errlen)
{
	Elf_Scn *scn = NULL, *symtab = NULL, *dynsym = NULL;
	Elf *elf = NULL;
	struct stat st;
	int fd, ret;

	if (elf_version(EV_CURRENT) == EV_NONE) {
		bc_set_err(err, errlen, "libelf is too old: %s", elf_errmsg(-1));
		return -ENOTSUP;
	}
	/* the path comes from an experiment's map.xml: a FIFO there must not hang us */
	fd = bc_in_openat(AT_FDCWD, path, true, &st);
	if (fd < 0) {
		bc_in_error(err, errlen, path, fd, &st);
		return fd;
	}
	/* ELF_C_READ, not mmap: a file truncated meanwhile gives an error, not SIGBUS */
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		bc_set_err(err, errlen, "%s: not a readable ELF file: %s", path, elf_errmsg(-1));
		ret = -ENOEXEC;
		goto out;
	}
	ret = read_loads(elf, s);
	if (!ret)
		ret = read_build_id(elf, &s->build_id);
	while (!ret && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			break;
		if (sh.sh_type == SHT_SYMTAB && !symtab)
			symtab = scn;
		else if (sh.sh_type == SHT_DYNSYM && !dynsym)
			dynsym = scn;
	}
	/* .symtab has static functions too; a stripped file keeps .dynsym only */
	if (!ret && (symtab || dynsym)) {
		s->from_dynsym = !symtab;
		ret = read_syms(elf, symtab ? symtab : dynsym, s);
	}
	if (ret)
		bc_set_err(err, errlen, "%s: %s", path,
			   ret == -ENOEXEC ? "corrupt symbol table" : strerror(-ret));
	else if (s->nsyms)
		qsort(s->syms, s->nsyms, sizeof(*s->syms), sym_cmp);
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return ret;
}

/* ---------------------------------------------------------------- writing */

/* Paths and names may hold any byte but NUL: tabs, newlines, '\' are escaped. */
static void put_escaped(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\\')
			fputs("\\\\", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\x%02x", c);
		else
			fputc(c, f);
	}
}

static char *format_index(const struct bc_archive_syms *s, size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);

	if (!f)
		return NULL;
	fputs(INDEX_MAGIC "\npath\t", f);
	put_escaped(f, s->path);
	fprintf(f,
		"\nbuild_id\t%s\nsize\t%" PRIu64 "\nmtime\t%" PRId64 ".%09" PRId64
		"\nsymbols\t%s\n",
		s->build_id ? s->build_id : "", s->size, (int64_t)(s->mtime_ns / NSEC_PER_SEC),
		(int64_t)(s->mtime_ns % NSEC_PER_SEC),
		!s->nsyms	 ? "none"
		: s->from_dynsym ? "dynsym"
				 : "symtab");
	for (size_t i = 0; i < s->nloads; i++) {
		const struct bc_archive_load *l = &s->loads[i];

		fprintf(f, "load\t0x%" PRIx64 "\t0x%" PRIx64 "\t0x%" PRIx64 "\t%c%c%c\n", l->offset,
			l->vaddr, l->filesz, l->flags & PF_R ? 'r' : '-',
			l->flags & PF_W ? 'w' : '-', l->flags & PF_X ? 'x' : '-');
	}
	for (size_t i = 0; i < s->nsyms; i++) {
		fprintf(f, "func\t0x%" PRIx64 "\t%" PRIu64 "\t", s->syms[i].value, s->syms[i].size);
		put_escaped(f, s->syms[i].name);
		fputc('\n', f);
	}
	fprintf(f, "end\t%zu\n", s->nsyms);
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}

/*
 * Writes text gzip-compressed to a temp file beside name (relative to
 * dirfd, never through a link), then renames it to name.
 */
static int write_gz(int dirfd, const char *name, const char *text, size_t len, char *err,
		    size_t errlen)
{
	char tmp[PATH_MAX];
	const char *slash = strrchr(name, '/');
	int dirlen = slash ? (int)(slash - name + 1) : 0, fd, ret = 0;
	gzFile gz;

	if (snprintf(tmp, sizeof(tmp), "%.*s.bctmp.XXXXXX", dirlen, name) >= (int)sizeof(tmp)) {
		bc_set_err(err, errlen, "%s: path too long", name);
		return -ENAMETOOLONG;
	}
	fd = bc_out_tmpat(dirfd, tmp);
	if (fd < 0) {
		ret = -errno;
		bc_set_err(err, errlen, "cannot create a file next to %s: %s", name,
			   strerror(errno));
		return ret;
	}
	gz = gzdopen(fd, "wb6");
	if (!gz) {
		close(fd);
		ret = -ENOMEM;
		goto fail;
	}
	errno = 0;
	while (len && !ret) {
		unsigned int chunk = len > (1u << 30) ? 1u << 30 : (unsigned int)len;

		if (gzwrite(gz, text, chunk) != (int)chunk)
			ret = errno ? -errno : -EIO;
		text += chunk;
		len -= chunk;
	}
	if (!ret && gzflush(gz, Z_FINISH) != Z_OK)
		ret = errno ? -errno : -EIO;
	if (!ret && fsync(fd))
		ret = -errno;
	if (gzclose(gz) != Z_OK && !ret)
		ret = errno ? -errno : -EIO;
	if (!ret && renameat(dirfd, tmp, dirfd, name))
		ret = -errno;
	if (!ret)
		return 0;
fail:
	bc_set_err(err, errlen, "cannot write %s: %s", name, strerror(-ret));
	unlinkat(dirfd, tmp, 0);
	return ret;
}

int bc_archive_index_write(const char *elf_path, int dirfd, const char *index_path,
			   const char *object_path, uint64_t size, int64_t mtime_ns, char *err,
			   size_t errlen)
{
	struct bc_archive_syms *s = calloc(1, sizeof(*s));
	size_t len = 0;
	char *text = NULL;
	int ret;

	if (!s)
		return -ENOMEM;
	s->size = size;
	s->mtime_ns = mtime_ns < 0 ? 0 : mtime_ns;
	s->path = strdup(object_path);
	ret = s->path ? read_elf(elf_path, s, err, errlen) : -ENOMEM;
	if (!ret) {
		text = format_index(s, &len);
		ret = text ? write_gz(dirfd, index_path, text, len, err, errlen) : -ENOMEM;
	}
	if (ret == -ENOMEM)
		bc_set_err(err, errlen, "%s: out of memory", index_path);
	free(text);
	bc_archive_syms_free(s);
	return ret;
}

/* ---------------------------------------------------------------- reading */

static int unescape(char *s)
{
	char *w = s;

	for (const char *r = s; *r; r++) {
		unsigned int c;

		if (*r != '\\') {
			*w++ = *r;
			continue;
		}
		r++;
		if (*r == '\\')
			*w++ = '\\';
		else if (*r == 't')
			*w++ = '\t';
		else if (*r == 'n')
			*w++ = '\n';
		else if (*r == 'x' && isxdigit((unsigned char)r[1]) &&
			 isxdigit((unsigned char)r[2]) && sscanf(r + 1, "%2x", &c) == 1 && c) {
			*w++ = (char)c;
			r += 2;
		} else
			return -EBADMSG;
	}
	*w = '\0';
	return 0;
}

static bool parse_u64(const char *s, int base, uint64_t *v)
{
	char *end;

	if (!s || !*s || *s == '-' || *s == ' ')
		return false;
	errno = 0;
	*v = strtoull(s, &end, base);
	return !errno && !*end;
}

/* Splits a line at tabs into at most max fields; returns their count. */
static size_t split_tabs(char *line, char **f, size_t max)
{
	size_t n = 0;

	while (n < max) {
		f[n++] = line;
		line = strchr(line, '\t');
		if (!line)
			break;
		*line++ = '\0';
	}
	return n;
}

static int parse_mtime(const char *s, int64_t *ns)
{
	uint64_t sec, nsec;
	char buf[32], *dot;

	if (strlen(s) >= sizeof(buf))
		return -EBADMSG;
	strcpy(buf, s);
	dot = strchr(buf, '.');
	if (!dot || strlen(dot + 1) != 9)
		return -EBADMSG;
	*dot = '\0';
	if (!parse_u64(buf, 10, &sec) || !parse_u64(dot + 1, 10, &nsec) ||
	    sec > INT64_MAX / NSEC_PER_SEC - 1)
		return -EBADMSG;
	*ns = (int64_t)sec * NSEC_PER_SEC + (int64_t)nsec;
	return 0;
}

static int parse_line(char *line, struct bc_archive_syms *s, size_t *cap, bool *end)
{
	char *f[5];
	size_t n = split_tabs(line, f, 5);
	uint64_t a, b, c;

	if (!strcmp(f[0], "func") && n == 4) {
		if (!parse_u64(f[1], 16, &a) || !parse_u64(f[2], 10, &b) || unescape(f[3]))
			return -EBADMSG;
		return add_sym(s, cap, f[3], a, b);
	}
	if (!strcmp(f[0], "load") && n == 5) {
		struct bc_archive_load l = {0};

		if (!parse_u64(f[1], 16, &a) || !parse_u64(f[2], 16, &b) ||
		    !parse_u64(f[3], 16, &c) || strlen(f[4]) != 3)
			return -EBADMSG;
		l.offset = a;
		l.vaddr = b;
		l.filesz = c;
		l.flags = (f[4][0] == 'r' ? PF_R : 0) | (f[4][1] == 'w' ? PF_W : 0) |
			  (f[4][2] == 'x' ? PF_X : 0);
		return add_load(s, &l);
	}
	if (n != 2)
		return 0; /* a newer writer's line */
	if (!strcmp(f[0], "path") && !s->path) {
		if (unescape(f[1]) || !*f[1])
			return -EBADMSG;
		return (s->path = strdup(f[1])) ? 0 : -ENOMEM;
	}
	if (!strcmp(f[0], "build_id") && !s->build_id) {
		if (strlen(f[1]) > 2 * MAX_BUILD_ID ||
		    strspn(f[1], "0123456789abcdef") != strlen(f[1]))
			return -EBADMSG;
		return (s->build_id = strdup(f[1])) ? 0 : -ENOMEM;
	}
	if (!strcmp(f[0], "size"))
		return parse_u64(f[1], 10, &s->size) ? 0 : -EBADMSG;
	if (!strcmp(f[0], "mtime"))
		return parse_mtime(f[1], &s->mtime_ns);
	if (!strcmp(f[0], "symbols")) {
		s->from_dynsym = !strcmp(f[1], "dynsym");
		return 0;
	}
	if (!strcmp(f[0], "end")) {
		if (!parse_u64(f[1], 10, &a) || a != s->nsyms)
			return -EBADMSG;
		*end = true;
	}
	return 0;
}

int bc_archive_syms_load(const char *index_path, struct bc_archive_syms **symsp, char *err,
			 size_t errlen)
{
	struct bc_archive_syms *s = calloc(1, sizeof(*s));
	char *line = malloc(INDEX_MAX_LINE);
	unsigned long long total = 0;
	unsigned int lineno = 0;
	size_t cap = 0;
	bool end = false;
	gzFile gz = NULL;
	int fd = -1, ret = 0;

	*symsp = NULL;
	if (!s || !line) {
		ret = -ENOMEM;
		goto out;
	}
	fd = open(index_path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		ret = -errno;
		goto out;
	}
	gz = gzdopen(fd, "rb");
	if (!gz) {
		close(fd);
		ret = -ENOMEM;
		goto out;
	}
	while (!ret && !end && gzgets(gz, line, INDEX_MAX_LINE)) {
		size_t len = strlen(line);

		lineno++;
		total += len;
		if (!len || line[len - 1] != '\n' || total > INDEX_MAX_TEXT) {
			ret = -EBADMSG;
			break;
		}
		line[len - 1] = '\0';
		if (lineno == 1)
			ret = strcmp(line, INDEX_MAGIC) ? -EBADMSG : 0;
		else
			ret = parse_line(line, s, &cap, &end);
	}
	if (!ret && !end)
		ret = -EBADMSG; /* truncated, or a read error */
	if (!ret && (!s->path || !s->build_id))
		ret = -EBADMSG;
	if (!ret) {
		qsort(s->syms, s->nsyms, sizeof(*s->syms), sym_cmp);
		*symsp = s;
		s = NULL;
	}
out:
	if (ret == -EBADMSG)
		bc_set_err(err, errlen, "%s:%u: not a valid bpfcollect symbol index", index_path,
			   lineno);
	else if (ret)
		bc_set_err(err, errlen, "%s: %s", index_path, strerror(-ret));
	if (gz)
		gzclose(gz);
	free(line);
	bc_archive_syms_free(s);
	return ret;
}

const struct bc_archive_sym *bc_archive_syms_find(const struct bc_archive_syms *s, uint64_t value)
{
	size_t lo = 0, hi = s ? s->nsyms : 0;

	/* the first symbol past value */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->syms[mid].value <= value)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* back over aliases and zero-size labels to the function holding value */
	for (unsigned int n = 0; lo > 0 && n < 64; n++) {
		const struct bc_archive_sym *sym = &s->syms[--lo];

		if (value - sym->value < (sym->size ? sym->size : 1))
			return sym;
	}
	return NULL;
}

bool bc_archive_syms_offset_to_value(const struct bc_archive_syms *s, uint64_t offset,
				     uint64_t *value)
{
	for (size_t i = 0; s && i < s->nloads; i++) {
		const struct bc_archive_load *l = &s->loads[i];

		if (offset >= l->offset && offset - l->offset < l->filesz) {
			*value = l->vaddr + (offset - l->offset);
			return true;
		}
	}
	return false;
}
