// SPDX-License-Identifier: MIT
/*
 * The data half of the `.er` reader: maps the data files (functrace,
 * syscalls, proctrace), frames and validates every record, chains each
 * thread's records per file, and replays them into a sink as a k-way merge
 * in time order, the mappings of map.xml slotted in by time. Every byte is
 * untrusted: a torn or badly framed tail ends a file, an invalid record is
 * skipped, both are counted and noted.
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "er_replay.h"

/* Slot of (file, tid) in slots[n]: the one holding it, or the free one where it goes. */
static size_t slot_find(const struct bc_er_replay *rp, const uint32_t *slots, size_t n,
			uint32_t file, uint32_t tid)
{
	size_t i = (((uint64_t)file << 32 | tid) * 0x9e3779b97f4a7c15ULL >> 32) & (n - 1);

	for (; slots[i]; i = (i + 1) & (n - 1))
		if (rp->streams[slots[i] - 1].file == file && rp->streams[slots[i] - 1].tid == tid)
			break;
	return i;
}

/* The stream of (file, tid), created on first use. */
static int stream_of(struct bc_er_replay *rp, uint32_t file, uint32_t tid, uint32_t *idx)
{
	size_t i;

	/* the map stays at most half full; streams grow with it */
	if (2 * (rp->nstreams + 1) > rp->nslots) {
		size_t n = rp->nslots ? rp->nslots * 2 : 64;
		uint32_t *slots = calloc(n, sizeof(*slots));
		struct bc_er_stream *st = slots ? realloc(rp->streams, n / 2 * sizeof(*st)) : NULL;

		if (!st) {
			free(slots);
			return -ENOMEM;
		}
		rp->streams = st;
		for (size_t s = 0; s < rp->nstreams; s++)
			slots[slot_find(rp, slots, n, st[s].file, st[s].tid)] = (uint32_t)s + 1;
		free(rp->slots);
		rp->slots = slots;
		rp->nslots = n;
	}
	i = slot_find(rp, rp->slots, rp->nslots, file, tid);
	if (!rp->slots[i]) {
		rp->streams[rp->nstreams] = (struct bc_er_stream){
			.tid = tid, .file = file, .cur = BC_ER_NO_NEXT, .tail = BC_ER_NO_NEXT};
		rp->slots[i] = (uint32_t)++rp->nstreams;
	}
	*idx = rp->slots[i] - 1;
	return 0;
}

static int add_record(struct bc_er_replay *rp, uint32_t f, const struct bc_rec_head *h,
		      uint64_t off)
{
	struct bc_er_data *d = &rp->data[f];
	struct bc_er_stream *s;
	uint32_t idx;
	int err;

	if (d->n == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 1024;
		uint64_t *o;
		uint32_t *nx;

		if (cap >= BC_ER_NO_NEXT)
			return -EFBIG;
		o = realloc(d->off, cap * sizeof(*o));
		if (o)
			d->off = o;
		nx = o ? realloc(d->next, cap * sizeof(*nx)) : NULL;
		if (!nx)
			return -ENOMEM;
		d->next = nx;
		d->cap = cap;
	}
	err = stream_of(rp, f, h->tid, &idx);
	if (err)
		return err;
	s = &rp->streams[idx];
	d->off[d->n] = off;
	d->next[d->n] = BC_ER_NO_NEXT;
	if (s->tail == BC_ER_NO_NEXT)
		s->cur = (uint32_t)d->n;
	else
		d->next[s->tail] = (uint32_t)d->n;
	s->tail = (uint32_t)d->n++;
	return 0;
}

