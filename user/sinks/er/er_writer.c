// SPDX-License-Identifier: MIT
/*
 * The `.er` writer sink. gprofng's files (log.xml, map.xml, overview) follow
 * gprofng's own reader (docs/experiment-format.md); bpfcollect's private
 * files (functions and the raw record files) are described there too.
 *
 * Two rules keep every experiment readable while it is written, and after a
 * crash or a full disk: XML is appended whole elements per write(), and data
 * files only ever hold whole records (a torn write is cut back).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "bpfcollect/outmode.h"
#include "bpfcollect/argspec.h"
#include "er_overview.h"
#include "er_ksyms.h"
#include "er_profile.h"
#include "er_traces.h"
#include "er_strbuf.h"
#include "er_data.h"
#include "er_log_head.h"
#include "bpfcollect/experiment.h"
#include "bpfcollect/names.h"
#include "bpfcollect/xml.h"

/*
 * Space held from the start, freed when a write fails for want of it, so
 * the experiment can still say it was cut short, and close whole.
 */
#define RESERVE_NAME  ".bcreserve"
#define RESERVE_BYTES (64 * 1024)
#define NSEC_PER_SEC  1000000000ULL

struct er_writer {
	struct bc_sink sink;
	char *path;
	int dirfd;
	int log_fd;
	int map_fd;
	uint64_t log_size;
	uint64_t map_size;
	struct data_out data[BC_ER_NFILES];
	bool begun;
	bool ended;
	uint32_t root_pid;
	uint64_t start_ktime;
	uint64_t last_ktime;
	uint64_t mappings;
	/* segments written to map.xml and not unmapped since: [start, end) pairs */
	struct er_overview overview;
	struct er_profile profile; /* -p, and off-CPU time as clock data; the stacks of all */
	bool profiling;
	struct er_traces traces; /* -H, -s */
	bool offcpu_clock;   /* off-CPU intervals also go into `profile` (not the kernel founder) */
	bool offcpu_private; /* and into `sched`, whole (not when the founder holds them) */
	uint64_t (*live_segments)[2];
	size_t n_live, cap_live;
	struct er_ksyms *ksyms; /* a subexperiment's: it writes the symbols it needs at the end */
	bool reserved;		/* RESERVE_NAME holds RESERVE_BYTES */
	int reserve_fd;		/* open and locked while it does: a reader knows we live */
	int cut_short;		/* the -errno a write failed with: the rest is not written */
	uint64_t held_lost[BC_LOSS_NR]; /* LOST records since, written at the end */
};

static const struct bc_sink_ops er_ops;

/* What every writer dropped when its write failed (bc_er_unwritten_total). */
static uint64_t dropped_total;

uint64_t bc_er_unwritten_total(void)
{
	return dropped_total;
}
static int add_sample(struct er_writer *w, const struct bc_usage *u, const char *label);

static int flush_all(struct er_writer *w)
{
	int err = 0;

	for (int i = 0; i < BC_ER_NFILES; i++) {
		int e = er_data_flush(&w->data[i]);

		if (e && !err)
			err = e;
	}
	if (w->profiling) {
		/* the stacks before the packets naming them, for a reader watching live */
		int e = er_profile_flush(&w->profile);

		if (e && !err)
			err = e;
		e = er_traces_flush(&w->traces);
		if (e && !err)
			err = e;
	}
	return err;
}

int bc_er_sink_close(struct bc_sink **writer, uint64_t ktime, int exit_status)
{
	struct bc_session_end end = {.end_ktime = ktime, .exit_status = exit_status};
	int rc;

	if (!*writer)
		return 0;
	rc = bc_sink_end(*writer, &end);
	bc_sink_destroy(*writer);
	*writer = NULL;
	return rc;
}

int bc_er_sink_flush(struct bc_sink *sink)
{
	if (!sink || sink->ops != &er_ops)
		return -EINVAL;
	return flush_all((struct er_writer *)sink);
}

static int er_flush(struct bc_sink *sink)
{
	return flush_all((struct er_writer *)sink);
}

