// SPDX-License-Identifier: MIT
/*
 * The clock profile by function. PCs are named the way gprofng names them,
 * so both readers agree function by function: user PCs through the mapping
 * live in map.xml (file offset = foffset + pc - vaddr) and the function
 * symbols of that file (its copy in archives/ first); kernel PCs through
 * kallmodsyms, as vmlinux`NAME or MODULE`NAME; a PC in no known function as
 * <static>@0xOFFSET of its object, or <Unknown>.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "bpfcollect/archive.h"
#include "bpfcollect/elf_symbols.h"
#include "bpfcollect/experiment.h"
#include "bpfcollect/profile_data.h"
#include "bpfcollect/report_profile.h"
#include "bpfcollect/table.h"

#define KERNEL_SPACE 0xffff800000000000ULL

struct func_total {
	char *name;
	char *object;
	uint64_t excl_user, excl_sys, incl; /* ticks x ptimer: microseconds */
	unsigned int last_stack;	    /* inclusive: counted once per sample */
};

struct elf_cache {
	char *path;
	struct bc_elf_object *obj; /* NULL: unreadable */
};

struct segment {
	uint64_t start, end, offset, ktime;
	char *path;
};

/* A map.xml reader: the segments of one experiment. */
struct seg_sink {
	struct bc_sink base;
	struct segment *v;
	size_t n;
};

struct profile_report {
	struct func_total *funcs;
	size_t n_funcs, cap_funcs;
	struct elf_cache *elves;
	size_t n_elves;
	uint64_t total_user, total_sys, samples;
	uint32_t ptimer_us;
	size_t experiments;
	unsigned int stack_serial;
};

