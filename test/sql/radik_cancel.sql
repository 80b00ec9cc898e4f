-- radik_cancel: a running radik query stops promptly on statement_timeout or a cancel request,
-- with PostgreSQL's usual error, leaves nothing behind (memory does not grow across a thousand
-- failed or cancelled queries), and the session goes on answering right.
--
-- The slow query's time goes into radik's own scan loop: its WHERE clause is a chain of md5()
-- calls, which never check for interrupts themselves, so only radik's CHECK_FOR_INTERRUPTS can
-- stop it early.  Uncancelled it runs for well over a second (1.6 s on a 2-core CI machine).
LOAD 'radik';
SET radik.force = on;

CREATE TABLE radik_slow AS
	SELECT i AS id, (i::int8 * 7919 % 1000003)::float8 AS v FROM generate_series(1, 600000) i;
ANALYZE radik_slow;
SELECT radik_plan_uses_radik($$
	SELECT id FROM radik_slow WHERE md5(md5(md5(md5(v::text)))) > 'f' ORDER BY v LIMIT 3$$) AS uses_radik;

-- Start the engine in this session first: starting a GPU takes a while and cannot be
-- interrupted, and it is not what these tests time.
SELECT radik_check('id, v', 'radik_slow WHERE id <= 1000', 'v, id', 'LIMIT 5') AS engine_started;

-- statement_timeout: the usual error, well within a second of the timeout.
SELECT clock_timestamp() AS radik_started \gset
SET statement_timeout = '100ms';
SELECT id FROM radik_slow WHERE md5(md5(md5(md5(v::text)))) > 'f' ORDER BY v LIMIT 3;
RESET statement_timeout;
SELECT clock_timestamp() - :'radik_started'::timestamptz < interval '1 second' AS stopped_within_a_second;

-- A cancel request arriving while radik scans: the WHERE clause sends it when it reaches one
-- row, noting the time in a sequence (which a rollback does not undo); the query must stop
-- within a second of that.  The function is declared cheap (and not inlined), so that its clause
-- runs before the md5() chain (clauses run cheapest first, as in PostgreSQL's own scans) and
-- every row reaches it.
CREATE SEQUENCE radik_cancelled_at_ms;
CREATE FUNCTION radik_cancel_self() RETURNS boolean
	LANGUAGE plpgsql VOLATILE COST 1 AS $$
BEGIN
	RETURN setval('radik_cancelled_at_ms', (extract(epoch FROM clock_timestamp()) * 1000)::int8) > 0
		AND pg_cancel_backend(pg_backend_pid());
END $$;
CREATE FUNCTION radik_time_cancelled(q text) RETURNS text
LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE q;
	RETURN 'not cancelled';
EXCEPTION WHEN query_canceled THEN
	RETURN SQLERRM ||
		CASE WHEN extract(epoch FROM clock_timestamp()) * 1000 -
				  (SELECT last_value FROM radik_cancelled_at_ms) < 1000
			 THEN ' (within a second)' ELSE ' (too slow)' END;
END $$;
SELECT radik_plan_uses_radik($$
	SELECT id FROM radik_slow WHERE (id <> 1000 OR radik_cancel_self())
		AND md5(md5(md5(md5(v::text)))) > 'f' ORDER BY v LIMIT 3$$) AS uses_radik;
SELECT radik_time_cancelled($$
	SELECT id FROM radik_slow WHERE (id <> 1000 OR radik_cancel_self())
		AND md5(md5(md5(md5(v::text)))) > 'f' ORDER BY v LIMIT 3$$) AS cancel_request;
SELECT radik_time_cancelled($$
	SELECT id FROM radik_slow WHERE (id <> 300000 OR radik_cancel_self())
		AND md5(md5(md5(md5(v::text)))) > 'f' ORDER BY v DESC LIMIT 3000$$) AS cancel_halfway;

-- The session still answers, and right.
SELECT radik_check('id, v', 'radik_slow WHERE id % 1000 = 7', 'v DESC, id', 'LIMIT 10') AS after_cancel;

-- Cancelled inside a subtransaction: the transaction goes on and radik works in it.
BEGIN;
SAVEPOINT before_cancel;
SELECT radik_time_cancelled($$
	SELECT id FROM radik_slow WHERE (id <> 1000 OR radik_cancel_self()) ORDER BY v LIMIT 3$$)
	AS cancel_in_subtransaction;
ROLLBACK TO SAVEPOINT before_cancel;
SELECT radik_check('id, v', 'radik_slow WHERE id % 1000 = 8', 'v, id', 'LIMIT 10') AS in_transaction;
COMMIT;

-- A thousand failed and cancelled radik queries: the backend's memory must not grow (by
-- PostgreSQL's memory contexts, and by the process's resident size where /proc shows it).
CREATE TABLE radik_fail AS SELECT i AS id, (i * 37 % 1009) AS v FROM generate_series(1, 20000) i;
CREATE FUNCTION radik_backend_memory() RETURNS TABLE (context_bytes int8, resident_kb int8)
LANGUAGE plpgsql AS $$
DECLARE
	status text;
BEGIN
	SELECT sum(total_bytes) INTO context_bytes FROM pg_backend_memory_contexts;
	BEGIN
		status := pg_read_file('/proc/self/status');
		resident_kb := substring(status FROM 'VmRSS:\s*(\d+)')::int8;
	EXCEPTION WHEN OTHERS THEN
		resident_kb := 0;
	END;
	RETURN NEXT;
END $$;
CREATE FUNCTION radik_fail_many(n int4) RETURNS text
LANGUAGE plpgsql
SET radik.force = on
AS $$
DECLARE
	failures int4 := 0;
BEGIN
	FOR i IN 1 .. n LOOP
		BEGIN
			IF i % 2 = 0 THEN
				-- fails at one row, somewhere in the scan
				EXECUTE format('SELECT id FROM radik_fail ORDER BY 1 / (id - %s), id LIMIT 100',
							   (i * 7919) % 20000 + 1);
			ELSE
				-- cancelled at one row, somewhere in the scan
				EXECUTE format('SELECT id FROM radik_fail WHERE id <> %s OR radik_cancel_self() ORDER BY v DESC LIMIT 1000',
							   (i * 104729) % 20000 + 1);
			END IF;
		EXCEPTION
			WHEN division_by_zero OR query_canceled THEN
				failures := failures + 1;
		END;
	END LOOP;
	RETURN failures || ' of ' || n || ' failed';
END $$;
SELECT radik_plan_uses_radik('SELECT id FROM radik_fail ORDER BY 1 / (id - 5), id LIMIT 100')
	   AND radik_plan_uses_radik('SELECT id FROM radik_fail WHERE id <> 5 OR radik_cancel_self() ORDER BY v DESC LIMIT 1000')
	   AS uses_radik;
SELECT radik_fail_many(200) AS warm_up;
CREATE TEMP TABLE radik_memory_before AS SELECT * FROM radik_backend_memory();
SELECT radik_fail_many(1000) AS failing;
SELECT a.context_bytes - b.context_bytes < 1024 * 1024 AS contexts_did_not_grow,
	   a.resident_kb - b.resident_kb < 32 * 1024 AS resident_size_did_not_grow
FROM radik_backend_memory() a, radik_memory_before b;
SELECT radik_check('id, v', 'radik_fail', 'v DESC, id', 'LIMIT 10') AS after_failures;

DROP TABLE radik_slow, radik_fail, radik_memory_before;
DROP SEQUENCE radik_cancelled_at_ms;
DROP FUNCTION radik_fail_many(int4), radik_backend_memory(), radik_time_cancelled(text),
	radik_cancel_self();
RESET radik.force;
