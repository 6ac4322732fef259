// SPDX-License-Identifier: MIT
/*
 * Per-process usage samples (the `overview` file): reading them from /proc
 * or from BPF's exit-time numbers, gprofng's raw_prusage_64 encoding, and
 * the `report overview` table. Field meanings and gprofng's names for them
 * are in include/bpfcollect/overview.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bpfcollect/infile.h"
#include "bpfcollect/overview.h"

#define NSEC_PER_SEC  1000000000ULL
#define PROC_FILE_MAX (1U << 20) /* a status file with a huge Groups: line is still < 1 MiB */
#define OVERVIEW_MAX  (1ULL << 30)

/*
 * raw_prusage_64 (gprofng Exp_Layout.cc): i32 lwpid at 0, i32 count at 4,
 * then {u64 sec, u64 nsec} times and u64 counts at these offsets.
 */
struct pr_field {
	uint16_t pr;	/* offset in the record */
	uint16_t usage; /* offset in struct bc_usage */
};

/* clang-format off */
#define PRF(off, f) {off, offsetof(struct bc_usage, f)}
static const struct pr_field pr_times[] = {
	PRF(8, tstamp), PRF(24, create), PRF(56, rtime), PRF(72, utime),
	PRF(88, stime), PRF(184, sleep), PRF(200, wait), /* pr_slptime, pr_wtime */
};
static const struct pr_field pr_counts[] = {
	PRF(328, minf), PRF(336, majf), PRF(352, inblk), PRF(360, oublk),
	PRF(392, vctx), PRF(400, ictx), PRF(408, sysc),	 PRF(416, ioch),
};
#undef PRF
/* clang-format on */
#define NTIMES	(sizeof(pr_times) / sizeof(pr_times[0]))
#define NCOUNTS (sizeof(pr_counts) / sizeof(pr_counts[0]))
_Static_assert(sizeof(struct bc_usage) == (NTIMES + NCOUNTS) * sizeof(uint64_t),
	       "pr_times and pr_counts name every field of struct bc_usage");

