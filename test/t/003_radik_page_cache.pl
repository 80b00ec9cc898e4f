# 003_radik_page_cache.pl: pages copied from the operating system's page cache are exact.
#
# A table larger than a quarter of shared_buffers is read through a ring of buffers, and radik
# copies its all-visible pages that no shared buffer holds straight from the page cache
# (src/radik_page_source.c).  In a cluster with small shared buffers, once with data checksums
# and once without (where a fetch by TID copies only the rows it reads, with the page's header
# and line pointers):
#  - radik copies pages (EXPLAIN ANALYZE's Pages From Page Cache), with and without workers,
#    and not with radik.page_cache_reads off, on a small table or in a serializable transaction;
#  - rows updated and vacuumed in shared buffers, their pages all-visible again but not yet
#    written to the file (whose older copies are all-visible too), are read from the buffers;
#  - pages with deleted rows, not all-visible, are read through shared buffers;
#  - the rows the groups of a grouped selection keep are copied while the scan reads their
#    pages; rows fetched by their TIDs after the scan (those work_mem did not let the scan or
#    the groups copy) are copied from the page cache too;
#  - writers (updates, deletes, inserts, VACUUM, CHECKPOINT) run while radik scans, and every
#    answer equals PostgreSQL's in the same snapshot.
# Every radik answer is compared with PostgreSQL's (radik.enabled = off) in the same transaction.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time);
use IPC::Run;

use FindBin;
use lib $FindBin::RealBin;
use RadikCompare;

