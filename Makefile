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

C_SOURCES = $(wildcard src/*.c) cuda/radik_dispatch.c cuda/radik_cpu.c
OBJS = $(C_SOURCES:.c=.o)

# Every install script and every update script.
DATA = $(wildcard sql/radik--*.sql)
ifneq ($(shell sed -n "s/^default_version *= *'\(.*\)'/\1/p" radik.control),$(EXTVERSION))
$(error radik.control's default_version is not EXTVERSION ($(EXTVERSION)))
endif
ifeq ($(wildcard sql/radik--$(EXTVERSION).sql),)
$(error sql/radik--$(EXTVERSION).sql, the install script of EXTVERSION, is missing)
endif

# Regression tests: test/sql/*.sql, their expected output in test/expected/.
REGRESS = radik_setup radik_types radik_order radik_limit radik_ties radik_numeric radik_keys radik_icu_keys radik_rows radik_plan \
	radik_partition radik_partition_limits radik_jit radik_prepared radik_parallel radik_seed radik_carry radik_native_qual radik_native_key radik_page_cache radik_fuzz \
	radik_gpu_fallback radik_cancel radik_topk radik_topk_security radik_topk_elsewhere radik_scan_node radik_errors radik_groups radik_key_rows radik_brin \
	radik_upgrade
REGRESS_OPTS = --inputdir=test --outputdir=test/results --load-extension=radik --no-locale

ISOLATION = radik_concurrent radik_topk_temp radik_brin_concurrent
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
# The CUDA backend, one object per file, so that make -j2 builds them side by side; the longest
# first (cub's segmented sort alone takes about half of the build).
CUDA_OBJS = cuda/radik_gpu_segmented_sort.o cuda/radik_gpu_select.o cuda/radik_gpu_sort.o \
	cuda/radik_gpu_start.o cuda/radik_gpu_memory.o cuda/radik_gpu_stream.o cuda/radik_gpu_batch.o
# The CUDA engine's switches at their shipped choices (the engine's programs build their own).
OBJS += cuda/radik_gpu_switches.o
# The CUDA runtime and the C++ runtime the CUDA objects need are linked statically, and their
# symbols kept private, so radik.so depends on neither (nor on the server's libstdc++ version).
CUDA_LINK = -L$(CUDA_HOME)/lib64 -lcudart_static -Wl,-Bstatic -lstdc++ -Wl,-Bdynamic -lrt -ldl -lpthread
SHLIB_LINK += $(CUDA_OBJS) $(CUDA_LINK) -Wl,--exclude-libs,ALL
PG_CPPFLAGS += -DRADIK_WITH_CUDA
else
OBJS += cuda/radik_gpu_absent.o
endif

PG_CPPFLAGS += -Icuda -Isrc
EXTRA_CLEAN = $(CUDA_OBJS) cuda/radik_gpu_absent.o test/results

PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# The TAP tests alone (PGXS runs them only as part of installcheck).
prove_installcheck:
	$(prove_installcheck)

.PHONY: prove_installcheck

# The shared library needs the CUDA objects (they are not in OBJS; see above).
$(shlib): $(CUDA_OBJS)

cuda/%.o: cuda/%.cu cuda/radik_engine.h cuda/radik_backend.h cuda/radik_gpu_switches.h \
		$(wildcard cuda/*.cuh)
	$(NVCC) $(NVCC_FLAGS) -c $< -o $@
cuda/radik_gpu_switches.o: cuda/radik_gpu_switches.h

$(OBJS): $(wildcard src/*.h) cuda/radik_engine.h cuda/radik_keys.h cuda/radik_backend.h

# The engine's own programs (no PostgreSQL involved): engine_test, its unit tests (of the GPU
# too where one is present), and with nvcc the benchmarks bench/engine/engine_bench and
# bench/engine/start_probe (what a process's first GPU selection pays for the GPU's start).
# They link the engine's C files, compiled here with the switches' setters
# (-DRADIK_GPU_SWITCHES, radik_gpu_switches.h), and radik.so's own CUDA objects, or the stub
# without nvcc.  ENGINE_TEST_FLAGS passes flags to engine_test, e.g.
# make engine-test ENGINE_TEST_FLAGS=--cpu-only.
ENGINE_CFLAGS = -O2 -std=gnu11 -Wall -Wextra -Icuda -DRADIK_GPU_SWITCHES \
	$(if $(filter 1,$(WERROR)),-Werror)
ENGINE_HEADERS = cuda/radik_engine.h cuda/radik_keys.h cuda/radik_backend.h \
	cuda/radik_gpu_switches.h
ENGINE_C_OBJS = test/engine/radik_dispatch.o test/engine/radik_cpu.o test/engine/radik_gpu_switches.o
ifneq ($(NVCC),)
ENGINE_PROGRAMS = test/engine/engine_test bench/engine/engine_bench bench/engine/start_probe
else
ENGINE_C_OBJS += test/engine/radik_gpu_absent.o
ENGINE_PROGRAMS = test/engine/engine_test
endif
EXTRA_CLEAN += $(ENGINE_PROGRAMS) $(ENGINE_PROGRAMS:=.o) $(ENGINE_C_OBJS)

$(ENGINE_C_OBJS): test/engine/%.o: cuda/%.c $(ENGINE_HEADERS)
	$(CC) $(ENGINE_CFLAGS) -c $< -o $@
test/engine/engine_test.o: test/engine/engine_test.c $(ENGINE_HEADERS)
	$(CC) $(ENGINE_CFLAGS) -c $< -o $@
bench/engine/engine_bench.o bench/engine/start_probe.o: bench/engine/%.o: bench/engine/%.cu \
		bench/engine/bench_keys.cuh cuda/radik_gpu_device.cuh $(ENGINE_HEADERS)
	$(NVCC) $(NVCC_FLAGS) -DRADIK_GPU_SWITCHES -c $< -o $@
# Every program links the same way as radik.so: CUDA's and C++'s runtimes statically.
$(ENGINE_PROGRAMS): %: %.o $(ENGINE_C_OBJS) $(CUDA_OBJS)
	$(CC) -o $@ $^ $(CUDA_LINK) -lm

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
