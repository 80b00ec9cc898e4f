# radik: exact GPU radix top-k for PostgreSQL's ORDER BY ... LIMIT, built with PGXS.
#
#   make                  build radik.so (CUDA engine when nvcc is found, else the CPU twin alone)
#   make install          install into the PostgreSQL that pg_config names
#   make installcheck     run the regression and isolation suites against the running server,
#                         then the TAP suite (which starts servers of its own; not as root)
#   make prove_installcheck   the TAP suite alone
#   make engine-test      build the engine's test program (test/engine/)
#   make with_llvm=no     skip PostgreSQL's JIT bitcode (hosts without clang)
#
# CUDA objects are kept out of OBJS so that PGXS's LLVM bitcode rule (Debian's PostgreSQL is
# built with LLVM) never sees them; they are linked into the shared library through SHLIB_LINK,
# with the CUDA runtime linked statically so the server needs only the NVIDIA driver.

EXTENSION = radik
# The version this tree installs: radik.control's default_version, sql/radik--$(EXTVERSION).sql,
# META.json and debian/changelog say the same.  Each earlier release keeps its install script
# and an update script sql/radik--OLD--NEW.sql (test: radik_upgrade).
EXTVERSION = 0.2.0
MODULE_big = radik

PG_CONFIG ?= pg_config