static void er_sb_tstamp(struct er_strbuf *b, uint64_t ns);

int bc_er_sink_log_event(struct bc_sink *sink, uint64_t ktime, const char *kind, const char *attrs)
{
	struct er_writer *w = (struct er_writer *)sink;
	struct er_strbuf b = {0};
	int err;

	if (!sink || sink->ops != &er_ops || !w->begun || w->ended)
		return -EINVAL;
	/* tstamps are relative to the run event and never negative */
	er_sb_printf(&b, "<event kind=\"%s\" tstamp=\"", kind);
	er_sb_tstamp(&b, ktime > w->start_ktime ? ktime - w->start_ktime : 0);
	er_sb_printf(&b, "\" %s/>\n", attrs ? attrs : "");
	err = b.oom ? -ENOMEM : er_write_sb(w->log_fd, &w->log_size, &b);
	free(b.s);
	return err;
}

/*
 * RESERVE_BYTES held for the end; without them (no room already, no
 * fallocate) it goes on. The file stays open and locked (flock) while it
 * is held, and gets its name only once locked: a reader finding it
 * unlocked knows the recording that made it was killed, and removes it
 * (user/readers/stale_reserve.c).
 */
static void reserve_space(struct er_writer *w)
{
	char tmp[64];
	int fd;

	w->reserve_fd = -1;
	snprintf(tmp, sizeof(tmp), RESERVE_NAME ".%d", (int)getpid());
	fd = bc_out_openat(w->dirfd, tmp, O_WRONLY | O_EXCL | O_CLOEXEC);
	if (fd < 0)
		return;
	w->reserved = flock(fd, LOCK_EX | LOCK_NB) == 0 &&
		      posix_fallocate(fd, 0, RESERVE_BYTES) == 0 &&
		      renameat(w->dirfd, tmp, w->dirfd, RESERVE_NAME) == 0;
	if (!w->reserved) {
		unlinkat(w->dirfd, tmp, 0);
		close(fd);
		return;
	}
	w->reserve_fd = fd;
}

static void release_reserve(struct er_writer *w)
{
	if (w->reserved)
		unlinkat(w->dirfd, RESERVE_NAME, 0);
	if (w->reserve_fd >= 0)
		close(w->reserve_fd);
	w->reserve_fd = -1;
	w->reserved = false;
}

/*
 * A write failed for want of space: with the reserve freed, what the
 * agent counted since (the LOST records it held, the records a failed
 * write dropped as unwritten) goes into proctrace, so every reader and
 * format sees the cut, and says "cut short" in log.xml.
 */
static int write_cut_short(struct er_writer *w, struct er_strbuf *log)
{
	struct data_out *d = &w->data[BC_ER_PROCTRACE];
	struct er_strbuf t = {0};
	int err = 0;

	release_reserve(w);
	for (int i = 0; i < BC_ER_NFILES; i++) {
		w->held_lost[BC_LOSS_UNWRITTEN] += w->data[i].dropped;
		dropped_total += w->data[i].dropped;
	}
	d->err = 0; /* whole records up to the failure: appending is safe again */
	for (unsigned int c = 0; c < BC_LOSS_NR && !err; c++) {
		struct bc_rec_lost rec = {
			.h = {.size = sizeof(rec),
			      .kind = BC_REC_LOST,
			      .pid = w->root_pid,
			      .ktime = w->last_ktime},
			.loss_class = c,
			.count = w->held_lost[c],
		};

		if (!rec.count)
			continue;
		err = er_data_append(d, &rec, sizeof(rec));
	}
	if (!err)
		err = er_data_flush(d);
	er_sb_printf(&t, "bpfcollect: cut short cut_errno=%d unwritten=%llu", -w->cut_short,
		     (unsigned long long)w->held_lost[BC_LOSS_UNWRITTEN]);
	er_sb_comment(log, &t);
	free(t.s);
	return err;
}

static int create_file(struct er_writer *w, const char *name, int *fd)
{
	*fd = bc_out_openat(w->dirfd, name, O_WRONLY | O_EXCL | O_APPEND | O_CLOEXEC);
	return *fd < 0 ? -errno : 0;
}

