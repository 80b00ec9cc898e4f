-- radik_jit: a radik node's selection does not make PostgreSQL JIT-compile the query
-- (radik_jit.c).  jit_above_cost is set between the cost of what remains of a plan without its
-- native selections (the Limit's few rows, 0.1) and the plans' costs (557-707; the UNION ALL
-- below less its radik arm costs 100, so a hook that took that arm out whole fails here).
-- PostgreSQL's own decision would compile every one of these queries.  A node whose sort key is
-- an expression, or whose WHERE clause the executor evaluates row by row, keeps PostgreSQL's
-- decision, as does one whose cost the plan's holds only in part.  On a server without a JIT
-- provider nothing is ever compiled and the checks hold trivially: pg_jit_available() says which
-- case ran (not shown, so that both give this output; Debian's PostgreSQL has the provider).
LOAD 'radik';
SET radik.force = on;
SET max_parallel_workers_per_gather = 0;
SET jit = on;
SET jit_above_cost = 300;
SET jit_optimize_above_cost = -1;
SET jit_inline_above_cost = -1;

CREATE TABLE radik_jit_t AS
SELECT g AS id, (g * 7919 % 10007)::float8 AS v, g % 13 AS w, md5(g::text) AS h
FROM generate_series(1, 20000) g;
ANALYZE radik_jit_t;
CREATE TABLE radik_jit_part (id int, v float8) PARTITION BY RANGE (id);
CREATE TABLE radik_jit_part_1 PARTITION OF radik_jit_part FOR VALUES FROM (0) TO (5000);
CREATE TABLE radik_jit_part_2 PARTITION OF radik_jit_part FOR VALUES FROM (5000) TO (10000);
CREATE TABLE radik_jit_part_3 PARTITION OF radik_jit_part FOR VALUES FROM (10000) TO (15000);
CREATE TABLE radik_jit_part_4 PARTITION OF radik_jit_part FOR VALUES FROM (15000) TO (20001);
INSERT INTO radik_jit_part SELECT id, v FROM radik_jit_t;
ANALYZE radik_jit_part;

-- How many functions running q compiled (0: none; EXPLAIN shows them with its costs only), and
-- whether its plan has a radik node.
CREATE FUNCTION radik_jit_functions(q text) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
	line text;
	functions int := 0;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (ANALYZE, TIMING OFF, SUMMARY OFF) ' || q LOOP
		IF line ~ '^\s*Functions: \d+' THEN
			functions := substring(line FROM 'Functions: (\d+)')::int;
		END IF;
	END LOOP;
	RETURN functions;
END $$;
CREATE FUNCTION radik_jit_uses_radik(q text) RETURNS bool LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		IF line ~ 'RadiK Top-K' THEN
			RETURN true;
		END IF;
	END LOOP;
	RETURN false;
END $$;

-- Whether this server can compile at all (a JIT provider is installed), asked without planning.
CREATE TEMP TABLE radik_jit_available AS SELECT pg_jit_available() AS yes;

-- Each query: it is radik's plan, and it compiles exactly when it should.
CREATE TEMP TABLE radik_jit_cases (q text, compiles bool);
INSERT INTO radik_jit_cases VALUES
	-- plain column keys, no WHERE or a native one: nothing compiled
	('SELECT * FROM radik_jit_t ORDER BY v DESC LIMIT 5', false),
	('SELECT id, v FROM radik_jit_t ORDER BY v LIMIT 5 OFFSET 3', false),
	('SELECT * FROM radik_jit_t ORDER BY v DESC, id LIMIT 5', false),
	('SELECT * FROM radik_jit_t WHERE w > 3 AND id % 10 <> 0 ORDER BY v DESC LIMIT 5', false),
	('SELECT * FROM radik_jit_t ORDER BY v DESC FETCH FIRST 5 ROWS WITH TIES', false),
	('SELECT * FROM radik_jit_part ORDER BY v DESC LIMIT 5', false),
	-- partitions that follow the sort key: an ordered Append reads them in turn (its startup
	-- cost is all four nodes', and a hook taking out the first alone leaves about 420)
	('SELECT * FROM radik_jit_part ORDER BY id DESC LIMIT 5', false),
	('SELECT s.id, s.v FROM (SELECT * FROM radik_jit_t ORDER BY v LIMIT 5) s ORDER BY s.id', false),
	('SELECT count(*), max(s.v) FROM (SELECT * FROM radik_jit_t ORDER BY v LIMIT 5) s', false),
	-- an expression key, a WHERE clause through the executor: PostgreSQL's decision
	('SELECT * FROM radik_jit_t ORDER BY v * 2 + w DESC LIMIT 5', true),
	('SELECT * FROM radik_jit_t WHERE h > ''8'' ORDER BY v DESC LIMIT 5', true),
	-- radik's arm after a scan's in an Append: its cost reaches the Limit only in part, and the
	-- scan's filter runs for every row
	('(SELECT id, v FROM radik_jit_t WHERE h > ''0'') UNION ALL '
	 '(SELECT id, v FROM radik_jit_t ORDER BY v LIMIT 5) LIMIT 10000', true);

SELECT q, radik_jit_uses_radik(q) AS radik,
	   (radik_jit_functions(q) > 0) = (compiles AND (SELECT yes FROM radik_jit_available)) AS ok
FROM radik_jit_cases;

-- The answers are PostgreSQL's (JIT or not), for two of them.
SELECT radik_compare('SELECT * FROM radik_jit_t ORDER BY v DESC, id LIMIT 5');
SELECT radik_compare('SELECT * FROM radik_jit_t WHERE w > 3 AND id % 10 <> 0 '
					 'ORDER BY v DESC, id LIMIT 5');

DROP TABLE radik_jit_t, radik_jit_part;
DROP FUNCTION radik_jit_functions(text), radik_jit_uses_radik(text);
RESET jit_above_cost;
RESET jit_optimize_above_cost;
RESET jit_inline_above_cost;
RESET jit;
