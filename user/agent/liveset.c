// SPDX-License-Identifier: MIT
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpfcollect/liveset.h"

int bc_live_add(struct bc_live_set *s, uint32_t pid)
{
	if (bc_live_has(s, pid))
		return 0;
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 16;
		uint32_t *v = realloc(s->pids, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->pids = v;
		s->cap = cap;
	}
	s->pids[s->n++] = pid;
	return 0;
}

void bc_live_remove(struct bc_live_set *s, uint32_t pid)
{
	for (size_t i = 0; i < s->n; i++) {
		if (s->pids[i] == pid) {
			s->pids[i] = s->pids[--s->n];
			return;
		}
	}
}

bool bc_live_has(const struct bc_live_set *s, uint32_t pid)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->pids[i] == pid)
			return true;
	return false;
}

void bc_live_free(struct bc_live_set *s)
{
	free(s->pids);
	memset(s, 0, sizeof(*s));
}

bool bc_pid_finished(const char *procfs, uint32_t pid)
{
	char path[256], buf[512], *p;
	bool done = true;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%" PRIu32 "/stat", procfs, pid);
	f = fopen(path, "re");
	if (!f)
		return true;
	/* The state follows the last ')': comm itself may hold one. */
	if (fgets(buf, sizeof(buf), f)) {
		p = strrchr(buf, ')');
		done = p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X');
	}
	fclose(f);
	return done;
}