static void er_sb_tstamp(struct er_strbuf *b, uint64_t ns)
{
	char t[BC_XML_TSTAMP_LEN];

	er_sb_printf(b, "%s", bc_xml_format_tstamp(t, ns));
}

static uint64_t rel_time(const struct er_writer *w, uint64_t ktime)
{
	return ktime > w->start_ktime ? ktime - w->start_ktime : 0;
}

static int write_functions(struct er_writer *w, const struct bc_functab *funcs)
{
	struct er_strbuf b = {0};
	uint64_t size = 0;
	int fd, err;

	err = create_file(w, "functions", &fd);
	if (err)
		return err;
	er_sb_printf(&b,
		     "# bpfcollect functions %d: id object offset addr size name [capture] "
		     "(tab-separated)\n",
		     BC_ER_FORMAT);
	for (size_t i = 0; funcs && i < funcs->n; i++) {
		const struct bc_func *f = &funcs->v[i];
		const char *fields[2] = {f->object ? f->object : "", f->name ? f->name : ""};

		er_sb_printf(&b, "%u\t", f->id);
		for (int k = 0; k < 2; k++) {
			/* tabs and newlines are the file's separators: never let a name hold one */
			for (const char *p = fields[k]; *p; p++)
				er_sb_putc(&b, (unsigned char)*p < 0x20 ? '?' : *p);
			if (k == 0)
				er_sb_printf(&b, "\t0x%llx\t0x%llx\t%llu\t",
					     (unsigned long long)f->offset,
					     (unsigned long long)f->addr,
					     (unsigned long long)f->size);
		}
		if (bc_func_captures(f)) {
			char text[BC_CAPTURE_TEXT_MAX];

			if (bc_capture_spec_format(&f->capture, text, sizeof(text)) == 0)
				er_sb_printf(&b, "\t%s", text);
		}
		er_sb_putc(&b, '\n');
	}
	err = er_write_sb(fd, &size, &b);
	free(b.s);
	close(fd);
	return err;
}

/*
 * The profile file; with -p (kernel_stacks) also the kernel as gprofng
 * knows it: a LinuxKernel segment in map.xml and kallmodsyms. Without
 * kernel symbols (hidden addresses) kernel frames show as <Unknown>; the
 * profile is still written. Off-CPU stacks are user stacks only.
 */
static int profile_begin(struct er_writer *w, const struct bc_session *s, uint32_t ptimer_us,
			 bool kernel_stacks)
{
	const char *base = strrchr(w->path, '/');
	struct er_strbuf b = {0};
	uint64_t text = 0;
	int err;

	err = er_profile_open(&w->profile, w->dirfd, ptimer_us);
	if (err)
		return err;
	w->profiling = true;
	if (!kernel_stacks || !s->kallsyms)
		return 0;
	base = base ? base + 1 : w->path;
	/* a subexperiment keeps only the kernel functions its samples hit: written at the end */
	if (base[0] == '_' && s->kallsyms_formatted && (w->ksyms = er_ksyms_acquire(s->kallsyms))) {
		text = er_ksyms_text_start(w->ksyms);
		/*
		 * The founder's whole copy until the end writes the part it
		 * needs: killed before then, it still names what map.xml says.
		 */
		linkat(w->dirfd, "../kallmodsyms", w->dirfd, "kallmodsyms", 0);
	} else if (er_kallmodsyms_write(w->dirfd, s->kallsyms, s->kallsyms_formatted,
					base[0] == '_', &text) < 0)
		return 0;
	er_sb_printf(&b,
		     "<event kind=\"map\" object=\"segment\" tstamp=\"0.000000000\" "
		     "vaddr=\"0x%016llX\" size=\"%d\" pagesz=\"4096\" foffset=\"+0x00000000\" "
		     "modes=\"0x005\" chksum=\"0x0\" name=\"LinuxKernel\"/>\n",
		     (unsigned long long)text, 0x1000000);
	err = er_write_sb(w->map_fd, &w->map_size, &b);
	free(b.s);
	return err;
}

