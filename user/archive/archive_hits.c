// SPDX-License-Identifier: MIT
/*
 * The load objects an experiment's data hits (archive_hits.h). Every file
 * is untrusted: sizes are checked before use and a damaged file ends its
 * own scan with what was found before.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "archive_hits.h"
#include "bpfcollect/containers.h"
#include "bpfcollect/profile_data.h"
#include "bpfcollect/record.h"
#include "bpfcollect/xml.h"

#define MAX_FRAMEINFO (1ull << 30)
#define MAX_TEXT      (256u << 20)
#define MAX_FUNCS     (1u << 22)
#define TRACE_CHUNK   (64u << 10)
#define MAX_NOTES     (64u << 10)

/* A text segment of one experiment's map.xml. */
struct segment {
	uint64_t start, end;
	size_t obj; /* index into the experiment's object names */
};

/* One experiment's view: its segments, object names and counts. */
struct exp_objs {
	struct segment *segs;
	size_t nsegs, capsegs;
	char **names;
	uint64_t *hits;
	size_t nnames, capnames, caphits;
};

static int name_index(struct exp_objs *x, const char *path, size_t *idx)
{
	for (size_t i = 0; i < x->nnames; i++) {
		if (!strcmp(x->names[i], path)) {
			*idx = i;
			return 0;
		}
	}
	/* two arrays of one length: each grown to it */
	if (BC_GROW(x->names, x->capnames, x->nnames + 1) ||
	    BC_GROW(x->hits, x->caphits, x->nnames + 1))
		return -ENOMEM;
	x->names[x->nnames] = strdup(path);
	if (!x->names[x->nnames])
		return -ENOMEM;
	x->hits[x->nnames] = 0;
	*idx = x->nnames++;
	return 0;
}

static void exp_objs_free(struct exp_objs *x)
{
	for (size_t i = 0; i < x->nnames; i++)
		free(x->names[i]);
	free(x->names);
	free(x->hits);
	free(x->segs);
}

