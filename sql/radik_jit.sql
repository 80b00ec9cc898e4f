-- radik_jit: a radik node's selection does not make PostgreSQL JIT-compile the query
-- (radik_jit.c).  jit_above_cost is set between the cost of what remains of a plan without its
-- native selections (the Limit's few rows) and the cost of the selection itself; PostgreSQL's own
-- decision would compile every one of these queries.  A node whose sort key is an expression, or
-- whose WHERE clause the executor evaluates row by row, keeps PostgreSQL's decision.  On a server
-- without a JIT provider nothing is ever compiled; the checks then hold trivially, and
-- jit_available below says which case ran (it is not shown, so that both give this output).
LOAD 'radik';
SET radik.force = on;
SET max_parallel_workers_per_gather = 0;
SET jit = on;
SET jit_above_cost = 50;
SET jit_optimize_above_cost = -1;
SET jit_inline_above_cost = -1;

CREATE TABLE radik_jit_t AS
SELECT g AS id, (g * 7919 % 10007)::float8 AS v, g % 13 AS w, md5(g::text) AS h
FROM generate_series(1, 20000) g;
ANALYZE radik_jit_t;
CREATE TABLE radik_jit_part (id int, v float8) PARTITION BY RANGE (id);
CREATE TABLE radik_jit_part_1 PARTITION OF radik_jit_part FOR VALUES FROM (0) TO (10000);
CREATE TABLE radik_jit_part_2 PARTITION OF radik_jit_part FOR VALUES FROM (10000) TO (20001);
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

-- Whether this server compiles at all: PostgreSQL's own plan of a query over the same table.
SET radik.enabled = off;
CREATE TEMP TABLE radik_jit_available AS
SELECT radik_jit_functions('SELECT * FROM radik_jit_t ORDER BY v DESC LIMIT 5') > 0 AS yes;
SET radik.enabled = on;

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
	('SELECT s.id, s.v FROM (SELECT * FROM radik_jit_t ORDER BY v LIMIT 5) s ORDER BY s.id', false),
	-- an expression key, a WHERE clause through the executor: PostgreSQL's decision
	('SELECT * FROM radik_jit_t ORDER BY v * 2 + w DESC LIMIT 5', true),
	('SELECT * FROM radik_jit_t WHERE h > ''8'' ORDER BY v DESC LIMIT 5', true);

SELECT q, radik_jit_uses_radik(q) AS radik,
	   (radik_jit_functions(q) > 0) = (compiles AND (SELECT yes FROM radik_jit_available)) AS ok
FROM radik_jit_cases;

-- The answers are PostgreSQL's (JIT or not), for two of them.
SELECT radik_compare('SELECT * FROM radik_jit_t ORDER BY v DESC, id LIMIT 5');
SELECT radik_compare('SELECT * FROM radik_jit_t WHERE w > 3 AND id % 10 <> 0 ORDER BY v DESC, id LIMIT 5');

DROP TABLE radik_jit_t, radik_jit_part;
DROP FUNCTION radik_jit_functions(text), radik_jit_uses_radik(text);
RESET jit_above_cost;
RESET jit_optimize_above_cost;
RESET jit_inline_above_cost;
RESET jit;
