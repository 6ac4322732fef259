/* SPDX-License-Identifier: MIT */
/*
 * -f folded: collapsed stacks, `COMM;outer;...;leaf WEIGHT` a line, as
 * flamegraph.pl, inferno and speedscope read them (docs/folded.md).
 */
#ifndef BPFCOLLECT_FOLDED_H
#define BPFCOLLECT_FOLDED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "bpfcollect/model.h"

/* What the lines weigh, and so which stacks they are. */
enum bc_folded_weight {
	BC_FOLDED_AUTO,	   /* samples with a clock profile, else exclusive call time */
	BC_FOLDED_SAMPLES, /* clock samples: their count */
	BC_FOLDED_TIME,	   /* clock samples: their count times the period, ns */
	BC_FOLDED_EXCL,	   /* the call trace: each call path's own time, ns */
	BC_FOLDED_INCL,	   /* the call trace: each call path's time with its callees, ns */
	BC_FOLDED_WEIGHT_NR,
};

struct bc_folded_opts {
	enum bc_folded_weight weight;
	bool offcpu; /* off-CPU intervals' user stacks, weighed in ns */
	bool quiet;  /* no warning on stderr when no stack was weighed */
};

/* --weight=NAME; 0, or -EINVAL with one line in err. */
int bc_folded_weight_parse(struct bc_folded_opts *o, const char *arg, char *err, size_t errlen);
/* What the options ask for is possible together; 0, or -EINVAL with one line in err. */
int bc_folded_opts_check(const struct bc_folded_opts *o, char *err, size_t errlen);

/* A sink writing folded stacks to out at the stream's end; exp as for bc_chrome_sink_new(). */
struct bc_sink *bc_folded_sink_new(FILE *out, const struct bc_folded_opts *o, const char *exp);

#endif