int archive_read_file(int dirfd, const char *name, size_t max, char **buf, size_t *len)
{
	struct stat st;
	size_t done = 0;
	int fd, ret = 0;

	*buf = NULL;
	*len = 0;
	fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > max) {
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

int archive_open_xml(int dirfd, const char *name, struct bc_xml *x)
{
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
	struct stat st;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	bc_xml_init_fd(x, fd, (uint64_t)st.st_size);
	return 0;
}

static bool parse_u64(const char *s, int base, uint64_t *v)
{
	char *end;

	if (!s || !*s)
		return false;
	errno = 0;
	*v = strtoull(s, &end, base);
	return !errno && !*end;
}

static int seg_cmp(const void *a, const void *b)
{
	const struct segment *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return (x->obj > y->obj) - (x->obj < y->obj);
}

/*
 * Sorts and merges equal segments: a library dlopened a million times is
 * one range of one object, and a pc in it counts once, not a million.
 */
static void segs_dedup(struct exp_objs *x)
{
	size_t w = 0;

	if (!x->nsegs)
		return;
	qsort(x->segs, x->nsegs, sizeof(*x->segs), seg_cmp);
	for (size_t r = 1; r < x->nsegs; r++)
		if (seg_cmp(&x->segs[r], &x->segs[w]))
			x->segs[++w] = x->segs[r];
	x->nsegs = w + 1;
}

/* The r-x segments of map.xml (as gprofng makes load objects of them), each once. */
static int read_segments(struct exp_objs *x, int dirfd)
{
	size_t dedup_at = 1024;
	struct bc_xml_elem e;
	struct bc_xml x_;
	int ret = archive_open_xml(dirfd, "map.xml", &x_);

	if (ret)
		return 0;
	while ((ret = bc_xml_next(&x_, &e)) > 0) {
		const char *kind = bc_xml_attr(&e, "kind"), *obj = bc_xml_attr(&e, "object");
		const char *name = bc_xml_attr(&e, "name"), *modes = bc_xml_attr(&e, "modes");
		uint64_t start, size, m;
		size_t idx;

		if (strcmp(e.name, "event") || !kind || strcmp(kind, "map") || !obj ||
		    strcmp(obj, "segment") || !name || !*name ||
		    !parse_u64(bc_xml_attr(&e, "vaddr"), 16, &start) ||
		    !parse_u64(bc_xml_attr(&e, "size"), 10, &size) || size > UINT64_MAX - start ||
		    (modes && (!parse_u64(modes, 16, &m) || m != 5)))
			continue;
		ret = name_index(x, name, &idx);
		if (!ret && BC_GROW(x->segs, x->capsegs, x->nsegs + 1))
			ret = -ENOMEM;
		if (ret)
			break;
		x->segs[x->nsegs++] =
			(struct segment){.start = start, .end = start + size, .obj = idx};
		/* merged as they come, so memory follows the distinct segments */
		if (x->nsegs >= dedup_at) {
			segs_dedup(x);
			dedup_at = 2 * x->nsegs > 1024 ? 2 * x->nsegs : 1024;
		}
	}
	bc_xml_fini(&x_);
	segs_dedup(x);
	return ret == -ENOMEM ? ret : 0;
}

/* Every segment that ever held pc counts it: a reused address range is rare and harmless. */
static void count_pc(struct exp_objs *x, uint64_t pc)
{
	for (size_t i = 0; i < x->nsegs; i++)
		if (pc >= x->segs[i].start && pc < x->segs[i].end)
			x->hits[x->segs[i].obj]++;
}

static int count_stacks(struct exp_objs *x, int dirfd)
{
	struct bc_prof_data d = {0};
	size_t len;
	int ret;

	if (!x->nsegs)
		return 0;
	ret = archive_read_file(dirfd, "data.frameinfo", MAX_FRAMEINFO, &d.frame_buf, &len);
	if (!ret)
		ret = bc_prof_frames_parse(&d, len);
	for (size_t s = 0; !ret && s < d.n_stacks; s++)
		for (size_t i = 0; i < d.stacks[s].n; i++)
			count_pc(x, d.stacks[s].pcs[i]);
	bc_prof_data_free(&d);
	return ret == -ENOMEM ? ret : 0;
}

/* functions: "id<TAB>object<TAB>..." per probed function; funcs[id] = object index + 1. */
static int read_functions(struct exp_objs *x, int dirfd, uint32_t **funcs, size_t *nfuncs)
{
	size_t len, cap = 0;
	char *buf, *line, *save = NULL;
	int ret = archive_read_file(dirfd, "functions", MAX_TEXT, &buf, &len);

	*funcs = NULL;
	*nfuncs = 0;
	if (ret)
		return ret == -ENOMEM ? ret : 0;
	for (line = strtok_r(buf, "\n", &save); line && !ret; line = strtok_r(NULL, "\n", &save)) {
		char *tab = strchr(line, '\t'), *obj_end, *end;
		unsigned long id;
		size_t idx;

		if (*line == '#' || !tab)
			continue;
		errno = 0;
		id = strtoul(line, &end, 10);
		if (errno || end != tab || id >= MAX_FUNCS)
			continue;
		obj_end = strchr(tab + 1, '\t');
		if (obj_end)
			*obj_end = '\0';
		if (!tab[1])
			continue;
		ret = name_index(x, tab + 1, &idx);
		if (!ret && id >= *nfuncs) {
			if (BC_GROW(*funcs, cap, id + 1)) {
				ret = -ENOMEM;
				break;
			}
			memset(*funcs + *nfuncs, 0, (id + 1 - *nfuncs) * sizeof(**funcs));
			*nfuncs = id + 1;
		}
		if (!ret)
			(*funcs)[id] = (uint32_t)idx + 1;
	}
	free(buf);
	return ret;
}

/* Entries in functrace count for their function's object; read in chunks, it can be large. */
static int count_entries(struct exp_objs *x, int dirfd)
{
	size_t nfuncs, have = 0;
	uint32_t *funcs;
	char *buf = NULL;
	int fd = -1, ret = read_functions(x, dirfd, &funcs, &nfuncs);

	if (ret || !nfuncs)
		goto out;
	fd = openat(dirfd, "functrace", O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
	buf = malloc(TRACE_CHUNK);
	if (fd < 0 || !buf) {
		ret = buf || fd < 0 ? 0 : -ENOMEM;
		goto out;
	}
	for (;;) {
		ssize_t n = read(fd, buf + have, TRACE_CHUNK - have);
		size_t off = 0;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		have += (size_t)n;
		while (have - off >= sizeof(struct bc_rec_head)) {
			struct bc_rec_head h;
			struct bc_rec_func_entry e;

			memcpy(&h, buf + off, sizeof(h));
			if (h.size < sizeof(h) || h.size % 8) /* a u16: always fits the chunk */
				goto out;		      /* damage: what came before counts */
			if (have - off < h.size)
				break;
			if (h.kind == BC_REC_FUNC_ENTRY && h.size >= sizeof(e)) {
				memcpy(&e, buf + off, sizeof(e));
				if (e.func_id < nfuncs && funcs[e.func_id])
					x->hits[funcs[e.func_id] - 1]++;
			}
			off += h.size;
		}
		memmove(buf, buf + off, have - off);
		have -= off;
	}
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	free(funcs);
	return ret;
}

int archive_hits_experiment(struct archive_hits *h, int dirfd)
{
	struct exp_objs x = {0};
	int ret = read_segments(&x, dirfd);

	if (!ret)
		ret = count_stacks(&x, dirfd);
	if (!ret)
		ret = count_entries(&x, dirfd);
	for (size_t i = 0; !ret && i < x.nnames; i++) {
		if (!x.hits[i])
			continue;
		if (BC_GROW(h->v, h->cap, h->n + 1)) {
			ret = -ENOMEM;
			break;
		}
		h->v[h->n].path = x.names[i];
		h->v[h->n++].hits = x.hits[i];
		x.names[i] = NULL;
	}
	exp_objs_free(&x);
	return ret;
}

static int hit_cmp(const void *a, const void *b)
{
	return strcmp(((const struct archive_hit *)a)->path, ((const struct archive_hit *)b)->path);
}

void archive_hits_done(struct archive_hits *h)
{
	size_t w = 0;

	if (!h->n)
		return;
	qsort(h->v, h->n, sizeof(*h->v), hit_cmp);
	for (size_t r = 1; r < h->n; r++) {
		if (!strcmp(h->v[r].path, h->v[w].path)) {
			h->v[w].hits += h->v[r].hits;
			free(h->v[r].path);
		} else {
			h->v[++w] = h->v[r];
		}
	}
	h->n = w + 1;
}

uint64_t archive_hits_of(const struct archive_hits *h, const char *path)
{
	struct archive_hit key = {.path = (char *)path};
	const struct archive_hit *f =
		h->n ? bsearch(&key, h->v, h->n, sizeof(*h->v), hit_cmp) : NULL;

	return f ? f->hits : 0;
}

void archive_hits_free(struct archive_hits *h)
{
	for (size_t i = 0; i < h->n; i++)
		free(h->v[i].path);
	free(h->v);
	memset(h, 0, sizeof(*h));
}

/* ------------------------------------------------------------ build ids */

static bool pread_all(int fd, void *buf, size_t len, uint64_t off)
{
	return off <= INT64_MAX && pread(fd, buf, len, (off_t)off) == (ssize_t)len;
}

/* NT_GNU_BUILD_ID in one PT_NOTE segment's bytes: 1 found (hex written), 0 not. */
static int note_build_id(const unsigned char *p, size_t len, uint64_t align, char *hex,
			 size_t hexlen)
{
	static const char digits[] = "0123456789abcdef";
	size_t a = align == 8 ? 8 : 4, off = 0;

	while (len - off >= sizeof(Elf64_Nhdr)) {
		Elf64_Nhdr nh;
		size_t name_at = off + sizeof(nh), namesz, descsz, desc_at;

		memcpy(&nh, p + off, sizeof(nh));
		namesz = (nh.n_namesz + a - 1) / a * a;
		descsz = (nh.n_descsz + a - 1) / a * a;
		if (namesz > len - name_at || descsz > len - name_at - namesz)
			return 0;
		desc_at = name_at + namesz;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp(p + name_at, "GNU", 4) && nh.n_descsz &&
		    2 * (size_t)nh.n_descsz < hexlen) {
			for (size_t i = 0; i < nh.n_descsz; i++) {
				hex[2 * i] = digits[p[desc_at + i] >> 4];
				hex[2 * i + 1] = digits[p[desc_at + i] & 15];
			}
			hex[2 * nh.n_descsz] = '\0';
			return 1;
		}
		off = desc_at + descsz;
	}
	return 0;
}

int archive_build_id(int fd, char *hex, size_t hexlen)
{
	unsigned char *notes = NULL;
	Elf64_Ehdr eh;
	int ret = 0;

	if (!pread_all(fd, &eh, sizeof(eh), 0) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr))
		return 0;
	for (unsigned int i = 0; i < eh.e_phnum && ret == 0; i++) {
		Elf64_Phdr ph;

		if (!pread_all(fd, &ph, sizeof(ph), eh.e_phoff + (uint64_t)i * sizeof(ph)))
			return 0;
		if (ph.p_type != PT_NOTE || !ph.p_filesz || ph.p_filesz > MAX_NOTES)
			continue;
		notes = malloc(ph.p_filesz);
		if (!notes)
			return -ENOMEM;
		if (pread_all(fd, notes, ph.p_filesz, ph.p_offset))
			ret = note_build_id(notes, ph.p_filesz, ph.p_align, hex, hexlen);
		free(notes);
	}
	return ret;
}
