// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the ring record decoder on any bytes, as the agent's
 * drain meets them: records end to end, each decoded (bc_decode refuses
 * what is malformed), the process state updated, and every record it lets
 * through fed to every stream sink (text, PRF CSV and dump, GTF, report)
 * and mappings to their op. Functions 0..3 of the table capture arguments,
 * so capture items are rendered too. `make fuzz` runs it from
 * tests/fuzz/corpus/decode/ (records of real recordings among them).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "bpfcollect/capture.h"
#include "bpfcollect/model.h"
#include "bpfcollect/state.h"
#include "fuzz_sinks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void functions(struct bc_functab *t)
{
	static const struct bc_capture_item_spec str = {.source = BC_SRC_ARG,
							.index = 0,
							.type = BC_CAP_STR,
							.fmt = BC_FMT_STR,
							.size = 8,
							.len_arg = BC_LEN_FIXED,
							.max_len = 64};
	static const struct bc_capture_item_spec num = {.source = BC_SRC_ARG,
							.index = 1,
							.type = BC_CAP_INT,
							.fmt = BC_FMT_SIGNED,
							.size = 4};
	static const struct bc_capture_item_spec ret = {
		.source = BC_SRC_RETVAL, .type = BC_CAP_INT, .fmt = BC_FMT_HEX, .size = 8};
	static const char *const names[] = {"parse_line", "tgt_message", "_ZN3ns5Class6methodEv",
					    "main", "leaf"};

	bc_functab_init(t);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (bc_functab_add(t, names[i], "/usr/bin/app", 0x1000 + 16 * i, 16,
				   0x1000 + 16 * i))
			return;
	for (size_t i = 0; i < 4 && i < t->n; i++) {
		struct bc_capture_spec *c = &t->v[i].capture;

		c->n_entry = 2;
		c->items[0] = str;
		c->items[1] = num;
		c->n_return = 1;
		c->items[2] = ret;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint64_t aligned[65536 / 8 + 1];
	char *const argv[] = {"app", NULL};
	struct bc_functab funcs;
	struct bc_state state;
	struct bc_session sess = {.argv = argv,
				  .root_pid = 100,
				  .start_ktime = 1000000000ull,
				  .wall_offset_ns = 1700000000000000000ll,
				  .syscalls = true};
	struct bc_session_end end = {.end_ktime = UINT64_MAX / 2, .exit_status = 0};
	struct fuzz_sinks f;
	size_t off = 0;

	if (size > sizeof(aligned))
		return 0;
	/* records are 8-byte aligned in the ring */
	memcpy(aligned, data, size);
	functions(&funcs);
	bc_state_init(&state);
	sess.state = &state;
	sess.funcs = &funcs;
	fuzz_sinks_open(&f);
	if (bc_state_begin(&state, &sess) == 0) {
		fuzz_sinks_begin(&f, &sess);
		while (off + sizeof(struct bc_rec_head) <= size) {
			const uint8_t *rec = (const uint8_t *)aligned + off;
			struct bc_event ev;
			int n = bc_decode(rec, size - off, &funcs, &ev);

			if (n <= 0) {
				/* the drain skips what it cannot decode by its size, if it has one
				 */
				uint16_t len;

				memcpy(&len, rec, sizeof(len));
				off += len >= 8 ? (size_t)(len + 7) / 8 * 8 : 8;
				continue;
			}
			off += (size_t)n;
			if (ev.rec->kind == BC_REC_MMAP || ev.rec->kind == BC_REC_MUNMAP) {
				char path[BC_MMAP_PATH_MAX + 1];
				struct bc_mapping m;

				if (ev.rec->kind == BC_REC_MUNMAP) {
					const struct bc_rec_munmap *u = (const void *)ev.rec;

					m = (struct bc_mapping){.pid = u->h.pid,
								.ktime = u->h.ktime,
								.start = u->start,
								.end = u->start + u->len,
								.unmap = true};
				} else if (bc_mapping_from_record((const void *)ev.rec, path,
								  sizeof(path), &m) < 0) {
					continue;
				}
				if (bc_state_mapping(&state, &m) == 0)
					fuzz_sinks_mapping(&f, &m);
				continue;
			}
			if (bc_state_event(&state, ev.rec) < 0)
				break;
			fuzz_sinks_event(&f, &ev);
		}
	}
	fuzz_sinks_close(&f, &end);
	bc_state_free(&state);
	bc_functab_free(&funcs);
	return 0;
}