static int seg_mapping(struct bc_sink *s, const struct bc_mapping *m)
{
	struct seg_sink *ss = (struct seg_sink *)s;
	struct segment *v;

	if (m->unmap || !m->path)
		return 0;
	v = realloc(ss->v, (ss->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	ss->v = v;
	v[ss->n] = (struct segment){m->start, m->end, m->offset, m->ktime, strdup(m->path)};
	if (!v[ss->n].path)
		return -ENOMEM;
	ss->n++;
	return 0;
}

static const struct bc_sink_ops seg_ops = {.name = "segments", .mapping = seg_mapping};

static int func_index(struct profile_report *r, const char *name, const char *object)
{
	for (size_t i = 0; i < r->n_funcs; i++)
		if (!strcmp(r->funcs[i].name, name) && !strcmp(r->funcs[i].object, object))
			return (int)i;
	if (r->n_funcs == r->cap_funcs) {
		size_t cap = r->cap_funcs ? r->cap_funcs * 2 : 64;
		struct func_total *v = realloc(r->funcs, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		r->funcs = v;
		r->cap_funcs = cap;
	}
	r->funcs[r->n_funcs] = (struct func_total){.name = strdup(name), .object = strdup(object)};
	if (!r->funcs[r->n_funcs].name || !r->funcs[r->n_funcs].object)
		return -ENOMEM;
	return (int)r->n_funcs++;
}

static int cmp_sym_offset(const void *a, const void *b)
{
	const struct bc_elf_sym *x = a, *y = b;

	return (x->offset > y->offset) - (x->offset < y->offset);
}

/* The function symbols of the object at path (its archived copy first), by file offset. */
static struct bc_elf_object *elf_for(struct profile_report *r, const char *exp, const char *path)
{
	char copy[PATH_MAX] = "";
	struct elf_cache *v;
	struct bc_elf_object *obj = NULL;

	for (size_t i = 0; i < r->n_elves; i++)
		if (!strcmp(r->elves[i].path, path))
			return r->elves[i].obj;
	if (bc_archive_lookup(exp, path, copy, sizeof(copy), NULL, NULL, 0) < 0 || !copy[0])
		snprintf(copy, sizeof(copy), "%s", path);
	if (bc_elf_object_load(copy, &obj, NULL, 0) < 0)
		obj = NULL;
	if (obj && obj->nsyms)
		qsort(obj->syms, obj->nsyms, sizeof(*obj->syms), cmp_sym_offset);
	v = realloc(r->elves, (r->n_elves + 1) * sizeof(*v));
	if (!v) {
		bc_elf_object_free(obj);
		return NULL;
	}
	r->elves = v;
	v[r->n_elves].path = strdup(path);
	v[r->n_elves].obj = obj;
	if (!v[r->n_elves].path) {
		bc_elf_object_free(obj);
		return NULL;
	}
	r->n_elves++;
	return obj;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* Names pc: its function index in r->funcs, or -errno. */
static int name_pc(struct profile_report *r, const char *exp, const struct seg_sink *segs,
		   const struct bc_ksyms *ks, uint64_t pc, uint64_t when)
{
	const struct segment *best = NULL;
	char label[96];

	if (pc >= KERNEL_SPACE) {
		const struct bc_ksym *k = bc_ksyms_find(ks, pc);
		char name[640];

		if (!k) /* gprofng has one <Unknown> for all */
			return func_index(r, "<Unknown>", "<Unknown>");
		snprintf(name, sizeof(name), "%s%s", strchr(k->name, '`') ? "" : "vmlinux`",
			 k->name);
		return func_index(r, name, "vmlinux");
	}
	/* The mapping live at the sample's time; else any (gprofng does the same). */
	for (size_t i = 0; i < segs->n; i++) {
		const struct segment *s = &segs->v[i];

		if (pc < s->start || pc >= s->end)
			continue;
		if (!best || (s->ktime <= when && (best->ktime > when || s->ktime > best->ktime)))
			best = s;
	}
	if (!best)
		return func_index(r, "<Unknown>", "<Unknown>");
	uint64_t off = best->offset + (pc - best->start);
	struct bc_elf_object *obj = elf_for(r, exp, best->path);

	if (obj) {
		size_t lo = 0, hi = obj->nsyms;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (obj->syms[mid].offset <= off)
				lo = mid + 1;
			else
				hi = mid;
		}
		/*
		 * Aliases share an offset: gprofng names the shortest (then the
		 * first). A PC past the symbol before it is in an unnamed
		 * region gprofng calls <static>@ that symbol's end.
		 */
		const struct bc_elf_sym *pick = NULL;
		uint64_t gap = 0;

		for (size_t i = lo; i-- > 0;) {
			const struct bc_elf_sym *s = &obj->syms[i];

			if (pick && s->offset != pick->offset)
				break;
			if (off < s->offset + (s->size ? s->size : 1)) {
				if (!pick || strlen(s->name) <= strlen(pick->name))
					pick = s;
			} else if (!pick && !gap) {
				gap = s->offset + s->size;
			}
		}
		if (pick)
			return func_index(r, pick->name, base_name(best->path));
		if (gap)
			off = gap;
	}
	snprintf(label, sizeof(label), "<static>@0x%" PRIx64, off);
	return func_index(r, label, base_name(best->path));
}

static int one_experiment(struct profile_report *r, const char *exp, char *err, size_t errlen)
{
	struct seg_sink segs = {.base.ops = &seg_ops};
	struct bc_prof_data d;
	struct bc_ksyms ks = {0};
	struct bc_er_info info;
	int *names = NULL, rc;
	size_t names_cap = 0;

	memset(&info, 0, sizeof(info));
	rc = bc_prof_data_read(exp, &d, err, errlen);
	if (rc < 0 || !d.ptimer_us)
		goto out;
	if (r->ptimer_us && r->ptimer_us != d.ptimer_us) {
		snprintf(err, errlen, "%s: profiled every %u us, its founder every %u us", exp,
			 d.ptimer_us, r->ptimer_us);
		rc = -EINVAL;
		goto out;
	}
	r->ptimer_us = d.ptimer_us;
	r->experiments++;
	rc = bc_er_read(exp, &segs.base, &info, err, errlen);
	if (rc < 0)
		goto out;
	rc = bc_ksyms_read(exp, &ks);
	if (rc < 0) {
		snprintf(err, errlen, "%s/kallmodsyms: %s", exp, strerror(-rc));
		goto out;
	}
	for (size_t i = 0; i < d.n_samples; i++) {
		const struct bc_prof_sample *s = &d.samples[i];
		const struct bc_prof_stack *st = bc_prof_stack_find(&d, s->frinfo);
		uint64_t us = (uint64_t)(s->nticks > 0 ? s->nticks : 0) * d.ptimer_us;
		bool sys = s->mstate == 1;

		r->samples++;
		*(sys ? &r->total_sys : &r->total_user) += us;
		if (!st || !st->n)
			continue;
		if (st->n > names_cap) {
			int *v = realloc(names, st->n * sizeof(*v));

			if (!v) {
				rc = -ENOMEM;
				goto out;
			}
			names = v;
			names_cap = st->n;
		}
		r->stack_serial++;
		for (size_t f = 0; f < st->n; f++) {
			int fi = name_pc(r, exp, &segs, &ks, st->pcs[f], s->tstamp);

			if (fi < 0) {
				rc = fi;
				goto out;
			}
			if (f == 0)
				*(sys ? &r->funcs[fi].excl_sys : &r->funcs[fi].excl_user) += us;
			if (r->funcs[fi].last_stack != r->stack_serial) {
				r->funcs[fi].last_stack = r->stack_serial;
				r->funcs[fi].incl += us;
			}
		}
	}
	rc = 0;
out:
	if (rc == -ENOMEM && err)
		snprintf(err, errlen, "out of memory reading the profile of %s", exp);
	for (size_t i = 0; i < segs.n; i++)
		free(segs.v[i].path);
	free(segs.v);
	free(names);
	bc_ksyms_free(&ks);
	bc_prof_data_free(&d);
	bc_er_info_free(&info);
	return rc;
}

static int cmp_excl(const void *a, const void *b)
{
	const struct func_total *x = a, *y = b;
	uint64_t ex = x->excl_user + x->excl_sys, ey = y->excl_user + y->excl_sys;

	if (ex != ey)
		return ex < ey ? 1 : -1;
	if (x->incl != y->incl)
		return x->incl < y->incl ? 1 : -1;
	return strcmp(x->name, y->name);
}

static void print_secs(FILE *out, uint64_t us)
{
	fprintf(out, "  %9.3f", (double)us / 1e6);
}

int bc_report_profile(const char *exp_path, bool descendants, size_t top, FILE *out, char *err,
		      size_t errlen)
{
	struct profile_report r = {0};
	char **names = NULL, path[4096];
	size_t n = 0, shown;
	int rc;

	rc = one_experiment(&r, exp_path, err, errlen);
	if (rc == 0 && descendants && bc_er_list_descendants(exp_path, &names, &n) == 0) {
		for (size_t i = 0; i < n && rc == 0; i++) {
			snprintf(path, sizeof(path), "%s/%s", exp_path, names[i]);
			rc = one_experiment(&r, path, err, errlen);
		}
	}
	if (rc < 0)
		goto out;
	if (!r.experiments) {
		snprintf(err, errlen, "%s has no clock profile (record it with -p on)", exp_path);
		rc = -ENOENT;
		goto out;
	}
	uint64_t total = r.total_user + r.total_sys;

	if (r.n_funcs)
		qsort(r.funcs, r.n_funcs, sizeof(*r.funcs), cmp_excl);
	shown = top && top < r.n_funcs ? top : r.n_funcs;
	fprintf(out,
		"Clock profile: %" PRIu64 " samples of %u us in %zu experiment%s: %.3f s CPU "
		"(user %.3f s, system %.3f s)\n",
		r.samples, r.ptimer_us, r.experiments, r.experiments == 1 ? "" : "s",
		(double)total / 1e6, (double)r.total_user / 1e6, (double)r.total_sys / 1e6);
	if (shown < r.n_funcs)
		fprintf(out, "Functions, top %zu of %zu by exclusive CPU:\n", shown, r.n_funcs);
	else
		fprintf(out, "Functions, by exclusive CPU:\n");
	int objw = 6;

	for (size_t i = 0; i < shown; i++)
		objw = bc_max_int(objw, bc_slen(r.funcs[i].object));
	fprintf(out, "  %9s  %6s  %9s  %9s  %9s  %-*s  %s\n", "Excl. CPU", "%", "Excl. user",
		"Excl. sys", "Incl. CPU", objw, "Object", "Name");
	fprintf(out, "  %9s  %6s  %9s  %9s  %9s  %-*s  %s\n", "(s)", "", "(s)", "(s)", "(s)", objw,
		"", "");
	print_secs(out, total);
	fprintf(out, "  %6.2f", 100.0);
	print_secs(out, r.total_user);
	print_secs(out, r.total_sys);
	print_secs(out, total);
	fprintf(out, "  %-*s  %s\n", objw, "", "<Total>");
	for (size_t i = 0; i < shown; i++) {
		const struct func_total *f = &r.funcs[i];
		uint64_t ex = f->excl_user + f->excl_sys;

		print_secs(out, ex);
		fprintf(out, "  %6.2f", total ? 100.0 * (double)ex / (double)total : 0.0);
		print_secs(out, f->excl_user);
		print_secs(out, f->excl_sys);
		print_secs(out, f->incl);
		fprintf(out, "  %-*s  %s\n", objw, f->object, f->name);
	}
	rc = 0;
out:
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	for (size_t i = 0; i < r.n_funcs; i++) {
		free(r.funcs[i].name);
		free(r.funcs[i].object);
	}
	free(r.funcs);
	for (size_t i = 0; i < r.n_elves; i++) {
		free(r.elves[i].path);
		bc_elf_object_free(r.elves[i].obj);
	}
	free(r.elves);
	return rc;
}
