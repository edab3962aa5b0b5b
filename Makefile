# scanmap — plain Makefile. Knobs: cuda=0 (no CUDA engine), isal=0 (gzip through
# zlib, not ISA-L), asan=1, debug=1.
# Overridable: CC, NVCC, CUDA_HOME, CUDA_ARCHS, HTSLIB_CFLAGS, HTSLIB_LIBS.

CC        ?= cc
CUDA_HOME ?= /usr/local/cuda
NVCC      ?= $(CUDA_HOME)/bin/nvcc
# Real machine code for each listed architecture plus PTX for the newest, so
# later GPUs can JIT it.  sm_90 = H100/H200.
CUDA_ARCHS ?= 75 80 86 89 90
CUDA_PTX   ?= 90

VERSION := $(shell git describe --tags --always --dirty 2>/dev/null || echo unknown)

CFLAGS   ?= -O2 -g
CFLAGS   += -std=gnu11 -Wall -Wextra -Wno-unused-parameter -pthread
CPPFLAGS += -I. -DSM_VERSION='"$(VERSION)"' -MMD -MP
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
cuda := $(if $(wildcard $(NVCC)),1,0)
endif

BUILD := build
LIB   := $(BUILD)/libscanmap.a

# Objects depend on the build configuration: switching cuda=, isal=, asan=, debug=
# or the compilers rebuilds everything (the stamp changes only when it does).
CONFIG_STAMP := $(BUILD)/config
CONFIG := cuda=$(cuda) isal=$(isal) asan=$(asan) debug=$(debug) CC=$(CC) NVCC=$(NVCC) CFLAGS=$(CFLAGS) CUDA_ARCHS=$(CUDA_ARCHS)
$(shell mkdir -p $(BUILD) && (echo '$(CONFIG)' | cmp -s - $(CONFIG_STAMP) || echo '$(CONFIG)' > $(CONFIG_STAMP)))
# Likewise the version, for the objects that print it.
VERSION_STAMP := $(BUILD)/version
$(shell echo '$(VERSION)' | cmp -s - $(VERSION_STAMP) || echo '$(VERSION)' > $(VERSION_STAMP))
.DEFAULT_GOAL := all
$(BUILD)/mapper/cli.o $(BUILD)/mapper/pipeline.o: $(VERSION_STAMP)

LIB_C   := $(sort $(wildcard io/*.c mapper/*.c))
LIB_C   := $(filter-out mapper/main.c,$(LIB_C))
GPU_CU  := $(sort $(wildcard gpu/*.cu))
ifeq ($(cuda),1)
LIB_C   := $(LIB_C) $(filter-out gpu/gpu_stub.c,$(wildcard gpu/*.c))
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

.PHONY: all test test-unit clean bench gpu-tests
all: scanmap $(TEST_BIN) $(BENCH_BIN)

scanmap: $(BUILD)/mapper/main.o $(LIB)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(LIB): $(LIB_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/%.o: %.c $(CONFIG_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(BUILD)/%.o: %.cu $(CONFIG_STAMP)
	@mkdir -p $(dir $@)
	$(NVCC) $(NVFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/tests/unit/%: tests/unit/%.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIB) $(LDLIBS)

$(BUILD)/benchmarks/%: benchmarks/%.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIB) $(LDLIBS)

# The whole suite; tests/run.sh installs what is missing (as root) and builds first.
test:
	tests/run.sh

clean:
	rm -rf $(BUILD) scanmap

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
