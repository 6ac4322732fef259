// SPDX-License-Identifier: MIT
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

#include "bpfcollect/infile.h"
#include "bpfcollect/profile_data.h"

#define MAX_FILE	  (1ULL << 32)
#define FRAME_PACKET	  11
#define CLOCK_PACKET	  8
#define SYNC_PACKET	  2
#define HEAP_PACKET	  5
#define IO_PACKET	  19
#define STACK_INFO	  1
#define INFO_COMPRESSED	  0x80000000U
#define KERNEL_SYMS_LIMIT 4000000

/* exp/name whole into *buf (NUL-terminated): 0, or -errno with one line in err. */
static int read_whole(const char *exp, const char *name, char **buf, size_t *len, char *err,
		      size_t errlen)
{
	char path[4096];
	struct stat st;
	FILE *f = NULL;
	int fd, rc = 0;

	*buf = NULL;
	*len = 0;
	snprintf(path, sizeof(path), "%s/%s", exp, name);
	fd = bc_in_openat(AT_FDCWD, path, false, &st);
	if (fd < 0) {
		bc_in_error(err, errlen, path, fd, &st);
		return fd;
	}
	if ((unsigned long long)st.st_size > MAX_FILE) {
		snprintf(err, errlen, "%s: %lld bytes, more than is read (%llu): refused", path,
			 (long long)st.st_size, (unsigned long long)MAX_FILE);
		rc = -EFBIG;
		goto out;
	}
	f = fdopen(fd, "rb");
	*buf = f ? malloc((size_t)st.st_size + 1) : NULL;
	if (!*buf) {
		snprintf(err, errlen, "%s: out of memory", path);
		rc = -ENOMEM;
		goto out;
	}
	*len = fread(*buf, 1, (size_t)st.st_size, f);
	(*buf)[*len] = 0;
	if (ferror(f)) {
		snprintf(err, errlen, "%s: %s", path, strerror(EIO));
		rc = -EIO;
	}
out:
	if (f)
		fclose(f);
	else
		close(fd);
	return rc;
}

/* ptimer="N" of the <profile name="profile" ...> block. */
static uint32_t find_ptimer(const char *log)
{
	const char *p = strstr(log, "<profile name=\"profile\"");
	const char *end, *at;
	unsigned long v;

	if (!p)
		return 0;
	end = strchr(p, '>');
	at = strstr(p, "ptimer=\"");
	if (!end || !at || at > end)
		return 0;
	v = strtoul(at + 8, NULL, 10);
	return v > 0 && v <= 10000000 ? (uint32_t)v : 0;
}

static uint16_t get16(const char *b)
{
	uint16_t v;

	memcpy(&v, b, 2);
	return v;
}

static uint32_t get32(const char *b)
{
	uint32_t v;

	memcpy(&v, b, 4);
	return v;
}

static uint64_t get64(const char *b)
{
	uint64_t v;

	memcpy(&v, b, 8);
	return v;
}

static int cmp_stack(const void *a, const void *b)
{
	const struct bc_prof_stack *x = a, *y = b;

	return (x->uid > y->uid) - (x->uid < y->uid);
}

/*
 * FRAME packets: the first native stack block of each. PCs must be 8-aligned
 * in the buffer. Sizes are widened before they are added: a corrupt hsize or
 * bsize near 2^32 must not wrap past the checks.
 */
