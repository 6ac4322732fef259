// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bpfcollect/infile.h"
#include "er_profile.h"
#include "bpfcollect/model.h"
#include "bpfcollect/outmode.h"

#define FRAME_HEAD   16 /* tsize, type, hsize, uid */
#define INFO_HEAD    16 /* size, kind, stack uid */
#define STACK_INFO   1	/* native stack */
#define BUF_FLUSH    (256u << 10)
#define KERNEL_START 0xffff800000000000ULL /* x86-64: kernel frames come first, up here */

int er_profile_decl(char *buf, size_t len, uint32_t ptimer_us, bool offcpu)
{
	return snprintf(
		buf, len,
		"<profile name=\"profile\" ptimer=\"%u\" numstates=\"%d\">\n"
		"<profdata fname=\"profile\"/>\n"
		"<profpckt kind=\"%d\" uname=\"Clock profiling data\">\n"
		"<field name=\"LWPID\" uname=\"Lightweight process id\" offset=\"8\" "
		"type=\"INT64\"/>\n"
		"<field name=\"THRID\" uname=\"Thread number\" offset=\"16\" type=\"INT64\"/>\n"
		"<field name=\"CPUID\" uname=\"CPU id\" offset=\"24\" type=\"INT32\"/>\n"
		"<field name=\"TSTAMP\" uname=\"High resolution timestamp\" offset=\"28\" "
		"type=\"INT64\"/>\n"
		"<field name=\"FRINFO\" offset=\"36\" type=\"INT64\"/>\n"
		"<field name=\"MSTATE\" uname=\"Thread state\" offset=\"44\" type=\"INT32\"/>\n"
		"<field name=\"NTICK\" uname=\"Duration\" offset=\"48\" type=\"INT32\"/>\n"
		"</profpckt>\n</profile>\n",
		ptimer_us, offcpu ? 10 : 2, BC_ER_CLOCK_PACKET);
}

uint64_t er_stack_uid(const uint64_t *pcs, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < n; i++) {
		uint64_t v = pcs[i];

		for (int b = 0; b < 8; b++) {
			h ^= (v >> (8 * b)) & 0xff;
			h *= 0x100000001b3ULL;
		}
	}
	h ^= n;
	h *= 0x100000001b3ULL;
	return h ? h : 1;
}

int er_profile_open(struct er_profile *p, int dirfd, uint32_t ptimer_us)
{
	memset(p, 0, sizeof(*p));
	p->dirfd = dirfd;
	p->ptimer_ns = (uint64_t)ptimer_us * 1000;
	p->frame_fd = -1;
	p->prof_fd = -1;
	if (!ptimer_us)
		return 0; /* stacks only, for the traces */
	p->prof_fd = bc_out_openat(dirfd, "profile", O_WRONLY | O_EXCL | O_APPEND | O_CLOEXEC);
	if (p->prof_fd < 0)
		return -errno;
	p->prof_buf = malloc(BUF_FLUSH + BC_ER_CLOCK_SIZE);
	return p->prof_buf ? 0 : -ENOMEM;
}

/* Whether uid was written already; remembers it if not. -ENOMEM. */
static int seen_uid(struct er_profile *p, uint64_t uid)
{
	size_t mask, i;

	if ((p->n_uids + 1) * 2 > p->cap_uids) {
		size_t cap = p->cap_uids ? p->cap_uids * 2 : 1024;
		uint64_t *v = calloc(cap, sizeof(*v));

		if (!v)
			return -ENOMEM;
		for (size_t k = 0; k < p->cap_uids; k++) {
			if (!p->uids[k])
				continue;
			for (i = p->uids[k] & (cap - 1); v[i]; i = (i + 1) & (cap - 1))
				;
			v[i] = p->uids[k];
		}
		free(p->uids);
		p->uids = v;
		p->cap_uids = cap;
	}
	mask = p->cap_uids - 1;
	for (i = uid & mask; p->uids[i]; i = (i + 1) & mask)
		if (p->uids[i] == uid)
			return 1;
	p->uids[i] = uid;
	p->n_uids++;
	return 0;
}

