// SPDX-License-Identifier: MIT
/*
 * Kernel feature probes (bpfcollect/features.h). Each asks the kernel
 * itself, never its version number: distributions backport (RHEL 9's 5.14
 * has ring buffers and task storage) and configurations differ. Program
 * types and helpers by loading a two-instruction program, kfuncs and
 * syscalls by their names in the kernel's BTF, as libbpf resolves them.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "bpfcollect/cli.h"
#include "bpfcollect/features.h"
#include "bpfcollect/tracefs.h"
#include "bpfcollect/uprobe_multi.h"

/* A line per feature, in enum order: name, when kernels got it, what its absence costs. */
static const struct {
	const char *name;
	const char *since;
	bool required;
	const char *fallback;
} feature_table[BC_FEAT_COUNT] = {
	[BC_FEAT_BTF] = {"btf", "5.4", true, "the programs are compiled once, for BTF (CO-RE)"},
	[BC_FEAT_RINGBUF] = {"ringbuf", "5.8", true, "every record goes through it"},
	[BC_FEAT_TASK_STORAGE] = {"task_storage", "5.11", true,
				  "per-thread depth, sequence and entry times live there"},
	[BC_FEAT_TP_BTF] = {"tp_btf", "5.5", true,
			    "process, syscall and scheduler events come from BTF tracepoints"},
	[BC_FEAT_BPF_LOOP] = {"bpf_loop", "5.17", true,
			      "file paths and stack scans are bpf_loop() walks"},
	[BC_FEAT_PERF_EVENT] = {"perf_event", "4.9", false, "-p (clock profiling) is refused"},
	[BC_FEAT_SLEEPABLE] = {"sleepable_uprobe", "6.0", false, "--arg and --retval are refused"},
	[BC_FEAT_UPROBE_MULTI] = {"uprobe_multi", "6.6", false,
				  "a perf uprobe per function: attach and detach take "
				  "milliseconds per function, not per object; ld.so's hook "
				  "without tracefs goes to the syscall path"},
	[BC_FEAT_ITER_TASK_VMA] = {"iter_task_vma", "6.7", false,
				   "library mappings from mmap/munmap at every syscall's return "
				   "(every process pays ~0.1 us a syscall while recording)"},
	[BC_FEAT_COPY_USER_STR] = {"copy_from_user_str", "6.12", false,
				   "captured strings are read without faulting pages in: a string "
				   "in a page not yet touched is shown as a fault"},
	[BC_FEAT_URETPROBE_CALL] = {"uretprobe_syscall", "6.11", false,
				    "return probes trap (int3) instead of a syscall: each return "
				    "costs about 0.3 us more"},
	[BC_FEAT_TRACEFS] = {"tracefs_uprobes", "3.5", false,
			     "ld.so's hook cannot follow children: with -F on, library "
			     "mappings come from the syscall path"},
};

const char *bc_feature_name(enum bc_feature f)
{
	return (unsigned)f < BC_FEAT_COUNT ? feature_table[f].name : "?";
}

const char *bc_feature_fallback(enum bc_feature f)
{
	return (unsigned)f < BC_FEAT_COUNT ? feature_table[f].fallback : "";
}

/* Loads "r0 = 0; exit" as the given type: 0 accepted, else the kernel's -errno. */
static int load_trivial(enum bpf_prog_type type, const struct bpf_prog_load_opts *opts)
{
	struct bpf_insn insns[] = {
		{.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0},
		{.code = BPF_JMP | BPF_EXIT},
	};
	int fd = bpf_prog_load(type, "bc_feature", "GPL", insns, 2, opts);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static bool loads(enum bpf_prog_type type, const struct bpf_prog_load_opts *opts)
{
	return load_trivial(type, opts) == 0;
}

/* Whether we may load programs at all: without that every probe says no. */
static bool allowed(void)
{
	int rc = load_trivial(BPF_PROG_TYPE_KPROBE, NULL);

	return rc != -EPERM && rc != -EACCES;
}

static bool probe_tp_btf(const struct btf *vmlinux)
{
	int id = vmlinux ? btf__find_by_name_kind(vmlinux, "btf_trace_sched_process_exit",
						  BTF_KIND_TYPEDEF)
			 : -ENOENT;
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = BPF_TRACE_RAW_TP,
		    .attach_btf_id = id > 0 ? (__u32)id : 0);

	return id > 0 && loads(BPF_PROG_TYPE_TRACING, &opts);
}