static int er_begin(struct bc_sink *sink, const struct bc_session *s)
{
	struct er_writer *w = (struct er_writer *)sink;
	struct er_strbuf b = {0};
	uint32_t ptimer;
	bool traces;
	int64_t wall;
	int err;

	if (w->begun)
		return -EALREADY;
	w->begun = true;
	w->root_pid = s->root_pid;
	w->start_ktime = s->start_ktime;

	err = create_file(w, "log.xml", &w->log_fd);
	if (!err)
		err = create_file(w, "map.xml", &w->map_fd);
	for (int i = 0; i < BC_ER_NFILES && !err; i++)
		err = create_file(w, bc_er_file_name(i), &w->data[i].fd);
	if (!err)
		err = write_functions(w, s->funcs);
	if (err)
		return err;
	reserve_space(w);

	er_sb_header(&b, s);
	w->offcpu_clock = s->offcpu && s->root_pid;
	w->offcpu_private = !s->offcpu_in_founder;
	ptimer = s->profile_us ? s->profile_us : w->offcpu_clock ? BC_ER_OFFCPU_TICK_US : 0;
	if (ptimer) {
		char decl[2048];

		er_profile_decl(decl, sizeof(decl), ptimer, w->offcpu_clock);
		er_sb_printf(&b, "%s", decl);
	}
	traces = s->root_pid && (s->heap || s->sync || s->io);
	if (traces) {
		char decl[4096];

		er_traces_decl(decl, sizeof(decl), s->heap, s->sync, s->sync_threshold_us, s->io);
		er_sb_printf(&b, "%s", decl);
	}
	wall = bc_wall_ns(s->start_ktime, s->wall_offset_ns) / (int64_t)NSEC_PER_SEC;
	if (wall <= 0)
		wall = time(NULL);
	er_sb_printf(&b, "<event kind=\"run\" tstamp=\"");
	er_sb_tstamp(&b, s->start_ktime);
	er_sb_printf(&b, "\" time=\"%lld\" tm_zone=\"0\"/>\n", (long long)wall);
	er_sb_printf(&b, "<event kind=\"sample\" tstamp=\"0.000000000\" id=\"0\" "
			 "label=\"collector_open_experiment\"/>\n");
	er_sb_begin_comments(&b, s);
	err = er_write_sb(w->log_fd, &w->log_size, &b);
	free(b.s);
	if (!err)
		err = er_overview_open(&w->overview, w->dirfd, s->root_pid, s->start_ktime);
	if (!err && (ptimer || traces))
		err = profile_begin(w, s, ptimer, s->profile_us != 0);
	if (!err && traces)
		err = er_traces_open(&w->traces, w->dirfd, s->heap, s->sync, s->io);
	return err;
}

/* The gprofng packets of a record of a kind gprofng knows (clock, heap, sync, I/O). */
static int add_gprofng_packets(struct er_writer *w, const struct bc_rec_head *h)
{
	if (h->kind == BC_REC_OFFCPU && w->offcpu_clock && h->size >= sizeof(struct bc_rec_offcpu))
		return er_profile_add_offcpu(&w->profile, (const struct bc_rec_offcpu *)h);
	if (!w->profiling)
		return 0;
	if (h->kind == BC_REC_PROFILE && h->size >= sizeof(struct bc_rec_profile))
		return er_profile_add(&w->profile, (const struct bc_rec_profile *)h);
	if (h->kind == BC_REC_HEAP && h->size >= sizeof(struct bc_rec_heap))
		return er_traces_add_heap(&w->traces, &w->profile, (const struct bc_rec_heap *)h);
	if (h->kind == BC_REC_SYNC && h->size >= sizeof(struct bc_rec_sync))
		return er_traces_add_sync(&w->traces, &w->profile, (const struct bc_rec_sync *)h);
	if (h->kind == BC_REC_IO && h->size >= sizeof(struct bc_rec_io))
		return er_traces_add_io(&w->traces, &w->profile, (const struct bc_rec_io *)h);
	return 0;
}

