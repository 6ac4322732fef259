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

# Targets are built the way users build programs: -O2, frame pointers kept so
# call stacks stay meaningful; -fno-inline keeps every counted call a real call.
$(O)/tests/targets/%: tests/targets/%.c tests/targets/traced.h
	$(msg) CC $@
	@mkdir -p $(@D)
	$(Q)$(CC) -std=gnu11 $(WARN) -g -O2 -fno-omit-frame-pointer -fno-inline -pthread -o $@ $< -lm

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

integration: $(BIN) $(TARGET_BINS) $(TARGET_LIBS) $(DEMO)
	tests/integration/run.sh $(O)

check: unit fuzz integration
	@echo "make check: all tests passed"

# ---------------------------------------------------------------- fuzz targets
# libFuzzer targets (clang -fsanitize=fuzzer) on the readers of untrusted files,
# each with the sources it needs; `make fuzz` runs each from its seed corpus
# (tests/fuzz/corpus/NAME/) for FUZZ_SECONDS, in a scratch copy of the corpus.
FUZZ_SECONDS ?= 20
FUZZ_CC ?= clang
FUZZ_FLAGS := -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Werror -g -O1 -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=all -Iinclude
FUZZ_NAMES := $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BINS := $(addprefix $(O)/tests/fuzz/fuzz_,$(FUZZ_NAMES))
FUZZ_SRCS_rtl_stat := user/report/rtl_stat.c user/util/containers.c
FUZZ_SRCS_gtf_dump := user/report/gtf_dump.c user/sinks/gtf/gtf_record.c \
	user/sinks/gtf/gtf_layout.c user/event/names.c

$(O)/tests/fuzz/fuzz_rtl_stat: $(FUZZ_SRCS_rtl_stat)
$(O)/tests/fuzz/fuzz_gtf_dump: $(FUZZ_SRCS_gtf_dump)

$(O)/tests/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(wildcard include/bpfcollect/*.h)
	$(msg) FUZZCC $@
	@mkdir -p $(@D)
	$(Q)$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $< $(FUZZ_SRCS_$*)

fuzz: $(FUZZ_BINS)
	@set -e; for n in $(FUZZ_NAMES); do \
		echo "== fuzz_$$n ($(FUZZ_SECONDS) s)"; \
		rm -rf $(O)/tests/fuzz/corpus-$$n && mkdir -p $(O)/tests/fuzz/corpus-$$n; \
		cp tests/fuzz/corpus/$$n/* $(O)/tests/fuzz/corpus-$$n/; \
		if ! $(O)/tests/fuzz/fuzz_$$n -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=2048 \
			-max_len=65536 -artifact_prefix=$(O)/tests/fuzz/crash-$$n- \
			$(O)/tests/fuzz/corpus-$$n >$(O)/tests/fuzz/fuzz_$$n.log 2>&1; then \
			tail -40 $(O)/tests/fuzz/fuzz_$$n.log; exit 1; \
		fi; \
		tail -1 $(O)/tests/fuzz/fuzz_$$n.log; \
	done
