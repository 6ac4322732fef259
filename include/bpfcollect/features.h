/* SPDX-License-Identifier: MIT */
/*
 * What the running kernel offers the recorder's BPF programs, probed once
 * (user/agent/features.c). The recorder loads only programs this kernel can
 * verify: a missing feature the recording needs is an error naming it, one
 * with a fallback costs what its line says and the rest works.
 */
#ifndef BPFCOLLECT_FEATURES_H
#define BPFCOLLECT_FEATURES_H

#include <stdbool.h>
#include <stdio.h>

enum bc_feature {
	BC_FEAT_BTF,		/* /sys/kernel/btf/vmlinux: CO-RE and tp_btf */
	BC_FEAT_RINGBUF,	/* the BPF ring buffer (5.8) */
	BC_FEAT_TASK_STORAGE,	/* per-thread state (5.11) */
	BC_FEAT_TP_BTF,		/* BTF tracepoints (5.5) */
	BC_FEAT_BPF_LOOP,	/* bpf_loop() (5.17): path walks, stack scans */
	BC_FEAT_PERF_EVENT,	/* programs on perf events: -p */
	BC_FEAT_SLEEPABLE,	/* sleepable uprobe programs (6.0): captures */
	BC_FEAT_UPROBE_MULTI,	/* uprobe_multi links (6.6) */
	BC_FEAT_ITER_TASK_VMA,	/* open-coded task VMA iterator (6.7) */
	BC_FEAT_COPY_USER_STR,	/* bpf_copy_from_user_str() (6.12) */
	BC_FEAT_URETPROBE_CALL, /* the uretprobe syscall (6.11): cheaper returns */
	BC_FEAT_TRACEFS,	/* uprobe trace events: the inherited ld.so hook */
	BC_FEAT_COUNT
};

struct bc_features {
	bool have[BC_FEAT_COUNT];
	bool denied; /* the kernel would not let us load a probe: the answers mean nothing */
};

/* Probes the running kernel once; later calls return the same answers. */
const struct bc_features *bc_features_probe(void);

static inline bool bc_feature_has(enum bc_feature f)
{
	return bc_features_probe()->have[f];
}

/* The feature's short name, as --features prints it. */
const char *bc_feature_name(enum bc_feature f);

/*
 * The first feature every recording needs that this kernel lacks, or
 * BC_FEAT_COUNT when none is missing.
 */
enum bc_feature bc_features_missing_required(void);

/* One line: what a recording loses, and what it uses instead, without f. */
const char *bc_feature_fallback(enum bc_feature f);

/*
 * Says once per run, on stderr, that the recording uses f's fallback:
 * "note: this kernel has no NAME (since VERSION): FALLBACK".
 */
void bc_feature_note_fallback(enum bc_feature f);

/*
 * The table of `version --features`: kernel, then one line per feature.
 * -EPERM, printing nothing, when the kernel did not let us probe (not root).
 */
int bc_features_print(FILE *out);

#endif