static int add_event(struct er_writer *w, const struct bc_event *ev)
{
	const struct bc_rec_head *h = ev->rec;
	int f, err;

	/* the reader frames records by size: a bad one would corrupt the rest of the file */
	if (h->size < sizeof(*h) || (h->size & 7))
		return -EINVAL;
	/* Kinds gprofng knows go into its files too; the private file replays them whole. */
	err = add_gprofng_packets(w, h);
	if (err)
		return err;
	if (h->kind == BC_REC_OFFCPU && !w->offcpu_private) {
		if (h->ktime > w->last_ktime)
			w->last_ktime = h->ktime;
		return 0;
	}
	f = bc_er_file_for_kind(h->kind);
	if (f < 0)
		return f;
	err = er_data_append(&w->data[f], h, h->size);
	if (err)
		return err;
	if (h->ktime > w->last_ktime)
		w->last_ktime = h->ktime;
	/* The agent's usage records of the process are its periodic sample points. */
	if (h->kind == BC_REC_USAGE && h->pid == w->root_pid && !w->overview.final) {
		struct bc_usage u;

		bc_usage_from_record((const struct bc_rec_usage *)h, &u);
		err = add_sample(w, &u, "periodic");
		if (err < 0)
			return err;
	}
	/* The exit record carries the final usage, exact: the last sample point. */
	if (h->kind == BC_REC_PROC_EXIT && h->pid == w->root_pid && !w->overview.final &&
	    h->size >= sizeof(struct bc_rec_exit)) {
		struct bc_usage u;

		er_overview_from_exit((const struct bc_rec_exit *)h, &u);
		err = add_sample(w, &u, "process_exit");
		w->overview.final = true;
		if (err < 0)
			return err;
	}
	return 0;
}

/* The disk (or quota, or file size limit) is full: nothing more fits. */
static bool out_of_space(int err)
{
	return err == -ENOSPC || err == -EDQUOT || err == -EFBIG;
}