static uint64_t *usage_field(struct bc_usage *u, const struct pr_field *f)
{
	return (uint64_t *)(void *)((char *)u + f->usage);
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

static uint64_t sub_floor(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static uint64_t derive_sleep(const struct bc_usage *u)
{
	uint64_t busy = sat_add(sat_add(u->utime, u->stime), u->wait);

	return sub_floor(u->rtime, busy);
}

/* ---------------------------------------------------------------- /proc parsing */

/* A run of decimal digits at *p (no sign, no spaces) that fits 64 bits. */
static int parse_u64(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;

	if (s >= end || *s < '0' || *s > '9')
		return -EINVAL;
	for (; s < end && *s >= '0' && *s <= '9'; s++) {
		unsigned d = (unsigned)(*s - '0');

		if (x > (UINT64_MAX - d) / 10)
			return -EINVAL;
		x = x * 10 + d;
	}
	*p = s;
	*v = x;
	return 0;
}

int bc_proc_stat_parse(const char *buf, size_t len, struct bc_proc_stat *st)
{
	struct bc_proc_stat r = {0};
	const char *end, *p = NULL;
	int field;

	if (!buf || !st)
		return -EINVAL;
	end = buf + len;
	/* comm may hold anything, ')' and spaces included: the last ')' ends it */
	for (const char *q = end; q > buf; q--) {
		if (q[-1] == ')') {
			p = q;
			break;
		}
	}
	if (!p || !memchr(buf, '(', (size_t)(p - buf)))
		return -EINVAL;
	/* fields 3.. follow, separated by single spaces: " S ppid pgrp ..." */
	for (field = 3; field <= 22; field++) {
		uint64_t *dst = NULL;

		if (p >= end || *p != ' ')
			return -EINVAL;
		p++;
		switch (field) {
		case 3:
			if (p >= end || *p == ' ' || *p == '\n')
				return -EINVAL;
			r.state = *p++;
			continue;
		case 10:
			dst = &r.minflt;
			break;
		case 12:
			dst = &r.majflt;
			break;
		case 14:
			dst = &r.utime;
			break;
		case 15:
			dst = &r.stime;
			break;
		case 22:
			dst = &r.starttime;
			break;
		default:
			break;
		}
		if (dst) {
			int err = parse_u64(&p, end, dst);

			if (err)
				return err;
			if (p < end && *p != ' ' && *p != '\n')
				return -EINVAL;
			continue;
		}
		/* a field we do not use (some are signed): any non-empty token */
		if (p >= end || *p == ' ' || *p == '\n')
			return -EINVAL;
		while (p < end && *p != ' ' && *p != '\n')
			p++;
	}
	*st = r;
	return 0;
}

/* The value of "\nKEY:\t<digits>" in buf; the last occurrence wins. */
static int status_field(const char *buf, size_t len, const char *key, uint64_t *v)
{
	size_t klen = strlen(key);
	const char *found = NULL, *p = buf, *end = buf + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *line_end = nl ? nl : end;

		if ((size_t)(line_end - p) > klen && !memcmp(p, key, klen) && p[klen] == ':')
			found = p + klen + 1;
		p = nl ? nl + 1 : end;
	}
	if (!found)
		return -EINVAL;
	while (found < end && (*found == '\t' || *found == ' '))
		found++;
	return parse_u64(&found, end, v);
}

int bc_proc_status_ctx(const char *buf, size_t len, uint64_t *vctx, uint64_t *ictx)
{
	uint64_t v = 0, i = 0;
	int err;

	if (!buf || !vctx || !ictx)
		return -EINVAL;
	err = status_field(buf, len, "voluntary_ctxt_switches", &v);
	if (!err)
		err = status_field(buf, len, "nonvoluntary_ctxt_switches", &i);
	if (err)
		return err;
	*vctx = v;
	*ictx = i;
	return 0;
}

/* "runtime run_delay pcount": the second number. */
static int schedstat_run_delay(const char *buf, size_t len, uint64_t *run_delay)
{
	const char *p = buf, *end = buf + len;
	uint64_t runtime;
	int err;

	err = parse_u64(&p, end, &runtime);
	if (err)
		return err;
	if (p >= end || *p != ' ')
		return -EINVAL;
	p++;
	return parse_u64(&p, end, run_delay);
}

struct rbuf {
	char *s;
	size_t cap;
};

/* Reads dirfd/path whole into b (grown as needed). Length or -errno. */
static ssize_t read_proc_file(int dirfd, const char *path, struct rbuf *b)
{
	size_t len = 0;
	ssize_t ret;
	int fd, err = 0;

	fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		if (len == b->cap) {
			size_t ncap = b->cap ? b->cap * 2 : 4096;
			char *n;

			if (ncap > PROC_FILE_MAX) {
				err = -EFBIG;
				goto out;
			}
			n = realloc(b->s, ncap);
			if (!n) {
				err = -ENOMEM;
				goto out;
			}
			b->s = n;
			b->cap = ncap;
		}
		ret = read(fd, b->s + len, b->cap - len);
		if (ret < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			goto out;
		}
		if (ret == 0)
			break;
		len += (size_t)ret;
	}
out:
	close(fd);
	return err ? err : (ssize_t)len;
}

static bool gone(int err)
{
	return err == -ENOENT || err == -ESRCH;
}

static uint64_t timespec_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * NSEC_PER_SEC + (uint64_t)ts->tv_nsec;
}

/* CLOCK_BOOTTIME - CLOCK_MONOTONIC now (time spent suspended), and CLOCK_MONOTONIC. */
static int boot_offset(uint64_t *offset, uint64_t *mono_now)
{
	struct timespec a, b, c;
	uint64_t mono;

	if (clock_gettime(CLOCK_MONOTONIC, &a) || clock_gettime(CLOCK_BOOTTIME, &b) ||
	    clock_gettime(CLOCK_MONOTONIC, &c))
		return -errno;
	mono = timespec_ns(&a) + (timespec_ns(&c) - timespec_ns(&a)) / 2;
	*offset = sub_floor(timespec_ns(&b), mono);
	*mono_now = timespec_ns(&a);
	return 0;
}

