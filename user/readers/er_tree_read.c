// SPDX-License-Identifier: MIT
/* Reading a founder experiment together with its descendant subexperiments. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpfcollect/cli.h"
#include "bpfcollect/experiment.h"
#include "er_replay.h"

/* Digit-aware order, as gprofng sorts them: _f2.er before _f10.er. */
static int natural_cmp(const char *a, const char *b)
{
	while (*a && *b) {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			unsigned long x = strtoul(a, (char **)&a, 10);
			unsigned long y = strtoul(b, (char **)&b, 10);

			if (x != y)
				return x < y ? -1 : 1;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a - (unsigned char)*b;
		a++;
		b++;
	}
	return (unsigned char)*a - (unsigned char)*b;
}

static int cmp_names(const void *x, const void *y)
{
	return natural_cmp(*(char *const *)x, *(char *const *)y);
}

int bc_er_list_descendants(const char *exp_path, char ***names, size_t *n)
{
	struct dirent *d;
	DIR *dir;
	size_t len;

	*names = NULL;
	*n = 0;
	dir = opendir(exp_path);
	if (!dir)
		return -errno;
	while ((d = readdir(dir))) {
		len = strlen(d->d_name);
		if (d->d_name[0] != '_' || len < 4 || strcmp(d->d_name + len - 3, ".er") != 0)
			continue;
		char **v = realloc(*names, (*n + 1) * sizeof(*v));

		if (!v || !(v[*n] = strdup(d->d_name))) {
			free(v ? v : *names);
			*names = NULL;
			*n = 0;
			closedir(dir);
			return -ENOMEM;
		}
		*names = v;
		(*n)++;
	}
	closedir(dir);
	if (*n)
		qsort(*names, *n, sizeof(**names), cmp_names);
	return 0;
}

/* A heap of readers by the time of their next item; ties go to the earlier experiment. */
struct reader_heap {
	size_t *v;
	uint64_t *t; /* t[reader]: the time of its next item */
	size_t n;
};

static bool earlier(const struct reader_heap *h, size_t a, size_t b)
{
	return h->t[a] != h->t[b] ? h->t[a] < h->t[b] : a < b;
}

static void heap_down(struct reader_heap *h, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i, x;

		if (l < h->n && earlier(h, h->v[l], h->v[m]))
			m = l;
		if (l + 1 < h->n && earlier(h, h->v[l + 1], h->v[m]))
			m = l + 1;
		if (m == i)
			return;
		x = h->v[i];
		h->v[i] = h->v[m];
		h->v[m] = x;
		i = m;
	}
}

/* Every record of every reader, in time order, into sink. */
static int merge_readers(struct bc_er_reader *rd, size_t n, struct bc_sink *sink,
			 struct bc_state *state)
{
	struct reader_heap h = {.v = calloc(n, sizeof(size_t)), .t = calloc(n, sizeof(uint64_t))};
	int err = 0;

	if (!h.v || !h.t) {
		err = bc_er_fail(&rd[0], -ENOMEM, "%s: out of memory", rd[0].path);
		goto out;
	}
	for (size_t k = 0; k < n; k++)
		if (bc_er_replay_peek(&rd[k], &h.t[k]))
			h.v[h.n++] = k;
	for (size_t i = h.n / 2; i-- > 0;)
		heap_down(&h, i);
	while (h.n && !err) {
		size_t k = h.v[0];

		err = bc_er_replay_step(&rd[k], sink, state);
		if (!bc_er_replay_peek(&rd[k], &h.t[k]))
			h.v[0] = h.v[--h.n];
		heap_down(&h, 0);
	}
out:
	free(h.v);
	free(h.t);
	return err;
}

/*
 * The experiments' items as one stream in time order: the founder's begin,
 * every record and mapping of every experiment, the founder's end (its
 * log.xml speaks for the whole recording: events, losses, the end).
 */
static int replay_all(struct bc_er_reader *rd, size_t n, struct bc_sink *sink)
{
	struct bc_session sess;
	struct bc_session_end end;
	struct bc_state state;
	int err;

	bc_state_init(&state);
	bc_er_replay_session(&rd[0], &sess);
	/* a kernel founder keeps no kernel symbols: its subexperiments do */
	for (size_t k = 1; !sess.kallsyms && k < n; k++)
		sess.kallsyms = rd[k].info->kallmodsyms;
	sess.state = &state;
	if ((err = bc_state_begin(&state, &sess))) {
		err = bc_er_fail(&rd[0], err, "%s: out of memory", rd[0].path);
		goto out;
	}
	if ((err = bc_sink_begin(sink, &sess))) {
		err = bc_er_fail(&rd[0], err, "%s: %s sink: %s", rd[0].path, sink->ops->name,
				 strerror(-err));
		goto out;
	}
	for (size_t k = 0; k < n; k++)
		if ((err = bc_er_replay_start(&rd[k])))
			goto out;
	if ((err = merge_readers(rd, n, sink, &state)))
		goto out;
	bc_er_replay_end(&rd[0], &end);
	if ((err = bc_sink_end(sink, &end)))
		err = bc_er_fail(&rd[0], err, "%s: %s sink: %s", rd[0].path, sink->ops->name,
				 strerror(-err));
out:
	bc_state_free(&state);
	return err;
}