C_SOURCES = $(wildcard src/*.c) cuda/radik_engine.c cuda/radik_cpu.c
OBJS = $(C_SOURCES:.c=.o)

# Every install script and every update script.
DATA = $(wildcard sql/radik--*.sql)
ifneq ($(shell sed -n "s/^default_version *= *'\(.*\)'/\1/p" radik.control),$(EXTVERSION))
$(error radik.control's default_version is not EXTVERSION ($(EXTVERSION)))
endif
ifeq ($(wildcard sql/radik--$(EXTVERSION).sql),)
$(error sql/radik--$(EXTVERSION).sql, the install script of EXTVERSION, is missing)
endif

# Regression tests live in sql/ beside the install scripts, so they are listed by name.
REGRESS = radik_setup radik_types radik_order radik_limit radik_ties radik_numeric radik_rows radik_plan \
	radik_partition radik_jit radik_prepared radik_parallel radik_seed radik_carry radik_native_qual radik_fuzz \
	radik_gpu_fallback radik_cancel radik_topk radik_topk_security radik_review radik_upgrade
REGRESS_OPTS = --inputdir=. --outputdir=test/results --load-extension=radik --no-locale

ISOLATION = radik_concurrent radik_topk_temp
ISOLATION_OPTS = --inputdir=test/isolation --outputdir=test/results/isolation --load-extension=radik --no-locale

# TAP tests (test/t/*.pl), run by PGXS as for PostgreSQL's contrib modules: make installcheck runs
# them after the suites above, make prove_installcheck alone.  They need a PostgreSQL configured
# with --enable-tap-tests (Debian's is), Perl's IPC::Run, and a user other than root, since each
# test initdb's servers of its own.  A PostgreSQL built without them can be pointed at the
# modules of its source tree: make prove_installcheck enable_tap_tests=yes PROVE=prove
# PROVE_FLAGS='-I /path/to/postgresql/src/test/perl'.
TAP_TESTS = 1
PROVE_TESTS = test/t/*.pl

# CUDA: found on PATH or in /usr/local/cuda; absent means a CPU-only build.
NVCC ?= $(or $(shell command -v nvcc 2>/dev/null),$(wildcard /usr/local/cuda/bin/nvcc))
CUDA_HOME ?= $(if $(NVCC),$(patsubst %/bin/nvcc,%,$(NVCC)))
NVCC_GENCODE = -gencode=arch=compute_80,code=sm_80 \
	-gencode=arch=compute_90,code=sm_90 \
	-gencode=arch=compute_90,code=compute_90
NVCC_FLAGS = -O3 -std=c++17 $(NVCC_GENCODE) -Xcompiler -fPIC,-Wall,-fvisibility=hidden \
	-Icuda --expt-relaxed-constexpr
ifeq ($(WERROR),1)
NVCC_FLAGS += -Werror all-warnings -Xcompiler -Werror
PG_CFLAGS += -Werror
endif

ifneq ($(NVCC),)
CUDA_OBJS = cuda/radik_gpu.o
# The CUDA runtime and the C++ runtime the CUDA objects need are linked statically, and their
# symbols kept private, so radik.so depends on neither (nor on the server's libstdc++ version).
CUDA_LINK = -L$(CUDA_HOME)/lib64 -lcudart_static -Wl,-Bstatic -lstdc++ -Wl,-Bdynamic -lrt -ldl -lpthread
SHLIB_LINK += $(CUDA_OBJS) $(CUDA_LINK) -Wl,--exclude-libs,ALL
PG_CPPFLAGS += -DRADIK_WITH_CUDA
else
OBJS += cuda/radik_gpu_absent.o
endif

PG_CPPFLAGS += -Icuda -Isrc
EXTRA_CLEAN = $(CUDA_OBJS) cuda/radik_gpu_absent.o test/results test/engine/engine_test \
	test/engine/engine_bench test/engine/filter_traffic_probe test/engine/sort_probe \
	test/engine/bucket_sort_probe test/engine/sample_sort_probe test/engine/cluster_probe \
	test/engine/start_probe

PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# The TAP tests alone (PGXS runs them only as part of installcheck).
prove_installcheck:
	$(prove_installcheck)

.PHONY: prove_installcheck

# The shared library needs the CUDA objects (they are not in OBJS; see above).
$(shlib): $(CUDA_OBJS)

cuda/%.o: cuda/%.cu cuda/radik_engine.h cuda/radik_keys.h $(wildcard cuda/*.cuh)
	$(NVCC) $(NVCC_FLAGS) -c $< -o $@

$(OBJS): $(wildcard src/*.h) cuda/radik_engine.h cuda/radik_keys.h cuda/radik_backend.h

# The engine's own test and benchmark programs (no PostgreSQL involved).  The test links the
# real GPU object when nvcc is found (and tests the GPU when one is present), else the stub.
# ENGINE_TEST_FLAGS passes flags to it, e.g. make engine-test ENGINE_TEST_FLAGS=--cpu-only.
ENGINE_TEST_SOURCES = test/engine/engine_test.c cuda/radik_engine.c cuda/radik_cpu.c
ENGINE_HEADERS = cuda/radik_engine.h cuda/radik_keys.h cuda/radik_backend.h
ENGINE_TEST_CFLAGS = -O2 -std=gnu11 -Wall -Wextra -Icuda $(if $(filter 1,$(WERROR)),-Werror)
ifneq ($(NVCC),)
test/engine/engine_test: $(ENGINE_TEST_SOURCES) $(CUDA_OBJS) $(ENGINE_HEADERS)
	$(CC) $(ENGINE_TEST_CFLAGS) -DRADIK_WITH_CUDA -o $@ $(ENGINE_TEST_SOURCES) $(CUDA_OBJS) \
		$(CUDA_LINK) -lm
# The benchmark calls the engine's device-side entry (cuda/radik_gpu_device.cuh); the C files are
# compiled by $(CC) first, since nvcc's C++ flags do not suit them.
test/engine/engine_bench: test/engine/engine_bench.cu $(CUDA_OBJS) cuda/radik_engine.c cuda/radik_cpu.c \
		cuda/radik_engine.h cuda/radik_keys.h $(wildcard cuda/*.cuh) test/engine/probe_common.cuh \
		test/engine/bench_keys.cuh
	$(CC) -O2 -Wall -std=gnu11 -DRADIK_WITH_CUDA -Icuda -c cuda/radik_engine.c -o test/engine/bench_engine.o
	$(CC) -O2 -Wall -std=gnu11 -DRADIK_WITH_CUDA -Icuda -c cuda/radik_cpu.c -o test/engine/bench_cpu.o
	$(NVCC) $(NVCC_FLAGS) -o $@ test/engine/engine_bench.cu test/engine/bench_engine.o \
		test/engine/bench_cpu.o $(CUDA_OBJS) -lm
	rm -f test/engine/bench_engine.o test/engine/bench_cpu.o
# The one-kernel cluster selection alone against the engine's call (see its header).
test/engine/cluster_probe: test/engine/cluster_probe.cu $(CUDA_OBJS) cuda/radik_engine.c \
		cuda/radik_cpu.c cuda/radik_engine.h cuda/radik_keys.h $(wildcard cuda/*.cuh) \
		test/engine/probe_common.cuh test/engine/bench_keys.cuh
	$(CC) -O2 -Wall -std=gnu11 -DRADIK_WITH_CUDA -Icuda -c cuda/radik_engine.c -o test/engine/probe_engine.o
	$(CC) -O2 -Wall -std=gnu11 -DRADIK_WITH_CUDA -Icuda -c cuda/radik_cpu.c -o test/engine/probe_cpu.o
	$(NVCC) $(NVCC_FLAGS) -Icuda -o $@ test/engine/cluster_probe.cu test/engine/probe_engine.o \
		test/engine/probe_cpu.o $(CUDA_OBJS) -lm
	rm -f test/engine/probe_engine.o test/engine/probe_cpu.o
# What a process's first GPU selection pays for the GPU's start, waited for or in the background.
test/engine/start_probe: test/engine/start_probe.cu $(CUDA_OBJS) cuda/radik_engine.c \
		cuda/radik_engine.h cuda/radik_backend.h
	$(CC) -O2 -Wall -std=gnu11 -DRADIK_WITH_CUDA -Icuda -c cuda/radik_engine.c -o test/engine/start_engine.o
	$(CC) -O2 -Wall -std=gnu11 -DRADIK_WITH_CUDA -Icuda -c cuda/radik_cpu.c -o test/engine/start_cpu.o
	$(NVCC) $(NVCC_FLAGS) -Icuda -o $@ test/engine/start_probe.cu test/engine/start_engine.o \
		test/engine/start_cpu.o $(CUDA_OBJS) -lm
	rm -f test/engine/start_engine.o test/engine/start_cpu.o
# The memory traffic of the dense filter in its simplest shapes (no engine code; see its header).
test/engine/filter_traffic_probe: test/engine/filter_traffic_probe.cu
	$(NVCC) $(NVCC_FLAGS) -o $@ $<
# cub's radix sort of a large answer by offset and digit width (no engine code; see its header).
test/engine/sort_probe: test/engine/sort_probe.cu test/engine/probe_common.cuh
	$(NVCC) $(NVCC_FLAGS) -o $@ $<
# The last pass of a sample sort of a large answer, alone (no engine code; see its header).
test/engine/bucket_sort_probe: test/engine/bucket_sort_probe.cu test/engine/probe_common.cuh
	$(NVCC) $(NVCC_FLAGS) -o $@ $<
# A two-level sample sort of a large answer against cub's sort (no engine code; see its header).
test/engine/sample_sort_probe: test/engine/sample_sort_probe.cu test/engine/probe_common.cuh
	$(NVCC) $(NVCC_FLAGS) -o $@ $<
else
test/engine/engine_test: $(ENGINE_TEST_SOURCES) cuda/radik_gpu_absent.c $(ENGINE_HEADERS)
	$(CC) $(ENGINE_TEST_CFLAGS) -o $@ $(ENGINE_TEST_SOURCES) cuda/radik_gpu_absent.c -lm
endif

engine-test: test/engine/engine_test
	test/engine/engine_test $(ENGINE_TEST_FLAGS)

.PHONY: engine-test

# The source archive to upload to PGXN, from the committed tree: make dist.  META.json and
# debian/changelog must give EXTVERSION.
dist:
	@test "$$(grep -c '"version": "$(EXTVERSION)"' META.json)" = 2 || \
		{ echo "META.json does not give version $(EXTVERSION) (distribution and extension)" >&2; exit 1; }
	@head -n 1 debian/changelog | grep -q '($(EXTVERSION)-' || \
		{ echo "debian/changelog's first entry is not $(EXTVERSION)" >&2; exit 1; }
	mkdir -p dist
	git archive --format zip --prefix=$(EXTENSION)-$(EXTVERSION)/ \
		--output dist/$(EXTENSION)-$(EXTVERSION).zip HEAD

.PHONY: dist