int bc_prof_frames_parse(struct bc_prof_data *d, size_t len)
{
	size_t off = 0, cap = 0;
	const char *b = d->frame_buf;

	while (off + 16 <= len) {
		uint16_t tsize = get16(b + off), type = get16(b + off + 2);
		uint64_t hsize = get32(b + off + 4);

		if (tsize < 4 || (off & 3) || off + tsize > len) {
			d->bad_packets++;
			break;
		}
		if (type == FRAME_PACKET && hsize >= 16 && hsize + 16 <= tsize) {
			uint64_t bsize = get32(b + off + hsize);
			uint32_t kind = get32(b + off + hsize + 4);
			size_t n;

			/* a compressed block ends in one more word: 24 bytes at least */
			if (bsize < ((kind & INFO_COMPRESSED) ? 24u : 16u) ||
			    hsize + bsize > tsize || (kind & ~INFO_COMPRESSED) != STACK_INFO ||
			    ((off + hsize + 16) & 7)) {
				d->bad_packets++;
				off += tsize;
				continue;
			}
			n = (bsize - 16) / 8 - ((kind & INFO_COMPRESSED) ? 1 : 0);
			if (d->n_stacks == cap) {
				size_t ncap = cap ? cap * 2 : 256;
				struct bc_prof_stack *v = realloc(d->stacks, ncap * sizeof(*v));

				if (!v)
					return -ENOMEM;
				d->stacks = v;
				cap = ncap;
			}
			d->stacks[d->n_stacks++] = (struct bc_prof_stack){
				.uid = get64(b + off + 8),
				.pcs = (const uint64_t *)(const void *)(b + off + hsize + 16),
				.n = n,
			};
		}
		off += tsize;
	}
	if (d->n_stacks)
		qsort(d->stacks, d->n_stacks, sizeof(*d->stacks), cmp_stack);
	return 0;
}

/*
 * The next packet of a data file at *off: its start, or NULL at the end.
 * A packet whose size is not a multiple of 4 or runs past the end ends the
 * file (counted in bad_packets), as a torn tail does.
 */
static const char *next_packet(struct bc_prof_data *d, const char *b, size_t len, size_t *off,
			       uint16_t *type, uint16_t *tsize)
{
	const char *p = b + *off;

	if (*off + 4 > len)
		return NULL;
	*tsize = get16(p);
	*type = get16(p + 2);
	if (*tsize < 4 || (*tsize & 3) || *off + *tsize > len) {
		d->bad_packets++;
		return NULL;
	}
	*off += *tsize;
	return p;
}

/* Room for one more element in *v (n used, *cap allocated); -ENOMEM. */
static int grow(void **v, size_t n, size_t *cap, size_t elem)
{
	size_t ncap;
	void *nv;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 1024;
	nv = realloc(*v, ncap * elem);
	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = ncap;
	return 0;
}

static int parse_clock(struct bc_prof_data *d, const char *b, size_t len)
{
	size_t off = 0, cap = 0;
	uint16_t type, tsize;
	const char *p;

	while ((p = next_packet(d, b, len, &off, &type, &tsize))) {
		if (type != CLOCK_PACKET || tsize < 52)
			continue;
		if (grow((void **)&d->samples, d->n_samples, &cap, sizeof(*d->samples)) < 0)
			return -ENOMEM;
		d->samples[d->n_samples++] = (struct bc_prof_sample){
			.tid = get64(p + 16),
			.tstamp = get64(p + 28),
			.frinfo = get64(p + 36),
			.mstate = (int32_t)get32(p + 44),
			.nticks = (int32_t)get32(p + 48),
		};
	}
	return 0;
}

/* Heap (kind 5, 80 bytes) and sync (kind 2, 64 bytes) packets after the 48-byte head. */
static int parse_traces(struct bc_prof_data *d, const char *b, size_t len, bool heap)
{
	size_t off = 0, cap = 0, need = heap ? 80 : 64;
	uint16_t want = heap ? HEAP_PACKET : SYNC_PACKET, type, tsize;
	size_t *n = heap ? &d->n_heap : &d->n_sync;
	struct bc_trace_event **v = heap ? &d->heap : &d->sync;
	const char *p;

	while ((p = next_packet(d, b, len, &off, &type, &tsize))) {
		if (type != want || tsize < need)
			continue;
		struct bc_trace_event e = {
			.tid = get64(p + 16),
			.tstamp = get64(p + 32),
			.frinfo = get64(p + 40),
		};

		if (heap) {
			e.type = get32(p + 48);
			e.size = get64(p + 56);
			e.addr = get64(p + 64);
			e.old_addr = get64(p + 72);
		} else {
			e.start = get64(p + 48);
			e.addr = get64(p + 56);
		}
		if (grow((void **)v, *n, &cap, sizeof(**v)) < 0)
			return -ENOMEM;
		(*v)[(*n)++] = e;
	}
	return 0;
}