static int append_all(int fd, uint64_t *size, const char *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = write(fd, buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int err = n < 0 ? -errno : -EIO;

			/* Never leave a torn packet: gprofng would lose the rest of its chunk. */
			if (done && ftruncate(fd, (off_t)*size) < 0)
				err = -errno;
			return err;
		}
		done += (size_t)n;
	}
	*size += len;
	return 0;
}

int er_profile_flush(struct er_profile *p)
{
	int err;

	if (p->err)
		return p->err;
	if (p->frame_used) {
		if (p->frame_fd < 0) {
			p->frame_fd = bc_out_openat(p->dirfd, "data.frameinfo",
						    O_WRONLY | O_APPEND | O_CLOEXEC);
			if (p->frame_fd < 0)
				return p->err = -errno;
		}
		err = append_all(p->frame_fd, &p->frame_size, p->frame_buf, p->frame_used);
		if (err)
			return p->err = err;
		p->frame_used = 0;
	}
	if (p->prof_used) {
		err = append_all(p->prof_fd, &p->prof_size, p->prof_buf, p->prof_used);
		if (err)
			return p->err = err;
		p->prof_used = 0;
	}
	return 0;
}

static void put16(char *b, uint16_t v)
{
	memcpy(b, &v, 2);
}

static void put32(char *b, uint32_t v)
{
	memcpy(b, &v, 4);
}

static void put64(char *b, uint64_t v)
{
	memcpy(b, &v, 8);
}

/* Appends the FRAME packet of pcs[n] (leaf first) under uid. */
static int add_frame(struct er_profile *p, uint64_t uid, const uint64_t *pcs, size_t n)
{
	size_t size = FRAME_HEAD + INFO_HEAD + 8 * n;
	char *b;

	if (p->frame_used + size > p->frame_cap) {
		size_t cap = p->frame_cap ? p->frame_cap * 2 : 64 << 10;
		char *v;

		while (cap < p->frame_used + size)
			cap *= 2;
		v = realloc(p->frame_buf, cap);
		if (!v)
			return -ENOMEM;
		p->frame_buf = v;
		p->frame_cap = cap;
	}
	b = p->frame_buf + p->frame_used;
	put16(b, (uint16_t)size);
	put16(b + 2, BC_ER_FRAME_PACKET);
	put32(b + 4, FRAME_HEAD);
	put64(b + 8, uid);
	put32(b + 16, (uint32_t)(INFO_HEAD + 8 * n));
	put32(b + 20, STACK_INFO);
	put64(b + 24, uid); /* the stack uid: unique per distinct stack too */
	memcpy(b + 32, pcs, 8 * n);
	p->frame_used += size;
	return 0;
}

int er_profile_stack(struct er_profile *p, const uint64_t *pcs, size_t n, uint64_t *uid)
{
	int rc;

	*uid = 0;
	if (p->err)
		return p->err;
	if (!n)
		return 0; /* FRINFO 0: counted in <Total> only */
	*uid = er_stack_uid(pcs, n);
	rc = seen_uid(p, *uid);
	if (rc > 0)
		return 0;
	if (!rc)
		rc = add_frame(p, *uid, pcs, n);
	for (size_t i = 0; !rc && i < n && pcs[i] >= KERNEL_START; i++) {
		if (p->n_kpcs == p->cap_kpcs) {
			size_t cap = p->cap_kpcs ? p->cap_kpcs * 2 : 256;
			uint64_t *v = realloc(p->kpcs, cap * sizeof(*v));

			if (!v)
				return -ENOMEM;
			p->kpcs = v;
			p->cap_kpcs = cap;
		}
		p->kpcs[p->n_kpcs++] = pcs[i];
	}
	return rc;
}

