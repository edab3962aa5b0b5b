# check.mk — the sanitizer and fuzzing targets, included by the Makefile.
#
#   make check-asan   builds scanmap and the unit tests with AddressSanitizer
#                     and UndefinedBehaviorSanitizer in build/asan (cuda=0;
#                     the normal build is left alone) and runs tests/asan.sh:
#                     the unit tests and mapping runs (single and paired,
#                     exhaustive and seeded), failing on any report.
#   make fuzz         builds the libFuzzer targets tests/fuzz/fuzz_*.c with
#                     FUZZ_CC (clang) into build/fuzz/ and runs each over its
#                     seed corpus once (tests/fuzz/README.md).

FUZZ_CC    ?= clang
FUZZ_DIR   := build/fuzz
FUZZ_NAMES := $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BIN   := $(FUZZ_NAMES:%=$(FUZZ_DIR)/fuzz_%)
# The parsers, the index loader and what they call (logging, scoring
# tables); an archive, so each target links only what it uses.
FUZZ_LIB_C := $(wildcard io/*.c) \
	$(wildcard $(addprefix mapper/,log.c score.c index.c trace.c clock.c))
FUZZ_LIB_C := $(filter-out io/sam_out.c,$(FUZZ_LIB_C))
FUZZ_OBJ   := $(FUZZ_LIB_C:%.c=$(FUZZ_DIR)/obj/%.o)
FUZZ_FLAGS := -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined \
	-fno-sanitize-recover=undefined
FUZZ_CPPFLAGS := -I. -DSM_VERSION='"$(VERSION)"' $(HTSLIB_CFLAGS) -MMD -MP
FUZZ_LIBS  := -lz -lm -lpthread
ifeq ($(isal),1)
FUZZ_CPPFLAGS += -DSM_HAVE_ISAL=1
FUZZ_LIBS  += -lisal
endif

.PHONY: check-asan fuzz
# -O1, as ASan advises: a third of -O2's compile time here, and clearer reports.
check-asan:
	CFLAGS='-O1 -g' $(MAKE) BUILD=build/asan asan=1 cuda=0 debug= build/asan/scanmap \
		$(TEST_C:%.c=build/asan/%)
	tests/asan.sh build/asan

# The asan build's binary (scanmap itself stays the normal build's).
$(BUILD)/scanmap: $(BUILD)/mapper/main.o $(LIB)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

fuzz: $(FUZZ_BIN)
	@for t in $(FUZZ_NAMES); do \
		echo "fuzz_$$t: seed corpus"; \
		$(FUZZ_DIR)/fuzz_$$t -runs=0 tests/fuzz/corpus/$$t 2>&1 | tail -n 1 || exit 1; \
	done

$(FUZZ_DIR)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CPPFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ_DIR)/libfuzz.a: $(FUZZ_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

# libstdc++ (libFuzzer's) is linked statically; ISA-L has no static library
# in Debian: its shared one is copied beside the
# targets (found through the rpath), so build/fuzz can be carried to a
# machine that lacks it.
$(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_DIR)/libfuzz.a
	$(FUZZ_CC) $(FUZZ_CPPFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer -static-libstdc++ -o $@ $< \
		$(FUZZ_DIR)/libfuzz.a -Wl,-rpath,'$$ORIGIN/lib' $(FUZZ_LIBS)
ifeq ($(isal),1)
	@mkdir -p $(FUZZ_DIR)/lib
	@cp -L $$($(FUZZ_CC) -print-file-name=libisal.so.2) $(FUZZ_DIR)/lib/ 2>/dev/null || \
		cp -L /usr/lib/x86_64-linux-gnu/libisal.so.2 $(FUZZ_DIR)/lib/ 2>/dev/null || true
endif
