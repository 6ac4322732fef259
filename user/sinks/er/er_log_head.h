/* SPDX-License-Identifier: MIT */
/* The head of log.xml, written once at a session's begin (er_log_head.c). */
#ifndef BPFCOLLECT_ER_LOG_HEAD_H
#define BPFCOLLECT_ER_LOG_HEAD_H

#include "er_strbuf.h"
#include "bpfcollect/model.h"

/* <experiment>, <system> with its CPUs, and the <process> elements of session s. */
void er_sb_header(struct er_strbuf *b, const struct bc_session *s);
/* bpfcollect's facts as <event kind="comment"> elements: format, options, session, clock, argv. */
void er_sb_begin_comments(struct er_strbuf *b, const struct bc_session *s);

#endif
