#!/bin/bash
# gpu-host.sh: radik's GPU checks on a bare GPU host (see ../shared/gpu-host/README.md; the
# PostgreSQL bundle made by its `pack` must be in .gpu/).  Starts PostgreSQL from the bundle,
# builds radik with CUDA, then runs, logging each step under $OUT:
#   engine   the engine's unit tests (GPU against the CPU twin and a plain sort), then again on
#            the GPU with the one-pass small-k path off, so the general rounds meet small inputs
#   regress  the regression and isolation suites with radik.device = gpu and radik.force = on
#   explain  an EXPLAIN ANALYZE that shows where the selection ran, and that a selection the GPU
#            cannot hold (radik.gpu_memory_limit) is run again on the CPU
#   service  the server restarted with radik preloaded, so that selections run in the GPU
#            service: the regression suite with radik.device = gpu through it (the GPU memory in
#            use logged), then the service's TAP test with the service on the GPU (as the
#            server's user, in a copy of the tree; needs Perl's IPC::Run, which it takes from
#            .gpu/perl5 when the host has none)
# usage: bash test/gpu-host.sh [steps...]   (default: engine regress explain service)
#   SERVICE_REGRESS="radik_setup radik_x ...": the service step runs only these regression tests
# The bundle has no ICU headers, without which radik keys ICU collations through ICU alone
# (radik_icu_keys.h): to build as a user would, copy /usr/include/unicode of a machine with
# libicu-dev of the bundle's ICU version into .icu-headers/, carry it, and export
# COPT=-I$PWD/.icu-headers first (else the regression test radik_icu_keys, which expects the
# tables wherever PostgreSQL has ICU, fails).
set -uo pipefail
OUT=${OUT:-/tmp/radik-gpu-out}
mkdir -p "$OUT"
steps=${*:-engine regress explain service}
status=0

bash .gpu/on-host start -c shared_buffers=8GB -c max_parallel_workers_per_gather=0 >"$OUT/server.log" 2>&1 || { cat "$OUT/server.log"; exit 1; }
source .gpu/env
trap 'bash .gpu/on-host stop >/dev/null 2>&1' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"

echo "== build"
{ make -s -j16 with_llvm=no WERROR=1 && make -s with_llvm=no install; } >"$OUT/build.log" 2>&1 || { tail -50 "$OUT/build.log"; exit 1; }

for step in $steps; do
	case $step in
	engine)
		echo "== engine unit tests"
		make -s with_llvm=no test/engine/engine_test >>"$OUT/build.log" 2>&1 && test/engine/engine_test >"$OUT/engine_test.log" 2>&1
		rc=$?; tail -n 30 "$OUT/engine_test.log"; [ $rc = 0 ] || status=1
		echo "== engine unit tests, GPU only, one-pass small-k path off (the general rounds on small inputs)"
		RADIK_GPU_SMALL_SELECTION=off test/engine/engine_test --gpu-only >"$OUT/engine_test_rounds.log" 2>&1
		rc=$?; tail -n 3 "$OUT/engine_test_rounds.log"; [ $rc = 0 ] || status=1 ;;
	regress)
		echo "== regression + isolation suites, radik.device = gpu, radik.force = on"
		PGOPTIONS="-c radik.device=gpu -c radik.force=on" make -s with_llvm=no TAP_TESTS= installcheck >"$OUT/installcheck.log" 2>&1
		rc=$?; cat "$OUT/installcheck.log"
		if [ $rc != 0 ]; then status=1; cp test/results/regression.diffs "$OUT/" 2>/dev/null; head -n 150 test/results/regression.diffs 2>/dev/null; fi ;;
	explain)
		echo "== EXPLAIN ANALYZE on the GPU"
		psql -X -v ON_ERROR_STOP=1 >"$OUT/explain.log" 2>&1 <<'SQL'
CREATE EXTENSION IF NOT EXISTS radik;
LOAD 'radik';
DROP TABLE IF EXISTS gpu_demo;
CREATE TABLE gpu_demo AS SELECT g AS id, random() AS v FROM generate_series(1, 2000000) g;
ANALYZE gpu_demo;
-- radik.device = auto: the session's first selection starts the GPU in the background and runs
-- on the CPU (Device: cpu (GPU starting)), with PostgreSQL's answer; once the start has ended
-- the 2M-row table is selected on the GPU, a 1000-row one on the CPU (below radik.gpu_min_rows).
-- The run fails if the first selection waited for the GPU or the GPU never came.
SET radik.device = auto; SET radik.force = on;
DO $$
DECLARE
	plan json;
	device text;
BEGIN
	EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON) SELECT * FROM gpu_demo ORDER BY v DESC LIMIT 5'
		INTO plan;
	device := plan -> 0 -> 'Plan' -> 'Plans' -> 0 ->> 'Device';
	RAISE NOTICE 'first selection: Device %, % ms', device, plan -> 0 ->> 'Execution Time';
	IF device IS DISTINCT FROM 'cpu (GPU starting)' THEN
		RAISE EXCEPTION 'the GPU was not starting in the background: %', device;
	END IF;
