#!/bin/bash
# foreign_partitions.sh: ORDER BY ... LIMIT on a table partitioned over postgres_fdw foreign
# tables, PostgreSQL's plan against radik's, in one run on one server.
#
# Builds --parts source tables of --rows-per-part rows each, of the shape
# t(id int8, v float4, i8 int8, ts timestamptz, grp int4, name text) (v and i8 random, ts in
# insertion order, grp one of 1000 groups, name a random 32-character text), and a table
# partitioned by range of id whose partitions are foreign tables over them, through a postgres_fdw
# server that connects back to the same database (the remote servers of a real deployment, here
# sessions of this one).  Then times each query three ways:
#   postgres          radik.enabled = off here and in the remote sessions: each remote query is
#                     sent without its LIMIT and the remote sorts all of its rows
#   radik_here        radik here (every remote query carries the LIMIT), the remotes without it
#   radik_everywhere  radik here and in the remote sessions (the role postgres_fdw connects as
#                     has session_preload_libraries = radik), which answer their LIMIT queries
#                     with radik
# A cell is the median of --reps runs (EXPLAIN ANALYZE's execution time) after one warm-up run in
# the same session; each row checks that the three plans returned the same sort key values.
# With --restart CMD (a command that restarts the server, and may drop the operating system's
# page cache), a second table times each plan's first run after CMD: the tables read from disk
# or the page cache, and the remote sessions started by that query.
# Needs a running server (PGHOST, PGPORT, PGUSER: a superuser) with radik and postgres_fdw.
# --narrow builds t(id int8, v float4) instead, the shape of the smallest sharded tables.
#   usage: bench/foreign_partitions.sh [--parts N] [--rows-per-part N] [--reps N] [--narrow]
#                                      [--reuse-table] [--restart CMD]
set -euo pipefail

parts=4 rows_per_part=2000000 reps=5 reuse=0 narrow=0 restart_cmd=""
command_line="$0 $*"
while [ $# -gt 0 ]; do
	case $1 in
	--parts) parts=$2; shift ;;
	--rows-per-part) rows_per_part=$2; shift ;;
	--reps) reps=$2; shift ;;
	--reuse-table) reuse=1 ;;
	--narrow) narrow=1 ;;
	--restart) restart_cmd=$2; shift ;;
	*) echo "unknown option $1" >&2; exit 2 ;;
	esac
	shift
done
db=radik_bench_fdw$([ $narrow = 1 ] && echo _narrow || true)
columns="id int8, v float4, i8 int8, ts timestamptz, grp int4, name text"
values="i, random(), (random() * 1e15)::int8, timestamptz '2024-01-01' + i * interval '1 second', i % 1000, substr(md5(random()::text), 1, 32)"
queries=(
	"SELECT * FROM fp ORDER BY v DESC LIMIT 100"
	"SELECT * FROM fp WHERE grp < 100 ORDER BY v DESC LIMIT 100"
	"SELECT * FROM fp ORDER BY v DESC LIMIT 100 OFFSET 1000"
	"SELECT * FROM fp ORDER BY v DESC LIMIT 10000"
)
if [ $narrow = 1 ]; then
	columns="id int8, v float4" values="i, random()"
	queries=("SELECT * FROM fp ORDER BY v DESC LIMIT 100" "SELECT * FROM fp ORDER BY v DESC LIMIT 10000")
fi
psql_db() { psql -X -q -v ON_ERROR_STOP=1 -d "$db" "$@"; }

