# 001_radik_server.pl: radik in a real server's life, which pg_regress cannot show.
#
#  - loaded three ways: shared_preload_libraries (and then the postmaster has not touched CUDA:
#    no libcuda mapped into it), session_preload_libraries, and a plain LOAD; without any of
#    them a session keeps PostgreSQL's plans;
#  - a long radik query cancelled from another session (pg_cancel_backend) stops within a
#    second with the usual error, and the backend goes on answering right;
#  - the same for statement_timeout, repeated, with the backend's resident memory steady;
#  - the same cancel while parallel workers read the table: they go away with the query.
#
# Every radik answer is compared with PostgreSQL's (radik.enabled = off) in the same session.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time usleep);
use IPC::Run;

use FindBin;
use lib $FindBin::RealBin;
use RadikCompare;

my $node = PostgreSQL::Test::Cluster->new('radik');
$node->init;
$node->append_conf('postgresql.conf', "shared_preload_libraries = 'radik'\n");
$node->append_conf('postgresql.conf', "max_parallel_workers_per_gather = 0\n");
$node->start;

$node->safe_psql('postgres', 'CREATE EXTENSION radik');
$node->safe_psql('postgres', q{
	CREATE TABLE slow AS
		SELECT i AS id, (i::int8 * 7919 % 1000003)::float8 AS v
		FROM generate_series(1, 2000000) i;
	ANALYZE slow;
});
$node->safe_psql('postgres', $radik_same_function);

my $top = 'SELECT id, v FROM slow WHERE id % 1000 = 3 ORDER BY v DESC, id LIMIT 7';
my $slow = q{SELECT id FROM slow WHERE md5(md5(md5(md5(v::text)))) > 'f' ORDER BY v LIMIT 3};

# Loaded by shared_preload_libraries: radik answers without LOAD, and the postmaster has no
# CUDA library mapped (CUDA is started lazily, in the backend that needs it).
is($node->safe_psql('postgres', "SELECT radik_same('$top')"), 'ok',
	'shared_preload_libraries: radik answers like PostgreSQL');
my $pm = slurp_file($node->data_dir . '/postmaster.pid');
$pm =~ s/\n.*//s;
my $maps = '';
if (open(my $fh, '<', "/proc/$pm/maps"))
{
	local $/;
	$maps = <$fh>;
	close $fh;
}
unlike($maps, qr/libcuda/, 'the postmaster has not loaded the CUDA driver');

