# 002_radik_foreign_partitions.pl: ORDER BY ... LIMIT on a table partitioned across two remote
# servers (postgres_fdw) and a local partition, each server a cluster of its own with radik
# preloaded, as a user shards a table over servers.
#
#  - with radik, every remote query carries the LIMIT (LIMIT + OFFSET), and the remote server
#    answers it with radik's node; without radik, no remote query has a LIMIT;
#  - every answer equals PostgreSQL's (radik.enabled = off on the local server), for a set of
#    queries with OFFSET, WHERE clauses, pruned partitions, an expression key and WITH TIES.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my @remotes;
for my $n (1 .. 2)
{
	my $remote = PostgreSQL::Test::Cluster->new("remote$n");
	$remote->init;
	$remote->append_conf('postgresql.conf',
		"shared_preload_libraries = 'radik'\nradik.force = on\n");
	$remote->start;
	$remote->safe_psql('postgres', qq{
		CREATE EXTENSION radik;
		CREATE TABLE part_rows (id int4, v float8, name text);
		INSERT INTO part_rows
			SELECT i, CASE WHEN i % 211 = 0 THEN NULL ELSE (i * 7919 % 4999) / 8.0 END,
				   'n' || (i * 31 % 977)
			FROM generate_series(($n - 1) * 50000 + 1, $n * 50000) i;
		ANALYZE part_rows;
	});
	push @remotes, $remote;
}

my $node = PostgreSQL::Test::Cluster->new('local');
$node->init;
$node->append_conf('postgresql.conf', "shared_preload_libraries = 'radik'\n");
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION radik; CREATE EXTENSION postgres_fdw;');
$node->safe_psql('postgres',
	'CREATE TABLE parts (id int4, v float8, name text) PARTITION BY RANGE (id)');
for my $n (1 .. 2)
{
	my ($host, $port) = ($remotes[ $n - 1 ]->host, $remotes[ $n - 1 ]->port);
	$node->safe_psql('postgres', qq{
		CREATE SERVER remote$n FOREIGN DATA WRAPPER postgres_fdw
			OPTIONS (host '$host', port '$port', dbname 'postgres');
		CREATE USER MAPPING FOR CURRENT_USER SERVER remote$n;
		CREATE FOREIGN TABLE parts_$n PARTITION OF parts
			FOR VALUES FROM (${\(($n - 1) * 50000 + 1)}) TO (${\($n * 50000 + 1)})
			SERVER remote$n OPTIONS (table_name 'part_rows');
	});
}
$node->safe_psql('postgres', q{
	CREATE TABLE parts_3 PARTITION OF parts FOR VALUES FROM (100001) TO (150001);
	INSERT INTO parts_3
		SELECT i, CASE WHEN i % 211 = 0 THEN NULL ELSE (i * 7919 % 4999) / 8.0 END,
			   'n' || (i * 31 % 977)
		FROM generate_series(100001, 150000) i;
	ANALYZE parts;
	-- The answer as one string, in the order the query returns it.
	CREATE FUNCTION answer(q text) RETURNS text LANGUAGE plpgsql AS $$
	DECLARE
		got text;
	BEGIN
		EXECUTE format('SELECT string_agg(s::text, '' '') FROM (%s) s', q) INTO got;
		RETURN coalesce(got, '(none)');
	END $$;
});

# The remote queries of q's plan, with radik on or off.
sub remote_queries
{
	my ($q, $radik) = @_;
	my $plan = $node->safe_psql('postgres',
		"SET radik.enabled = $radik; EXPLAIN (VERBOSE, COSTS OFF) $q");
	return ($plan =~ /Remote SQL: (.*)$/mg);
}

my @queries = (
	'SELECT * FROM parts ORDER BY v DESC, id LIMIT 10',
	'SELECT id, v FROM parts ORDER BY v NULLS FIRST, id LIMIT 20 OFFSET 200',
	'SELECT id, name FROM parts WHERE name LIKE \'n1%\' ORDER BY v DESC, id LIMIT 15',
	'SELECT id, v FROM parts WHERE id > 40000 ORDER BY v, id LIMIT 12',
	'SELECT id, v FROM parts ORDER BY abs(v - 300), id LIMIT 8');
for my $q (@queries)
{
	my @with = remote_queries($q, 'on');
	my @without = remote_queries($q, 'off');
	is(scalar(@with), 2, "two remote queries: $q");
	is(scalar(grep { /LIMIT \d+/ } @with), scalar(@with), "every remote query has the LIMIT: $q");
	is(scalar(grep { /LIMIT/ } @without), 0, "without radik no remote query has it: $q");

	# each remote answers its query with radik's node
	for my $n (0 .. $#with)
	{
		my $remote_plan = $remotes[$n]->safe_psql('postgres', "EXPLAIN (COSTS OFF) $with[$n]");
		like($remote_plan, qr/Custom Scan \(RadiK Top-K\)/,
			'remote' . ($n + 1) . " answers with radik: $q");
	}

	my $radik = $node->safe_psql('postgres', "SET radik.enabled = on; SELECT answer(\$q\$$q\$q\$)");
	my $postgres =
	  $node->safe_psql('postgres', "SET radik.enabled = off; SELECT answer(\$q\$$q\$q\$)");
	is($radik, $postgres, "same answer as PostgreSQL: $q");
}

# WITH TIES: postgres_fdw sends no WITH TIES, so the remotes sort; the answer is PostgreSQL's.
my $ties = 'SELECT v FROM parts ORDER BY v DESC FETCH FIRST 5 ROWS WITH TIES';
is($node->safe_psql('postgres', "SET radik.enabled = on; SELECT answer(\$q\$$ties\$q\$)"),
	$node->safe_psql('postgres', "SET radik.enabled = off; SELECT answer(\$q\$$ties\$q\$)"),
	'WITH TIES: same answer as PostgreSQL');

done_testing();
