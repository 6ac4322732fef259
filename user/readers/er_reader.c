// SPDX-License-Identifier: MIT
/*
 * Reads a `.er` experiment and replays it into any sink: the offline half
 * of "one event model, many sinks". Every byte is untrusted; whatever is
 * whole is read, whatever is not is reported in info->notes, and nothing
 * makes the reader crash or allocate without bound. This file parses the
 * text files (log.xml, functions) and runs the read; map.xml is streamed
 * by er_maps.c, the data files are indexed and replayed by er_replay.c.
 */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bpfcollect/argspec.h"
#include "bpfcollect/containers.h"
#include "bpfcollect/infile.h"
#include "er_replay.h"
#include "bpfcollect/names.h"
#include "bpfcollect/xml.h"

#define NSEC_PER_SEC  1000000000ULL
#define MAX_TEXT_FILE (256u << 20) /* functions: one line a probed function, never this big */

int bc_er_fail(struct bc_er_reader *r, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->err, r->errlen, fmt, ap);
	va_end(ap);
	return err;
}

int bc_er_open_file(struct bc_er_reader *r, const char *name, struct stat *st)
{
	char path[4096];
	int fd = bc_in_openat(r->dirfd, name, false, st);

	if (fd >= 0 || fd == -ENOENT)
		return fd;
	snprintf(path, sizeof(path), "%s/%s", r->path, name);
	bc_in_error(r->err, r->errlen, path, fd, st);
	return fd;
}

/*
 * Maps a small text file copy-on-write (parsers may write NULs into it);
 * -ENOENT is returned quietly, other errors with a message. An empty file
 * gives buf NULL, len 0. A live file may grow meanwhile: its size at open
 * is what is read.
 */
static int map_text(struct bc_er_reader *r, const char *name, char **buf, size_t *len)
{
	struct stat st;
	int fd, err = 0;

	*buf = NULL;
	*len = 0;
	fd = bc_er_open_file(r, name, &st);
	if (fd < 0)
		return fd;
	if (st.st_size > MAX_TEXT_FILE)
		err = bc_er_fail(r, -EFBIG,
				 "%s/%s: %lld bytes, more than a text file of an "
				 "experiment holds (%u): refused",
				 r->path, name, (long long)st.st_size, MAX_TEXT_FILE);
	else if (st.st_size && (*buf = mmap(NULL, st.st_size, PROT_READ | PROT_WRITE, MAP_PRIVATE,
					    fd, 0)) == MAP_FAILED)
		err = bc_er_fail(r, -errno, "%s/%s: mmap: %s", r->path, name, strerror(errno));
	if (!err)
		*len = st.st_size;
	else
		*buf = NULL;
	close(fd);
	return err;
}

static void unmap_text(char *buf, size_t len)
{
	if (buf)
		munmap(buf, len);
}

static bool parse_u64(const char *s, int base, uint64_t *v)
{
	char *end;

	if (!s || !*s || *s == '-')
		return false;
	errno = 0;
	*v = strtoull(s, &end, base);
	return !errno && !*end;
}

static bool parse_s64(const char *s, int64_t *v)
{
	char *end;

	if (!s || !*s)
		return false;
	errno = 0;
	*v = strtoll(s, &end, 10);
	return !errno && !*end;
}

/* Next shell word of *p (quotes and backslashes removed) into out; false at the end. */
static bool shell_word(const char **p, char *out)
{
	const char *s = *p;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s)
		return false;
	while (*s && *s != ' ' && *s != '\t') {
		if (*s == '\'') {
			for (s++; *s && *s != '\''; s++)
				*out++ = *s;
			s += *s == '\'';
		} else if (*s == '"') {
			for (s++; *s && *s != '"'; s++) {
				s += *s == '\\' && s[1];
				*out++ = *s;
			}
			s += *s == '"';
		} else {
			s += *s == '\\' && s[1];
			*out++ = *s++;
		}
	}
	*out = '\0';
	*p = s;
	return true;
}

