// SPDX-License-Identifier: MIT
/* record's live status line (see bpfcollect/status_line.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "bpfcollect/names.h"
#include "bpfcollect/status_line.h"

#define NSEC_PER_SEC 1000000000ULL

int bc_status_si(char *buf, size_t len, uint64_t n, const char *unit)
{
	static const char prefixes[] = "kMGTPE";
	const char *sep = *unit ? " " : "";
	uint64_t scale = 1000, v;
	size_t p = 0;

	if (n < 1000)
		return snprintf(buf, len, "%" PRIu64 "%s%s", n, sep, unit);
	while (p < sizeof(prefixes) - 2 && n / scale >= 1000) {
		scale *= 1000;
		p++;
	}
	/* divided, never rounded: 1999 is "1.99 k", so no redraw says more than the summary */
	v = n / scale;
	if (v < 10) {
		v = n / (scale / 100);
		return snprintf(buf, len, "%" PRIu64 ".%02" PRIu64 " %c%s", v / 100, v % 100,
				prefixes[p], unit);
	}
	if (v < 100) {
		v = n / (scale / 10);
		return snprintf(buf, len, "%" PRIu64 ".%" PRIu64 " %c%s", v / 10, v % 10,
				prefixes[p], unit);
	}
	return snprintf(buf, len, "%" PRIu64 " %c%s", v, prefixes[p], unit);
}

int bc_status_lost(char *buf, size_t len, const uint64_t lost[BC_LOSS_NR])
{
	size_t used = 0;
	int n = 0;

	if (len)
		buf[0] = 0;
	for (unsigned int c = 0; c < BC_LOSS_NR; c++) {
		char num[32];

		if (!lost[c])
			continue;
		bc_status_si(num, sizeof(num), lost[c], "");
		n = snprintf(buf + used, len > used ? len - used : 0, "%s%s %s", used ? ", " : "",
			     bc_loss_class_name(c), num);
		if (n < 0)
			return n;
		used += (size_t)n;
	}
	return (int)used;
}

/* A line being made: at most width columns. */
struct line {
	char *buf;
	size_t used, width;
};

/* Appends field after two spaces (none first) if all of it fits; false if not. */
static bool put(struct line *l, const char *field)
{
	size_t sep = l->used ? 2 : 0, n = strlen(field);

	if (l->used + sep + n > l->width)
		return false;
	memcpy(l->buf + l->used, "  ", sep);
	memcpy(l->buf + l->used + sep, field, n + 1);
	l->used += sep + n;
	return true;
}

/* The losses, by class if they fit, else their total; false when neither fits. */
static bool put_lost(struct line *l, const uint64_t lost[BC_LOSS_NR])
{
	char field[BC_STATUS_LINE_MAX], num[32];
	uint64_t total = 0;

	for (unsigned int c = 0; c < BC_LOSS_NR; c++)
		total += lost[c];
	if (!total)
		return true;
	strcpy(field, "lost: ");
	bc_status_lost(field + 6, sizeof(field) - 6, lost);
	if (put(l, field))
		return true;
	bc_status_si(num, sizeof(num), total, "");
	snprintf(field, sizeof(field), "lost: %s", num);
	return put(l, field);
}

size_t bc_status_format(char *buf, size_t len, const struct bc_status_sample *s, size_t width)
{
	struct line l = {.buf = buf, .width = width};
	char field[BC_STATUS_LINE_MAX], num[32];
	uint64_t tenths = s->elapsed_ns / (NSEC_PER_SEC / 10);

	if (!len)
		return 0;
	buf[0] = 0;
	if (l.width > len - 1)
		l.width = len - 1;
	snprintf(field, sizeof(field), "bpfcollect: %" PRIu64 ".%" PRIu64 " s", tenths / 10,
		 tenths % 10);
	if (!put(&l, field)) { /* a terminal narrower than one field: what fits of it */
		memcpy(buf, field, l.width);
		buf[l.width] = 0;
		return l.width;
	}
	bc_status_si(num, sizeof(num), s->events, "");
	snprintf(field, sizeof(field), "%s events", num);
	if (!put(&l, field))
		return l.used;
	bc_status_si(num, sizeof(num), s->rate, "");
	snprintf(field, sizeof(field), "%s/s", num);
	if (!put(&l, field) || !put_lost(&l, s->lost))
		return l.used;
	snprintf(field, sizeof(field), "procs %" PRIu64, s->procs);
	if (!put(&l, field) || s->bytes == BC_STATUS_NO_BYTES)
		return l.used;
	bc_status_si(num, sizeof(num), s->bytes, "B");
	put(&l, num);
	return l.used;
}

