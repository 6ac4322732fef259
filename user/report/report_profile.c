// SPDX-License-Identifier: MIT
/*
 * The clock profile by function. PCs are named the way gprofng names them
 * (bpfcollect/pcname.h), so both readers agree function by function: user
 * PCs through the mapping live in map.xml and the function symbols of that
 * file (its copy in archives/ first); kernel PCs through kallmodsyms, as
 * vmlinux`NAME or MODULE`NAME; a PC in no known function as
 * <static>@0xOFFSET of its object, or <Unknown>.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bpfcollect/demangle.h"
#include "bpfcollect/experiment.h"
#include "bpfcollect/pcname.h"
#include "bpfcollect/profile_data.h"
#include "bpfcollect/report_profile.h"
#include "table.h"

struct func_total {
	const char *name; /* owned by the report's function index */
	const char *object;
	uint64_t excl_user, excl_sys, incl; /* ticks x ptimer: microseconds */
	unsigned int last_stack;	    /* inclusive: counted once per sample */
};

struct profile_report {
	struct bc_fnindex index; /* (name, object) -> funcs[i] */
	struct func_total *funcs;
	size_t n_funcs, cap_funcs;
	struct bc_pcnamer namer;
	uint64_t total_user, total_sys, samples;
	uint64_t offcpu_packets; /* numstates 10: Sleep, Wait CPU, User Lock ticks */
	uint32_t ptimer_us;
	size_t experiments;
	unsigned int stack_serial;
};

/*
 * Names pc: its function index in r->funcs, or -errno. *plt: it is in a
 * PLT stub (NULL: name it all the same).
 */
static int name_pc(struct profile_report *r, const char *exp, const struct bc_segments *segs,
		   const struct bc_ksyms *ks, uint64_t pc, uint64_t when, bool *plt)
{
	const char *name, *object;
	int rc = bc_pcname(&r->namer, exp, segs, ks, pc, when, &name, &object);

	if (rc < 0)
		return rc;
	if (rc == 2 || (plt && rc == 1)) {
		if (plt)
			*plt = true; /* not a function of the report's */
		return rc == 2 ? -ENOENT : 0;
	}
	rc = bc_fnindex_get(&r->index, name, object);
	if (rc < 0 || (size_t)rc < r->n_funcs)
		return rc;
	/* new: indexes are dense, so it is the next one */
	if (r->n_funcs == r->cap_funcs) {
		size_t cap = r->cap_funcs ? r->cap_funcs * 2 : 64;
		struct func_total *v = realloc(r->funcs, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		r->funcs = v;
		r->cap_funcs = cap;
	}
	r->funcs[r->n_funcs] = (struct func_total){.name = bc_sym_display(r->index.v[rc].name),
						   .object = r->index.v[rc].object};
	return (int)r->n_funcs++;
}

static int one_experiment(struct profile_report *r, const char *exp, char *err, size_t errlen)
{
	struct bc_segments segs = {0};
	struct bc_prof_data d;
	struct bc_ksyms ks = {0};
	int rc;

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
	rc = bc_segments_read(exp, &segs, err, errlen);
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

		/* Off-CPU states (numstates 10) are `report offcpu`'s, from the exact intervals. */
		if (s->mstate != 0 && s->mstate != 1 && s->mstate != 2 && s->mstate != 10) {
			r->offcpu_packets++;
			continue;
		}
		r->samples++;
		*(sys ? &r->total_sys : &r->total_user) += us;
		if (!st || !st->n)
			continue;
		r->stack_serial++;
		for (size_t f = 0, leaf = 0; f < st->n; f++) {
			bool plt = false;
			int fi = name_pc(r, exp, &segs, &ks, st->pcs[f], s->tstamp,
					 f == leaf && f + 1 < st->n ? &plt : NULL);

			/* a frame gprofng does not show, and a leaf in a PLT stub (its caller's) */
			if (fi == -ENOENT || plt) {
				leaf += f == leaf;
				continue;
			}
			if (fi < 0) {
				rc = fi;
				goto out;
			}
			if (f == leaf)
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
	bc_segments_free(&segs);
	bc_ksyms_free(&ks);
	bc_prof_data_free(&d);
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

static int each_experiment(const char *path, const char *name, size_t index, void *arg, char *err,
			   size_t errlen)
{
	(void)name;
	(void)index;
	return one_experiment(arg, path, err, errlen);
}

int bc_report_profile(const char *exp_path, bool descendants, size_t top, FILE *out, char *err,
		      size_t errlen)
{
	struct profile_report r = {0};
	size_t shown;
	int rc;

	rc = bc_er_tree_each(exp_path, descendants, each_experiment, &r, err, errlen);
	if (rc < 0)
		goto out;
	if (!r.experiments || (!r.samples && r.offcpu_packets)) {
		snprintf(err, errlen, "%s has no clock profile (record it with -p on)%s", exp_path,
			 r.offcpu_packets ? "; its off-CPU time is in `report offcpu`" : "");
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
	free(r.funcs);
	bc_fnindex_free(&r.index);
	bc_pcnamer_free(&r.namer);
	return rc;
}
