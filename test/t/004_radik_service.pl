# 004_radik_service.pl: the GPU service (radik preloaded, radik.service on), which pg_regress
# cannot show:
#  - it starts with the server, and selections go through it (EXPLAIN ANALYZE says so);
#  - many concurrent sessions get PostgreSQL's answers, and with every slot taken the rest run on
#    the CPU (counted as busy);
#  - its process killed with kill -9 mid-selection: the supervisor starts another, the server is
#    not restarted, the selection is answered on the CPU under radik.device = auto and fails with
#    radik's error under gpu;
#  - 1000 selections cancelled by statement_timeout leave no slot taken;
#  - small selections, asked for whole, are answered in batches, and right;
#  - a k larger than a slot holds selects without the service;
#  - not preloaded, or radik.service off: no service, and the same answers;
#  - two services (radik.service_gpus = 2, the CPU twin standing in for two GPUs): selections
#    spread over both, and one killed, the other goes on.
# The service runs the CPU twin here (radik.service_engine = cpu), so that all of this runs on
# machines without a GPU; test/gpu-host.sh runs it with RADIK_SERVICE_ENGINE=gpu on a GPU, and
# the regression suites through the service.
#
# Every radik answer is compared with PostgreSQL's (radik.enabled = off) in the same session.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);
use IPC::Run;

use FindBin;
use lib $FindBin::RealBin;
use RadikCompare;

my $engine = $ENV{RADIK_SERVICE_ENGINE} // 'cpu';

# A server with radik preloaded, radik.service_gpus services, the table and the functions.
sub service_node
{
	my ($name, $gpus) = @_;
	my $server = PostgreSQL::Test::Cluster->new($name);
	$server->init;
	$server->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'radik'
radik.service_engine = $engine
radik.service_gpus = $gpus
radik.service_slots = 2
radik.service_slot_size = 256kB
max_parallel_workers_per_gather = 0
});
	$server->start;
	$server->safe_psql('postgres', 'CREATE EXTENSION radik');
	$server->safe_psql('postgres', q{
	CREATE TABLE big AS
		SELECT i AS id, (i::int8 * 7919 % 1000003)::float8 AS v, md5(i::text) AS note
		FROM generate_series(1, 1000000) i;
	ANALYZE big;
	-- where radik selected
	CREATE FUNCTION radik_device(q text) RETURNS text LANGUAGE plpgsql AS $$
	DECLARE
		plan json;
	BEGIN
		PERFORM set_config('radik.force', 'on', true);
		EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON) ' || q INTO plan;
		RETURN plan::text;
	END $$;
	});
	$server->safe_psql('postgres', $radik_same_function);
	return $server;
}

my $node = service_node('service', 1);

sub status
{
	my ($column) = @_;
	return $node->safe_psql('postgres', "SELECT $column FROM radik_service_status()");
}

sub wait_ready
{
	for (1 .. 500)
	{
		return 1 if status('state') eq 'ready';
		usleep(20_000);
	}
	return 0;
}

my $top = 'SELECT id, v FROM big WHERE id % 7 = 3 ORDER BY v DESC, id LIMIT 9';
my $long = q{SELECT id FROM big WHERE md5(md5(md5(note))) > 'f' ORDER BY v, id LIMIT 5};