int bc_er_index_file(struct bc_er_reader *r, enum bc_er_file f)
{
	struct bc_er_info *info = r->info;
	struct bc_er_file_stats *st = &info->files[f];
	struct bc_er_data *d = &r->rp.data[f];
	const char *name = bc_er_file_name(f);
	struct stat sb;
	uint64_t off = 0;
	int fd, err;

	fd = bc_er_open_file(r, name, &sb);
	if (fd < 0) {
		if (fd != -ENOENT)
			return fd;
		if (info->format >= bc_er_file_since(f))
			bc_er_note(info, "%s: missing", name);
		return 0;
	}
	st->bytes = sb.st_size;
	if (st->bytes) {
		/* mmap: page-aligned, so every record at an 8-byte offset is aligned for decoding
		 */
		void *p = mmap(NULL, st->bytes, PROT_READ, MAP_PRIVATE, fd, 0);

		if (p == MAP_FAILED) {
			err = -errno;
			close(fd);
			return bc_er_fail(r, err, "%s/%s: mmap: %s", r->path, name, strerror(-err));
		}
		d->base = p;
		d->len = st->bytes;
	}
	close(fd);
	if (d->base && bc_er_file_compact(f, info->format)) {
		const unsigned char *p = d->base;

		d->base = NULL;
		d->len = 0;
		err = bc_er_decode_compact(r, f, p);
		munmap((void *)p, st->bytes);
		if (err)
			return bc_er_fail(r, err, "%s/%s: %s", r->path, name, strerror(-err));
	}

	while (off < d->len) {
		const struct bc_rec_head *h = (const void *)(d->base + off);
		uint64_t rest = d->len - off;
		struct bc_event ev;

		if (rest < sizeof(*h) || h->size > rest) {
			st->truncated_bytes = rest;
			bc_er_note(info, "%s: last record torn at offset %llu; %llu bytes ignored",
				   name, (unsigned long long)off, (unsigned long long)rest);
			break;
		}
		if (h->size < sizeof(*h) || (h->size & 7)) {
			/* nothing after a bad size can be framed: stop this file */
			st->truncated_bytes = rest;
			st->stopped = true;
			bc_er_note(info,
				   "%s: bad record size %u at offset %llu; last %llu bytes skipped",
				   name, h->size, (unsigned long long)off,
				   (unsigned long long)rest);
			break;
		}
		if (bc_decode(h, h->size, &info->funcs, &ev) < 0 ||
		    bc_er_file_for_kind(h->kind) != (int)f) {
			st->bad_records++;
			off += h->size;
			continue;
		}
		err = add_record(&r->rp, f, h, off);
		if (err)
			return bc_er_fail(r, err, "%s/%s: %s", r->path, name, strerror(-err));
		st->records++;
		if (h->kind == BC_REC_LOST) {
			const struct bc_rec_lost *l = (const void *)h;

			info->lost_records[l->loss_class] += l->count;
		}
		if (h->ktime > info->last_ktime)
			info->last_ktime = h->ktime;
		off += h->size;
	}
	if (st->bad_records)
		bc_er_note(info, "%s: %llu invalid records skipped", name,
			   (unsigned long long)st->bad_records);
	info->bad_records_read += st->bad_records;
	info->truncated_bytes += st->truncated_bytes;
	return 0;
}

static const struct bc_rec_head *stream_head(const struct bc_er_replay *rp, uint32_t s)
{
	const struct bc_er_stream *st = &rp->streams[s];

	return (const void *)(rp->data[st->file].base + rp->data[st->file].off[st->cur]);
}

/* Time order; ties by thread and its sequence number; the file index keeps it total. */
static bool before(const struct bc_er_replay *rp, uint32_t a, uint32_t b)
{
	const struct bc_rec_head *x = stream_head(rp, a), *y = stream_head(rp, b);

	if (x->ktime != y->ktime)
		return x->ktime < y->ktime;
	if (x->tid != y->tid)
		return x->tid < y->tid;
	if (x->seq != y->seq)
		return x->seq < y->seq;
	return rp->streams[a].file < rp->streams[b].file;
}

static void sift_down(struct bc_er_replay *rp, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		uint32_t t;

		if (l < rp->heap_n && before(rp, rp->heap[l], rp->heap[m]))
			m = l;
		if (l + 1 < rp->heap_n && before(rp, rp->heap[l + 1], rp->heap[m]))
			m = l + 1;
		if (m == i)
			return;
		t = rp->heap[i];
		rp->heap[i] = rp->heap[m];
		rp->heap[m] = t;
		i = m;
	}
}

static int sink_fail(struct bc_er_reader *r, struct bc_sink *sink, int err)
{
	return bc_er_fail(r, err, "%s: %s sink: %s", r->path,
			  sink->ops->name ? sink->ops->name : "?", strerror(-err));
}

int bc_er_replay_start(struct bc_er_reader *r)
{
	struct bc_er_replay *rp = &r->rp;

	rp->heap = malloc((rp->nstreams + 1) * sizeof(*rp->heap));
	if (!rp->heap)
		return bc_er_fail(r, -ENOMEM, "%s: out of memory", r->path);
	rp->heap_n = 0;
	for (size_t s = 0; s < rp->nstreams; s++)
		rp->heap[rp->heap_n++] = (uint32_t)s;
	for (size_t i = rp->heap_n / 2; i-- > 0;)
		sift_down(rp, i);
	return bc_er_maps_start(r);
}

bool bc_er_replay_peek(const struct bc_er_reader *r, uint64_t *ktime)
{
	const struct bc_er_replay *rp = &r->rp;
	const struct bc_mapping *m = bc_er_maps_head(r);

	if (!rp->heap_n && !m)
		return false;
	if (!rp->heap_n)
		*ktime = m->ktime;
	else if (m && m->ktime < stream_head(rp, rp->heap[0])->ktime)
		*ktime = m->ktime;
	else
		*ktime = stream_head(rp, rp->heap[0])->ktime;
	return true;
}

/*
 * The next item in time order. A mapping comes after the records of its
 * time, as the agent sends them: an exec's or a fork's mappings follow it.
 */