static int ticks_to_ns(uint64_t ticks, uint64_t ns_per_tick, uint64_t *ns)
{
	if (ticks > UINT64_MAX / ns_per_tick)
		return -EINVAL;
	*ns = ticks * ns_per_tick;
	return 0;
}

/* wait, vctx, ictx summed over /proc/PID/task/<tid>; -ESRCH if no thread is left. */
static int read_threads(int pidfd, struct bc_usage *u, struct rbuf *b)
{
	struct dirent *de;
	int tfd, err = 0, nthreads = 0;
	DIR *d;

	tfd = openat(pidfd, "task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (tfd < 0)
		return gone(-errno) ? -ESRCH : -errno;
	d = fdopendir(tfd);
	if (!d) {
		err = -errno;
		close(tfd);
		return err;
	}
	for (;;) {
		char path[300];
		uint64_t delay, v, i;
		ssize_t len;
		const char *p;

		errno = 0;
		de = readdir(d);
		if (!de)
			break;
		p = de->d_name;

		if (*p < '1' || *p > '9' || strspn(p, "0123456789") != strlen(p) || strlen(p) > 10)
			continue;
		snprintf(path, sizeof(path), "%s/schedstat", p);
		len = read_proc_file(tfd, path, b);
		if (len < 0) {
			if (gone((int)len))
				continue; /* the thread exited meanwhile */
			err = (int)len;
			goto out;
		}
		err = schedstat_run_delay(b->s, (size_t)len, &delay);
		if (err)
			goto out;
		snprintf(path, sizeof(path), "%s/status", p);
		len = read_proc_file(tfd, path, b);
		if (len < 0) {
			if (gone((int)len))
				continue;
			err = (int)len;
			goto out;
		}
		err = bc_proc_status_ctx(b->s, (size_t)len, &v, &i);
		if (err)
			goto out;
		u->wait = sat_add(u->wait, delay);
		u->vctx = sat_add(u->vctx, v);
		u->ictx = sat_add(u->ictx, i);
		nthreads++;
	}
	if (errno)
		err = -errno;
	else if (!nthreads)
		err = -ESRCH;
out:
	closedir(d);
	return err;
}

/* ioch, inblk, oublk from /proc/PID/io; best effort (root-only for others' processes). */
static void read_io(int pidfd, struct bc_usage *u, struct rbuf *b)
{
	uint64_t rchar, wchar, rbytes, wbytes;
	ssize_t len = read_proc_file(pidfd, "io", b);

	if (len < 0)
		return;
	if (status_field(b->s, (size_t)len, "rchar", &rchar) ||
	    status_field(b->s, (size_t)len, "wchar", &wchar) ||
	    status_field(b->s, (size_t)len, "read_bytes", &rbytes) ||
	    status_field(b->s, (size_t)len, "write_bytes", &wbytes))
		return;
	u->ioch = sat_add(rchar, wchar);
	u->inblk = rbytes >> 9;
	u->oublk = wbytes >> 9;
}

int bc_usage_read(pid_t pid, struct bc_usage *u)
{
	struct bc_usage r = {0};
	struct bc_proc_stat st;
	struct rbuf b = {0};
	uint64_t offset = 0, now = 0, ns_per_tick, start_boot = 0;
	char path[32];
	long hz;
	ssize_t len;
	int pidfd, err;

	if (pid <= 0 || !u)
		return -EINVAL;
	hz = sysconf(_SC_CLK_TCK);
	ns_per_tick = hz > 0 && (unsigned long)hz <= NSEC_PER_SEC ? NSEC_PER_SEC / (uint64_t)hz
								  : NSEC_PER_SEC / 100;
	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	/* one directory fd: every file read below is of the same process */
	pidfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pidfd < 0)
		return gone(-errno) ? -ESRCH : -errno;

	len = read_proc_file(pidfd, "stat", &b);
	if (len < 0) {
		err = gone((int)len) ? -ESRCH : (int)len;
		goto out;
	}
	err = boot_offset(&offset, &now);
	if (err)
		goto out;
	err = bc_proc_stat_parse(b.s, (size_t)len, &st);
	if (!err)
		err = ticks_to_ns(st.utime, ns_per_tick, &r.utime);
	if (!err)
		err = ticks_to_ns(st.stime, ns_per_tick, &r.stime);
	if (!err)
		err = ticks_to_ns(st.starttime, ns_per_tick, &start_boot);
	if (err)
		goto out;
	r.tstamp = now;
	r.create = sub_floor(start_boot, offset);
	r.rtime = sub_floor(now, r.create);
	r.minf = st.minflt;
	r.majf = st.majflt;

	err = read_threads(pidfd, &r, &b);
	if (err)
		goto out;
	read_io(pidfd, &r, &b);
	r.sleep = derive_sleep(&r);
	*u = r;
out:
	free(b.s);
	close(pidfd);
	return err;
}