END $$;
CREATE TEMP TABLE radik_first AS SELECT * FROM gpu_demo ORDER BY v DESC LIMIT 1000;
SET radik.enabled = off;
CREATE TEMP TABLE pg_first AS SELECT * FROM gpu_demo ORDER BY v DESC LIMIT 1000;
SET radik.enabled = on;
DO $$
DECLARE
	plan json;
	device text;
	differing bigint;
BEGIN
	SELECT count(*) INTO differing FROM
		((TABLE radik_first EXCEPT ALL TABLE pg_first)
		 UNION ALL (TABLE pg_first EXCEPT ALL TABLE radik_first)) d;
	RAISE NOTICE 'second selection (GPU starting or started): % differing rows', differing;
	IF differing > 0 THEN
		RAISE EXCEPTION 'the selection answered differently from PostgreSQL';
	END IF;
	FOR i IN 1..200 LOOP
		EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON) SELECT * FROM gpu_demo ORDER BY v DESC LIMIT 5'
			INTO plan;
		device := plan -> 0 -> 'Plan' -> 'Plans' -> 0 ->> 'Device';
		EXIT WHEN device NOT LIKE '%(GPU starting)';
		PERFORM pg_sleep(0.05);
	END LOOP;
	RAISE NOTICE 'after the start: Device %', device;
	IF device IS NULL OR device LIKE 'cpu%' THEN
		RAISE EXCEPTION 'the GPU did not start: %', device;
	END IF;
END $$;
EXPLAIN (ANALYZE) SELECT * FROM gpu_demo ORDER BY v DESC LIMIT 5;
CREATE TABLE gpu_demo_small AS SELECT * FROM gpu_demo WHERE id <= 1000;
ANALYZE gpu_demo_small;
EXPLAIN (ANALYZE) SELECT * FROM gpu_demo_small ORDER BY v DESC LIMIT 5;
DROP TABLE gpu_demo_small;
-- radik.gpu_memory_limit far below what a selection needs: under auto the selection runs out of
-- GPU memory and is run again on the CPU (Device: cpu, GPU Fallbacks: 1); the run fails if not
SET radik.gpu_memory_limit = '8kB';
EXPLAIN (ANALYZE) SELECT * FROM gpu_demo ORDER BY v DESC LIMIT 5;
DO $$
DECLARE
	plan json;
BEGIN
	EXECUTE 'EXPLAIN (ANALYZE, COSTS ON, FORMAT JSON) '
		'SELECT * FROM gpu_demo ORDER BY v DESC LIMIT 5' INTO plan;
	IF plan::text NOT LIKE '%"GPU Fallbacks": 1%' THEN
		RAISE EXCEPTION 'no GPU fallback under an 8kB radik.gpu_memory_limit: %', plan;
	END IF;
END $$;
-- The same with two parallel workers, the limit met at the first chunk (8kB) and later (40MB at
-- k = 1000000); the answers must be PostgreSQL's
SET max_parallel_workers_per_gather = 2;
ALTER TABLE gpu_demo SET (parallel_workers = 2);
EXPLAIN (ANALYZE) SELECT * FROM gpu_demo ORDER BY v DESC LIMIT 1000;
CREATE TEMP TABLE radik_small AS SELECT * FROM gpu_demo ORDER BY v DESC LIMIT 1000;
SET radik.gpu_memory_limit = '40MB';
EXPLAIN (ANALYZE) SELECT * FROM gpu_demo ORDER BY v LIMIT 1000000;
CREATE TEMP TABLE radik_big AS SELECT * FROM gpu_demo ORDER BY v LIMIT 1000000;
SET radik.enabled = off;
CREATE TEMP TABLE pg_small AS SELECT * FROM gpu_demo ORDER BY v DESC LIMIT 1000;
CREATE TEMP TABLE pg_big AS SELECT * FROM gpu_demo ORDER BY v LIMIT 1000000;
SET radik.enabled = on;
DO $$
DECLARE
	differing bigint;
BEGIN
	SELECT count(*) INTO differing FROM
		((TABLE radik_small EXCEPT ALL TABLE pg_small)
		 UNION ALL (TABLE pg_small EXCEPT ALL TABLE radik_small)
		 UNION ALL (TABLE radik_big EXCEPT ALL TABLE pg_big)
		 UNION ALL (TABLE pg_big EXCEPT ALL TABLE radik_big)) d;
	RAISE NOTICE 'parallel fallbacks: % differing rows', differing;
	IF differing > 0 THEN
		RAISE EXCEPTION 'parallel fallbacks answered differently from PostgreSQL';
	END IF;
END $$;
RESET max_parallel_workers_per_gather;
RESET radik.gpu_memory_limit;
CREATE TEMP TABLE radik_answer AS SELECT * FROM gpu_demo ORDER BY v DESC LIMIT 1000;
SET radik.enabled = off;
CREATE TEMP TABLE pg_answer AS SELECT * FROM gpu_demo ORDER BY v DESC LIMIT 1000;
SELECT count(*) AS differing_rows FROM
  ((TABLE radik_answer EXCEPT ALL TABLE pg_answer) UNION ALL (TABLE pg_answer EXCEPT ALL TABLE radik_answer)) d;
