# RadikCompare.pm: the SQL function radik_same(q) with which the TAP tests compare radik's answers
# with PostgreSQL's.  It runs q with radik.force on and again with radik.enabled off, in the
# caller's transaction (so in its snapshot), and answers 'ok' when both give the same rows as
# text, 'radik not used' when q's plan has no radik node, else both answers.
package RadikCompare;

use strict;
use warnings;

use Exporter 'import';
our @EXPORT = qw($radik_same_function);

our $radik_same_function = q{
	CREATE FUNCTION radik_same(q text) RETURNS text LANGUAGE plpgsql AS $$
	DECLARE
		got text;
		want text;
		line text;
		used boolean := false;
	BEGIN
		PERFORM set_config('radik.force', 'on', true);
		FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
			used := used OR line LIKE '%RadiK%';
		END LOOP;
		IF NOT used THEN
			RETURN 'radik not used';
		END IF;
		EXECUTE format('SELECT string_agg(s::text, '' '') FROM (%s) s', q) INTO got;
		PERFORM set_config('radik.enabled', 'off', true);
		EXECUTE format('SELECT string_agg(s::text, '' '') FROM (%s) s', q) INTO want;
		PERFORM set_config('radik.enabled', 'on', true);
		RETURN CASE WHEN got IS NOT DISTINCT FROM want THEN 'ok'
					ELSE format('radik %s, postgres %s', got, want) END;
	END $$;
};

1;