void bc_usage_from_task(struct bc_usage *u, uint64_t now, uint64_t start_time, uint64_t utime,
			uint64_t stime, uint64_t run_delay, uint64_t nvcsw, uint64_t nivcsw,
			uint64_t min_flt, uint64_t maj_flt)
{
	memset(u, 0, sizeof(*u));
	u->tstamp = now;
	u->create = start_time;
	u->rtime = sub_floor(now, start_time);
	u->utime = utime;
	u->stime = stime;
	u->wait = run_delay;
	u->vctx = nvcsw;
	u->ictx = nivcsw;
	u->minf = min_flt;
	u->majf = maj_flt;
	u->sleep = derive_sleep(u);
}

void bc_cputime_adjust(uint64_t rtime, uint64_t *utime, uint64_t *stime)
{
	uint64_t u = *utime, s = *stime;

	if (s == 0) {
		u = rtime;
	} else if (u == 0) {
		s = rtime;
	} else {
		unsigned __int128 x = (unsigned __int128)s * rtime;

		s = (uint64_t)(x / ((unsigned __int128)s + u));
		u = rtime - s;
	}
	*utime = u;
	*stime = s;
}

void bc_usage_carry(const struct bc_usage *prev, struct bc_usage *cur)
{
	struct bc_usage p = *prev;
	uint64_t create = p.create ? p.create : cur->create;

	/* the two tables name every field of struct bc_usage */
	for (size_t i = 0; i < NTIMES + NCOUNTS; i++) {
		const struct pr_field *f = i < NTIMES ? &pr_times[i] : &pr_counts[i - NTIMES];

		*usage_field(cur, f) = max_u64(*usage_field(cur, f), *usage_field(&p, f));
	}
	cur->create = create;
}

/* ---------------------------------------------------------------- raw_prusage_64 */

static void put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put_le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get_le32(const uint8_t *p)
{
	uint32_t v = 0;

	for (int i = 0; i < 4; i++)
		v |= (uint32_t)p[i] << (8 * i);
	return v;
}

static uint64_t get_le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static void put_time(uint8_t *rec, size_t off, uint64_t ns)
{
	put_le64(rec + off, ns / NSEC_PER_SEC);
	put_le64(rec + off + 8, ns % NSEC_PER_SEC);
}

/* sec * 1e9 + nsec, as gprofng's timestruc2hr; -ERANGE past 64 bits. */
static int get_time(const uint8_t *rec, size_t off, uint64_t *ns)
{
	uint64_t sec = get_le64(rec + off), nsec = get_le64(rec + off + 8);

	if (sec > UINT64_MAX / NSEC_PER_SEC || sec * NSEC_PER_SEC > UINT64_MAX - nsec)
		return -ERANGE;
	*ns = sec * NSEC_PER_SEC + nsec;
	return 0;
}

void bc_overview_encode(const struct bc_usage *u, uint32_t pid, uint8_t out[BC_OVERVIEW_REC_SIZE])
{
	struct bc_usage c = *u;

	memset(out, 0, BC_OVERVIEW_REC_SIZE);
	put_le32(out, pid);
	put_le32(out + 4, 1); /* pr_count: contributing lwps, as libcollector writes */
	for (size_t i = 0; i < NTIMES; i++)
		put_time(out, pr_times[i].pr, *usage_field(&c, &pr_times[i]));
	for (size_t i = 0; i < NCOUNTS; i++)
		put_le64(out + pr_counts[i].pr, *usage_field(&c, &pr_counts[i]));
}

