// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bpfcollect/argspec.h"
#include "bpfcollect/capture_plan.h"
#include "bpfcollect/symbols.h"

static bool wants_fparg(const struct bc_capture_spec *s)
{
	for (unsigned int i = 0; i < (unsigned int)s->n_entry + s->n_return && i < BC_MAX_CAPTURES;
	     i++)
		if (s->items[i].source == BC_SRC_FPARG)
			return true;
	return false;
}

static long find_func(const struct bc_functab *funcs, const struct bc_func *f)
{
	for (size_t i = 0; i < funcs->n; i++)
		if (funcs->v[i].offset == f->offset && strcmp(funcs->v[i].object, f->object) == 0)
			return (long)i;
	return -1;
}

/* One option: its functions get the spec, joining the table if they are not in it. */
static int plan_one(const char *exe, int pid, const char *opt, const char *raw, bool is_retval,
		    unsigned int string_size, struct bc_functab *funcs, char *err, size_t errlen)
{
	struct bc_argspec a = {0};
	struct bc_functab found;
	char why[512];
	const char *msg;
	int rc;

	bc_functab_init(&found);
	rc = bc_argspec_parse(raw, is_retval, string_size, &a, err, errlen);
	if (rc < 0)
		goto out;
	if (wants_fparg(&a.spec)) {
		snprintf(err, errlen,
			 "%s '%s': floating-point arguments cannot be captured: x86-64 passes them "
			 "in xmm registers, which uprobe programs cannot read (the kernel keeps "
			 "them live, not saved)",
			 opt, raw);
		rc = -EOPNOTSUPP;
		goto out;
	}
	const char *glob = a.glob;

	rc = bc_symbols_resolve(exe, pid, &glob, 1, &found, why, sizeof(why));
	if (rc < 0) {
		/* The resolver speaks of -u 'GLOB': say which option it was. */
		msg = strncmp(why, "-u '", 4) == 0 && strstr(why, "': ") ? strstr(why, "': ") + 3
									 : why;
		snprintf(err, errlen, "%s '%s': %s", opt, raw, msg);
		goto out;
	}
	for (size_t i = 0; i < found.n; i++) {
		const struct bc_func *f = &found.v[i];
		long at = find_func(funcs, f);

		if (at < 0) {
			rc = bc_functab_add(funcs, f->name, f->object, f->addr, f->size, f->offset);
			if (rc < 0) {
				snprintf(err, errlen, "out of memory");
				goto out;
			}
			at = (long)funcs->n - 1;
		}
		rc = bc_capture_spec_merge(&funcs->v[at].capture, &a.spec, why, sizeof(why));
		if (rc < 0) {
			snprintf(err, errlen, "%s '%s': %s: %s", opt, raw, funcs->v[at].name, why);
			goto out;
		}
	}
	rc = 0;
out:
	bc_functab_free(&found);
	bc_argspec_free(&a);
	return rc;
}

int bc_capture_plan(const char *exe, int pid, const struct bc_record_opts *o,
		    struct bc_functab *funcs, char *err, size_t errlen)
{
	int rc;

	for (size_t i = 0; i < o->n_arg_specs; i++) {
		rc = plan_one(exe, pid, "--arg", o->arg_specs[i], false, o->string_size, funcs, err,
			      errlen);
		if (rc < 0)
			return rc;
	}
	for (size_t i = 0; i < o->n_ret_specs; i++) {
		rc = plan_one(exe, pid, "--retval", o->ret_specs[i], true, o->string_size, funcs,
			      err, errlen);
		if (rc < 0)
			return rc;
	}
	return 0;
}