int bc_status_summary(char *buf, size_t len, const char *name, const struct bc_status_sample *s,
		      size_t n_probes)
{
	char lost[BC_STATUS_LINE_MAX] = "", bytes[32] = "";
	uint64_t total = 0, tenths = s->elapsed_ns / (NSEC_PER_SEC / 10);

	for (unsigned int c = 0; c < BC_LOSS_NR; c++) {
		char one[48];

		if (!s->lost[c])
			continue;
		total += s->lost[c];
		/* exact here: the status line's are cut to three digits */
		snprintf(one, sizeof(one), "%s%s %" PRIu64, lost[0] ? ", " : " (",
			 bc_loss_class_name(c), s->lost[c]);
		strncat(lost, one, sizeof(lost) - strlen(lost) - 2);
	}
	if (total)
		strcat(lost, ")");
	if (s->bytes != BC_STATUS_NO_BYTES) {
		bc_status_si(bytes + 2, sizeof(bytes) - 2, s->bytes, "B");
		memcpy(bytes, ", ", 2);
	}
	return snprintf(buf, len,
			"%s: %" PRIu64 " events, %" PRIu64 " lost%s, %" PRIu64
			" process%s%s, %" PRIu64 ".%" PRIu64 " s, %zu function%s probed",
			name, s->events, total, lost, s->procs, s->procs == 1 ? "" : "es", bytes,
			tenths / 10, tenths % 10, n_probes, n_probes == 1 ? "" : "s");
}