int bc_overview_decode(const uint8_t *in, size_t len, struct bc_usage *u, uint32_t *pid)
{
	struct bc_usage r = {0};

	if (!in || len < BC_OVERVIEW_REC_SIZE || !u)
		return -EINVAL;
	for (size_t i = 0; i < NTIMES; i++) {
		int err = get_time(in, pr_times[i].pr, usage_field(&r, &pr_times[i]));
		if (err)
			return err;
	}
	for (size_t i = 0; i < NCOUNTS; i++)
		*usage_field(&r, &pr_counts[i]) = get_le64(in + pr_counts[i].pr);
	*u = r;
	if (pid)
		*pid = get_le32(in);
	return 0;
}

int bc_overview_parse(const uint8_t *buf, size_t len, struct bc_usage **samples, size_t *n,
		      uint32_t *pid, size_t *torn_bytes, size_t *bad)
{
	size_t nrec = len / BC_OVERVIEW_REC_SIZE, k = 0, nbad = 0;
	struct bc_usage *v = NULL;
	uint32_t first_pid = 0;

	if (!samples || !n || (!buf && len))
		return -EINVAL;
	if (nrec) {
		v = calloc(nrec, sizeof(*v));
		if (!v)
			return -ENOMEM;
	}
	for (size_t i = 0; i < nrec; i++) {
		uint32_t p;

		if (bc_overview_decode(buf + i * BC_OVERVIEW_REC_SIZE, BC_OVERVIEW_REC_SIZE, &v[k],
				       &p)) {
			nbad++;
			continue;
		}
		if (!k)
			first_pid = p;
		k++;
	}
	if (!k) {
		free(v);
		v = NULL;
	}
	*samples = v;
	*n = k;
	if (pid)
		*pid = first_pid;
	if (torn_bytes)
		*torn_bytes = len % BC_OVERVIEW_REC_SIZE;
	if (bad)
		*bad = nbad;
	return 0;
}

