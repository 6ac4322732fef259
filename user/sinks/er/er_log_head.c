// SPDX-License-Identifier: MIT
/*
 * The head of an experiment's log.xml (er_log_head.h): the elements gprofng
 * reads about the collector, the machine and the process, and bpfcollect's
 * own facts as comments, which its reader parses back (docs/experiment-format.md).
 */
#include <stdio.h>
#include <stdlib.h>

#include "er_log_head.h"
#include "bpfcollect/experiment.h"

/* <cpu id= clk=/> children of <system>, clock in MHz. */
static void er_sb_cpus(struct er_strbuf *b, const struct bc_host *h)
{
	for (unsigned int i = 0; h && i < h->ncpus && i < BC_HOST_MAX_CPUS; i++)
		er_sb_printf(b, "  <cpu id=\"%u\" clk=\"%u\"/>\n", i, h->cpu_mhz[i]);
}

void er_sb_header(struct er_strbuf *b, const struct bc_session *s)
{
	const struct bc_host *h = s->host;

	er_sb_printf(b,
		     "<experiment version=\"12.4\">\n<collector>bpfcollect %s</collector>\n"
		     "</experiment>\n",
		     BPFCOLLECT_VERSION);
	er_sb_printf(b, "<system hostname=\"");
	er_sb_escaped(b, h ? h->hostname : "");
	er_sb_printf(b, "\" arch=\"");
	er_sb_escaped(b, h ? h->arch : "");
	er_sb_printf(b, "\" os=\"Linux ");
	er_sb_escaped(b, h ? h->release : "");
	er_sb_printf(b, "\" pagesz=\"%ld\" npages=\"%ld\">\n", h ? h->pagesz : 4096,
		     h ? h->npages : 0);
	er_sb_cpus(b, h);
	er_sb_printf(b, "</system>\n");

	er_sb_printf(b, "<process pid=\"%u\"></process>\n", s->root_pid);
	er_sb_printf(b, "<process ppid=\"%d\"></process>\n", s->ppid);
	er_sb_printf(b, "<process pgrp=\"%d\"></process>\n", s->pgrp);
	er_sb_printf(b, "<process sid=\"%d\"></process>\n", s->sid);
	er_sb_printf(b, "<process cwd=\"");
	er_sb_escaped(b, s->cwd ? s->cwd : "");
	er_sb_printf(b, "\"></process>\n<process wsize=\"64\"></process>\n<process>");
	for (char *const *a = s->argv; a && *a; a++) {
		er_sb_escaped(b, *a);
		if (a[1])
			er_sb_printf(b, " ");
	}
	er_sb_printf(b, "</process>\n");
}

/* bpfcollect's own facts, as comments: gprofng prints them, our reader parses them. */
void er_sb_begin_comments(struct er_strbuf *b, const struct bc_session *s)
{
	struct er_strbuf t = {0};

	er_sb_printf(&t, "bpfcollect: format=%d version=", BC_ER_FORMAT);
	er_sb_shell_word(&t, BPFCOLLECT_VERSION);
	er_sb_printf(&t, " kernel=");
	er_sb_shell_word(&t, s->host ? s->host->release : "");
	er_sb_printf(&t, " libbpf=");
	er_sb_shell_word(&t, s->libbpf ? s->libbpf : "");
	er_sb_comment(b, &t);
	if (s->options) {
		t.len = 0;
		er_sb_printf(&t, "bpfcollect: options=");
		er_sb_shell_word(&t, s->options);
		er_sb_comment(b, &t);
	}
	t.len = 0;
	er_sb_printf(&t, "bpfcollect: ringbuf=%u syscalls=%s functions=%zu", s->ringbuf_bytes,
		     s->syscalls ? "on" : "off", s->funcs ? s->funcs->n : 0);
	er_sb_comment(b, &t);
	t.len = 0;
	/* what was recorded, so a conversion makes the same experiment (tree) */
	const struct bc_session *w = s->whole ? s->whole : s;

	er_sb_printf(&t,
		     "bpfcollect: session exp_kernel=%d exp_system_wide=%d exp_attached=%d "
		     "exp_no_follow=%d exp_offcpu=%d exp_offcpu_in_founder=%d exp_profile_us=%u "
		     "exp_heap=%d exp_sync=%d exp_sync_us=%u exp_io=%d exp_host_ip=%u "
		     "exp_root_pid=%u exp_extra_pids=",
		     w->kernel, w->system_wide, w->attached, w->no_follow, w->offcpu,
		     w->offcpu_in_founder, w->profile_us, w->heap, w->sync, w->sync_threshold_us,
		     w->io, w->host_ip, w->root_pid);
	for (size_t i = 0; i < w->n_extra_pids; i++)
		er_sb_printf(&t, "%s%u", i ? "," : "", w->extra_pids[i]);
	if (!w->n_extra_pids)
		er_sb_printf(&t, "-");
	er_sb_comment(b, &t);
	t.len = 0;
	er_sb_printf(&t, "bpfcollect: clock start_ktime=%llu wall_offset_ns=%lld",
		     (unsigned long long)s->start_ktime, (long long)s->wall_offset_ns);
	er_sb_comment(b, &t);
	t.len = 0;
	er_sb_printf(&t, "bpfcollect: command:");
	for (char *const *a = s->argv; a && *a; a++) {
		er_sb_printf(&t, " ");
		er_sb_shell_word(&t, *a);
	}
	er_sb_comment(b, &t);
	if (t.oom)
		b->oom = true;
	free(t.s);
}
