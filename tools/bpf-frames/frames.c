// SPDX-License-Identifier: MIT
/*
 * bpf-frames OBJ: loads a BPF object as the agent would and prints, per
 * program, its type, whether it is sleepable, and the stack frame of each
 * of its subprograms as the verifier sized them:
 *
 *   func_entry_cap kprobe sleepable 32+8+24
 *
 * Frames of 64 bytes or more in kprobe-type programs run on a per-CPU
 * stack (bpf/capture.bpf.h says why that breaks sleepable programs); the
 * integration test bpf_frames holds them below that.
 */
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LOG_SIZE (64 * 1024)

static int silent(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return level == LIBBPF_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

int main(int argc, char **argv)
{
	struct bpf_object *obj = NULL;
	struct bpf_program *prog;
	char **logs = NULL;
	size_t n = 0, i;
	int rc = 1;

	if (argc != 2) {
		fprintf(stderr, "usage: bpf-frames OBJ.o\n");
		return 2;
	}
	libbpf_set_print(silent);
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj) {
		fprintf(stderr, "bpf-frames: %s: cannot open it as a BPF object\n", argv[1]);
		return 1;
	}
	bpf_object__for_each_program(prog, obj) n++;
	logs = calloc(n ? n : 1, sizeof(*logs));
	if (!logs)
		goto out;
	i = 0;
	bpf_object__for_each_program(prog, obj)
	{
		logs[i] = calloc(1, LOG_SIZE);
		if (!logs[i])
			goto out;
		/* 4: the verifier's statistics only, "stack depth A+B+..." among them */
		bpf_program__set_log_level(prog, 4);
		bpf_program__set_log_buf(prog, logs[i], LOG_SIZE);
		i++;
	}
	if (bpf_object__load(obj)) {
		fprintf(stderr, "bpf-frames: %s: the kernel refused to load it\n", argv[1]);
		goto out;
	}
	i = 0;
	bpf_object__for_each_program(prog, obj)
	{
		const char *depth = strstr(logs[i++], "stack depth ");
		size_t len = depth ? strcspn(depth + 12, "\n") : 0;

		const char *sec = bpf_program__section_name(prog);
		size_t kind = strcspn(sec, "/");

		/* libbpf 1.1 keeps the flag to itself: "uprobe.s", "uprobe.multi.s/..." */
		printf("%s %s %s %.*s\n", bpf_program__name(prog),
		       libbpf_bpf_prog_type_str(bpf_program__type(prog)),
		       kind >= 2 && !strncmp(sec + kind - 2, ".s", 2) ? "sleepable"
								      : "non-sleepable",
		       (int)len, depth ? depth + 12 : "?");
	}
	rc = 0;
out:
	for (i = 0; logs && i < n; i++)
		free(logs[i]);
	free(logs);
	bpf_object__close(obj);
	return rc;
}
