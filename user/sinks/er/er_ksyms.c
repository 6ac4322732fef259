// SPDX-License-Identifier: MIT
/* A recording's kernel symbols, shared by its writers (see er_ksyms.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bpfcollect/infile.h"
#include "bpfcollect/outmode.h"
#include "bpfcollect/profile_data.h"
#include "er_ksyms.h"

struct ksym_line {
	uint64_t addr, size;
	uint32_t off, len; /* the line in text, without its newline */
	bool kept;	   /* a name gprofng makes a function of */
};

struct er_ksyms {
	char *path;
	char *text; /* the file, mmapped */
	size_t text_len;
	struct ksym_line *v; /* by address, as the file is */
	size_t n;
	uint64_t text_start;
	unsigned int refs;
};

/* One recording's table at a time: its writers come and go, it stays while any is open. */
static struct er_ksyms *shared;

static void ksyms_free(struct er_ksyms *k)
{
	if (k->text)
		munmap(k->text, k->text_len);
	free(k->v);
	free(k->path);
	free(k);
}

/* gprofng's reader drops names with a '.' (but .clone.) and the export tables' entries. */

/* Lines "ADDR SIZE TYPE NAME..." into k->v; a malformed line is skipped (untrusted). */
static int index_lines(struct er_ksyms *k)
{
	size_t cap = 0;

	for (size_t pos = 0; pos < k->text_len;) {
		const char *line = k->text + pos, *nl = memchr(line, '\n', k->text_len - pos);
		size_t len = nl ? (size_t)(nl - line) : k->text_len - pos;
		unsigned long long addr, size;
		char name[256], buf[320];

		snprintf(buf, sizeof(buf), "%.*s", (int)(len < 319 ? len : 319), line);
		if (sscanf(buf, "%llx %llx %*c %255s", &addr, &size, name) == 3 &&
		    len < UINT32_MAX && pos < UINT32_MAX) {
			if (k->n == cap) {
				struct ksym_line *v;

				cap = cap ? cap * 2 : 65536;
				v = realloc(k->v, cap * sizeof(*v));
				if (!v)
					return -ENOMEM;
				k->v = v;
			}
			k->v[k->n++] = (struct ksym_line){addr, size, (uint32_t)pos, (uint32_t)len,
							  bc_ksym_gprofng_keeps(name)};
			if (!k->text_start && !strcmp(name, "_stext"))
				k->text_start = addr;
		}
		pos += len + 1;
	}
	return 0;
}

static struct er_ksyms *ksyms_load(const char *path)
{
	struct er_ksyms *k = calloc(1, sizeof(*k));
	struct stat st;
	/* an experiment's kallmodsyms: never a link, never a FIFO to hang on */
	int fd = bc_in_openat(AT_FDCWD, path, false, &st);

	if (!k || fd < 0 || st.st_size <= 0)
		goto fail;
	k->text_len = (size_t)st.st_size;
	k->text = mmap(NULL, k->text_len, PROT_READ, MAP_PRIVATE, fd, 0);
	if (k->text == MAP_FAILED) {
		k->text = NULL;
		goto fail;
	}
	close(fd);
	fd = -1;
	k->path = strdup(path);
	if (!k->path || index_lines(k) < 0 || !k->n)
		goto fail;
	return k;
fail:
	if (fd >= 0)
		close(fd);
	if (k)
		ksyms_free(k);
	return NULL;
}

struct er_ksyms *er_ksyms_acquire(const char *path)
{
	if (shared && strcmp(shared->path, path)) {
		if (shared->refs)
			return NULL; /* another recording's: not shared across two at once */
		ksyms_free(shared);
		shared = NULL;
	}
	if (!shared)
		shared = ksyms_load(path);
	if (shared)
		shared->refs++;
	return shared;
}

void er_ksyms_release(struct er_ksyms *k)
{
	if (!k || --k->refs)
		return;
	if (k == shared)
		shared = NULL;
	ksyms_free(k);
}

uint64_t er_ksyms_text_start(const struct er_ksyms *k)
{
	return k ? k->text_start : 0;
}

/* The symbol holding pc, or -1. */
static ssize_t find(const struct er_ksyms *k, uint64_t pc)
{
	size_t lo = 0, hi = k->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->v[mid].addr <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || pc - k->v[lo - 1].addr >= k->v[lo - 1].size)
		return -1;
	return (ssize_t)(lo - 1);
}

/* The line of _stext (the kernel's text start), or -1. */
static ssize_t find_text_start(const struct er_ksyms *k)
{
	return k->text_start ? find(k, k->text_start) : -1;
}

static int cmp_index(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return (x > y) - (x < y);
}

int er_ksyms_write_subset(const struct er_ksyms *k, int dirfd, const uint64_t *pcs, size_t n)
{
	size_t cap = 3 * n + 1, m = 0, *hit = malloc(cap * sizeof(*hit));
	FILE *out = NULL;
	int fd, rc = 0;

	if (!hit)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		ssize_t s = find(k, pcs[i]), b, a;

		if (s < 0)
			continue;
		/* gprofng names the first of the aliases at an address */
		while (s > 0 && k->v[s - 1].addr == k->v[s].addr)
			s--;
		for (ssize_t x = s; (size_t)x < k->n && k->v[x].addr == k->v[s].addr; x++) {
			if (m + 3 > cap) {
				size_t *v = realloc(hit, (cap *= 2) * sizeof(*hit));

				if (!v) {
					free(hit);
					return -ENOMEM;
				}
				hit = v;
			}
			hit[m++] = (size_t)x;
		}
		/* the kept symbols around it bound it, or its gap, as the whole file does */
		for (b = s - 1; b >= 0 && !k->v[b].kept; b--)
			;
		if (b >= 0)
			hit[m++] = (size_t)b;
		for (a = s + 1; (size_t)a < k->n && !k->v[a].kept; a++)
			;
		if ((size_t)a < k->n)
			hit[m++] = (size_t)a;
	}
	/* never an empty table: gprofng would make the kernel a function-less object */
	if (!m && (find_text_start(k) >= 0))
		hit[m++] = (size_t)find_text_start(k);
	qsort(hit, m, sizeof(*hit), cmp_index);
	/*
	 * Beside, then renamed over: until now "kallmodsyms" is a link to the
	 * founder's whole copy (made at the start, so a recording killed
	 * before its end leaves a file gprofng can read), which must stay whole.
	 */
	unlinkat(dirfd, "kallmodsyms.new", 0);
	fd = bc_out_openat(dirfd, "kallmodsyms.new", O_WRONLY | O_EXCL | O_CLOEXEC);
	if (fd < 0 || !(out = fdopen(fd, "w"))) {
		rc = -errno;
		if (fd >= 0)
			close(fd);
		goto done;
	}
	for (size_t i = 0; i < m; i++) {
		const struct ksym_line *l = &k->v[hit[i]];

		if (i && hit[i] == hit[i - 1])
			continue;
		fprintf(out, "%.*s\n", (int)l->len, k->text + l->off);
	}
	if (fclose(out))
		rc = -errno;
	if (!rc && renameat(dirfd, "kallmodsyms.new", dirfd, "kallmodsyms") < 0)
		rc = -errno;
	if (rc)
		unlinkat(dirfd, "kallmodsyms.new", 0);
done:
	free(hit);
	return rc;
}
