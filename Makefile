# bpfcollect: one entry point for build, check, demo, bench and install.
#
#   make [O=build] [V=1]   build build/bpfcollect
#   make check             unit tests (plain, ASan+UBSan, valgrind) and integration tests
#   make viewers           install what the viewer test needs (chromium, speedscope)
#   make kernels           install what the kernel matrix needs (qemu, Debian's 6.1 and 6.12)
#   make demo              build the demo program, record it, report it
#   make bench             cost and memory against the floor and the peers, side by side
#   make install           PREFIX=/usr/local DESTDIR=: binary, manual pages, bash completion
#   make uninstall         the same PREFIX and DESTDIR: removes what install put there
#   make vmlinux           regenerate vmlinux/vmlinux.h from the running kernel's BTF
#   make format            clang-format the sources

O ?= build
PREFIX ?= /usr/local
DESTDIR ?=
MANDIR ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
V ?= 0

ifeq ($(V),1)
Q :=
msg := @true
else
Q := @
msg := @printf '  %-8s %s\n'
endif

CC ?= cc
CLANG ?= clang
BPFTOOL ?= bpftool
PKG_CONFIG ?= pkg-config

# Install build dependencies on demand, before anything needs them.
DEPS_OK := $(shell command -v $(CLANG) >/dev/null 2>&1 && \
	command -v $(BPFTOOL) >/dev/null 2>&1 && \
	command -v g++ >/dev/null 2>&1 && { [ "$${BPFCOLLECT_NO_PEERS:-0}" = 1 ] || { command -v go && command -v gdb; } >/dev/null 2>&1; } && \
	[ -x /usr/bin/time ] && \
	$(PKG_CONFIG) --exists libbpf libelf libdw zlib cmocka capstone 2>/dev/null && \
	ls /usr/src/linux-headers-*-common/include/linux/syscalls.h >/dev/null 2>&1 && echo yes)
ifneq ($(DEPS_OK),yes)
ifeq ($(filter clean format vmlinux,$(MAKECMDGOALS)),)
$(info bpfcollect: build dependencies missing, running tools/install-deps.sh)
DEPS_RC := $(shell tools/install-deps.sh >&2; echo $$?)
ifneq ($(DEPS_RC),0)
$(error tools/install-deps.sh failed; install clang bpftool libbpf-dev libelf-dev libdw-dev zlib1g-dev libcmocka-dev libcapstone-dev pkg-config)
endif
endif
endif

ARCH := x86
VERSION := $(shell cat VERSION 2>/dev/null || echo 0.0.0)

LIBS_PC := libbpf libelf libdw zlib capstone
PC_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(LIBS_PC) 2>/dev/null)
PC_LIBS := $(shell $(PKG_CONFIG) --libs $(LIBS_PC) 2>/dev/null)
CMOCKA_LIBS := $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null)

WARN := -Wall -Wextra -Werror
BASE_CFLAGS := -std=gnu11 $(WARN) -g -O2 -D_GNU_SOURCE -Iinclude -I$(O)/include \
	-DBPFCOLLECT_VERSION='"$(VERSION)"' $(PC_CFLAGS)
CFLAGS ?=
ALL_CFLAGS := $(BASE_CFLAGS) $(CFLAGS)
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

BPF_CFLAGS := -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(ARCH) -Ivmlinux -Iinclude -I$(O)/include \
	-Wall -Werror -Wno-unused-function

