# Fixtures for test_symbols, included by tests/tests.mk.
#
# ELF files of every shape the resolver must handle (PIE, non-PIE, shared
# library, stripped copies), files it must refuse, and for each ELF file what
# readelf says about it (.syms: readelf -sW, .segs: readelf -lW). The test
# computes the expected file offsets from readelf's output, never from the
# code under test.

SYMFIX_SRC := tests/unit/fixtures
SYMFIX_DIR := $(O)/tests/fixtures
# -fno-inline keeps every fixture function a real function with a symbol.
SYMFIX_CFLAGS := -std=gnu11 $(WARN) -g -O2 -fno-inline
SYMFIX_DEPS := tests/unit/symbols.mk

SYMFIX_LIB := $(SYMFIX_DIR)/libsymfix.so.1
SYMFIX_ELFS := $(SYMFIX_LIB) $(SYMFIX_DIR)/libsymfix-stripped.so $(SYMFIX_DIR)/symfix_pie \
	$(SYMFIX_DIR)/symfix_nopie $(SYMFIX_DIR)/symfix_stripped
SYMFIX_LIBC := $(SYMFIX_DIR)/libc.path $(SYMFIX_DIR)/libc.syms $(SYMFIX_DIR)/libc.segs

UNIT_FIXTURES += $(SYMFIX_ELFS) $(SYMFIX_ELFS:=.syms) $(SYMFIX_ELFS:=.segs) \
	$(SYMFIX_DIR)/symfix_obj.o $(SYMFIX_DIR)/notelf.txt $(SYMFIX_LIBC)

# Linked at 0x200000 so that, unlike in a default PIE, addresses and file
# offsets differ: the test sees a wrong offset formula.
$(SYMFIX_LIB): $(SYMFIX_SRC)/symfix_lib.c $(SYMFIX_SRC)/symfix_lib.map $(SYMFIX_DEPS)
	$(msg) CC $@
	@mkdir -p $(@D)
	$(Q)$(CC) $(SYMFIX_CFLAGS) -shared -fPIC -Wl,-soname,libsymfix.so.1 \
		-Wl,--version-script=$(SYMFIX_SRC)/symfix_lib.map -Wl,-Ttext-segment=0x200000 \
		-o $@ $<

# The executables need libsymfix.so.1 and find it through RUNPATH $ORIGIN,
# which the DT_NEEDED lookup must follow.
$(SYMFIX_DIR)/symfix_pie: $(SYMFIX_SRC)/symfix_main.c $(SYMFIX_LIB) $(SYMFIX_DEPS)
	$(msg) CC $@
	$(Q)$(CC) $(SYMFIX_CFLAGS) -fPIE -pie -o $@ $< $(SYMFIX_LIB) \
		-Wl,--enable-new-dtags,-rpath,'$$ORIGIN'

$(SYMFIX_DIR)/symfix_nopie: $(SYMFIX_SRC)/symfix_main.c $(SYMFIX_LIB) $(SYMFIX_DEPS)
	$(msg) CC $@
	$(Q)$(CC) $(SYMFIX_CFLAGS) -fno-pie -no-pie -o $@ $< $(SYMFIX_LIB) \
		-Wl,--enable-new-dtags,-rpath,'$$ORIGIN'

# -rdynamic puts the global functions into .dynsym, all a stripped file keeps.
$(SYMFIX_DIR)/symfix_rdynamic: $(SYMFIX_SRC)/symfix_main.c $(SYMFIX_LIB) $(SYMFIX_DEPS)
	$(msg) CC $@
	$(Q)$(CC) $(SYMFIX_CFLAGS) -fPIE -pie -rdynamic -o $@ $< $(SYMFIX_LIB) \
		-Wl,--enable-new-dtags,-rpath,'$$ORIGIN'

$(SYMFIX_DIR)/symfix_stripped: $(SYMFIX_DIR)/symfix_rdynamic
	$(msg) STRIP $@
	$(Q)strip --strip-all -o $@ $<

$(SYMFIX_DIR)/libsymfix-stripped.so: $(SYMFIX_LIB)
	$(msg) STRIP $@
	$(Q)strip --strip-all -o $@ $<

$(SYMFIX_DIR)/symfix_obj.o: $(SYMFIX_SRC)/symfix_lib.c $(SYMFIX_DEPS)
	$(msg) CC $@
	@mkdir -p $(@D)
	$(Q)$(CC) $(SYMFIX_CFLAGS) -fPIC -c -o $@ $<

$(SYMFIX_DIR)/notelf.txt: $(SYMFIX_DEPS)
	@mkdir -p $(@D)
	$(Q)printf 'not an ELF file, just text\n' > $@

$(SYMFIX_ELFS:=.syms): %.syms: %
	$(Q)readelf -sW $< > $@.tmp && mv $@.tmp $@

$(SYMFIX_ELFS:=.segs): %.segs: %
	$(Q)readelf -lW $< > $@.tmp && mv $@.tmp $@

# The libc the toolchain links against: what "libc" must resolve to.
$(SYMFIX_DIR)/libc.path: $(SYMFIX_DEPS)
	@mkdir -p $(@D)
	$(Q)readlink -e "$$($(CC) -print-file-name=libc.so.6)" > $@.tmp && mv $@.tmp $@

$(SYMFIX_DIR)/libc.syms: $(SYMFIX_DIR)/libc.path
	$(Q)readelf -sW "$$(cat $<)" > $@.tmp && mv $@.tmp $@

$(SYMFIX_DIR)/libc.segs: $(SYMFIX_DIR)/libc.path
	$(Q)readelf -lW "$$(cat $<)" > $@.tmp && mv $@.tmp $@
