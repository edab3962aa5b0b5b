# scanmap — plain Makefile. Knobs: cuda=0 (no CUDA engine), isal=0 (gzip through
# zlib, not ISA-L), asan=1, debug=1.
# Overridable: CC, NVCC, CUDA_HOME, CUDA_ARCHS, CUDA_PTX, HTSLIB_CFLAGS, HTSLIB_LIBS,
# PREFIX and DESTDIR (make install).
#
#   make                        ./scanmap, the library, tests and benchmarks
#   make install [PREFIX=/usr/local] [DESTDIR=]   and make uninstall
#   make test                   tests/run.sh

CC        ?= cc
# nvcc: NVCC if given, else CUDA_HOME/bin/nvcc if CUDA_HOME is given, else
# the nvcc on PATH, else /usr/local/cuda/bin/nvcc.  CUDA_HOME (for the CUDA
# runtime library) defaults to the directory above nvcc's bin/.
ifeq ($(origin NVCC),undefined)
ifneq ($(CUDA_HOME),)
NVCC := $(CUDA_HOME)/bin/nvcc
else
NVCC := $(or $(shell command -v nvcc 2>/dev/null),/usr/local/cuda/bin/nvcc)
endif
endif
NVCC_FOUND := $(shell command -v '$(NVCC)' 2>/dev/null)
ifeq ($(CUDA_HOME),)
CUDA_HOME := $(patsubst %/,%,$(dir $(patsubst %/,%,$(dir $(NVCC_FOUND)))))
endif
# Real machine code for each listed architecture plus PTX for the newest, so
# later GPUs can JIT it.  sm_75 Turing (T4), 80 A100, 86/89 Ampere and Ada
# workstation cards (A10, L4, L40S), 90 H100/H200.
CUDA_ARCHS ?= 75 80 86 89 90
CUDA_PTX   ?= 90

# The version: `git describe` in a git checkout of this tree (a leading v
# dropped), else the VERSION file, which release tarballs (git archive) carry.
VERSION := $(shell [ "$$(git rev-parse --show-toplevel 2>/dev/null)" = "$$(pwd -P)" ] && \
	git describe --tags --always --dirty 2>/dev/null | sed 's/^v//')
VERSION := $(or $(VERSION),$(shell cat VERSION 2>/dev/null),unknown)

PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MAN1DIR    ?= $(PREFIX)/share/man/man1
# The public header of the library (installed when the tree has it).
PUBLIC_H   := $(wildcard mapper/scanmap.h)

CFLAGS   ?= -O2 -g
CFLAGS   += -std=gnu11 -Wall -Wextra -Wno-unused-parameter -pthread
CPPFLAGS += -I.
# Header dependencies (kept out of CPPFLAGS so that probes write no .d file).
DEPFLAGS := -MMD -MP
HTSLIB_CFLAGS ?= $(shell pkg-config --cflags htslib 2>/dev/null)
HTSLIB_LIBS   ?= $(shell pkg-config --libs htslib 2>/dev/null || echo -lhts)
LDLIBS   += $(HTSLIB_LIBS) -lz -lm -lpthread
CPPFLAGS += $(HTSLIB_CFLAGS)

ifeq ($(debug),1)
CFLAGS += -O0
endif
ifeq ($(asan),1)
CFLAGS  += -fsanitize=address,undefined -fno-omit-frame-pointer
LDFLAGS += -fsanitize=address,undefined
endif

# isal=auto (default): inflate gzip input with ISA-L (Debian libisal-dev) when
# its header is found; zlib otherwise (io/inflate.h).
isal ?= auto
ifeq ($(isal),auto)
isal := $(shell printf '\043include <isa-l/igzip_lib.h>\n' | $(CC) $(CPPFLAGS) -E -x c - >/dev/null 2>&1 && echo 1 || echo 0)
endif
ifeq ($(isal),1)
CPPFLAGS += -DSM_HAVE_ISAL=1
LDLIBS   += -lisal
endif

# cuda=auto (default): build the GPU engine when nvcc is found.
cuda ?= auto
ifeq ($(cuda),auto)
cuda := $(if $(NVCC_FOUND),1,0)
cuda_why := nvcc not found: put it on PATH or set CUDA_HOME or NVCC
else
cuda_why := cuda=0
endif
ifeq ($(cuda)$(NVCC_FOUND),1)
$(error cuda=1 but nvcc ($(NVCC)) was not found: put it on PATH or set CUDA_HOME or NVCC)
endif

# What this build holds, in one line: printed by make and by `scanmap --version`.
ifeq ($(cuda),1)
NVCC_RELEASE := $(shell '$(NVCC)' --version 2>/dev/null | sed -n 's/.*release \([0-9.]*\).*/\1/p')
CUDA_INFO := yes (CUDA $(or $(NVCC_RELEASE),?); $(addprefix sm_,$(CUDA_ARCHS)) + PTX compute_$(CUDA_PTX))
else
CUDA_INFO := no ($(cuda_why))
endif
ISAL_INFO := $(if $(filter 1,$(isal)),yes,no (gzip through zlib))
BUILD_INFO := CUDA engine: $(CUDA_INFO), ISA-L: $(ISAL_INFO)
CPPFLAGS += -DSM_VERSION='"$(VERSION)"' -DSM_BUILD_INFO='"$(BUILD_INFO)"'
ifneq ($(filter-out clean uninstall version,$(or $(MAKECMDGOALS),all)),)
$(info scanmap $(VERSION): $(BUILD_INFO))
endif

BUILD := build
LIB   := $(BUILD)/libscanmap.a