# Each concern has its own .bpf.c; they share maps (declared __weak in
# bpf/common.bpf.h) and are statically linked into one object, one skeleton.
BPF_SRCS := $(wildcard bpf/*.bpf.c)
BPF_OBJS := $(patsubst bpf/%.bpf.c,$(O)/bpf/%.bpf.o,$(BPF_SRCS))
SKELS := $(O)/include/collect.skel.h

# user/ is in folders by pipeline stage (docs/design.md). user/cmd/main.c is
# the CLI; everything else is a library the tests link too.
USER_SRCS := $(sort $(shell find user -name '*.c'))
LIB_SRCS := $(filter-out user/cmd/main.c,$(USER_SRCS))
GEN_SRCS := $(O)/gen/syscall_table.c
LIB_OBJS := $(patsubst user/%.c,$(O)/user/%.o,$(LIB_SRCS)) $(O)/gen/syscall_table.o
SAN_OBJS := $(patsubst user/%.c,$(O)/san/user/%.o,$(LIB_SRCS)) $(O)/san/gen/syscall_table.o

BIN := $(O)/bpfcollect
DEMO := $(O)/demo/bcdemo

.PHONY: all check unit fuzz fuzz-check integration demo bench install uninstall vmlinux clean \
	format deps viewers kernels

# A recipe that fails leaves no half-written target (an empty collect.o
# would pass for up to date and fail the skeleton step ever after).
.DELETE_ON_ERROR:

all: $(BIN)

deps:
	tools/install-deps.sh

# What the integration test `viewer` opens exports in: chromium, chromedriver
# and speedscope (tools/viewers.conf says where). Without them that test is
# skipped, but under CI, where `make check` installs them first (tests/tests.mk).
viewers:
	tools/install-deps.sh --viewers

# What the integration test `kernels` boots: qemu, and Debian's newest 6.1
# and 6.12 kernel packages, cached in /var/cache/bpfcollect/kernels. Without
# them that test is skipped, but under CI, where make check installs them first.
kernels:
	tools/install-deps.sh --kernels

$(O)/bpf/%.bpf.o: bpf/%.bpf.c $(wildcard bpf/*.h) $(wildcard include/bpfcollect/*.h) vmlinux/vmlinux.h
	$(msg) BPF $@
	@mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(O)/bpf/collect.o: $(BPF_OBJS)
	$(msg) BPFLINK $@
	$(Q)$(BPFTOOL) gen object $@ $^

$(O)/include/collect.skel.h: $(O)/bpf/collect.o
	$(msg) SKEL $@
	@mkdir -p $(@D)
	$(Q)$(BPFTOOL) gen skeleton $< name collect_bpf > $@.tmp && mv $@.tmp $@

# Syscall names and signatures: tools/gen-syscall-table.sh reads the uapi
# numbers and the kernel's include/linux/syscalls.h (linux-headers-*-common;
# without it the table has names and hex arguments only, and it warns).
SYSCALL_PROTOS := $(wildcard /usr/src/linux-headers-*-common/include/linux/syscalls.h)
$(O)/gen/syscall_table.c: tools/gen-syscall-table.sh $(SYSCALL_PROTOS)
	$(msg) GEN $@
	@mkdir -p $(@D)
	$(Q)tools/gen-syscall-table.sh > $@.tmp && mv $@.tmp $@

$(O)/gen/syscall_table.o $(O)/san/gen/syscall_table.o: include/bpfcollect/syscall_table.h \
	include/bpfcollect/syscalls.h

$(O)/gen/%.o: $(O)/gen/%.c
	$(msg) CC $@
	$(Q)$(CC) $(ALL_CFLAGS) -c $< -o $@

$(O)/san/gen/%.o: $(O)/gen/%.c
	@mkdir -p $(@D)
	$(msg) CC $@
	$(Q)$(CC) $(ALL_CFLAGS) $(SAN_FLAGS) -c $< -o $@

$(O)/user/%.o: user/%.c $(SKELS)
	$(msg) CC $@
	@mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

$(O)/san/user/%.o: user/%.c $(SKELS)
	$(msg) CC $@
	@mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) $(SAN_FLAGS) -MMD -MP -c $< -o $@

$(O)/libbpfcollect.a: $(LIB_OBJS)
	$(msg) AR $@
	$(Q)rm -f $@ && ar rcs $@ $^

$(O)/libbpfcollect-san.a: $(SAN_OBJS)
	$(msg) AR $@
	$(Q)rm -f $@ && ar rcs $@ $^

$(BIN): $(O)/user/cmd/main.o $(O)/libbpfcollect.a
	$(msg) LINK $@
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $^ $(PC_LIBS)

-include $(patsubst user/%.c,$(O)/user/%.d,$(USER_SRCS)) $(patsubst user/%.c,$(O)/san/user/%.d,$(LIB_SRCS))

include tests/tests.mk

# ---------------------------------------------------------------- demo
$(DEMO): demo/bcdemo.c
	$(msg) CC $@
	@mkdir -p $(@D)
	$(Q)$(CC) -std=gnu11 $(WARN) -g -O1 -fno-omit-frame-pointer -fno-inline -pthread -o $@ $<

demo: $(BIN) $(DEMO)
	@rm -rf $(O)/demo/demo.1.er
	$(BIN) record -o $(O)/demo/demo.1.er --syscalls -- $(DEMO) 3
	$(BIN) report $(O)/demo/demo.1.er
	@echo
	@echo "gprofng reads the same experiment:"
	gprofng display text -header $(O)/demo/demo.1.er 2>&1 | head -20

# ---------------------------------------------------------------- bench
# The floor tracer (tools/floor/): the least a uprobe tracer does per hit,
# the reference tools/bench-cost.sh measures the tracers against.
FLOOR := $(O)/tools/floor

$(O)/tools/floor.bpf.o: tools/floor/floor.bpf.c vmlinux/vmlinux.h
	$(msg) BPF $@
	@mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(O)/tools/floor.skel.h: $(O)/tools/floor.bpf.o
	$(msg) SKEL $@
	$(Q)$(BPFTOOL) gen skeleton $< name floor_bpf > $@.tmp && mv $@.tmp $@

$(FLOOR): tools/floor/floor.c $(O)/tools/floor.skel.h $(O)/libbpfcollect.a
	$(msg) LINK $@
	$(Q)$(CC) $(ALL_CFLAGS) -I$(O)/tools -o $@ $< $(O)/libbpfcollect.a $(PC_LIBS)

bench: $(BIN) $(TARGET_BINS) $(FLOOR)
	tools/bench-cost.sh $(O)
	tools/bench.sh $(O)
	tools/bench-profile.sh $(O)
	tools/bench-io.sh $(O)
	tools/bench-untraced.sh $(O)
	tools/bench-system.sh $(O)
	tools/bench-memory.sh $(O)
	tools/bench-convert.sh $(O)
	tools/bench-kernels.sh $(O)

# ---------------------------------------------------------------- install
# The manual pages are mdoc written by hand (man/): installed as they are.
MAN_PAGES := $(wildcard man/*.1)
DOC_FILES := README.md $(wildcard docs/*.md)

install: $(BIN)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/doc/bpfcollect \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(BASHCOMPDIR)
	install -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/bpfcollect
	install -m 0644 $(DOC_FILES) $(DESTDIR)$(PREFIX)/share/doc/bpfcollect/
	install -m 0644 $(MAN_PAGES) $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 completion/bpfcollect.bash $(DESTDIR)$(BASHCOMPDIR)/bpfcollect

# Only what install put there; directories it made stay unless empty and ours.
uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/bpfcollect $(DESTDIR)$(BASHCOMPDIR)/bpfcollect \
		$(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(MAN_PAGES))) \
		$(addprefix $(DESTDIR)$(PREFIX)/share/doc/bpfcollect/,$(notdir $(DOC_FILES)))
	rmdir $(DESTDIR)$(PREFIX)/share/doc/bpfcollect 2>/dev/null || true

vmlinux:
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > vmlinux/vmlinux.h.tmp
	mv vmlinux/vmlinux.h.tmp vmlinux/vmlinux.h

format:
	clang-format -i $(USER_SRCS) $(shell find user -name '*.h') $(wildcard include/bpfcollect/*.h bpf/*.c bpf/*.h $(shell find tests/unit -name '*.c') tests/integration/*.c tests/targets/*.c demo/*.c)

clean:
	rm -rf $(O)