/* I/O packets (kind 19): 80 bytes, then the file name up to the packet's end. */
static int parse_io(struct bc_prof_data *d, const char *b, size_t len)
{
	size_t off = 0, cap = 0, nlen;
	uint16_t type, tsize;
	const char *p;

	while ((p = next_packet(d, b, len, &off, &type, &tsize))) {
		if (type != IO_PACKET || tsize < 80)
			continue;
		struct bc_io_event e = {
			.tid = get64(p + 16),
			.tstamp = get64(p + 32),
			.frinfo = get64(p + 40),
			.type = (int32_t)get32(p + 48),
			.fd = (int32_t)get32(p + 52),
			.nbyte = get64(p + 56),
			.start = get64(p + 64),
			.ofd = (int32_t)get32(p + 72),
			.fstype = (int32_t)get32(p + 76),
		};

		if (grow((void **)&d->io, d->n_io, &cap, sizeof(*d->io)) < 0)
			return -ENOMEM;
		nlen = strnlen(p + 80, tsize - 80u);
		if (nlen && !(e.name = strndup(p + 80, nlen)))
			return -ENOMEM;
		d->io[d->n_io++] = e;
	}
	return 0;
}

static int read_traces(const char *exp, struct bc_prof_data *d, const char *name, char *err,
		       size_t errlen)
{
	char *buf = NULL;
	size_t len = 0;
	int rc = read_whole(exp, name, &buf, &len, err, errlen);

	if (rc < 0)
		return rc == -ENOENT ? 0 : rc;
	if (!strcmp(name, "iotrace"))
		rc = parse_io(d, buf, len);
	else
		rc = parse_traces(d, buf, len, !strcmp(name, "heaptrace"));
	if (rc < 0)
		snprintf(err, errlen, "%s/%s: %s", exp, name, strerror(-rc));
	free(buf);
	return rc;
}

int bc_prof_data_read(const char *exp, struct bc_prof_data *d, char *err, size_t errlen)
{
	char *log = NULL, *clock = NULL;
	size_t len = 0;
	int rc;

	memset(d, 0, sizeof(*d));
	rc = read_whole(exp, "log.xml", &log, &len, err, errlen);
	if (rc < 0)
		goto out;
	d->ptimer_us = find_ptimer(log);
	d->has_heap = strstr(log, "<profile name=\"heaptrace\"") != NULL;
	d->has_sync = strstr(log, "<profile name=\"synctrace\"") != NULL;
	d->has_io = strstr(log, "<profile name=\"iotrace\"") != NULL;
	if (!d->ptimer_us && !d->has_heap && !d->has_sync && !d->has_io)
		goto out;
	rc = read_whole(exp, "data.frameinfo", &d->frame_buf, &len, err, errlen);
	if (rc == -ENOENT)
		rc = 0; /* no sample, or every one without a stack */
	else if (rc < 0)
		goto out;
	else if ((rc = bc_prof_frames_parse(d, len)) < 0) {
		snprintf(err, errlen, "%s/data.frameinfo: %s", exp, strerror(-rc));
		goto out;
	}
	if (d->ptimer_us) {
		rc = read_whole(exp, "profile", &clock, &len, err, errlen);
		if (rc == -ENOENT)
			rc = 0;
		else if (rc < 0)
			goto out;
		else if ((rc = parse_clock(d, clock, len)) < 0) {
			snprintf(err, errlen, "%s/profile: %s", exp, strerror(-rc));
			goto out;
		}
	}
	if (d->has_heap)
		rc = read_traces(exp, d, "heaptrace", err, errlen);
	if (rc == 0 && d->has_sync)
		rc = read_traces(exp, d, "synctrace", err, errlen);
	if (rc == 0 && d->has_io)
		rc = read_traces(exp, d, "iotrace", err, errlen);
out:
	free(log);
	free(clock);
	return rc;
}