/*
 * Callers' return addresses minus one put them inside the call, so
 * functions and lines are the caller's (libcollector's adjust_ret_addr);
 * frame 0 is where the thread was.
 */
static size_t call_sites(uint64_t *out, const __u64 *ips, size_t n)
{
	for (size_t i = 0; i < n; i++)
		out[i] = ips[i] - (i ? 1 : 0);
	return n;
}

static int add_clock(struct er_profile *p, uint32_t tid, uint32_t cpu, uint64_t ktime, uint64_t uid,
		     int32_t mstate, int32_t nticks)
{
	char *b = p->prof_buf + p->prof_used;

	if (!p->prof_buf)
		return 0; /* no clock profile declared: its packets would mean nothing */
	memset(b, 0, BC_ER_CLOCK_SIZE);
	put16(b, BC_ER_CLOCK_SIZE);
	put16(b + 2, BC_ER_CLOCK_PACKET);
	put64(b + 8, tid);
	put64(b + 16, tid);
	put32(b + 24, cpu);
	put64(b + 28, ktime);
	put64(b + 36, uid);
	put32(b + 44, (uint32_t)mstate);
	put32(b + 48, (uint32_t)nticks);
	p->prof_used += BC_ER_CLOCK_SIZE;
	if (p->prof_used + BC_ER_CLOCK_SIZE > BUF_FLUSH || p->frame_used >= BUF_FLUSH)
		return er_profile_flush(p);
	return 0;
}

int er_profile_add(struct er_profile *p, const struct bc_rec_profile *rec)
{
	uint64_t pcs[2 * BC_PROFILE_MAX_FRAMES], uid;
	size_t n = 0, nk = rec->n_kernel, nu = rec->n_user;
	int rc;

	if (p->err)
		return p->err;
	if (nk > BC_PROFILE_MAX_FRAMES || nu > BC_PROFILE_MAX_FRAMES || nk + nu == 0)
		return 0;
	n += call_sites(pcs, rec->ips, nk);
	n += call_sites(pcs + n, rec->ips + nk, nu);
	rc = er_profile_stack(p, pcs, n, &uid);
	if (rc < 0)
		return rc;
	p->samples++;
	return add_clock(p, rec->h.tid, rec->cpu, rec->h.ktime, uid,
			 nk ? BC_ER_MSTATE_SYSTEM : BC_ER_MSTATE_USER, 1);
}

/* The carried remainders of thread tid, created on first use; NULL: no memory. */
static struct er_residue *residue_of(struct er_profile *p, uint32_t tid)
{
	size_t mask, i;

	if ((p->n_residues + 1) * 2 > p->cap_residues) {
		size_t cap = p->cap_residues ? p->cap_residues * 2 : 64;
		struct er_residue *v = calloc(cap, sizeof(*v));

		if (!v)
			return NULL;
		for (size_t k = 0; k < p->cap_residues; k++) {
			struct er_residue *r = &p->residues[k];

			if (!r->tid)
				continue;
			for (i = r->tid & (cap - 1); v[i].tid; i = (i + 1) & (cap - 1))
				;
			v[i] = *r;
		}
		free(p->residues);
		p->residues = v;
		p->cap_residues = cap;
	}
	mask = p->cap_residues - 1;
	for (i = (tid * 2654435761u) & mask; p->residues[i].tid; i = (i + 1) & mask)
		if (p->residues[i].tid == tid)
			return &p->residues[i];
	p->residues[i].tid = tid;
	p->n_residues++;
	return &p->residues[i];
}

/* ns more of state `which` for r: whole ticks out, the rest carried to the thread's next interval.
 */
static int add_offcpu_time(struct er_profile *p, const struct bc_rec_offcpu *rec,
			   struct er_residue *r, int which, int32_t mstate, uint64_t ns,
			   uint64_t ktime, uint64_t uid)
{
	uint64_t ticks;
	int rc = 0;

	r->ns[which] += ns;
	ticks = r->ns[which] / p->ptimer_ns;
	r->ns[which] -= ticks * p->ptimer_ns;
	while (ticks && !rc) {
		int32_t n = ticks > INT32_MAX ? INT32_MAX : (int32_t)ticks;

		rc = add_clock(p, rec->h.tid, rec->cpu, ktime, uid, mstate, n);
		ticks -= (uint64_t)n;
	}
	return rc;
}