# Objects depend on the build configuration: switching cuda=, isal=, asan=, debug=
# or the compilers rebuilds everything (the stamp changes only when it does).
CONFIG_STAMP := $(BUILD)/config
CONFIG := cuda=$(cuda) isal=$(isal) asan=$(asan) debug=$(debug) CC=$(CC) NVCC=$(NVCC) CFLAGS=$(CFLAGS) CUDA_ARCHS=$(CUDA_ARCHS)
$(shell mkdir -p $(BUILD) && (echo '$(CONFIG)' | cmp -s - $(CONFIG_STAMP) || echo '$(CONFIG)' > $(CONFIG_STAMP)))
# Likewise the version and the build line, for the objects that print them.
VERSION_STAMP := $(BUILD)/version
$(shell echo '$(VERSION) $(BUILD_INFO)' | cmp -s - $(VERSION_STAMP) || echo '$(VERSION) $(BUILD_INFO)' > $(VERSION_STAMP))
.DEFAULT_GOAL := all
$(BUILD)/mapper/cli.o $(BUILD)/mapper/pipeline.o: $(VERSION_STAMP)

LIB_C   := $(sort $(wildcard io/*.c mapper/*.c))
LIB_C   := $(filter-out mapper/main.c,$(LIB_C))
GPU_CU  := $(sort $(wildcard gpu/*.cu))
# gpu/'s plain C (planning, option parsers) is built either way; gpu_stub.c
# stands in for the CUDA sources without CUDA.
LIB_C   := $(LIB_C) $(sort $(filter-out gpu/gpu_stub.c,$(wildcard gpu/*.c)))
ifeq ($(cuda),1)
NVFLAGS ?= -O3 -lineinfo
NVFLAGS += -std=c++17 -I. -Xcompiler -Wall \
           $(foreach a,$(CUDA_ARCHS),-gencode=arch=compute_$(a),code=sm_$(a)) \
           -gencode=arch=compute_$(CUDA_PTX),code=compute_$(CUDA_PTX)
LIB_OBJ := $(LIB_C:%.c=$(BUILD)/%.o) $(GPU_CU:%.cu=$(BUILD)/%.o)
LDLIBS  += -L$(CUDA_HOME)/lib64 -lcudart_static -ldl -lrt -lstdc++
CPPFLAGS += -DSM_HAVE_CUDA=1
else
LIB_C   := $(LIB_C) gpu/gpu_stub.c
LIB_OBJ := $(LIB_C:%.c=$(BUILD)/%.o)
endif

TEST_C   := $(sort $(wildcard tests/unit/*.c))
TEST_BIN := $(TEST_C:%.c=$(BUILD)/%)
BENCH_C  := $(sort $(wildcard benchmarks/*.c))
BENCH_BIN:= $(BENCH_C:%.c=$(BUILD)/%)
# Programs over the public API (mapper/scanmap.h), run by the tests.
EXAMPLE_C  := $(sort $(wildcard examples/*.c))
EXAMPLE_BIN:= $(EXAMPLE_C:%.c=$(BUILD)/%)

.PHONY: all test test-unit clean bench gpu-tests install uninstall version
all: scanmap $(BUILD)/scanmap.1 $(TEST_BIN) $(BENCH_BIN) $(EXAMPLE_BIN)

scanmap: $(BUILD)/mapper/main.o $(LIB)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(LIB): $(LIB_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/%.o: %.c $(CONFIG_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(DEPFLAGS) $(CFLAGS) -c -o $@ $<

$(BUILD)/%.o: %.cu $(CONFIG_STAMP)
	@mkdir -p $(dir $@)
	$(NVCC) $(NVFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/tests/unit/%: tests/unit/%.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(DEPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIB) $(LDLIBS)

$(BUILD)/benchmarks/%: benchmarks/%.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(DEPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIB) $(LDLIBS)

# The man page, with this build's version in its title line.
$(BUILD)/scanmap.1: docs/scanmap.1 $(VERSION_STAMP)
	@mkdir -p $(dir $@)
	sed -e 's/@VERSION@/$(VERSION)/g' docs/scanmap.1 > $@

# make install [PREFIX=/usr/local] [DESTDIR=]: the binary, its man page, the
# static library and (when the tree has it) the library's public header.
install: scanmap $(LIB) $(BUILD)/scanmap.1
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MAN1DIR) $(DESTDIR)$(LIBDIR)
	install -m 755 scanmap $(DESTDIR)$(BINDIR)/scanmap
	install -m 644 $(BUILD)/scanmap.1 $(DESTDIR)$(MAN1DIR)/scanmap.1
	install -m 644 $(LIB) $(DESTDIR)$(LIBDIR)/libscanmap.a
ifneq ($(PUBLIC_H),)
	install -d $(DESTDIR)$(INCLUDEDIR)
	install -m 644 $(PUBLIC_H) $(DESTDIR)$(INCLUDEDIR)/$(notdir $(PUBLIC_H))
endif

# The version this tree builds (git describe, else the VERSION file).
version:
	@echo '$(VERSION)'

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/scanmap $(DESTDIR)$(MAN1DIR)/scanmap.1 \
	      $(DESTDIR)$(LIBDIR)/libscanmap.a $(DESTDIR)$(INCLUDEDIR)/scanmap.h

$(BUILD)/examples/%: examples/%.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(DEPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIB) $(LDLIBS)

# The whole suite; tests/run.sh installs what is missing (as root) and builds first.
test:
	tests/run.sh

# check-asan and fuzz (sanitizer build, libFuzzer targets).
include tests/check.mk

clean:
	rm -rf $(BUILD) scanmap

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