int bc_status_parse_wchar(const char *io, uint64_t *wchar)
{
	const char *p = io;
	char *end;

	/* at a line's start: "rchar:" and others end in "char:" too */
	while (p && strncmp(p, "wchar:", 6)) {
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	if (!p)
		return -EINVAL;
	errno = 0;
	*wchar = strtoull(p + 6, &end, 10);
	return end == p + 6 || errno ? -EINVAL : 0;
}

/*
 * What the agent's threads passed to write(2) and its kind so far
 * (/proc/self/io wchar): every output of every format, the experiment's
 * subexperiments and per-process files too, in one read, however many
 * files there are. BC_STATUS_NO_BYTES without task I/O accounting.
 */
static uint64_t read_wchar(void)
{
	char buf[512];
	uint64_t v;
	ssize_t n;
	int fd = open("/proc/self/io", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return BC_STATUS_NO_BYTES;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return BC_STATUS_NO_BYTES;
	buf[n] = 0;
	return bc_status_parse_wchar(buf, &v) < 0 ? BC_STATUS_NO_BYTES : v;
}

void bc_status_line_init(struct bc_status_line *s, int fd, uint64_t start_ns)
{
	memset(s, 0, sizeof(*s));
	s->fd = fd;
	s->start_ns = s->last_ns = start_ns;
	s->win_ns[0] = start_ns;
	s->win_next = s->win_n = 1;
	s->wchar_start = read_wchar();
}

void bc_status_line_enable(struct bc_status_line *s, bool tty)
{
	const char *term = getenv("TERM");

	s->on = true;
	s->tty = tty;
	s->may_pin = tty && term && term[0] && strcmp(term, "dumb");
}

bool bc_status_line_due(const struct bc_status_line *s, uint64_t now_ns)
{
	return s->on && now_ns >= s->last_ns + BC_STATUS_INTERVAL_NS;
}

uint64_t bc_status_line_bytes(const struct bc_status_line *s)
{
	uint64_t now = read_wchar();

	if (now == BC_STATUS_NO_BYTES || s->wchar_start == BC_STATUS_NO_BYTES ||
	    now < s->wchar_start + s->own_bytes)
		return BC_STATUS_NO_BYTES;
	return now - s->wchar_start - s->own_bytes;
}

/* Events a second since the oldest redraw kept; (now, events) then kept in its place. */
static uint64_t rate_of(struct bc_status_line *s, uint64_t events, uint64_t now)
{
	size_t oldest = s->win_n < BC_STATUS_WINDOW ? 0 : s->win_next;
	uint64_t dt = now - s->win_ns[oldest], rate = 0;

	if (dt && events >= s->win_events[oldest])
		rate = (uint64_t)((double)(events - s->win_events[oldest]) * NSEC_PER_SEC /
				  (double)dt);
	s->win_ns[s->win_next] = now;
	s->win_events[s->win_next] = events;
	s->win_next = (s->win_next + 1) % BC_STATUS_WINDOW;
	if (s->win_n < BC_STATUS_WINDOW)
		s->win_n++;
	return rate;
}

/*
 * Columns a line may take: the terminal's but the last, since a character
 * in the last column leaves some terminals waiting to wrap, and the next
 * "\r" then returns to a line below.
 */
static size_t width_of(const struct bc_status_line *s)
{
	struct winsize ws;

	if (!s->tty)
		return BC_STATUS_WIDTH;
	if (ioctl(s->fd, TIOCGWINSZ, &ws) < 0 || ws.ws_col < 2)
		return BC_STATUS_WIDTH - 1;
	return ws.ws_col - 1u;
}

/* All of buf onto the line's fd, counted as its own; -errno. */
static int put_out(struct bc_status_line *s, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(s->fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		s->own_bytes += (uint64_t)n;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The terminal's rows when the line can have the bottom one; 0: draw in place. */
static unsigned int rows_of(const struct bc_status_line *s)
{
	struct winsize ws;

	if (!s->may_pin || ioctl(s->fd, TIOCGWINSZ, &ws) < 0 || ws.ws_row < 3)
		return 0;
	return ws.ws_row;
}

/*
 * The scroll region rows 1..rows-1 (its setting homes the cursor: saved and
 * put back). The first time, a newline first makes room for the line, and
 * the cursor goes back up into the region.
 */
static size_t pin(struct bc_status_line *s, char *buf, size_t len, unsigned int rows)
{
	int n = snprintf(buf, len, "%s\0337\033[1;%ur\0338%s", s->pinned_rows ? "" : "\n", rows - 1,
			 s->pinned_rows ? "" : "\033[1A");

	s->pinned_rows = rows;
	return n > 0 ? (size_t)n : 0;
}

int bc_status_line_draw(struct bc_status_line *s, struct bc_status_sample *smp, uint64_t now_ns)
{
	char buf[BC_STATUS_LINE_MAX + 64];
	unsigned int rows = s->tty ? rows_of(s) : 0;
	size_t n = 0;
	int rc;

	smp->elapsed_ns = now_ns > s->start_ns ? now_ns - s->start_ns : 0;
	smp->rate = rate_of(s, smp->events, now_ns);
	smp->bytes = bc_status_line_bytes(s);
	if (rows && rows != s->pinned_rows)
		n = pin(s, buf, 40, rows); /* at first, and when the terminal was resized */
	if (rows)
		n += (size_t)snprintf(buf + n, 24, "\0337\033[%u;1H", rows);
	else if (s->tty)
		buf[n++] = '\r';
	n += bc_status_format(buf + n, BC_STATUS_LINE_MAX, smp, width_of(s));
	/* one write: another thread's message cannot land inside the line */
	n += (size_t)snprintf(buf + n, 8, "%s", rows ? "\033[K\0338" : s->tty ? "\033[K" : "\n");
	s->last_ns = now_ns;
	s->redraws++;
	rc = put_out(s, buf, n);
	if (rc < 0) {
		s->on = false; /* stderr went away: the recording goes on without the line */
		return rc;
	}
	s->drawn = s->tty;
	return 0;
}

void bc_status_line_clear(struct bc_status_line *s)
{
	if (!s->drawn || s->pinned_rows)
		return;
	s->drawn = false;
	put_out(s, "\r\033[K", 4);
}

void bc_status_line_end(struct bc_status_line *s)
{
	char buf[64];
	unsigned int rows = rows_of(s);
	int n;

	if (!s->pinned_rows) {
		bc_status_line_clear(s);
		return;
	}
	/* the whole screen scrolls again; the line's row, wherever it is now, is cleared */
	n = snprintf(buf, sizeof(buf), "\0337\033[r\0338\0337\033[%u;1H\033[2K\0338",
		     rows ? rows : s->pinned_rows);
	s->pinned_rows = 0;
	s->drawn = false;
	if (n > 0)
		put_out(s, buf, (size_t)n);
}
