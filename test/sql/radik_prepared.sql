-- radik_prepared: LIMIT, OFFSET and WHERE values as parameters, in generic plans (the values
-- are known only when the node starts) and in PL/pgSQL variables.  radik_compare's radik half
-- runs EXECUTE with radik's generic plan; its PostgreSQL half runs the same query with the
-- values written in, radik off.
LOAD 'radik';
SET plan_cache_mode = force_generic_plan;
SET radik.force = on;

PREPARE radik_top(int8, int8, int4) AS
	SELECT id, f8, grp FROM radik_t WHERE grp <> $3 ORDER BY f8 DESC, id LIMIT $1 OFFSET $2;
-- The plan holds the parameters, not values.
EXPLAIN (COSTS OFF) EXECUTE radik_top(5, 0, 1);

SELECT args, radik_compare('EXECUTE radik_top' || args,
		format('SELECT id, f8, grp FROM radik_t WHERE grp <> %3$s ORDER BY f8 DESC, id LIMIT %1$s OFFSET %2$s',
			   VARIADIC string_to_array(btrim(args, '()'), ', '))) AS result
FROM unnest(ARRAY['(5, 0, 1)', '(1, 0, 1)', '(0, 0, 1)', '(10, 20, 2)', '(3000, 0, 9)',
				  '(3012, 1, 9)', '(10, 3010, 9)', '(10, 5000, 9)', '(NULL, 3000, 9)',
				  '(5, NULL, 9)', '(NULL, NULL, 4)', '(9223372036854775807, 0, 4)',
				  '(9223372036854775807, 9223372036854775807, 4)',
				  '(-1, 0, 1)', '(5, -1, 1)']) WITH ORDINALITY AS a(args, n)
ORDER BY n;

-- Executed repeatedly with different values (the cached plan is reused).
SELECT count(*) FILTER (WHERE r = 'ok') AS ok, count(*) FILTER (WHERE r <> 'ok') AS failed,
	   min(r) FILTER (WHERE r <> 'ok') AS first_failure
FROM (SELECT radik_compare(format('EXECUTE radik_top(%s, %s, %s)', k, o, g),
		format('SELECT id, f8, grp FROM radik_t WHERE grp <> %3$s ORDER BY f8 DESC, id LIMIT %1$s OFFSET %2$s',
			   k, o, g)) AS r
	  FROM generate_series(0, 60, 7) k, generate_series(0, 40, 13) o, generate_series(0, 4) g) s;

-- A parameter as a key's operand, and ties on the key (several right answers).
PREPARE radik_shift(float8, int8) AS
	SELECT id, f4, f4 * $1 AS key FROM radik_t ORDER BY f4 * $1 NULLS FIRST LIMIT $2;
SELECT args, radik_compare('EXECUTE radik_shift' || args,
		format('SELECT id, f4, f4 * %1$s::float8 AS key FROM radik_t ORDER BY f4 * %1$s::float8 NULLS FIRST LIMIT %2$s',
			   VARIADIC string_to_array(btrim(args, '()'), ', ')), 'key') AS result
FROM unnest(ARRAY['(1, 10)', '(-1, 10)', '(0, 200)', '(2.5, 500)', '(''NaN'', 7)']) WITH ORDINALITY AS a(args, n)
ORDER BY n;

DEALLOCATE radik_top;
DEALLOCATE radik_shift;

-- PL/pgSQL variables as LIMIT, OFFSET and WHERE values (static SQL: its plan is cached, generic
-- here).  The same function runs with radik on and off; the answers must be the same.
CREATE FUNCTION radik_plpgsql_top(k int8, skip int8, g int4)
RETURNS TABLE (id int4, ts timestamp)
LANGUAGE plpgsql AS $$
BEGIN
	RETURN QUERY SELECT t.id, t.ts FROM radik_t t WHERE t.grp = g
		ORDER BY t.ts DESC NULLS LAST, t.id LIMIT k OFFSET skip;
END $$;
CREATE FUNCTION radik_plpgsql_same(k int8, skip int8, g int4) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	got text;
	want text;
BEGIN
	-- radik's half: the function's cached generic plan, made with radik on (run twice: the
	-- second run reuses the plan)
	PERFORM set_config('radik.enabled', 'on', false);
	BEGIN
		SELECT string_agg(r::text, ' ') INTO got FROM radik_plpgsql_top(k, skip, g) r;
		SELECT string_agg(r::text, ' ') INTO got FROM radik_plpgsql_top(k, skip, g) r;
	EXCEPTION WHEN OTHERS THEN
		got := 'error: ' || SQLERRM;
	END;
	-- PostgreSQL's half: the same statement elsewhere, planned and cached with radik off
	PERFORM set_config('radik.enabled', 'off', false);
	BEGIN
		SELECT string_agg(r::text, ' ') INTO want FROM
			(SELECT t.id, t.ts FROM radik_t t WHERE t.grp = g
			 ORDER BY t.ts DESC NULLS LAST, t.id LIMIT k OFFSET skip) r;
	EXCEPTION WHEN OTHERS THEN
		want := 'error: ' || SQLERRM;
	END;
	PERFORM set_config('radik.enabled', 'on', false);
	RETURN CASE WHEN got IS NOT DISTINCT FROM want AND got LIKE 'error: %' THEN 'same ' || got
				WHEN got IS NOT DISTINCT FROM want THEN 'ok'
				ELSE format('DIFFERENT: radik %s, postgres %s', got, want) END;
END $$;
-- Called first with radik on, so the cached generic plan of radik_plpgsql_top is radik's.
SELECT k, skip, g, radik_plpgsql_same(k, skip, g) AS result
FROM (VALUES (3::int8, 0::int8, 1), (3, 2, 1), (0, 0, 2), (1, 599, 3), (10, 595, 4),
			 (NULL, 590, 0), (5, NULL, 0), (-1, 0, 1), (1, -1, 1)) AS v(k, skip, g);
-- The same statement with parameters, planned generically, is radik's.
PREPARE radik_like_plpgsql(int4, int8, int8) AS
	SELECT t.id, t.ts FROM radik_t t WHERE t.grp = $1
	ORDER BY t.ts DESC NULLS LAST, t.id LIMIT $2 OFFSET $3;
EXPLAIN (COSTS OFF) EXECUTE radik_like_plpgsql(1, 3, 0);
DEALLOCATE radik_like_plpgsql;
DROP FUNCTION radik_plpgsql_same(int8, int8, int4);
DROP FUNCTION radik_plpgsql_top(int8, int8, int4);
RESET radik.force;
RESET plan_cache_mode;