int er_profile_add_offcpu(struct er_profile *p, const struct bc_rec_offcpu *rec)
{
	uint64_t pcs[BC_OFFCPU_MAX_FRAMES], uid, sleep_ns, wait_ns;
	uint64_t on = rec->h.ktime, woke;
	struct er_residue *r;
	int rc;

	if (p->err)
		return p->err;
	if (!p->ptimer_ns || rec->n_user > BC_OFFCPU_MAX_FRAMES || !rec->h.tid)
		return 0;
	bc_offcpu_split(rec, &sleep_ns, &wait_ns);
	r = residue_of(p, rec->h.tid);
	if (!r)
		return -ENOMEM;
	rc = er_profile_stack(p, pcs, call_sites(pcs, rec->ips, rec->n_user), &uid);
	if (rc < 0)
		return rc;
	woke = on - wait_ns;
	if (sleep_ns)
		rc = add_offcpu_time(p, rec, r, bc_offcpu_is_lock(rec) ? 1 : 0,
				     bc_offcpu_is_lock(rec) ? BC_ER_MSTATE_USER_LOCK
							    : BC_ER_MSTATE_SLEEP,
				     sleep_ns, woke, uid);
	if (!rc && wait_ns)
		rc = add_offcpu_time(p, rec, r, 2, BC_ER_MSTATE_WAIT_CPU, wait_ns, on, uid);
	p->offcpu_intervals++;
	return rc;
}

void er_profile_close(struct er_profile *p)
{
	if (p->prof_fd >= 0)
		close(p->prof_fd);
	if (p->frame_fd >= 0)
		close(p->frame_fd);
	free(p->prof_buf);
	free(p->frame_buf);
	free(p->uids);
	free(p->residues);
	free(p->kpcs);
	memset(p, 0, sizeof(*p));
	p->prof_fd = p->frame_fd = -1;
}

struct ksym {
	uint64_t addr;
	size_t order; /* in /proc/kallsyms: aliases keep it (gprofng names the first) */
	char type;
	char *line; /* NAME [MODULE] */
};

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return (x->addr > y->addr) - (x->addr < y->addr);
	return (x->order > y->order) - (x->order < y->order);
}

/* _stext's address in a kallmodsyms file (ADDR SIZE TYPE NAME); 0 when it has none. */
static uint64_t formatted_text_start(int fd)
{
	FILE *f = fdopen(dup(fd), "r");
	unsigned long long addr, size;
	char line[1024], type, name[900];
	uint64_t text = 0;

	if (!f)
		return 0;
	while (!text && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %llx %c %899s", &addr, &size, &type, name) == 4 &&
		    !strcmp(name, "_stext"))
			text = addr;
	fclose(f);
	return text;
}

/*
 * The recorded experiment's kallmodsyms (source), opened without following
 * a link: a link planted in its place would have convert copy whatever it
 * points to (/etc/shadow) into the new experiment. -ELOOP for a link, -EINVAL
 * for anything else but a regular file.
 */
static int open_formatted(const char *source)
{
	int fd = open(source, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	return fd;
}

/* Copies in (from its start) into dirfd's new kallmodsyms. */
static int copy_formatted(int in, int dirfd)
{
	char buf[65536];
	int out, rc = 0;
	ssize_t n;

	out = bc_out_openat(dirfd, "kallmodsyms", O_WRONLY | O_EXCL | O_CLOEXEC);
	if (out < 0)
		return -errno;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n) {
			rc = -EIO;
			break;
		}
	if (n < 0 && !rc)
		rc = -errno;
	if (close(out) < 0 && !rc)
		rc = -errno;
	return rc;
}