/* Splits text into a NULL-terminated argv of shell words. */
static int split_argv(const char *text, char ***argv)
{
	size_t len = strlen(text), n = 0;
	char *word = malloc(len + 1), **v = calloc(len / 2 + 2, sizeof(*v));
	const char *p = text;
	int err = -ENOMEM;

	if (!word || !v)
		goto out;
	while (shell_word(&p, word)) {
		v[n] = strdup(word);
		if (!v[n++])
			goto out;
	}
	for (size_t i = 0; (*argv) && (*argv)[i]; i++)
		free((*argv)[i]);
	free(*argv);
	*argv = v;
	v = NULL;
	err = 0;
out:
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
	free(word);
	return err;
}

static int set_str(char **dst, const char *s)
{
	char *d = strdup(s);

	if (!d)
		return -ENOMEM;
	free(*dst);
	*dst = d;
	return 0;
}

/* "A,B,C" (or "-": none) into info->extra_pids. */
static int parse_pids(struct bc_er_info *info, const char *val)
{
	size_t n = 0;
	uint32_t *v;

	free(info->extra_pids);
	info->extra_pids = NULL;
	info->n_extra_pids = 0;
	if (!strcmp(val, "-"))
		return 0;
	for (const char *p = val; *p; p++)
		n += *p == ',';
	v = calloc(n + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (const char *p = val; *p && info->n_extra_pids <= n;) {
		char *end;
		unsigned long pid = strtoul(p, &end, 10);

		if (end == p || pid == 0 || pid > UINT32_MAX)
			break; /* untrusted: keep what parsed */
		v[info->n_extra_pids++] = (uint32_t)pid;
		p = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			break;
	}
	info->extra_pids = v;
	return 0;
}

/* One exp_KEY of the session comment; num: its value when it is a number. */
static int session_key(struct bc_er_info *info, const char *key, const char *val,
		       const uint64_t *num)
{
	static const struct {
		const char *key;
		size_t off;
	} flags[] = {
		{"kernel", offsetof(struct bc_er_info, kernel_exp)},
		{"system_wide", offsetof(struct bc_er_info, system_wide)},
		{"attached", offsetof(struct bc_er_info, attached)},
		{"no_follow", offsetof(struct bc_er_info, no_follow)},
		{"offcpu", offsetof(struct bc_er_info, offcpu)},
		{"offcpu_in_founder", offsetof(struct bc_er_info, offcpu_in_founder)},
		{"heap", offsetof(struct bc_er_info, heap)},
		{"sync", offsetof(struct bc_er_info, sync)},
		{"io", offsetof(struct bc_er_info, io)},
	};

	if (!strcmp(key, "extra_pids"))
		return parse_pids(info, val);
	if (!num || *num > UINT32_MAX)
		return 0; /* untrusted: a bad value is no fact */
	if (!strcmp(key, "profile_us"))
		info->profile_us = (uint32_t)*num;
	else if (!strcmp(key, "sync_us"))
		info->sync_threshold_us = (uint32_t)*num;
	else if (!strcmp(key, "host_ip"))
		info->host_ip = (uint32_t)*num;
	else if (!strcmp(key, "root_pid")) {
		info->session_root_pid = (uint32_t)*num;
		info->have_session_root = true;
	}
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		if (!strcmp(key, flags[i].key))
			*(bool *)((char *)info + flags[i].off) = *num != 0;
	return 0;
}

/* <system hostname= arch= os="Linux RELEASE" pagesz= npages=>: info->host. */
static int parse_system(struct bc_er_info *info, const struct bc_xml_elem *e)
{
	struct bc_host *h = &info->host;
	const char *v;
	int64_t n;
	int err = 0;

	info->have_host = true;
	if ((v = bc_xml_attr(e, "hostname"))) {
		snprintf(h->hostname, sizeof(h->hostname), "%s", v);
		err = set_str(&info->hostname, v);
	}
	if ((v = bc_xml_attr(e, "arch")))
		snprintf(h->arch, sizeof(h->arch), "%s", v);
	if (!err && (v = bc_xml_attr(e, "os"))) {
		snprintf(h->release, sizeof(h->release), "%s", strncmp(v, "Linux ", 6) ? v : v + 6);
		err = set_str(&info->os, v);
	}
	if (parse_s64(bc_xml_attr(e, "pagesz"), &n) && n >= 0)
		h->pagesz = (long)n;
	if (parse_s64(bc_xml_attr(e, "npages"), &n) && n >= 0)
		h->npages = (long)n;
	return err;
}

/* One key=value of a "bpfcollect: ..." comment; unknown keys are newer facts, skipped. */
static int comment_key(struct bc_er_info *info, const char *key, const char *val)
{
	uint64_t v = 0;
	int64_t s;
	bool num = parse_u64(val, 10, &v);

	if (!strcmp(key, "format"))
		info->format = num && v < 1000000 ? (unsigned int)v : 1000000;
	else if (!strcmp(key, "kernel"))
		return set_str(&info->kernel, val);
	else if (!strcmp(key, "libbpf"))
		return set_str(&info->libbpf, val);
	else if (!strcmp(key, "options"))
		return set_str(&info->options, val);
	else if (!strcmp(key, "ringbuf") && num && v <= UINT32_MAX)
		info->ringbuf_bytes = (uint32_t)v;
	else if (!strcmp(key, "syscalls"))
		info->syscalls = !strcmp(val, "on");
	else if (!strcmp(key, "wall_offset_ns") && parse_s64(val, &s))
		info->wall_offset_ns = s;
	else if (!strcmp(key, "events") && num) {
		info->events = v;
		info->have_counts = true;
	} else if (!strcmp(key, "exit_status") && parse_s64(val, &s) && s >= -1 && s <= INT32_MAX)
		info->exit_status = (int)s;
	else if (!strcmp(key, "bad_records") && num)
		info->bad_records = v;
	else if (!strcmp(key, "records") && num)
		info->records_written = v;
	else if (!strcmp(key, "cut_errno") && num && v > 0 && v < 4096)
		info->cut_short_errno = (int)v;
	else if (!strncmp(key, "exp_", 4))
		return session_key(info, key + 4, val, num ? &v : NULL);
	for (int i = 0; i < BC_LOSS_NR; i++)
		if (!strcmp(key, bc_loss_class_name(i)) && num)
			info->lost[i] = v;
	return 0;
}

static int parse_comment(struct bc_er_info *info, const char *text)
{
	const char *p = text + strlen("bpfcollect:");
	char *word;
	int err = 0;

	if (strncmp(text, "bpfcollect:", strlen("bpfcollect:")) != 0)
		return 0;
	while (*p == ' ')
		p++;
	if (!strncmp(p, "command:", 8))
		return split_argv(p + 8, &info->argv);
	word = malloc(strlen(p) + 1);
	if (!word)
		return -ENOMEM;
	while (!err && shell_word(&p, word)) {
		char *eq = strchr(word, '=');

		if (!eq)
			continue; /* a label such as "clock" or "lost" */
		*eq = '\0';
		err = comment_key(info, word, eq + 1);
	}
	free(word);
	return err;
}

int bc_er_open_xml(struct bc_er_reader *r, const char *name, uint64_t limit, struct bc_xml *x,
		   uint64_t *size)
{
	struct stat st;
	/* a regular file only, never through a link, never waiting on a FIFO */
	int fd = bc_er_open_file(r, name, &st);

	if (fd < 0)
		return fd;
	/* a live file may grow meanwhile: what it held at open is what is read */
	*size = (uint64_t)st.st_size < limit ? (uint64_t)st.st_size : limit;
	bc_xml_init_fd(x, fd, *size);
	return 0;
}

int bc_er_xml_next(struct bc_er_reader *r, struct bc_xml *x, struct bc_xml_elem *e,
		   const char *file, bool note)
{
	int ret = bc_xml_next(x, e);
	unsigned int line;
	const char *msg = bc_xml_error(x, &line);

	if (ret == -ENODATA && note)
		bc_er_note(r->info, "%s:%u: %s; ignored (experiment still being written?)", file,
			   line, msg);
	else if (ret < 0 && ret != -ENODATA)
		return bc_er_fail(r, ret, "%s/%s:%u: %s", r->path, file, line, msg);
	return ret == -ENODATA ? 0 : ret;
}

static int log_event(struct bc_er_reader *r, const struct bc_xml_elem *e)
{
	struct bc_er_info *info = r->info;
	const char *kind = bc_xml_attr(e, "kind"), *id = bc_xml_attr(e, "id");
	uint64_t t;
	int64_t s;

	if (!kind)
		return 0;
	if (!strcmp(kind, "run")) {
		if (!bc_xml_parse_tstamp(bc_xml_attr(e, "tstamp"), &t))
			return bc_er_fail(r, -EINVAL, "%s/log.xml:%u: bad run tstamp", r->path,
					  e->line);
		info->start_ktime = t;
		r->saw_run = true;
		if (parse_s64(bc_xml_attr(e, "time"), &s))
			info->wall_time = s;
	} else if (!strcmp(kind, "exit")) {
		if (!bc_xml_parse_tstamp(bc_xml_attr(e, "tstamp"), &t))
			return bc_er_fail(r, -EINVAL, "%s/log.xml:%u: bad exit tstamp", r->path,
					  e->line);
		info->closed = true;
		info->exit_tstamp = t;
	} else if (!strcmp(kind, "comment") && id && !strcmp(id, "400")) {
		if (parse_comment(info, e->text))
			return bc_er_fail(r, -ENOMEM, "%s: out of memory", r->path);
	}
	return 0;
}

static int log_element(struct bc_er_reader *r, const struct bc_xml_elem *e)
{
	struct bc_er_info *info = r->info;
	const char *v;
	uint64_t u;
	int err = 0;

	if (!strcmp(e->name, "experiment"))
		r->saw_experiment = true;
	if (!strcmp(e->name, "experiment") && (v = bc_xml_attr(e, "version"))) {
		if (sscanf(v, "%u.%u", &info->version_major, &info->version_minor) < 1)
			return bc_er_fail(r, -EINVAL, "%s/log.xml:%u: bad experiment version '%s'",
					  r->path, e->line, v);
	} else if (!strcmp(e->name, "collector")) {
		err = set_str(&info->collector, e->text);
	} else if (!strcmp(e->name, "system")) {
		err = parse_system(info, e);
	} else if (!strcmp(e->name, "cpu")) {
		if (parse_u64(bc_xml_attr(e, "id"), 10, &u) && u < BC_HOST_MAX_CPUS) {
			uint64_t clk = 0;

			parse_u64(bc_xml_attr(e, "clk"), 10, &clk);
			info->host.cpu_mhz[u] = clk <= UINT32_MAX ? (unsigned int)clk : 0;
			if (u + 1 > info->host.ncpus)
				info->host.ncpus = (unsigned int)u + 1;
		}
	} else if (!strcmp(e->name, "process")) {
		int64_t id;

		if (parse_s64(bc_xml_attr(e, "pgrp"), &id) && id >= 0 && id <= INT32_MAX)
			info->pgrp = (int32_t)id;
		if (parse_s64(bc_xml_attr(e, "sid"), &id) && id >= 0 && id <= INT32_MAX)
			info->sid = (int32_t)id;
		if (parse_u64(bc_xml_attr(e, "pid"), 10, &u) && u <= UINT32_MAX)
			info->root_pid = (uint32_t)u;
		if (parse_u64(bc_xml_attr(e, "ppid"), 10, &u) && u <= UINT32_MAX)
			info->ppid = (uint32_t)u;
		if ((v = bc_xml_attr(e, "cwd")))
			err = set_str(&info->cwd, v);
		if (!err && !e->nattrs)
			err = set_str(&info->cmdline, e->text);
	} else if (!strcmp(e->name, "event")) {
		return log_event(r, e);
	}
	return err ? bc_er_fail(r, err, "%s: out of memory", r->path) : 0;
}

static int parse_log(struct bc_er_reader *r)
{
	struct bc_er_info *info = r->info;
	struct bc_xml_elem e;
	struct bc_xml x;
	uint64_t size;
	int err;

	err = bc_er_open_xml(r, "log.xml", UINT64_MAX, &x, &size);
	if (err == -ENOENT)
		return bc_er_fail(
			r, -ENOENT,
			"%s: not an experiment (no log.xml); give the path of a .er directory",
			r->path);
	if (err)
		return err;
	while ((err = bc_er_xml_next(r, &x, &e, "log.xml", true)) > 0 &&
	       !(err = log_element(r, &e)))
		;
	bc_xml_fini(&x);
	if (err)
		return err;
	/*
	 * Every writer's log opens with <experiment>, and gprofng needs a run
	 * event (it reads a log that lacks the other): without both, the file
	 * is empty or no experiment's log.
	 */
	if (!r->saw_experiment && !r->saw_run)
		return bc_er_fail(r, -EINVAL,
				  "%s/log.xml holds neither an <experiment> element nor a run "
				  "event: the experiment is damaged (an empty or foreign "
				  "log.xml); give a whole experiment",
				  r->path);

	if (info->version_major > 12)
		return bc_er_fail(
			r, -EPROTONOSUPPORT,
			"%s: experiment version %u.%u is newer than this bpfcollect reads (12.x)",
			r->path, info->version_major, info->version_minor);
	if (info->version_major && info->version_major < 12)
		return bc_er_fail(r, -EPROTONOSUPPORT,
				  "%s: experiment version %u.%u is too old (12.x is read)", r->path,
				  info->version_major, info->version_minor);
	if (info->format > BC_ER_FORMAT)
		return bc_er_fail(
			r, -EPROTONOSUPPORT,
			"%s: written by a newer bpfcollect (format %u; this one reads format "
			"%d); upgrade bpfcollect",
			r->path, info->format, BC_ER_FORMAT);
	if (!info->start_ktime)
		bc_er_note(info, "log.xml: no run event; times are relative to 0");
	if (!info->wall_offset_ns && info->wall_time)
		info->wall_offset_ns =
			info->wall_time * (int64_t)NSEC_PER_SEC - (int64_t)info->start_ktime;
	if (!info->argv && (err = split_argv(info->cmdline ? info->cmdline : "", &info->argv)))
		return bc_er_fail(r, err, "%s: out of memory", r->path);
	return 0;
}

/*
 * functions: "# comment" lines, then "id\tobject\t0xoffset\t0xaddr\tsize\tname" lines,
 * with a seventh field, the capture spec text, for functions with --arg/--retval.
 */
static int parse_functions(struct bc_er_reader *r)
{
	size_t len, lineno = 0;
	char *buf, *line, *nl;
	int err;

	err = map_text(r, "functions", &buf, &len);
	if (err == -ENOENT) {
		if (r->info->format)
			bc_er_note(r->info, "functions: missing; function names are unknown");
		return 0;
	}
	if (err)
		return err;
	for (line = buf; len && line < buf + len; line = nl + 1) {
		char *f[7], *p = line;
		uint64_t id, off, addr, size;
		int nf = 0;

		lineno++;
		nl = memchr(line, '\n', buf + len - line);
		if (!nl) {
			bc_er_note(r->info, "functions:%zu: torn last line ignored", lineno);
			break;
		}
		*nl = '\0';
		if (line[0] == '#' || line[0] == '\0')
			continue;
		while (p && nf < 7)
			f[nf++] = strsep(&p, "\t");
		if (nf < 6 || nf > 7 || !parse_u64(f[0], 10, &id) || !parse_u64(f[2], 0, &off) ||
		    !parse_u64(f[3], 0, &addr) || !parse_u64(f[4], 10, &size)) {
			err = bc_er_fail(r, -EINVAL,
					 "%s/functions:%zu: expected id, object, offset, addr, "
					 "size, name separated by tabs",
					 r->path, lineno);
			goto out;
		}
		/* ids index the table (they are BPF cookies): they must come densely, in order */
		if (id != r->info->funcs.n) {
			err = bc_er_fail(r, -EINVAL,
					 "%s/functions:%zu: function id %llu out of order", r->path,
					 lineno, (unsigned long long)id);
			goto out;
		}
		err = bc_functab_add(&r->info->funcs, f[5], f[1], addr, size, off);
		if (err) {
			bc_er_fail(r, err, "%s: out of memory", r->path);
			goto out;
		}
		if (nf == 7 && f[6][0]) {
			struct bc_func *fn = &r->info->funcs.v[r->info->funcs.n - 1];
			char why[256];

			if (bc_capture_spec_parse_text(f[6], &fn->capture, why, sizeof(why)) < 0) {
				err = bc_er_fail(r, -EINVAL,
						 "%s/functions:%zu: bad capture spec: %s", r->path,
						 lineno, why);
				goto out;
			}
		}
	}
out:
	unmap_text(buf, len);
	return err;
}

/*
 * info->kallmodsyms: its path when the experiment has one that reads (the
 * sinks replayed into open it by name: it must be a regular file now).
 */
static int find_kallmodsyms(struct bc_er_reader *r)
{
	struct stat st;
	int fd = bc_er_open_file(r, "kallmodsyms", &st);

	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return fd;
	close(fd);
	if (asprintf(&r->info->kallmodsyms, "%s/kallmodsyms", r->path) < 0) {
		r->info->kallmodsyms = NULL;
		return bc_er_fail(r, -ENOMEM, "%s: out of memory", r->path);
	}
	return 0;
}

int bc_er_reader_open(struct bc_er_reader *rd, const char *exp_path, struct bc_er_info *info,
		      char *err, size_t errlen)
{
	struct bc_er_reader r = {
		.path = exp_path, .info = info, .err = err, .errlen = errlen, .dirfd = -1};
	uint64_t stored = 0;
	int ret;

	memset(info, 0, sizeof(*info));
	info->exit_status = -1;
	bc_functab_init(&info->funcs);
	if (errlen)
		err[0] = '\0';
	r.dirfd = open(exp_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (r.dirfd < 0) {
		ret = errno == ENOTDIR
			      ? bc_er_fail(&r, -ENOTDIR,
					   "%s: not an experiment (not a directory); give the "
					   "path of a .er directory",
					   exp_path)
			      : bc_er_fail(&r, -errno, "%s: %s", exp_path, strerror(errno));
		goto out;
	}
	bc_er_remove_stale_reserve(r.dirfd, info);
	if ((ret = parse_log(&r)) || (ret = parse_functions(&r)) || (ret = bc_er_maps_scan(&r)))
		goto out;
	for (uint32_t f = 0; f < BC_ER_NFILES; f++)
		if ((ret = bc_er_index_file(&r, f)))
			goto out;
	for (uint32_t f = 0; f < BC_ER_NFILES; f++)
		stored += info->files[f].records + info->files[f].bad_records;
	if ((ret = find_kallmodsyms(&r)))
		goto out;
	if (!info->closed)
		bc_er_note(info,
			   "log.xml: no exit event: experiment not closed (still recording, or "
			   "the agent died)");
	else if (info->records_written != stored)
		bc_er_note(info,
			   "log.xml: the writer stored %llu records, the data files hold %llu",
			   (unsigned long long)info->records_written, (unsigned long long)stored);
out:
	*rd = r;
	return ret;
}

void bc_er_reader_close(struct bc_er_reader *r)
{
	bc_er_replay_free(r);
	bc_er_maps_free(r);
	if (r->dirfd >= 0)
		close(r->dirfd);
	r->dirfd = -1;
}

int bc_er_read(const char *exp_path, struct bc_sink *sink, struct bc_er_info *info, char *err,
	       size_t errlen)
{
	struct bc_er_reader r;
	int ret = bc_er_reader_open(&r, exp_path, info, err, errlen);

	if (!ret && sink) {
		ret = bc_er_replay(&r, sink);
	} else if (!ret) {
		for (uint32_t f = 0; f < BC_ER_NFILES; f++)
			info->events_read += info->files[f].records;
	}
	bc_er_reader_close(&r);
	return ret;
}

void bc_er_info_free(struct bc_er_info *info)
{
	char **strs[] = {&info->collector, &info->cmdline,    &info->options, &info->cwd,
			 &info->hostname,  &info->os,	      &info->kernel,  &info->libbpf,
			 &info->notes,	   &info->kallmodsyms};

	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		free(*strs[i]);
	if (info->notes_seen)
		bc_strtab_free(info->notes_seen);
	free(info->notes_seen);
	for (size_t i = 0; info->argv && info->argv[i]; i++)
		free(info->argv[i]);
	free(info->argv);
	free(info->extra_pids);
	bc_functab_free(&info->funcs);
	memset(info, 0, sizeof(*info));
}