static int er_event(struct bc_sink *sink, const struct bc_event *ev)
{
	struct er_writer *w = (struct er_writer *)sink;
	const struct bc_rec_head *h = ev->rec;
	int err;

	if (!w->begun || w->ended || !h)
		return -EINVAL;
	if (w->cut_short) {
		/* the agent's counts, of what it could not write too: kept for the end */
		if (h->kind == BC_REC_LOST) {
			const struct bc_rec_lost *l = (const void *)h;

			w->held_lost[l->loss_class] += l->count;
			return 0;
		}
		return w->cut_short;
	}
	err = add_event(w, ev);
	if (out_of_space(err))
		w->cut_short = err;
	return err;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

static void remember_segment(struct er_writer *w, uint64_t start, uint64_t end)
{
	if (w->n_live == w->cap_live) {
		size_t cap = w->cap_live ? w->cap_live * 2 : 16;
		void *v = realloc(w->live_segments, cap * sizeof(*w->live_segments));

		if (!v)
			return; /* only unmap events are lost: the map stays valid */
		w->live_segments = v;
		w->cap_live = cap;
	}
	w->live_segments[w->n_live][0] = start;
	w->live_segments[w->n_live][1] = end;
	w->n_live++;
}

/* An unmap event for every written segment that starts inside the unmapped range. */
static int write_unmaps(struct er_writer *w, const struct bc_mapping *m)
{
	int err = 0;

	for (size_t i = 0; i < w->n_live && !err;) {
		struct er_strbuf b = {0};
		uint64_t start = w->live_segments[i][0];

		if (start < m->start || start >= m->end) {
			i++;
			continue;
		}
		er_sb_printf(&b, "<event kind=\"unmap\" tstamp=\"");
		er_sb_tstamp(&b, rel_time(w, m->ktime));
		er_sb_printf(&b, "\" vaddr=\"0x%016llX\"/>\n", (unsigned long long)start);
		err = b.oom ? -ENOMEM : er_write_sb(w->map_fd, &w->map_size, &b);
		free(b.s);
		w->live_segments[i][0] = w->live_segments[w->n_live - 1][0];
		w->live_segments[i][1] = w->live_segments[w->n_live - 1][1];
		w->n_live--;
	}
	return err;
}

static int er_mapping(struct bc_sink *sink, const struct bc_mapping *m)
{
	struct er_writer *w = (struct er_writer *)sink;
	struct er_strbuf b = {0};
	uint64_t size;
	int err;

	if (!w->begun || w->ended)
		return -EINVAL;
	if (m->unmap)
		return write_unmaps(w, m);
	/*
	 * gprofng makes load objects of r-x segments only, and warns about
	 * every name it cannot open: [vdso], [uprobes], deleted files.
	 */
	if (m->prot != (PROT_READ | PROT_EXEC) || !m->path || m->path[0] != '/' ||
	    ends_with(m->path, " (deleted)") || m->end <= m->start)
		return 0;
	size = m->end - m->start;
	if (size > INT32_MAX) /* gprofng reads size as a 32-bit int */
		size = INT32_MAX;
	if (m->ktime > w->last_ktime)
		w->last_ktime = m->ktime;
	er_sb_printf(&b, "<event kind=\"map\" object=\"segment\" tstamp=\"");
	er_sb_tstamp(&b, rel_time(w, m->ktime));
	er_sb_printf(&b,
		     "\" vaddr=\"0x%016llX\" size=\"%d\" pagesz=\"4096\" foffset=\"+0x%08llX\" "
		     "modes=\"0x005\" chksum=\"0x0\" name=\"",
		     (unsigned long long)m->start, (int)size, (unsigned long long)m->offset);
	er_sb_escaped(&b, m->path);
	er_sb_printf(&b, "\"/>\n");
	err = er_write_sb(w->map_fd, &w->map_size, &b);
	free(b.s);
	if (!err) {
		w->mappings++;
		remember_segment(w, m->start, m->end);
	}
	return err;
}

/* A sample point: the overview record and its log.xml event, whole elements each. */
static int add_sample(struct er_writer *w, const struct bc_usage *u, const char *label)
{
	struct er_strbuf b = {0};
	int id, err;

	id = er_overview_add(&w->overview, u);
	if (id < 0)
		return id;
	er_sb_printf(&b, "<event kind=\"sample\" tstamp=\"");
	er_sb_tstamp(&b, rel_time(w, u->tstamp));
	er_sb_printf(&b, "\" id=\"%d\" label=\"%s\"/>\n", id, label);
	err = b.oom ? -ENOMEM : er_write_sb(w->log_fd, &w->log_size, &b);
	free(b.s);
	return err;
}

/* A subexperiment's kallmodsyms: the symbols of the kernel PCs in its stacks, once. */
static int write_kernel_symbols(struct er_writer *w)
{
	int rc;

	if (!w->ksyms)
		return 0;
	rc = er_ksyms_write_subset(w->ksyms, w->dirfd, w->profile.kpcs, w->profile.n_kpcs);
	er_ksyms_release(w->ksyms);
	w->ksyms = NULL;
	return rc;
}

static int er_end(struct bc_sink *sink, const struct bc_session_end *e)
{
	struct er_writer *w = (struct er_writer *)sink;
	struct er_strbuf b = {0}, t = {0};
	uint64_t end_ktime, records = 0;
	int err, e2;

	if (!w->begun || w->ended)
		return -EINVAL;
	w->ended = true;
	end_ktime = e->end_ktime >= w->start_ktime ? e->end_ktime : 0;
	if (!end_ktime)
		end_ktime = w->last_ktime > w->start_ktime ? w->last_ktime : w->start_ktime;

	/* data first: a reader that sees the exit event may trust the data files are complete */
	err = flush_all(w);
	if (out_of_space(err) && !w->cut_short)
		w->cut_short = err;
	if (w->cut_short) {
		/* said, and no error of this writer's any more: the agent reports the cut */
		err = write_cut_short(w, &b);
	}
	release_reserve(w);
	e2 = write_kernel_symbols(w);
	if (!err)
		err = e2;
	if (!w->overview.final) {
		/* still running (or its exit was lost): what was last known, up to now */
		struct bc_usage u = w->overview.last;

		u.tstamp = end_ktime;
		u.rtime = end_ktime > u.create ? end_ktime - u.create : 0;
		e2 = add_sample(w, &u, "collector_close_experiment");
		if (!err && e2 < 0)
			err = e2;
	}

	for (int i = 0; i < BC_ER_NFILES; i++)
		records += w->data[i].records;
	er_sb_printf(&t, "bpfcollect: lost");
	for (unsigned int c = 0; c < BC_LOSS_NR; c++)
		er_sb_printf(&t, " %s=%llu", bc_loss_class_name(c),
			     (unsigned long long)(e->lost[c] > w->held_lost[c] ? e->lost[c]
									       : w->held_lost[c]));
	er_sb_printf(&t, " events=%llu", (unsigned long long)e->events);
	er_sb_comment(&b, &t);
	t.len = 0;
	er_sb_printf(&t,
		     "bpfcollect: end end_ktime=%llu exit_status=%d bad_records=%llu records=%llu "
		     "mappings=%llu",
		     (unsigned long long)end_ktime, e->exit_status,
		     (unsigned long long)e->bad_records, (unsigned long long)records,
		     (unsigned long long)w->mappings);
	er_sb_comment(&b, &t);
	er_sb_printf(&b, "<event kind=\"exit\" tstamp=\"");
	er_sb_tstamp(&b, end_ktime - w->start_ktime);
	er_sb_printf(&b, "\"/>\n");
	if (t.oom)
		b.oom = true;
	e2 = er_write_sb(w->log_fd, &w->log_size, &b);
	if (!err)
		err = e2;
	free(t.s);
	free(b.s);
	return err;
}

static void er_destroy(struct bc_sink *sink)
{
	struct er_writer *w = (struct er_writer *)sink;

	/* an agent that stops without end() still leaves its records (experiment "not closed") */
	if (w->begun && !w->ended) {
		flush_all(w);
		release_reserve(w);
		write_kernel_symbols(w);
	}
	er_ksyms_release(w->ksyms);
	for (int i = 0; i < BC_ER_NFILES; i++) {
		if (w->data[i].fd >= 0)
			close(w->data[i].fd);
		er_data_release(&w->data[i]);
	}
	if (w->log_fd >= 0)
		close(w->log_fd);
	if (w->map_fd >= 0)
		close(w->map_fd);
	if (w->dirfd >= 0)
		close(w->dirfd);
	er_overview_close(&w->overview);
	if (w->profiling)
		er_profile_close(&w->profile);
	er_traces_close(&w->traces);
	free(w->live_segments);
	free(w->path);
	free(w);
}

static const struct bc_sink_ops er_ops = {
	.name = "er",
	.begin = er_begin,
	.event = er_event,
	.mapping = er_mapping,
	.end = er_end,
	.flush = er_flush,
	.destroy = er_destroy,
	.whole_syscalls = true,
};

struct bc_sink *bc_er_sink_new(const char *exp_path, char *err, size_t errlen)
{
	struct er_writer *w = calloc(1, sizeof(*w));

	if (!w)
		goto oom;
	w->sink.ops = &er_ops;
	w->log_fd = w->map_fd = w->reserve_fd = -1;
	w->overview.fd = -1;
	for (int i = 0; i < BC_ER_NFILES; i++) {
		w->data[i].fd = -1;
		w->data[i].compact = bc_er_file_compact(i, BC_ER_FORMAT);
	}
	for (int i = 0; i < ER_TRACE_NR; i++)
		w->traces.f[i].fd = -1;
	w->dirfd = open(exp_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (w->dirfd < 0) {
		snprintf(err, errlen, "cannot open experiment %s: %s", exp_path, strerror(errno));
		er_destroy(&w->sink);
		return NULL;
	}
	w->path = strdup(exp_path);
	if (!w->path)
		goto oom;
	return &w->sink;
oom:
	snprintf(err, errlen, "%s: out of memory", exp_path);
	if (w)
		er_destroy(&w->sink);
	return NULL;
}