/*
 * An experiment's kallmodsyms into dirfd: its founder's (a subexperiment),
 * else a hard link to the file opened, or a copy across file systems.
 */
static int carry_formatted(int dirfd, const char *source, int is_subexperiment,
			   uint64_t *text_start)
{
	char self[64];
	int in, rc = 0;

	if (is_subexperiment && linkat(dirfd, "../kallmodsyms", dirfd, "kallmodsyms", 0) == 0) {
		in = openat(dirfd, "kallmodsyms", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (in < 0)
			return in;
		*text_start = formatted_text_start(in);
		close(in);
		return 0;
	}
	in = open_formatted(source);
	if (in < 0)
		return in;
	snprintf(self, sizeof(self), "/proc/self/fd/%d", in);
	if (linkat(AT_FDCWD, self, dirfd, "kallmodsyms", AT_SYMLINK_FOLLOW) < 0 && errno != EEXIST)
		rc = copy_formatted(in, dirfd);
	*text_start = rc || lseek(in, 0, SEEK_SET) < 0 ? 0 : formatted_text_start(in);
	close(in);
	return rc;
}

int er_kallmodsyms_write(int dirfd, const char *source, bool formatted, int is_subexperiment,
			 uint64_t *text_start)
{
	struct ksym *v = NULL;
	size_t n = 0, cap = 0;
	char line[1024];
	FILE *in, *out = NULL;
	int fd, rc = 0;

	*text_start = 0;
	if (formatted)
		return carry_formatted(dirfd, source, is_subexperiment, text_start);
	in = fopen(source, "re");
	if (!in)
		return -errno;
	while (fgets(line, sizeof(line), in)) {
		unsigned long long addr;
		char type, name[900];
		int at = 0;

		if (sscanf(line, "%llx %c %n", &addr, &type, &at) != 2 || !at)
			continue;
		if (!strcmp(line + at, "_stext\n"))
			*text_start = addr;
		if (type != 't' && type != 'T')
			continue;
		if (n == cap) {
			struct ksym *nv = realloc(v, (cap ? cap * 2 : 65536) * sizeof(*v));

			if (!nv) {
				rc = -ENOMEM;
				goto out;
			}
			v = nv;
			cap = cap ? cap * 2 : 65536;
		}
		snprintf(name, sizeof(name), "%s", line + at);
		name[strcspn(name, "\n")] = 0;
		/* module symbols say "name\t[module]": one space for the reader */
		for (char *c = name; *c; c++)
			if (*c == '\t')
				*c = ' ';
		v[n].addr = addr;
		v[n].order = n;
		v[n].type = type;
		v[n].line = strdup(name);
		if (!v[n].line) {
			rc = -ENOMEM;
			goto out;
		}
		n++;
	}
	if (n == 0 || v[0].addr == 0) {
		rc = -EPERM; /* addresses hidden (kptr_restrict): nothing to resolve with */
		goto out;
	}
	/* A subexperiment shares its founder's copy (the same kernel, 5 MB less). */
	if (is_subexperiment && linkat(dirfd, "../kallmodsyms", dirfd, "kallmodsyms", 0) == 0)
		goto out;
	qsort(v, n, sizeof(*v), cmp_ksym);
	fd = bc_out_openat(dirfd, "kallmodsyms", O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0 || !(out = fdopen(fd, "w"))) {
		rc = -errno;
		if (fd >= 0)
			close(fd);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t size = 0;

		for (size_t k = i + 1; k < n && !size; k++)
			size = v[k].addr - v[i].addr;
		if (!size)
			size = 16;
		fprintf(out, "%" PRIx64 " %" PRIx64 " %c %s\n", v[i].addr, size, v[i].type,
			v[i].line);
	}
	if (fclose(out) != 0)
		rc = -errno;
out:
	fclose(in);
	for (size_t i = 0; i < n; i++)
		free(v[i].line);
	free(v);
	return rc;
}