# Every check, in a cluster with data checksums and in one without: name, and whether it has them.
sub check_page_copies
{
	my ($name, $checksums) = @_;

	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init(extra => $checksums ? ['--data-checksums'] : []);
	$node->append_conf(
		'postgresql.conf', q{
	shared_preload_libraries = 'radik'
	shared_buffers = 16MB
	max_parallel_workers_per_gather = 0
	bgwriter_lru_maxpages = 0
	checkpoint_timeout = '1h'
	autovacuum = off
	});
	$node->start;

	$node->safe_psql('postgres', 'CREATE EXTENSION radik');
	$node->safe_psql('postgres', q{
		CREATE TABLE pc AS
			SELECT i::int8 AS id, (i::int8 * 7919 % 1000003)::float8 AS v, i % 100 AS grp,
				   md5(i::text) AS name
			FROM generate_series(1, 200000) i;
		ALTER TABLE pc SET (parallel_workers = 2);
		CREATE INDEX pc_id ON pc (id);
		VACUUM ANALYZE pc;
		CHECKPOINT;
		CREATE TABLE small AS SELECT * FROM pc WHERE id <= 1000;
		VACUUM ANALYZE small;
		-- the pages radik copied from the page cache running q (0 when EXPLAIN shows none)
		CREATE FUNCTION pages_copied(q text) RETURNS int8 LANGUAGE plpgsql AS $$
		DECLARE
			line text;
			used boolean := false;
			copied int8 := 0;
		BEGIN
			PERFORM set_config('radik.force', 'on', true);
			FOR line IN EXECUTE 'EXPLAIN (ANALYZE, TIMING OFF) ' || q LOOP
				used := used OR line LIKE '%Custom Scan (RadiK Top-K)%';
				IF line ~ 'Pages From Page Cache: ' THEN
					copied := substring(line from 'Pages From Page Cache: (\d+)')::int8;
				END IF;
			END LOOP;
			IF NOT used THEN
				RAISE EXCEPTION 'radik not used: %', q;
			END IF;
			RETURN copied;
		END $$;
	});
	$node->safe_psql('postgres', $radik_same_function);

	my $pages = $node->safe_psql('postgres', "SELECT pg_relation_size('pc') / 8192");
	# (the load and VACUUM left most of the table in shared buffers)
	$node->restart;
	my $top = 'SELECT * FROM pc ORDER BY v DESC, id LIMIT 20';
	my $low = 'SELECT id, v FROM pc ORDER BY v, id LIMIT 20';
	my $where = "SELECT id, v, name FROM pc WHERE grp < 10 AND name LIKE 'a%' ORDER BY v DESC, id LIMIT 20";
	my $text = 'SELECT id, name FROM pc ORDER BY name COLLATE "C", id LIMIT 20';
	my $grouped = 'SELECT * FROM (SELECT id / 50 AS g, id, v, name, row_number() OVER '
	  . '(PARTITION BY id / 50 ORDER BY v DESC, id) AS r FROM pc) s WHERE r <= 1 ORDER BY g';
	my $fetched = 'SELECT id, v, name FROM pc ORDER BY v DESC, id LIMIT 3000';
	# (work_mem too small for the scan to carry 3000 rows: they are fetched in batches)
	my $fetch_settings = "SET work_mem = '64kB'; ";
	# (work_mem too small for the groups to copy their rows while the scan reads their pages,
	# radik_group_copies.c: they are fetched after it)
	my $grouped_fetched = "$grouped /* rows fetched */";
	my %settings = (
		$fetched => $fetch_settings,
		$grouped_fetched => "SET work_mem = '768kB'; ");

	# Read through the ring: every page is copied, and the answers are PostgreSQL's.
	is($node->safe_psql('postgres', "SELECT pages_copied('$top')"), $pages,
		'every page of the table is copied from the page cache');
	for my $q ($top, $low, $where, $text)
	{
		is($node->safe_psql('postgres', "SELECT radik_same(\$q\$$q\$q\$)"), 'ok', "same answer: $q");
	}

	# The rows the groups keep are copied while the scan has their pages: no page is read again.
	$node->restart;
	is($node->safe_psql('postgres', "SELECT pages_copied('$grouped')"), $pages,
		'the rows the groups keep are copied as their pages are read');
	is($node->safe_psql('postgres', "SELECT radik_same('$grouped')"), 'ok',
		'the same rows for each group');
	is( $node->safe_psql(
			'postgres', "SET max_parallel_workers_per_gather = 2; SELECT radik_same('$grouped')"),
		'ok', 'with two workers, which copy the rows their groups keep, the same rows');

	# The rows fetched after the scan: their pages, which the scan's ring did not keep, are copied
	# as the scan's were, and the copies counted with them.
	$node->restart;
	cmp_ok(
		$node->safe_psql(
			'postgres', $settings{$grouped_fetched} . "SELECT pages_copied('$grouped_fetched')"),
		'>', $pages + 1000, 'the rows the groups keep are fetched from the page cache');
	is( $node->safe_psql(
			'postgres', $settings{$grouped_fetched} . "SELECT radik_same('$grouped_fetched')"),
		'ok', 'the same rows for each group, fetched');
	cmp_ok($node->safe_psql('postgres', $fetch_settings . "SELECT pages_copied('$fetched')"),
		'>', $pages + 1000, 'rows the scan did not carry are fetched from the page cache');
	is($node->safe_psql('postgres', $fetch_settings . "SELECT radik_same('$fetched')"), 'ok',
		'the same rows fetched in batches');
	$node->restart;

	# (the ring of the queries before holds a few pages in shared buffers)
	cmp_ok(
		$node->safe_psql(
			'postgres', "SET max_parallel_workers_per_gather = 2; SELECT pages_copied('$top')"),
		'>', $pages / 2, 'with two workers, the pages are copied');
	is( $node->safe_psql(
			'postgres', "SET max_parallel_workers_per_gather = 2; SELECT radik_same('$top')"),
		'ok', 'with two workers, the same answer');
	is( $node->safe_psql(
			'postgres', "SET radik.page_cache_reads = off; SELECT pages_copied('$top')"),
		'0', 'radik.page_cache_reads = off copies nothing');
	is($node->safe_psql('postgres',
			"SELECT pages_copied('SELECT * FROM small ORDER BY v DESC LIMIT 5')"),
		'0', 'a table read into shared buffers is not copied');
	is( $node->safe_psql(
			'postgres', "BEGIN ISOLATION LEVEL SERIALIZABLE; SELECT pages_copied('$top'); COMMIT"),
		'0', 'a serializable transaction copies nothing');

	# Rows updated through the index (no ring: their pages stay in shared buffers) and the table
	# vacuumed: their pages are all-visible again in shared buffers, not yet written (no checkpoint,
	# no background writer), while the file's older copies of them are all-visible too.  Those pages
	# must come from the buffers.
	$node->safe_psql('postgres',
		'SET enable_seqscan = off; UPDATE pc SET v = -v - 1 '
		  . 'WHERE id = ANY (ARRAY(SELECT generate_series(997, 200000, 997)::int8))');
	$node->safe_psql('postgres', 'VACUUM pc');
	is($node->safe_psql('postgres',
			"SELECT count(*) FROM pc WHERE v < 0 AND id % 997 = 0"), '200', 'updated rows');
	my $copied = $node->safe_psql('postgres', "SELECT pages_copied('$low')");
	cmp_ok($copied, '<', $pages - 150,
		"pages updated in shared buffers are not copied ($copied of $pages)");
	cmp_ok($copied, '>', $pages / 2, 'the other pages are');
	is($node->safe_psql('postgres', "SELECT radik_same('$low')"), 'ok',
		'updated rows in shared buffers, not the older copies in the file');
	like($node->safe_psql('postgres', "SELECT v FROM ($low) s LIMIT 1"), qr/^-/,
		'the smallest key is an updated one');

	# Rows deleted and not vacuumed: their pages are not all-visible, in the file either (after the
	# checkpoint), so they come through shared buffers and the deleted rows stay out of the answer.
	$node->safe_psql('postgres',
		"DELETE FROM pc WHERE id IN (SELECT id FROM pc ORDER BY v DESC, id LIMIT 30)");
	$node->safe_psql('postgres', 'CHECKPOINT');
	$node->restart;
	$copied = $node->safe_psql('postgres', "SELECT pages_copied('$top')");
	cmp_ok($copied, '<', $pages, "pages with deleted rows are not copied ($copied of $pages)");
	is($node->safe_psql('postgres', "SELECT radik_same('$top')"), 'ok', 'deleted rows stay deleted');

	# Writers while radik scans, each answer compared in one snapshot.
	my @writer_sql;
	for my $writer (0 .. 1)
	{
		my $sql = "SET synchronous_commit = off;\n";
		for my $i (1 .. 4000)
		{
			my $id = 1 + int(rand(200000));
			if ($i % 400 == 0)
			{
				$sql .= "VACUUM pc;\n";
			}
			elsif ($i % 1000 == 500 && $writer == 0)
			{
				$sql .= "CHECKPOINT;\n";
			}
			elsif ($i % 3 == 0)
			{
				$sql .= "DELETE FROM pc WHERE id = $id;\n"
				  . "INSERT INTO pc VALUES ($id, random() * 2000000 - 500000, $id % 100, md5(random()::text));\n";
			}
			else
			{
				$sql .= "UPDATE pc SET v = random() * 2000000 - 500000 WHERE id = $id;\n";
			}
		}
		push @writer_sql, $sql;
	}
	my @writers;
	for my $sql (@writer_sql)
	{
		my ($out, $err) = ('', '');
		push @writers,
		  IPC::Run::start(
			[ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr('postgres') ],
			'<', \$sql, '>', \$out, '2>', \$err);
	}

	my ($rounds, $same, $with_copies) = (0, 0, 0);
	my @differences;
	my $until = time() + 20;
	while (time() < $until && grep { $_->pumpable } @writers)
	{
		for my $workers (0, 2)
		{
			for my $q ($top, $low, $where, $grouped, $grouped_fetched, $fetched)
			{
				my $result = $node->safe_psql('postgres',
					"SET max_parallel_workers_per_gather = $workers; "
					  . ($settings{$q} // '')
					  . 'BEGIN ISOLATION LEVEL REPEATABLE READ; '
					  . "SELECT radik_same(\$q\$$q\$q\$); SELECT pages_copied(\$q\$$q\$q\$); COMMIT");
				my ($verdict, $n) = split /\n/, $result;
				$rounds++;
				$same++ if $verdict eq 'ok';
				push @differences, "$q ($workers workers): $verdict" if $verdict ne 'ok';
				$with_copies++ if $n > 0;
			}
		}
		$_->pump_nb for @writers;
	}
	$_->finish for @writers;
	cmp_ok($rounds, '>=', 6, "radik scanned while the writers wrote ($rounds queries)");
	is($same, $rounds, 'every answer was PostgreSQL\'s') or diag join("\n", @differences[0 .. 2]);
	cmp_ok($with_copies, '>', 0, "pages were copied during the writes ($with_copies queries)");
	is($node->safe_psql('postgres', "SELECT radik_same('$top')"), 'ok', 'the same after the writers');

	$node->stop;
}

subtest 'with data checksums: whole pages copied' =>
  sub { check_page_copies('radik_page_cache', 1) };
subtest 'without data checksums: a fetch copies only the rows it reads' =>
  sub { check_page_copies('radik_page_cache_plain', 0) };

done_testing();
