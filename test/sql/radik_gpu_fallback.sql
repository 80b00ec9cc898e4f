-- radik_gpu_fallback: radik.device = auto when the GPU cannot hold a selection.  Under
-- radik.gpu_memory_limit = 8kB, far below what a GPU selection needs (those of this file hold
-- about 0.9 MB at k = 10 on an H200), a selection started on the GPU runs out of memory and is
-- run again on the CPU: its answer is PostgreSQL's, and EXPLAIN ANALYZE's device reads "cpu"
-- (had it stayed on the GPU, the GPU's name).  Under radik.device = gpu the same is an error.
-- Where there is no GPU, auto selects on the CPU from the start: the answers are compared all
-- the same and the output is the same; what this file proves about the fallback it proves on a
-- GPU host (test/gpu-host.sh regress).
LOAD 'radik';
SET radik.force = on;
SET radik.gpu_min_rows = 0;	-- a table this small goes to the GPU too, where there is one

-- 100000 rows: distinct keys (k4, f8, so every answer is one set of rows), a filter column.
CREATE TABLE radik_gf AS
SELECT i AS id, (i * 7919) % 100003 AS k4, ((i::int8 * 104729) % 1000003)::float8 / 7 AS f8,
	i % 5 AS grp
FROM generate_series(1, 100000) i;
ALTER TABLE radik_gf SET (parallel_workers = 2);
ANALYZE radik_gf;

-- Is there a GPU here?  With no limit, auto selects this table on one if there is (kept out of
-- the output, which must not depend on it).  The first selection that wants the GPU starts it
-- in the background and runs on the CPU, reading "cpu (GPU starting)", as do the next ones
-- until the start has ended: wait for that first (at most 30 s).  (With radik preloaded, the
-- GPU service started with the server; a backend with a radik.gpu_memory_limit starts its own,
-- which is waited for below.)
CREATE FUNCTION radik_gf_wait_for_gpu() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	FOR i IN 1..600 LOOP
		EXIT WHEN radik_analyzed_scan('SELECT * FROM radik_gf ORDER BY k4 LIMIT 10') ->> 'Device'
			NOT LIKE '%(GPU starting)';
		PERFORM pg_sleep(0.05);
	END LOOP;
END $$;
SET radik.device = auto;
SELECT radik_gf_wait_for_gpu();
CREATE TEMP TABLE radik_gf_host AS
SELECT radik_analyzed_scan('SELECT * FROM radik_gf ORDER BY k4 LIMIT 10') ->> 'Device'
	NOT LIKE 'cpu%' AS has_gpu;

-- The setting, in memory units; negative values are refused.
SET radik.gpu_memory_limit = '8kB';
SHOW radik.gpu_memory_limit;
\set VERBOSITY sqlstate
SET radik.gpu_memory_limit = -1;
\set VERBOSITY default
SHOW radik.gpu_memory_limit;

-- auto: each answer compared with PostgreSQL's, and where the selection ended up.  A small k, a
-- large one (the sample's threshold), a WHERE clause, OFFSET, rows made from keys alone, and
-- radik_topk.
SET radik.device = auto;
SELECT radik_gf_wait_for_gpu();
SELECT q, radik_compare(q) AS answer, radik_analyzed_scan(q) ->> 'Device' AS device
FROM (VALUES
	('SELECT * FROM radik_gf ORDER BY k4 LIMIT 10'),
	('SELECT * FROM radik_gf ORDER BY f8 DESC LIMIT 20000'),
	('SELECT id, k4 FROM radik_gf WHERE grp = 3 ORDER BY k4 DESC LIMIT 100 OFFSET 7'),
	('SELECT k4 FROM radik_gf ORDER BY k4 LIMIT 500')) v(q);
SELECT * FROM radik_topk_check('radik_gf', 'k4', 1000);

-- gpu: an error, no answer: out of GPU memory on a GPU host, no GPU elsewhere.
SET radik.device = gpu;
-- Without a GPU, the error's detail says what is missing (the driver, a GPU, or CUDA in the
-- build), not the CUDA runtime's own words for a missing driver ("driver version is
-- insufficient").
DO $$
DECLARE
	expected text := CASE WHEN (SELECT has_gpu FROM radik_gf_host) THEN '53200' ELSE '0A000' END;
	detail text;
BEGIN
	PERFORM * FROM radik_gf ORDER BY k4 LIMIT 10;
	RAISE NOTICE 'radik.device = gpu answered under an 8kB limit';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL;
	IF SQLSTATE = expected AND (expected = '53200' OR
		detail ~ '^(no NVIDIA driver is installed|no NVIDIA GPU is present|the NVIDIA driver supports CUDA|radik was built without CUDA)') THEN
		RAISE NOTICE 'radik.device = gpu: the error expected here';
	ELSE
		RAISE NOTICE 'radik.device = gpu: error % (%: %), expected %', SQLSTATE, SQLERRM, detail, expected;
	END IF;
END $$;

-- No limit: the answer is PostgreSQL's, and the selection stays where it started.
RESET radik.gpu_memory_limit;
SET radik.device = auto;
SELECT radik_compare(q) AS answer, radik_analyzed_scan(q)::jsonb ? 'GPU Fallbacks' AS fell_back
FROM (VALUES ('SELECT * FROM radik_gf ORDER BY k4 LIMIT 10')) v(q);

DROP TABLE radik_gf, radik_gf_host;
DROP FUNCTION radik_gf_wait_for_gpu();
RESET radik.device;
RESET radik.gpu_min_rows;
RESET radik.force;