ok(wait_ready(), 'the service starts with the server');
if ($engine eq 'cpu')
{
	is(status('device'), 'cpu', 'it runs the engine it was given');
}
else
{
	like(status('device'), qr/^(?!cpu$)./, "it runs the engine it was given: " . status('device'));
}
# The service process is a child of the supervisor, not of the postmaster: its death is the
# supervisor's to handle, and the rest of the server goes on.
sub parent_of
{
	my ($pid) = @_;
	my $stat = slurp_file("/proc/$pid/stat");
	return (split ' ', ($stat =~ s/^.*\)//sr))[1];
}
my $postmaster = (split /\n/, slurp_file($node->data_dir . '/postmaster.pid'))[0];
my $supervisor = parent_of(status('pid'));
isnt($supervisor, $postmaster, 'the service process is not a child of the postmaster');
is(parent_of($supervisor), $postmaster, '... but of a server process, its supervisor');
is($node->safe_psql('postgres', "SELECT radik_same('$top')"), 'ok', 'it answers like PostgreSQL');
like($node->safe_psql('postgres', "SELECT radik_device('$top')"),
	qr/"Device": "[^"]+ \(GPU service\)"/, 'EXPLAIN ANALYZE says the selection ran in the service');
is($node->safe_psql('postgres', "SET radik.device = gpu; SELECT radik_same('$top')"), 'ok',
	'radik.device = gpu goes to the service too');

# A k larger than a slot's result (256kB / 16 bytes = 16384 rows) selects without the service.
my $large_k = 'SELECT id FROM big ORDER BY v DESC, id LIMIT 20000';
unlike($node->safe_psql('postgres', "SELECT radik_device('$large_k')"),
	qr/GPU service/, 'a k larger than a slot holds is selected without the service');
is($node->safe_psql('postgres', "SELECT radik_same('$large_k')"), 'ok', '... and answered right');

# radik.gpu_memory_limit caps a backend's own GPU memory: a backend with one selects without the
# service.
unlike($node->safe_psql('postgres', "SET radik.gpu_memory_limit = '1GB'; SELECT radik_device('$top')"),
	qr/GPU service/, 'a backend with radik.gpu_memory_limit selects without the service');

# Many concurrent sessions: every answer compared; two slots for eight clients, so some find
# every slot taken and select on the CPU.
my $script = $node->basedir . '/same.sql';
open(my $fh, '>', $script) or die;
print $fh "DO \$\$ BEGIN IF radik_same('$top') <> 'ok' OR radik_same('SELECT id FROM big ORDER BY v, id LIMIT 50') <> 'ok' THEN RAISE EXCEPTION 'radik answered differently'; END IF; END \$\$;\n";
close $fh;
my $selections = status('selections');
my ($rc, $out, $err) = ('', '', '');
my $ok = IPC::Run::run(
	[ 'pgbench', '-n', '-c', '8', '-j', '8', '-t', '10', '-f', $script, '-d',
	  $node->connstr('postgres') ],
	'>', \$out, '2>', \$err);
ok($ok, 'eight concurrent sessions get PostgreSQL\'s answers') or diag($err);
cmp_ok(status('selections'), '>', $selections, 'the service took some of them');
cmp_ok(status('answering_ms'), '>', 0, 'and counted the time it spent answering');
cmp_ok(status('busy'), '>', 0, 'some found every slot taken (then the CPU selected)');
is(status('slots_in_use'), '0', 'and every slot is free again');

# Small selections (every key in one push: fewer than a half's 8192 rows pass the WHERE clause)
# are asked for whole and answered in batches, keys of both widths, and one that no row passes;
# eight sessions at once.
open($fh, '>', $script) or die;
print $fh "DO \$\$ BEGIN IF radik_same('SELECT id, v FROM big WHERE id % 1000 = 7 ORDER BY v DESC, id LIMIT 9') <> 'ok' OR radik_same('SELECT id FROM big WHERE id % 997 = 5 ORDER BY id::int4 DESC LIMIT 5') <> 'ok' OR radik_same('SELECT id FROM big WHERE id < 0 ORDER BY v LIMIT 3') <> 'ok' THEN RAISE EXCEPTION 'radik answered differently'; END IF; END \$\$;\n";
close $fh;
my $batched = status('batched_selections');
$ok = IPC::Run::run(
	[ 'pgbench', '-n', '-c', '8', '-j', '8', '-t', '10', '-f', $script, '-d',
	  $node->connstr('postgres') ],
	'>', \$out, '2>', \$err);
ok($ok, 'small selections from eight sessions get PostgreSQL\'s answers') or diag($err);
cmp_ok(status('batched_selections'), '>', $batched, 'the service answered them in batches');
cmp_ok(status('batches'), '<=', status('batched_selections'), '... of one selection or more');
is(status('slots_in_use'), '0', 'and every slot is free again');

# kill -9 of the service process during long selections: a new one starts, the server is not
# restarted, the selections are answered on the CPU under auto and fail under gpu.
my $postmaster_start = $node->safe_psql('postgres', 'SELECT pg_postmaster_start_time()');
sub kill_during
{
	my ($device) = @_;
	my ($sout, $serr) = ('', '');
	my $psql = IPC::Run::start(
		[
			'psql', '-X', '-q', '-A', '-t', '-d', $node->connstr('postgres'),
			'-c', "SET radik.device = $device",
			'-c', "SELECT radik_same('" . ($long =~ s/'/''/gr) . "')"
		],
		'>', \$sout, '2>', \$serr);
	my $in_use = '0';
	for (1 .. 500)
	{
		$in_use = status('slots_in_use');
		last if $in_use ne '0';
		usleep(10_000);
	}
	my $pid = status('pid');
	kill 'KILL', $pid;
	$psql->finish;
	chomp $sout;
	return ($in_use, $pid, $sout, $serr);
}

my ($in_use, $killed, $sout, $serr) = kill_during('auto');
is($in_use, '1', 'a long selection holds a slot');
is($sout, 'ok', 'service killed: the selection is answered on the CPU under auto, right') or diag($serr);
ok(wait_ready(), 'a new service process starts');
isnt(status('pid'), $killed, '... with a new process');
cmp_ok(status('restarts'), '>=', 1, '... counted as a restart');
is($node->safe_psql('postgres', 'SELECT pg_postmaster_start_time()'), $postmaster_start,
	'the server was not restarted');
# A kill that comes once the selection has left the service (its slot seen just before it ended)
# finds nothing to fail, and the statement is answered: that run tells nothing, so it is tried
# again, a few times, the new service process ready first.
for my $attempt (1 .. 3)
{
	($in_use, $killed, $sout, $serr) = kill_during('gpu');
	last if $serr ne '' || $sout ne 'ok';
	wait_ready();
}
like($serr, qr/radik selection failed.*\n.*GPU service process ended/,
	'service killed: the selection fails with radik\'s error under gpu');
ok(wait_ready(), 'a new service process starts again');
is($node->safe_psql('postgres', "SELECT radik_same('$top')"), 'ok', 'and answers right');
for (1 .. 100)
{
	last if status('slots_in_use') eq '0';
	usleep(20_000);
}
is(status('slots_in_use'), '0', 'the slots of the killed process are free again');

# 1000 selections cancelled by statement_timeout in one session: no slot stays taken.
my $cancels = $node->basedir . '/cancel.sql';
open($fh, '>', $cancels) or die;
print $fh "SET radik.force = on;\nSET statement_timeout = '5ms';\n";
print $fh "SELECT id FROM big ORDER BY v, id LIMIT 5;\n" for 1 .. 1000;
close $fh;
$selections = status('selections');
IPC::Run::run([ 'psql', '-X', '-q', '-d', $node->connstr('postgres'), '-f', $cancels ],
	'>', \$out, '2>', \$err);
my $timeouts = () = $err =~ /canceling statement due to statement timeout/g;
cmp_ok($timeouts, '>', 500, "most of 1000 selections were cancelled ($timeouts)");
cmp_ok(status('selections') - $selections, '>', 500, 'most of them were in the service');
for (1 .. 100)
{
	last if status('slots_in_use') eq '0';
	usleep(20_000);
}
is(status('slots_in_use'), '0', 'after 1000 cancelled selections every slot is free');
is($node->safe_psql('postgres', "SELECT radik_same('$top')"), 'ok', 'and the service answers right');

# Two services: selections spread over both (the backends take a slot of the one with the fewest
# taken); one's process killed, the other answers while it starts again.  Where the services run
# on the GPU there are as many as the host has GPUs, so this part needs the CPU engine.
SKIP:
{
	skip 'two services need the CPU engine or two GPUs', 7 if $engine ne 'cpu';
	my $two = service_node('two', 2);

	# Run sql until it answers want (at most 10 s); its last answer.
	my $poll = sub {
		my ($sql, $want) = @_;
		my $got = '';
		for (1 .. 500)
		{
			$got = $two->safe_psql('postgres', $sql);
			last if $got eq $want;
			usleep(20_000);
		}
		return $got;
	};
	is($poll->("SELECT string_agg(gpu || ':' || state, ' ' ORDER BY gpu) FROM radik_service_status()",
			'0:ready 1:ready'),
		'0:ready 1:ready', 'radik.service_gpus = 2: two services start');
	my $pids = $two->safe_psql('postgres',
		'SELECT count(DISTINCT pid) FROM radik_service_status()');
	is($pids, '2', '... each with its process');
	$ok = IPC::Run::run(
		[ 'pgbench', '-n', '-c', '8', '-j', '8', '-t', '10', '-f', $script, '-d',
		  $two->connstr('postgres') ],
		'>', \$out, '2>', \$err);
	ok($ok, 'two services: eight concurrent sessions get PostgreSQL\'s answers') or diag($err);
	is($two->safe_psql('postgres',
			'SELECT count(*) FROM radik_service_status() WHERE selections > 0'),
		'2', '... and both services took selections');
	my $first = $two->safe_psql('postgres', 'SELECT pid FROM radik_service_status() WHERE gpu = 0');
	kill 'KILL', $first;
	my $answers = '';
	for (1 .. 5)
	{
		$answers .= $two->safe_psql('postgres', "SELECT radik_same('$top')") . ' ';
	}
	is($answers, 'ok ok ok ok ok ', 'one service killed: the queries right after it are answered right');
	is($poll->("SELECT string_agg(gpu || ':' || state || ':' || restarts, ' ' ORDER BY gpu) "
			  . 'FROM radik_service_status()', '0:ready:1 1:ready:0'),
		'0:ready:1 1:ready:0', 'the killed one starts again, the other was not touched');
	like($two->safe_psql('postgres', "SELECT radik_device('$top')"), qr/GPU service/,
		'and selections go to the services again');
	$two->stop;
}

# radik.service off: no service, the same answers.
$node->append_conf('postgresql.conf', "radik.service = off\n");
$node->restart;
is(status('state'), 'off', 'radik.service = off: no service');
is($node->safe_psql('postgres', "SELECT radik_same('$top')"), 'ok', '... and the same answers');
$node->stop;

# Loaded per session (not preloaded): no service, the same answers.
my $plain = PostgreSQL::Test::Cluster->new('plain');
$plain->init;
$plain->append_conf('postgresql.conf', "session_preload_libraries = 'radik'\n");
$plain->start;
$plain->safe_psql('postgres', 'CREATE EXTENSION radik');
$plain->safe_psql('postgres', "CREATE TABLE big AS SELECT i AS id, (i * 37 % 1009)::float8 AS v FROM generate_series(1, 20000) i");
is($plain->safe_psql('postgres', 'SELECT state FROM radik_service_status()'), 'off',
	'not preloaded: no service');
my $plain_query = 'SELECT id, v FROM big ORDER BY v DESC, id LIMIT 9';
my $radik = $plain->safe_psql('postgres', "SET radik.force = on; $plain_query");
like($plain->safe_psql('postgres', "SET radik.force = on; EXPLAIN $plain_query"),
	qr/RadiK Top-K/, '... radik answers');
is($radik, $plain->safe_psql('postgres', "SET radik.enabled = off; $plain_query"),
	'... like PostgreSQL');
$plain->stop;
done_testing();
