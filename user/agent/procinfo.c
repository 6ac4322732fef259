// SPDX-License-Identifier: MIT
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpfcollect/model.h"
#include "bpfcollect/procinfo.h"

#define PF_KTHREAD 0x00200000U

/* Fields of /proc/ID/stat after the comm: state is field 3, flags field 9. */
static int read_stat(const char *procfs, uint32_t id, char comm[16], char *state, uint32_t *ppid,
		     unsigned long *flags)
{
	char path[256], buf[1024], *open_paren, *close_paren;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%" PRIu32 "/stat", procfs, id);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	/* comm may hold spaces and ')': it runs from the first '(' to the last ')'. */
	open_paren = strchr(buf, '(');
	close_paren = strrchr(buf, ')');
	if (!open_paren || !close_paren || close_paren < open_paren)
		return -EINVAL;
	n = (size_t)(close_paren - open_paren - 1);
	if (n > 15)
		n = 15;
	memcpy(comm, open_paren + 1, n);
	comm[n] = 0;
	/* state ppid pgrp session tty_nr tpgid flags */
	if (sscanf(close_paren + 1, " %c %" SCNu32 " %*d %*d %*d %*d %lu", state, ppid, flags) != 3)
		return -EINVAL;
	return 0;
}

/* The Tgid: line of /proc/ID/status. */
static int read_tgid(const char *procfs, uint32_t id, uint32_t *tgid)
{
	char path[256], line[256];
	int rc = -EINVAL;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%" PRIu32 "/status", procfs, id);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned int v;

		if (sscanf(line, "Tgid: %u", &v) == 1) {
			*tgid = v;
			rc = 0;
			break;
		}
	}
	fclose(f);
	return rc;
}

int bc_proc_inspect(const char *procfs, uint32_t id, struct bc_proc_info *pi, char *err,
		    size_t errlen)
{
	unsigned long flags = 0;
	char state = 0;
	int rc;

	memset(pi, 0, sizeof(*pi));
	pi->tid = id;
	if (id == 0) {
		snprintf(err, errlen, "pid 0 is the kernel's idle task: give a process id");
		return -EINVAL;
	}
	rc = read_stat(procfs, id, pi->comm, &state, &pi->ppid, &flags);
	if (rc == -ENOENT || rc == -ESRCH) {
		snprintf(err, errlen, "no such process: %" PRIu32 " (see ps or pgrep for its pid)",
			 id);
		return -ESRCH;
	}
	if (rc < 0) {
		snprintf(err, errlen, "process %" PRIu32 ": cannot read %s/%" PRIu32 "/stat: %s",
			 id, procfs, id, strerror(-rc));
		return rc;
	}
	if (state == 'Z' || state == 'X') {
		snprintf(err, errlen,
			 "process %" PRIu32 " (%s) has exited (a zombie): nothing to attach to", id,
			 pi->comm);
		return -ESRCH;
	}
	pi->kthread = (flags & PF_KTHREAD) != 0;
	rc = read_tgid(procfs, id, &pi->pid);
	if (rc < 0) {
		snprintf(err, errlen, "process %" PRIu32 ": cannot read its status: %s", id,
			 strerror(-rc));
		return rc == -ENOENT ? -ESRCH : rc;
	}
	return 0;
}

int bc_proc_argv(uint32_t pid, const char *fallback, char ***argv_out, char **buf_out)
{
	char path[64], buf[4096];
	size_t len = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/cmdline", pid);
	f = fopen(path, "re");
	if (f) {
		len = fread(buf, 1, sizeof(buf), f);
		fclose(f);
	}
	return bc_argv_split(buf, len, fallback, argv_out, buf_out);
}

void bc_comm_for_filename(const char *comm, char *out, size_t outlen)
{
	size_t n = 0;

	if (!outlen)
		return;
	for (const char *c = comm; *c && n + 1 < outlen; c++)
		out[n++] = isalnum((unsigned char)*c) || *c == '.' || *c == '-' || *c == '_' ? *c
											     : '_';
	out[n] = 0;
	if (!n)
		snprintf(out, outlen, "unknown");
}
