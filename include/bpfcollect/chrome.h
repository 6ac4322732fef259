/* SPDX-License-Identifier: MIT */
/* -f chrome: Chrome trace event JSON for Perfetto, chrome://tracing and speedscope
 * (docs/chrome.md). */
#ifndef BPFCOLLECT_CHROME_H
#define BPFCOLLECT_CHROME_H

#include <stdio.h>

#include "bpfcollect/model.h"

/*
 * A sink writing the stream to out as one JSON object. exp (NULL: none) is
 * an experiment whose archives/ and kallmodsyms name stack frames.
 */
struct bc_sink *bc_chrome_sink_new(FILE *out, const char *exp);

#endif
