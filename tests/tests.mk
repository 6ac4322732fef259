# Test build rules, included by the top-level Makefile.
#
# Unit tests: every tests/unit/STAGE/test_*.c is one cmocka program (the
# folders mirror user/'s; shared fixtures are headers in tests/unit/). They see
# user/ on the include path, for the headers that live beside their code
# ("sinks/er/er_traces.h"). Each is built
# twice: with ASan+UBSan (run directly) and plain (run under valgrind, which
# fails the run on any leak or memory error). Fragments tests/unit/*.mk may
# add fixtures a test needs (ELF files built by the suite, ...): they append
# to UNIT_FIXTURES.
#
# Integration tests (tests/integration/run.sh) run the real bpfcollect binary
# as root against targets in tests/targets/, built here.

UNIT_SRCS := $(sort $(shell find tests/unit -name 'test_*.c'))
UNIT_NAMES := $(notdir $(UNIT_SRCS:.c=))
UNIT_SAN := $(addprefix $(O)/tests/san/,$(UNIT_NAMES))
UNIT_PLAIN := $(addprefix $(O)/tests/plain/,$(UNIT_NAMES))
# The tests mirror user/'s folders; their binaries are flat, found by name.
vpath test_%.c $(sort $(dir $(UNIT_SRCS)))
# Shared test fixtures are headers (static inline): every test depends on them.
UNIT_FIXTURES := $(wildcard tests/unit/*.h)
TARGETS_SRCS := $(wildcard tests/targets/*.c)
TARGET_BINS := $(patsubst tests/targets/%.c,$(O)/tests/targets/%,$(TARGETS_SRCS))

-include $(wildcard tests/unit/*.mk)

VALGRIND ?= valgrind
VALGRIND_FLAGS := --quiet --leak-check=full --show-leak-kinds=definite,indirect,possible \
	--errors-for-leak-kinds=definite,indirect,possible --error-exitcode=97

$(O)/tests/san/test_%: test_%.c $(O)/libbpfcollect-san.a $(UNIT_FIXTURES)
	$(msg) CC $@
	@mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) $(SAN_FLAGS) -Iuser -Itests/unit -DFIXTURE_DIR='"$(abspath $(O)/tests/fixtures)"' \
		-o $@ $< $(O)/libbpfcollect-san.a $(PC_LIBS) $(CMOCKA_LIBS)

$(O)/tests/plain/test_%: test_%.c $(O)/libbpfcollect.a $(UNIT_FIXTURES)
	$(msg) CC $@
	@mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -Iuser -Itests/unit -DFIXTURE_DIR='"$(abspath $(O)/tests/fixtures)"' \
		-o $@ $< $(O)/libbpfcollect.a $(PC_LIBS) $(CMOCKA_LIBS)

# Tools the tests run (tests/tools/NAME.c -> tests/tools/NAME), linked with the
# library: synth-exp writes an experiment from synthetic records through the
# library's own writer, so convert and report are tested without tracing.
TEST_TOOLS := $(patsubst tests/tools/%.c,$(O)/tests/tools/%,$(wildcard tests/tools/*.c))

# built with the binary, so that a build is ready for the tests that use them
all: $(TEST_TOOLS)

$(O)/tests/tools/%: tests/tools/%.c $(O)/libbpfcollect.a
	$(msg) LINK $@
	@mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $< $(O)/libbpfcollect.a $(PC_LIBS)

# Targets are built the way users build programs: -O2, frame pointers kept so
# call stacks stay meaningful; -fno-inline keeps every counted call a real call.
# TARGET_FLAGS_NAME adds flags for one target.
TARGET_FLAGS_cetcalls := -fcf-protection=full
TARGET_FLAGS_pgcalls := -pg

$(O)/tests/targets/%: tests/targets/%.c tests/targets/traced.h
	$(msg) CC $@
	@mkdir -p $(@D)
	$(Q)$(CC) -std=gnu11 $(WARN) -g -O2 -fno-omit-frame-pointer -fno-inline -pthread \
		$(TARGET_FLAGS_$*) -o $@ $< -lm

# Libraries the targets load (dlopen): tests/targets/lib/NAME.c -> lib/libNAME.so
TARGET_LIBS := $(patsubst tests/targets/lib/%.c,$(O)/tests/targets/lib/lib%.so,$(wildcard tests/targets/lib/*.c))

$(O)/tests/targets/lib/lib%.so: tests/targets/lib/%.c tests/targets/traced.h
	$(msg) CC $@
	@mkdir -p $(@D)
	$(Q)$(CC) -std=gnu11 $(WARN) -g -O2 -fno-omit-frame-pointer -fPIC -shared -o $@ $<

unit: $(UNIT_SAN) $(UNIT_PLAIN)
	@set -e; for t in $(UNIT_SAN); do \
		echo "== $$t (ASan+UBSan)"; ASAN_OPTIONS=detect_leaks=1 $$t; done
	@set -e; for t in $(UNIT_PLAIN); do \
		echo "== $$t (valgrind)"; $(VALGRIND) $(VALGRIND_FLAGS) $$t; done

# The verifier's frame sizes of every program (the integration test bpf_frames).
BPF_FRAMES := $(O)/tools/bpf-frames

$(BPF_FRAMES): tools/bpf-frames/frames.c
	$(msg) LINK $@
	@mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $< $(PC_LIBS)

integration: $(BIN) $(TARGET_BINS) $(TARGET_LIBS) $(DEMO) $(BPF_FRAMES) $(TEST_TOOLS)
	tests/integration/run.sh $(O)

# The viewer test skips on a machine without chromium and speedscope, but
# under CI (CI set, and not 0, false or no: what the test itself checks) it
# must run, and fails without them: there, make check installs them first.
ifneq ($(filter-out 0 false no,$(CI)),)
integration: viewers kernels
endif

check: unit fuzz-check integration
	@echo "make check: all tests passed"

# ---------------------------------------------------------------- fuzz targets
# libFuzzer targets (clang -fsanitize=fuzzer) on everything that reads
# untrusted bytes: tests/fuzz/fuzz_NAME.c, linked against the library built
# once more by clang with the fuzzer's coverage and ASan+UBSan. `make fuzz`
# runs each from its seed corpus (tests/fuzz/corpus/NAME/) for FUZZ_SECONDS,
# in a scratch copy of the corpus (`make check`: FUZZ_CHECK_SECONDS each);
# crashes it finds are kept as $(O)/tests/fuzz/crash-NAME-*: fixed, they
# become corpus files.
FUZZ_SECONDS ?= 1200
FUZZ_CHECK_SECONDS ?= 15
FUZZ_CC ?= clang
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS := -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Werror -g -O1 -Iinclude -I$(O)/include \
	-Iuser -DBPFCOLLECT_VERSION='"$(VERSION)"' $(PC_CFLAGS) $(FUZZ_SAN)
FUZZ_NAMES := $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BINS := $(addprefix $(O)/tests/fuzz/fuzz_,$(FUZZ_NAMES))
FUZZ_OBJS := $(patsubst user/%.c,$(O)/fuzz/user/%.o,$(LIB_SRCS)) $(O)/fuzz/gen/syscall_table.o

$(O)/fuzz/user/%.o: user/%.c $(SKELS)
	$(msg) FUZZCC $@
	@mkdir -p $(@D)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@

$(O)/fuzz/gen/%.o: $(O)/gen/%.c
	@mkdir -p $(@D)
	$(msg) FUZZCC $@
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(O)/libbpfcollect-fuzz.a: $(FUZZ_OBJS)
	$(msg) AR $@
	$(Q)rm -f $@ && ar rcs $@ $^

-include $(patsubst user/%.c,$(O)/fuzz/user/%.d,$(LIB_SRCS))

$(O)/tests/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(O)/libbpfcollect-fuzz.a $(wildcard tests/fuzz/*.h)
	$(msg) FUZZLD $@
	@mkdir -p $(@D)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(O)/libbpfcollect-fuzz.a $(PC_LIBS)

# run_fuzz SECONDS: every target from a scratch copy of its corpus; the first crash fails
define run_fuzz
	@set -e; for n in $(FUZZ_NAMES); do \
		echo "== fuzz_$$n ($(1) s)"; \
		rm -rf $(O)/tests/fuzz/corpus-$$n && mkdir -p $(O)/tests/fuzz/corpus-$$n; \
		cp tests/fuzz/corpus/$$n/* $(O)/tests/fuzz/corpus-$$n/; \
		if ! $(O)/tests/fuzz/fuzz_$$n -max_total_time=$(1) -rss_limit_mb=2048 \
			-max_len=65536 -artifact_prefix=$(O)/tests/fuzz/crash-$$n- \
			$(O)/tests/fuzz/corpus-$$n >$(O)/tests/fuzz/fuzz_$$n.log 2>&1; then \
			tail -40 $(O)/tests/fuzz/fuzz_$$n.log; exit 1; \
		fi; \
		tail -1 $(O)/tests/fuzz/fuzz_$$n.log; \
	done
endef

fuzz: $(FUZZ_BINS)
	$(call run_fuzz,$(FUZZ_SECONDS))

fuzz-check: $(FUZZ_BINS)
	$(call run_fuzz,$(FUZZ_CHECK_SECONDS))