SQL
		rc=$?; cat "$OUT/explain.log"; [ $rc = 0 ] || status=1
		echo "== backends that exit or are terminated while the GPU starts in the background"
		# Each backend's one selection must read "cpu (GPU starting)"; the terminated ones are
		# terminated as soon as that selection has returned (the start takes about 0.25 s more).
		# A crash of any of them would make the postmaster reinitialize: its log says so.
		log_lines=$(wc -l </tmp/postgres.log)
		first_selection="EXPLAIN (ANALYZE, FORMAT JSON) SELECT * FROM gpu_demo ORDER BY v LIMIT 5"
		device_of='s/.*"Device": "\([^"]*\)".*/\1/p'
		for i in 1 2 3 4 5; do
			device=$(psql -X -At -c "LOAD 'radik'" -c "SET radik.force = on" \
				-c "$first_selection" | tr -d '\n' | sed -n "$device_of")
			echo "exits after its first selection, Device: $device"
			[ "$device" = "cpu (GPU starting)" ] || status=1
		done
		for i in 1 2 3; do
			rm -f /tmp/victim.out
			PGAPPNAME=gpu_start_victim timeout 60 psql -X -At -c "LOAD 'radik'" \
				-c "SET radik.force = on" -c "$first_selection" -c "SELECT pg_sleep(30)" \
				>/tmp/victim.out 2>&1 &
			terminated=0
			for try in $(seq 1 500); do
				terminated=$(psql -X -At -c "SELECT count(pg_terminate_backend(pid))
					FROM pg_stat_activity WHERE application_name = 'gpu_start_victim'
					AND query = 'SELECT pg_sleep(30)'")
				[ "$terminated" = 1 ] && break
				sleep 0.01
			done
			wait
			device=$(tr -d '\n' </tmp/victim.out | sed -n "$device_of")
			echo "terminated: $terminated, Device: $device"
			[ "$terminated" = 1 ] && [ "$device" = "cpu (GPU starting)" ] || status=1
		done
		if tail -n +$((log_lines + 1)) /tmp/postgres.log |
			grep -E "terminated by signal|was terminated by|reinitializing"; then
			echo "a backend crashed while the GPU started"; status=1
		else
			echo "no backend crashed"
		fi ;;
	service)
		echo "== regression suite through the GPU service, radik.device = gpu, radik.force = on"
		bash .gpu/on-host stop >/dev/null 2>&1
		bash .gpu/on-host start -c shared_buffers=8GB -c max_parallel_workers_per_gather=0 \
			-c shared_preload_libraries=radik >>"$OUT/server.log" 2>&1 || { status=1; continue; }
		for try in $(seq 1 100); do
			[ "$(psql -X -At -c 'CREATE EXTENSION IF NOT EXISTS radik' \
				-c "SELECT string_agg(DISTINCT state, ',') FROM radik_service_status()" 2>/dev/null | tail -1)" = ready ] && break
			sleep 0.1
		done
		psql -X -c 'SELECT * FROM radik_service_status()' | tee "$OUT/service-status.txt"
		(while sleep 1; do nvidia-smi --query-gpu=memory.used --format=csv,noheader; done) \
			>"$OUT/service-gpu-memory.txt" 2>&1 &
		sampler=$!
		PGOPTIONS="-c radik.device=gpu -c radik.force=on" make -s with_llvm=no TAP_TESTS= \
			${SERVICE_REGRESS:+REGRESS="$SERVICE_REGRESS" ISOLATION=} \
			installcheck >"$OUT/installcheck-service.log" 2>&1
		rc=$?; kill $sampler; cat "$OUT/installcheck-service.log"
		if [ $rc != 0 ]; then status=1; cp test/results/regression.diffs "$OUT/service.diffs" 2>/dev/null; head -n 150 test/results/regression.diffs 2>/dev/null; fi
		psql -X -c 'SELECT * FROM radik_service_status()' | tee -a "$OUT/service-status.txt"
		echo "GPU memory in use during the suite (MiB, most): $(sort -n "$OUT/service-gpu-memory.txt" | tail -1)"
		echo "== the service's TAP test, service on the GPU"
		tapdir=/tmp/radik-tap
		rm -rf $tapdir && mkdir -p $tapdir && cp -r . $tapdir/ && chown -R pgrun $tapdir
		perl -MIPC::Run -e 1 2>/dev/null || export PERL5LIB=$tapdir/.gpu/perl5
		su pgrun -c "cd $tapdir && . .gpu/env && RADIK_SERVICE_ENGINE=gpu PERL5LIB=${PERL5LIB:-} \
			make -s with_llvm=no prove_installcheck PROVE_TESTS=test/t/004_radik_service.pl" \
			>"$OUT/tap-service.log" 2>&1
		rc=$?; tail -n 20 "$OUT/tap-service.log"; [ $rc = 0 ] || status=1
		cp $tapdir/tmp_check/log/* "$OUT/" 2>/dev/null ;;
	*) echo "unknown step $step"; status=1 ;;
	esac
done
exit $status