if [ $reuse = 0 ]; then
	psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
	psql -X -q -v ON_ERROR_STOP=1 -d postgres <<-SQL
		DROP ROLE IF EXISTS fp_plain;
		DROP ROLE IF EXISTS fp_radik;
		CREATE ROLE fp_plain LOGIN SUPERUSER;
		CREATE ROLE fp_radik LOGIN SUPERUSER;
		ALTER ROLE fp_plain SET radik.enabled = off;
		ALTER ROLE fp_radik SET session_preload_libraries = 'radik';
	SQL
	psql_db <<-SQL
		CREATE EXTENSION radik;
		CREATE EXTENSION postgres_fdw;
		CREATE TABLE fp ($columns) PARTITION BY RANGE (id);
	SQL
	psql_db <<-SQL
		DO \$\$ BEGIN
			EXECUTE format('CREATE SERVER fp_loopback FOREIGN DATA WRAPPER postgres_fdw '
						   'OPTIONS (host %L, port %L, dbname %L)',
						   split_part(current_setting('unix_socket_directories'), ',', 1),
						   current_setting('port'), current_database());
		END \$\$;
		CREATE USER MAPPING FOR CURRENT_USER SERVER fp_loopback OPTIONS (user 'fp_plain');
	SQL
	for p in $(seq 1 "$parts"); do
		lo=$(( (p - 1) * rows_per_part + 1 )) hi=$(( p * rows_per_part + 1 ))
		psql_db <<-SQL
			CREATE TABLE fp_src_$p ($columns);
			INSERT INTO fp_src_$p
				SELECT $values FROM generate_series($lo, $hi - 1) i;
			VACUUM ANALYZE fp_src_$p;
			CREATE FOREIGN TABLE fp_$p PARTITION OF fp FOR VALUES FROM ($lo) TO ($hi)
				SERVER fp_loopback OPTIONS (table_name 'fp_src_$p');
			ANALYZE fp_$p;
		SQL
	done
fi

# the role postgres_fdw connects as: fp_plain (radik off) or fp_radik (radik loaded)
connect_as() {
	psql_db -c "ALTER USER MAPPING FOR CURRENT_USER SERVER fp_loopback OPTIONS (SET user '$1')"
}

# time QUERY SETTING [FIRST]: "median_ms keys_hash"; FIRST 1 times only the session's first run
time_query() {
	local q=$1 setting=$2 first=${3:-0} runs=$reps
	if [ "$first" = 1 ]; then runs=1; fi
	psql_db -At <<-SQL
		LOAD 'radik';
		SET radik.enabled = $setting;
		CREATE TEMP TABLE times (ms float8);
		DO \$\$
		DECLARE
			plan json;
		BEGIN
			FOR i IN $first .. $runs LOOP
				EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON) $q' INTO plan;
				IF i > 0 THEN
					INSERT INTO times VALUES ((plan -> 0 ->> 'Execution Time')::float8);
				END IF;
			END LOOP;
		END \$\$;
		SELECT round(percentile_disc(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 1) || ' ' ||
			   (SELECT md5(string_agg(v::text, ',')) FROM ($q) s)
		FROM times;
	SQL
}

echo "# ORDER BY ... LIMIT over $parts postgres_fdw partitions of $rows_per_part rows (loopback): t($columns)"
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')  host: $(hostname)  cores: $(nproc)  $(psql -X -At -d postgres -c 'SELECT version()' | cut -d, -f1)"
echo "command: $command_line"
echo
# table FIRST: one table of the queries, timed as time_query FIRST says (after CMD when 1)
table() {
	local first=$1
	echo "| query | postgres ms | radik here ms | radik everywhere ms | speed-up | same keys |"
	echo "|---|---:|---:|---:|---:|---|"
	for q in "${queries[@]}"; do
		connect_as fp_plain
		[ "$first" = 1 ] && eval "$restart_cmd" >/dev/null
		read -r pg_ms pg_keys < <(time_query "$q" off "$first")
		[ "$first" = 1 ] && eval "$restart_cmd" >/dev/null
		read -r here_ms here_keys < <(time_query "$q" on "$first")
		connect_as fp_radik
		[ "$first" = 1 ] && eval "$restart_cmd" >/dev/null
		read -r all_ms all_keys < <(time_query "$q" on "$first")
		same=$([ "$pg_keys" = "$here_keys" ] && [ "$pg_keys" = "$all_keys" ] && echo yes || echo NO)
		speedup=$(echo "scale=1; $pg_ms / $all_ms" | bc)
		echo "| \`$q\` | $pg_ms | $here_ms | $all_ms | ${speedup}x | $same |"
	done
}

echo "prewarmed (median of $reps after a warm-up run):"
echo
table 0
if [ -n "$restart_cmd" ]; then
	echo
	echo "after a restart (each plan's first run after: $restart_cmd):"
	echo
	table 1
fi
