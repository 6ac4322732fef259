// SPDX-License-Identifier: MIT
/* Functions a debugger has a breakpoint on (bpfcollect/debuggers.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bpfcollect/debuggers.h"
#include "bpfcollect/procmaps.h"

#define INT3 0xcc

int bc_proc_tracer(const char *procfs, uint32_t pid)
{
	char path[64], line[256];
	int tracer = -ENOENT;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%u/status", procfs, pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "TracerPid: %d", &tracer) == 1)
			break;
	fclose(f);
	return tracer;
}

/* An object's executable mappings in the process. */
struct maps {
	struct bc_mapping *v;
	char **paths;
	size_t n;
};

static int keep_mapping(void *ctx, const struct bc_mapping *m)
{
	struct maps *ms = ctx;
	struct bc_mapping *v = realloc(ms->v, (ms->n + 1) * sizeof(*v));
	char **p;

	if (!v)
		return -ENOMEM;
	ms->v = v;
	p = realloc(ms->paths, (ms->n + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	ms->paths = p;
	if (!(ms->paths[ms->n] = strdup(m->path)))
		return -ENOMEM;
	ms->v[ms->n] = *m;
	ms->v[ms->n].path = ms->paths[ms->n];
	ms->n++;
	return 0;
}

static void maps_free(struct maps *ms)
{
	for (size_t i = 0; i < ms->n; i++)
		free(ms->paths[i]);
	free(ms->paths);
	free(ms->v);
}

/* Whether two paths name one file (the process may see it through another name). */
static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	if (!strcmp(a, b))
		return true;
	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

/* Whether the byte at file offset offset of object, as pid has it mapped, is an int3. */
static bool breakpoint_at(const struct maps *ms, int mem, const char *object, uint64_t offset)
{
	for (size_t i = 0; i < ms->n; i++) {
		const struct bc_mapping *m = &ms->v[i];
		unsigned char b;

		if (offset < m->offset || offset - m->offset >= m->end - m->start ||
		    !same_file(m->path, object))
			continue;
		return pread(mem, &b, 1, (off_t)(m->start + (offset - m->offset))) == 1 &&
		       b == INT3;
	}
	return false;
}

static bool func_has_breakpoint(const struct maps *ms, int mem, const struct bc_func *f)
{
	if (breakpoint_at(ms, mem, f->object, bc_func_probe_offset(f)))
		return true;
	for (size_t e = 0; e < f->n_exits; e++)
		if (breakpoint_at(ms, mem, f->object, f->exits[e]))
			return true;
	return false;
}

struct spare {
	struct maps ms;
	int mem;
	uint32_t pid;
	int tracer;
};

static int judge_breakpoints(void *ctx, struct bc_func *f, char *why, size_t len)
{
	const struct spare *sp = ctx;

	if (!func_has_breakpoint(&sp->ms, sp->mem, f))
		return 1;
	snprintf(why, len,
		 "process %u's debugger (pid %d) has a breakpoint there; not probed, so it "
		 "keeps working",
		 sp->pid, sp->tracer);
	return 0;
}

int bc_functab_spare_breakpoints(struct bc_functab *funcs, uint32_t pid,
				 void (*warn)(const struct bc_func *f, const char *why))
{
	struct spare sp = {.pid = pid};
	char path[64];
	int rc;

	sp.tracer = bc_proc_tracer("/proc", pid);
	if (sp.tracer <= 0)
		return 0;
	rc = bc_procmaps_read("/proc", pid, 0, keep_mapping, &sp.ms);
	if (rc < 0) {
		maps_free(&sp.ms);
		return rc == -ESRCH ? 0 : rc;
	}
	snprintf(path, sizeof(path), "/proc/%u/mem", pid);
	sp.mem = open(path, O_RDONLY | O_CLOEXEC);
	if (sp.mem < 0) {
		rc = -errno;
		maps_free(&sp.ms);
		return rc;
	}
	rc = bc_functab_filter(funcs, judge_breakpoints, &sp, warn);
	close(sp.mem);
	maps_free(&sp.ms);
	return rc;
}
