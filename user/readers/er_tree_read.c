// SPDX-License-Identifier: MIT
/* Reading a founder experiment together with its descendant subexperiments. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpfcollect/experiment.h"

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

/* Passes one begin (the founder's) and one end (the last one's) through to the sink. */
struct merge {
	struct bc_sink base;
	struct bc_sink *to;
	bool begun;
	bool last;
};

static int m_begin(struct bc_sink *s, const struct bc_session *x)
{
	struct merge *m = (struct merge *)s;

	if (m->begun)
		return 0;
	m->begun = true;
	return bc_sink_begin(m->to, x);
}

static int m_event(struct bc_sink *s, const struct bc_event *e)
{
	return bc_sink_event(((struct merge *)s)->to, e);
}

static int m_mapping(struct bc_sink *s, const struct bc_mapping *x)
{
	return bc_sink_mapping(((struct merge *)s)->to, x);
}

static int m_end(struct bc_sink *s, const struct bc_session_end *x)
{
	struct merge *m = (struct merge *)s;

	return m->last ? bc_sink_end(m->to, x) : 0;
}

static const struct bc_sink_ops merge_ops = {
	.name = "merge",
	.begin = m_begin,
	.event = m_event,
	.mapping = m_mapping,
	.end = m_end,
};

int bc_er_read_tree(const char *exp_path, bool descendants, struct bc_sink *sink,
		    struct bc_er_info *info, size_t *n_experiments, char *err, size_t errlen)
{
	struct merge m = {.base.ops = &merge_ops, .to = sink};
	char **names = NULL, path[4096];
	size_t n = 0;
	int rc;

	if (descendants) {
		rc = bc_er_list_descendants(exp_path, &names, &n);
		if (rc < 0)
			n = 0; /* bc_er_read says what is wrong with the founder */
	}
	m.last = n == 0;
	rc = bc_er_read(exp_path, sink ? &m.base : NULL, info, err, errlen);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		struct bc_er_info sub;

		memset(&sub, 0, sizeof(sub));
		m.last = i + 1 == n;
		snprintf(path, sizeof(path), "%s/%s", exp_path, names[i]);
		rc = bc_er_read(path, sink ? &m.base : NULL, &sub, err, errlen);
		if (rc == 0) {
			info->events_read += sub.events_read;
			if (sub.last_ktime > info->last_ktime)
				info->last_ktime = sub.last_ktime;
		}
		bc_er_info_free(&sub);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (n_experiments)
		*n_experiments = 1 + n;
	return rc;
}