int bc_er_replay_step(struct bc_er_reader *r, struct bc_sink *sink, struct bc_state *state)
{
	struct bc_er_replay *rp = &r->rp;
	const struct bc_rec_head *h = rp->heap_n ? stream_head(rp, rp->heap[0]) : NULL;
	const struct bc_mapping *m = bc_er_maps_head(r);
	struct bc_er_stream *st;
	struct bc_event ev;
	int err;

	if (m && (!h || m->ktime < h->ktime)) {
		if ((err = bc_state_mapping(state, m)))
			return bc_er_fail(r, err, "%s: out of memory", r->path);
		if ((err = bc_sink_mapping(sink, m)))
			return sink_fail(r, sink, err);
		return bc_er_maps_next(r);
	}
	if (!h)
		return 0;
	st = &rp->streams[rp->heap[0]];
	bc_decode(h, h->size, &r->info->funcs, &ev); /* validated while indexing */
	if ((err = bc_state_event(state, h)))
		return bc_er_fail(r, err, "%s: out of memory", r->path);
	if ((err = bc_sink_event(sink, &ev)))
		return sink_fail(r, sink, err);
	r->info->events_read++;
	st->cur = rp->data[st->file].next[st->cur];
	if (st->cur == BC_ER_NO_NEXT)
		rp->heap[0] = rp->heap[--rp->heap_n];
	sift_down(rp, 0);
	return 0;
}

void bc_er_replay_session(const struct bc_er_reader *r, struct bc_session *sess)
{
	const struct bc_er_info *info = r->info;

	*sess = (struct bc_session){
		.argv = info->argv,
		.root_pid = info->have_session_root ? info->session_root_pid : info->root_pid,
		.start_ktime = info->start_ktime,
		.wall_offset_ns = info->wall_offset_ns,
		.options = info->options,
		.cwd = info->cwd,
		.funcs = &info->funcs,
		.ringbuf_bytes = info->ringbuf_bytes,
		.syscalls = info->syscalls,
		.hostname = info->hostname,
		.host = info->have_host ? &info->host : NULL,
		.ppid = (int32_t)info->ppid,
		.pgrp = info->pgrp,
		.sid = info->sid,
		.libbpf = info->libbpf,
		.host_ip = info->host_ip,
		.kallsyms = info->kallmodsyms,
		.kallsyms_formatted = true,
		.no_follow = info->no_follow,
		.profile_us = info->profile_us,
		.attached = info->attached,
		.extra_pids = info->extra_pids,
		.n_extra_pids = info->n_extra_pids,
		.kernel = info->kernel_exp,
		.system_wide = info->system_wide,
		.offcpu = info->offcpu,
		.offcpu_in_founder = info->offcpu_in_founder,
		.heap = info->heap,
		.sync = info->sync,
		.sync_threshold_us = info->sync_threshold_us,
		.io = info->io,
	};
}

void bc_er_replay_end(const struct bc_er_reader *r, struct bc_session_end *end)
{
	const struct bc_er_info *info = r->info;

	*end = (struct bc_session_end){
		.exit_status = info->exit_status,
		.events = info->have_counts ? info->events : info->events_read,
		.bad_records = info->bad_records + info->bad_records_read,
	};
	/* a live experiment ends where its data does; its losses are in LOST records */
	end->end_ktime = info->closed ? info->start_ktime + info->exit_tstamp
				      : (info->last_ktime > info->start_ktime ? info->last_ktime
									      : info->start_ktime);
	for (int i = 0; i < BC_LOSS_NR; i++)
		end->lost[i] = info->have_counts ? info->lost[i] : info->lost_records[i];
}

int bc_er_replay(struct bc_er_reader *r, struct bc_sink *sink)
{
	struct bc_session sess;
	struct bc_session_end end;
	struct bc_state state;
	uint64_t t;
	int err;

	bc_state_init(&state);
	bc_er_replay_session(r, &sess);
	sess.state = &state;
	err = bc_state_begin(&state, &sess);
	if (err) {
		err = bc_er_fail(r, err, "%s: out of memory", r->path);
		goto out;
	}
	if ((err = bc_sink_begin(sink, &sess))) {
		err = sink_fail(r, sink, err);
		goto out;
	}
	if ((err = bc_er_replay_start(r)))
		goto out;
	while (bc_er_replay_peek(r, &t))
		if ((err = bc_er_replay_step(r, sink, &state)))
			goto out;
	bc_er_replay_end(r, &end);
	if ((err = bc_sink_end(sink, &end)))
		err = sink_fail(r, sink, err);
out:
	bc_state_free(&state);
	return err;
}

void bc_er_replay_free(struct bc_er_reader *r)
{
	struct bc_er_replay *rp = &r->rp;

	for (int f = 0; f < BC_ER_NFILES; f++) {
		if (rp->data[f].decoded)
			free(rp->data[f].decoded);
		else if (rp->data[f].base)
			munmap((void *)rp->data[f].base, rp->data[f].len);
		free(rp->data[f].off);
		free(rp->data[f].next);
	}
	free(rp->streams);
	free(rp->slots);
	free(rp->heap);
	memset(rp, 0, sizeof(*rp));
}