const struct bc_prof_stack *bc_prof_stack_find(const struct bc_prof_data *d, uint64_t uid)
{
	size_t lo = 0, hi = d->n_stacks;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->stacks[mid].uid == uid)
			return &d->stacks[mid];
		if (d->stacks[mid].uid < uid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

void bc_prof_data_free(struct bc_prof_data *d)
{
	free(d->frame_buf);
	free(d->stacks);
	free(d->samples);
	free(d->heap);
	free(d->sync);
	for (size_t i = 0; i < d->n_io; i++)
		free(d->io[i].name);
	free(d->io);
	memset(d, 0, sizeof(*d));
}

static int cmp_ksym(const void *a, const void *b)
{
	const struct bc_ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return (x->addr > y->addr) - (x->addr < y->addr);
	return (x->order > y->order) - (x->order < y->order);
}

bool bc_ksym_gprofng_keeps(const char *name)
{
	if (!strncmp(name, "__ksymtab", 9) || !strncmp(name, "__kstrtab", 9) ||
	    !strncmp(name, "__kcrctab", 9))
		return false;
	return !strchr(name, '.') || strstr(name, ".clone.");
}

int bc_ksyms_read(const char *exp, struct bc_ksyms *k)
{
	char path[4096], line[1024];
	struct stat st;
	size_t cap = 0;
	FILE *f;
	int fd;

	memset(k, 0, sizeof(*k));
	snprintf(path, sizeof(path), "%s/kallmodsyms", exp);
	fd = bc_in_openat(AT_FDCWD, path, false, &st);
	if (fd < 0)
		return fd == -ENOENT ? 0 : fd;
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return -ENOMEM;
	}
	while (fgets(line, sizeof(line), f) && k->n < KERNEL_SYMS_LIMIT) {
		unsigned long long addr, size;
		char type, name[512], module[128] = "";
		int got = sscanf(line, "%llx %llx %c %511s [%127[^]]]", &addr, &size, &type, name,
				 module);

		if (got < 4 || (type != 't' && type != 'T') || !bc_ksym_gprofng_keeps(name))
			continue;
		if (k->n == cap) {
			size_t ncap = cap ? cap * 2 : 65536;
			struct bc_ksym *v = realloc(k->v, ncap * sizeof(*v));

			if (!v)
				goto nomem;
			k->v = v;
			cap = ncap;
		}
		k->v[k->n].addr = addr;
		k->v[k->n].size = size;
		k->v[k->n].order = k->n;
		if (module[0]) {
			size_t l = strlen(module) + strlen(name) + 2;

			k->v[k->n].name = malloc(l);
			if (k->v[k->n].name)
				snprintf(k->v[k->n].name, l, "%s`%s", module, name);
		} else {
			k->v[k->n].name = strdup(name);
		}
		if (!k->v[k->n].name)
			goto nomem;
		k->n++;
	}
	fclose(f);
	if (k->n)
		qsort(k->v, k->n, sizeof(*k->v), cmp_ksym);
	return 0;
nomem:
	fclose(f);
	bc_ksyms_free(k);
	return -ENOMEM;
}

const struct bc_ksym *bc_ksyms_find(const struct bc_ksyms *k, uint64_t pc)
{
	size_t lo = 0, hi = k->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->v[mid].addr <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	/* Aliases at one address: gprofng names the shortest, then the first in the file. */
	const struct bc_ksym *s = &k->v[lo - 1];

	for (size_t i = lo - 1; i-- > 0 && k->v[i].addr == s->addr;)
		if (strlen(k->v[i].name) <= strlen(s->name))
			s = &k->v[i];
	return pc - s->addr < s->size ? s : NULL;
}

void bc_ksyms_free(struct bc_ksyms *k)
{
	for (size_t i = 0; i < k->n; i++)
		free(k->v[i].name);
	free(k->v);
	memset(k, 0, sizeof(*k));
}