# A cancel request from another session stops the scan within a second.
sub cancel_after
{
	my ($how, $delay, $workers) = @_;
	my ($stdout, $stderr) = ('', '');
	my $psql = IPC::Run::start(
		[
			'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr('postgres'),
			'-c', 'SET radik.force = on',
			'-c', 'SET max_parallel_workers_per_gather = ' . ($workers // 0),
			# start the engine first: a GPU's start-up is slow and not what is timed here
			'-c', 'SELECT count(*) FROM (SELECT id FROM slow ORDER BY v LIMIT 1) s',
			'-c', "SET application_name = 'radik_slow'",
			'-c', ($how eq 'timeout' ? "SET statement_timeout = '${delay}ms'" : 'SELECT 1'),
			'-c', $slow
		],
		'>', \$stdout, '2>', \$stderr);
	my $pid;
	for (1 .. 200)
	{
		$pid = $node->safe_psql('postgres',
			"SELECT pid FROM pg_stat_activity WHERE application_name = 'radik_slow' "
			  . "AND state = 'active' AND query LIKE '%md5%' AND pid <> pg_backend_pid()");
		last if $pid ne '';
		usleep(20_000);
	}
	my $asked;
	if ($how eq 'cancel')
	{
		usleep($delay * 1000);
		$asked = time();
		$node->safe_psql('postgres', "SELECT pg_cancel_backend($pid)");
	}
	else
	{
		$asked = time();
	}
	$psql->finish;
	return (time() - $asked, $stderr, $pid);
}

my ($took, $stderr) = cancel_after('cancel', 300);
like($stderr, qr/canceling statement due to user request/, 'cancelled with the usual error');
cmp_ok($took, '<', 1.0, sprintf('the cancel stopped radik within a second (%.3f s)', $took));

# The same with two parallel workers reading the table: the plan has them, the cancel stops the
# query as fast, and no worker outlives it.
$node->safe_psql('postgres', 'ALTER TABLE slow SET (parallel_workers = 2)');
like(
	$node->safe_psql('postgres',
		"LOAD 'radik'; SET radik.force = on; SET max_parallel_workers_per_gather = 2; "
		  . "EXPLAIN (COSTS OFF) $slow"),
	qr/Workers Planned: 2/, 'the slow query plans two workers');
($took, $stderr) = cancel_after('cancel', 300, 2);
like($stderr, qr/canceling statement due to user request/, 'parallel: cancelled with the usual error');
cmp_ok($took, '<', 1.0, sprintf('parallel: the cancel stopped radik within a second (%.3f s)', $took));
my $workers_left;
for (1 .. 100)
{
	$workers_left = $node->safe_psql('postgres',
		"SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'parallel worker'");
	last if $workers_left eq '0';
	usleep(20_000);
}
is($workers_left, '0', 'parallel: no worker left behind');
is($node->safe_psql('postgres',
		"SET max_parallel_workers_per_gather = 2; SELECT radik_same('$top')"),
	'ok', 'parallel: radik answers like PostgreSQL');
$node->safe_psql('postgres', 'ALTER TABLE slow RESET (parallel_workers)');

# statement_timeout.
($took, $stderr) = cancel_after('timeout', 200);
like($stderr, qr/canceling statement due to statement timeout/, 'statement_timeout stops radik');
cmp_ok($took, '<', 1.0, sprintf('... within a second of the timeout (%.3f s after radik started)', $took));

# The same backend, many cancelled queries: its resident memory stays put.
my ($in, $out, $err) = ('', '', '');
my $session = IPC::Run::start(
	[ 'psql', '-X', '-q', '-A', '-t', '-d', $node->connstr('postgres') ],
	'<', \$in, '>', \$out, '2>', \$err);
sub session_query
{
	my ($sql) = @_;
	$out = '';
	$in .= "$sql\n;\n\\echo __done__\n";
	$session->pump until $out =~ /__done__/;
	$out =~ s/__done__\n?//;
	chomp $out;
	return $out;
}
session_query("SET radik.force = on");
session_query('SELECT count(*) FROM (SELECT id FROM slow ORDER BY v LIMIT 1) s');
session_query("SET statement_timeout = '30ms'");
my $backend = session_query("SELECT pg_backend_pid()");
sub rss_kb
{
	open(my $fh, '<', "/proc/$backend/status") or return 0;
	while (<$fh>) { return $1 if /^VmRSS:\s*(\d+)/; }
	return 0;
}
session_query($slow) for 1 .. 20;
my $before = rss_kb();
session_query($slow) for 1 .. 200;
my $after = rss_kb();
cmp_ok($after - $before, '<', 32 * 1024,
	"200 more cancelled radik queries grew the backend by less than 32 MB ($before kB -> $after kB)");
session_query("RESET statement_timeout");
is(session_query("SELECT radik_same('$top')"), 'ok', 'the cancelled session still answers right');
$in .= "\\q\n";
$session->finish;

# radik.device: gpu either runs on the GPU or fails with radik's own error (no GPU here); cpu
# always answers.
my ($rc, $gpu_out, $gpu_err) = $node->psql('postgres',
	"SET radik.device = gpu; SELECT radik_same('$top')");
ok(($rc == 0 && $gpu_out eq 'ok')
	  || $gpu_err =~ /radik.device is "gpu" but no GPU can be used/,
	'radik.device = gpu: the GPU answers right, or radik says there is none');
is($node->safe_psql('postgres', "SET radik.device = cpu; SELECT radik_same('$top')"), 'ok',
	'radik.device = cpu: the CPU answers right');

# session_preload_libraries: new sessions have radik without LOAD.
$node->append_conf('postgresql.conf', "shared_preload_libraries = ''\n");
$node->append_conf('postgresql.conf', "session_preload_libraries = 'radik'\n");
$node->restart;
is($node->safe_psql('postgres', "SELECT radik_same('$top')"), 'ok',
	'session_preload_libraries: radik answers like PostgreSQL');

# Neither: a session keeps PostgreSQL's plan until it loads radik.
$node->append_conf('postgresql.conf', "session_preload_libraries = ''\n");
$node->restart;
like($node->safe_psql('postgres', "SET radik.force = on; EXPLAIN (COSTS OFF) $top"),
	qr/^Limit\n\s+->  Sort/, 'not loaded: PostgreSQL plans alone');
is($node->safe_psql('postgres', "LOAD 'radik'; SELECT radik_same('$top')"), 'ok',
	'LOAD: radik answers like PostgreSQL');

$node->stop;
done_testing();