/* A subexperiment that cannot be read: said, and left out of what is shown. */
static void skip_warning(const char *exp_path, const char *name, const char *why)
{
	/* once per subexperiment and reason, however many passes a report makes */
	bc_warn("%s/%s cannot be read (%s); it is skipped", exp_path, name, why);
}

int bc_er_tree_each(const char *exp_path, bool descendants, bc_er_each_fn fn, void *arg, char *err,
		    size_t errlen)
{
	char **names = NULL, path[4096], why[512];
	size_t n = 0;
	int rc;

	rc = fn(exp_path, "founder", 0, arg, err, errlen);
	if (rc < 0 || !descendants)
		return rc;
	rc = bc_er_list_descendants(exp_path, &names, &n);
	if (rc == -ENOMEM) {
		snprintf(err, errlen, "out of memory");
		return rc;
	}
	rc = 0;
	for (size_t i = 0; i < n && rc != -ENOMEM; i++) {
		snprintf(path, sizeof(path), "%s/%s", exp_path, names[i]);
		why[0] = 0;
		rc = fn(path, names[i], i + 1, arg, why, sizeof(why));
		if (rc == -ENOMEM)
			snprintf(err, errlen, "%s", why);
		else if (rc < 0)
			skip_warning(exp_path, names[i], why[0] ? why : strerror(-rc));
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc == -ENOMEM ? rc : 0;
}

int bc_er_read_tree(const char *exp_path, bool descendants, struct bc_sink *sink,
		    struct bc_er_info *info, size_t *n_experiments, char *err, size_t errlen)
{
	struct bc_er_reader *rd = NULL;
	struct bc_er_info *subs = NULL;
	char **names = NULL, path[4096];
	size_t n = 0, opened = 0, skipped = 0;
	int rc;

	if (descendants && bc_er_list_descendants(exp_path, &names, &n) < 0)
		n = 0; /* bc_er_reader_open says what is wrong with the founder */
	rd = calloc(n + 1, sizeof(*rd));
	subs = calloc(n + 1, sizeof(*subs));
	if (!rd || !subs) {
		snprintf(err, errlen, "out of memory");
		rc = -ENOMEM;
		goto out;
	}
	rc = bc_er_reader_open(&rd[0], exp_path, info, err, errlen);
	opened = 1;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		/* the reader keeps err for what it finds while replaying */
		snprintf(path, sizeof(path), "%s/%s", exp_path, names[i]);
		rc = bc_er_reader_open(&rd[opened], path, &subs[opened - 1], err, errlen);
		if (rc == -ENOMEM) {
			opened++; /* closed below like the others */
		} else if (rc < 0) {
			/* the others are still whole: read them, as gprofng does */
			skip_warning(exp_path, names[i], errlen && err[0] ? err : strerror(-rc));
			if (errlen)
				err[0] = 0;
			bc_er_reader_close(&rd[opened]);
			memset(&rd[opened], 0, sizeof(rd[opened]));
			bc_er_info_free(&subs[opened - 1]);
			memset(&subs[opened - 1], 0, sizeof(subs[opened - 1]));
			skipped++;
			rc = 0;
		} else {
			opened++;
		}
	}
	if (rc == 0 && sink)
		rc = replay_all(rd, opened, sink);
	for (size_t i = 0; rc == 0 && i < opened; i++) {
		struct bc_er_info *x = i ? &subs[i - 1] : info;

		if (!sink)
			for (uint32_t f = 0; f < BC_ER_NFILES; f++)
				x->events_read += x->files[f].records;
		if (i) {
			info->events_read += x->events_read;
			if (x->last_ktime > info->last_ktime)
				info->last_ktime = x->last_ktime;
		}
	}
out:
	for (size_t i = 0; i < opened; i++)
		bc_er_reader_close(&rd[i]);
	for (size_t i = 0; subs && i < n; i++)
		bc_er_info_free(&subs[i]);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(rd);
	free(subs);
	if (n_experiments)
		*n_experiments = 1 + n - skipped;
	return rc;
}