int bc_overview_read_file(const char *exp_path, struct bc_usage **samples, size_t *n, uint32_t *pid)
{
	size_t len = 0, torn = 0, bad = 0;
	uint8_t *buf = NULL;
	struct stat sb;
	int dfd, fd, err = 0;

	if (!exp_path || !samples || !n)
		return -EINVAL;
	dfd = open(exp_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	/* a FIFO planted there must not hang the report, nor a link lead elsewhere */
	fd = bc_in_openat(dfd, "overview", false, &sb);
	close(dfd);
	if (fd < 0)
		return fd;
	if ((uint64_t)sb.st_size > OVERVIEW_MAX) {
		err = -EFBIG;
		goto out;
	}
	if (sb.st_size) {
		buf = malloc((size_t)sb.st_size);
		if (!buf) {
			err = -ENOMEM;
			goto out;
		}
	}
	/* the size may change under us: read what is there, up to the size seen */
	while (len < (size_t)sb.st_size) {
		ssize_t r = read(fd, buf + len, (size_t)sb.st_size - len);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = -errno;
			goto out;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	err = bc_overview_parse(buf, len, samples, n, pid, &torn, &bad);
	if (err)
		goto out;
	if (torn)
		fprintf(stderr, "bpfcollect: %s/overview: last record torn; %zu bytes ignored\n",
			exp_path, torn);
	if (bad)
		fprintf(stderr,
			"bpfcollect: %s/overview: %zu records with out-of-range times skipped\n",
			exp_path, bad);
out:
	free(buf);
	close(fd);
	return err;
}

/* ---------------------------------------------------------------- report */

void bc_overview_interval(const struct bc_usage *prev, const struct bc_usage *cur,
			  struct bc_overview_interval *iv)
{
	uint64_t sum;

	memset(iv, 0, sizeof(*iv));
	iv->start = prev->tstamp;
	iv->end = cur->tstamp;
	/* Sample::validate_usage: negative differences are 0 ... */
	iv->utime = sub_floor(cur->utime, prev->utime);
	iv->stime = sub_floor(cur->stime, prev->stime);
	iv->wait = sub_floor(cur->wait, prev->wait);
	iv->sleep = sub_floor(cur->sleep, prev->sleep);
	iv->rtime = sub_floor(cur->rtime, prev->rtime);
	/* ... and Sleep makes up what the states leave of rtime; Ovw_data: total = max */
	sum = sat_add(sat_add(iv->utime, iv->stime), sat_add(iv->wait, iv->sleep));
	if (sum < iv->rtime)
		iv->sleep += iv->rtime - sum;
	else
		iv->rtime = sum;
	iv->vctx = sub_floor(cur->vctx, prev->vctx);
	iv->ictx = sub_floor(cur->ictx, prev->ictx);
	iv->minf = sub_floor(cur->minf, prev->minf);
	iv->majf = sub_floor(cur->majf, prev->majf);
	iv->inblk = sub_floor(cur->inblk, prev->inblk);
	iv->oublk = sub_floor(cur->oublk, prev->oublk);
	iv->ioch = sub_floor(cur->ioch, prev->ioch);
	iv->sysc = sub_floor(cur->sysc, prev->sysc);
}

static double rel_sec(uint64_t t, uint64_t base)
{
	return t >= base ? (double)(t - base) / 1e9 : -(double)(base - t) / 1e9;
}

static double secs(uint64_t ns)
{
	return (double)ns / 1e9;
}

static void print_row(FILE *out, const char *label, double start, double end,
		      const struct bc_overview_interval *iv)
{
	fprintf(out, "%6s %9.3f %9.3f %9.3f %10.3f %9.3f %9.3f %10llu %12llu %12llu %12llu\n",
		label, start, end, secs(iv->utime), secs(iv->stime), secs(iv->wait),
		secs(iv->sleep), (unsigned long long)iv->vctx, (unsigned long long)iv->ictx,
		(unsigned long long)iv->minf, (unsigned long long)iv->majf);
}

int bc_overview_print(FILE *out, const struct bc_usage *samples, size_t n, uint32_t pid)
{
	struct bc_overview_interval iv, tot = {0};
	uint64_t base;

	if (!out || (!samples && n))
		return -EINVAL;
	fprintf(out,
		"Overview: pid %u, %zu sample%s (times in seconds, relative to the first point)\n",
		pid, n ? n - 1 : 0, n == 2 ? "" : "s");
	if (n < 2) {
		fprintf(out, "  no sample: the overview needs two points\n");
		return ferror(out) ? -EIO : 0;
	}
	base = samples[0].tstamp;
	fprintf(out, "%6s %9s %9s %9s %10s %9s %9s %10s %12s %12s %12s\n", "Sample", "Start", "End",
		"User CPU", "System CPU", "Wait CPU", "Sleep", "Vol ctxsw", "Invol ctxsw",
		"Minor faults", "Major faults");
	for (size_t k = 1; k < n; k++) {
		char label[24];

		bc_overview_interval(&samples[k - 1], &samples[k], &iv);
		snprintf(label, sizeof(label), "%zu", k);
		print_row(out, label, rel_sec(iv.start, base), rel_sec(iv.end, base), &iv);
		tot.utime = sat_add(tot.utime, iv.utime);
		tot.stime = sat_add(tot.stime, iv.stime);
		tot.wait = sat_add(tot.wait, iv.wait);
		tot.sleep = sat_add(tot.sleep, iv.sleep);
		tot.rtime = sat_add(tot.rtime, iv.rtime);
		tot.vctx = sat_add(tot.vctx, iv.vctx);
		tot.ictx = sat_add(tot.ictx, iv.ictx);
		tot.minf = sat_add(tot.minf, iv.minf);
		tot.majf = sat_add(tot.majf, iv.majf);
	}
	print_row(out, "Total", 0.0, rel_sec(samples[n - 1].tstamp, base), &tot);
	fprintf(out, "Total Thread Time: %.3f\n", secs(tot.rtime));
	return ferror(out) ? -EIO : 0;
}