static bool btf_has_func(const struct btf *vmlinux, const char *name)
{
	return vmlinux && btf__find_by_name_kind(vmlinux, name, BTF_KIND_FUNC) > 0;
}

static bool probe_tracefs(void)
{
	int fd = bc_tracefs_open();

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

static void probe_all(struct bc_features *f)
{
	struct btf *vmlinux = btf__load_vmlinux_btf();
	LIBBPF_OPTS(bpf_prog_load_opts, sleepable, .prog_flags = BPF_F_SLEEPABLE);

	if (libbpf_get_error(vmlinux))
		vmlinux = NULL;
	f->have[BC_FEAT_BTF] = vmlinux != NULL;
	f->denied = !allowed();
	f->have[BC_FEAT_RINGBUF] = libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, NULL) == 1;
	f->have[BC_FEAT_TASK_STORAGE] =
		libbpf_probe_bpf_map_type(BPF_MAP_TYPE_TASK_STORAGE, NULL) == 1;
	f->have[BC_FEAT_TP_BTF] = probe_tp_btf(vmlinux);
	f->have[BC_FEAT_BPF_LOOP] =
		libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE, BPF_FUNC_loop, NULL) == 1;
	f->have[BC_FEAT_PERF_EVENT] =
		libbpf_probe_bpf_prog_type(BPF_PROG_TYPE_PERF_EVENT, NULL) == 1;
	f->have[BC_FEAT_SLEEPABLE] = loads(BPF_PROG_TYPE_KPROBE, &sleepable);
	f->have[BC_FEAT_UPROBE_MULTI] = bc_uprobe_multi_supported();
	f->have[BC_FEAT_ITER_TASK_VMA] = btf_has_func(vmlinux, "bpf_iter_task_vma_new");
	f->have[BC_FEAT_COPY_USER_STR] = btf_has_func(vmlinux, "bpf_copy_from_user_str");
	f->have[BC_FEAT_URETPROBE_CALL] = btf_has_func(vmlinux, "__x64_sys_uretprobe");
	btf__free(vmlinux);
}

const struct bc_features *bc_features_probe(void)
{
	static struct bc_features features;
	static bool probed;

	if (!probed) {
		probe_all(&features);
		probed = true;
	}
	return &features;
}

void bc_feature_note_fallback(enum bc_feature f)
{
	static bool noted[BC_FEAT_COUNT];

	if ((unsigned)f >= BC_FEAT_COUNT || noted[f])
		return;
	noted[f] = true;
	bc_error("note: this kernel has no %s (since %s): %s", feature_table[f].name,
		 feature_table[f].since, feature_table[f].fallback);
}

enum bc_feature bc_features_missing_required(void)
{
	const struct bc_features *f = bc_features_probe();

	/* not allowed to ask: the load that follows says so, better than a wrong guess here */
	if (f->denied)
		return BC_FEAT_COUNT;
	for (int i = 0; i < BC_FEAT_COUNT; i++)
		if (feature_table[i].required && !f->have[i])
			return (enum bc_feature)i;
	return BC_FEAT_COUNT;
}

int bc_features_print(FILE *out)
{
	const struct bc_features *f = bc_features_probe();
	struct utsname u;

	if (f->denied)
		return -EPERM;

	/* asked here only: opening tracefs may take a mount namespace of our own */
	((struct bc_features *)f)->have[BC_FEAT_TRACEFS] = probe_tracefs();
	if (uname(&u) == 0)
		fprintf(out, "kernel %s %s\n", u.release, u.machine);
	fprintf(out, "%-19s %-7s %-5s %s\n", "feature", "here", "since", "without it");
	for (int i = 0; i < BC_FEAT_COUNT; i++) {
		const char *state = f->have[i]			? "yes"
				    : feature_table[i].required ? "MISSING"
								: "no";

		fprintf(out, "%-19s %-7s %-5s %s%s\n", feature_table[i].name, state,
			feature_table[i].since,
			f->have[i]		    ? ""
			: feature_table[i].required ? "needed: "
						    : "fallback: ",
			f->have[i] ? "" : feature_table[i].fallback);
	}
	return 0;
}
