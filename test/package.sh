#!/bin/bash
# package.sh: build radik's Debian package and show that it installs and answers (Debian 12, as
# root: it installs packages, as test/run-tests.sh does).
#
#   1. installs the build dependencies that debian/control names (apt-get build-dep);
#   2. builds postgresql-15-radik_VERSION_ARCH.deb with dpkg-buildpackage from a copy of the tree,
#      in $RADIK_PACKAGE_DIR (default /tmp/radik-package): the CUDA engine when nvcc is found (see
#      the Makefile), else the CPU engine;
#   3. checks that the package holds the library, the control file and every install and update
#      script of the tree, and installs it with apt (which brings PostgreSQL 15 where missing);
#      the files radik's make install left in the same places, if any, are replaced by the
#      package's, and dpkg --verify checks that what is installed is the package's;
#   4. starts a throwaway cluster (test/radik-env.sh), creates the extension, checks its version,
#      the update from 0.1.0, and top-k queries (serial and parallel, LIMIT, OFFSET, WITH TIES,
#      radik_topk()) against PostgreSQL's own answers with radik.enabled = off;
#   5. runs the regression and isolation suites (make installcheck), then the TAP suite as user
#      postgres, against the installed package (RADIK_PACKAGE_SUITES=0 skips this step).
# Exits non-zero at the first failure; the last line is "package: ok" when all passed.
source "$(dirname "$0")/radik-env.sh"
radik_need_root
export DEBIAN_FRONTEND=noninteractive
OUT=${RADIK_PACKAGE_DIR:-/tmp/radik-package}
started=$(date +%s)

say "build dependencies (debian/control)"
apt-get update -qq
apt-get install -y -qq --no-install-recommends dpkg-dev libipc-run-perl >/dev/null
apt-get build-dep -y -qq "$RADIK_ROOT" >/dev/null
version=$(dpkg-parsechangelog -l "$RADIK_ROOT/debian/changelog" -S Version)
deb=$OUT/postgresql-$PG_VERSION-radik_${version}_$(dpkg --print-architecture).deb

say "building postgresql-$PG_VERSION-radik $version in $OUT ($(command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ] && echo 'CUDA engine and CPU engine' || echo 'no nvcc found: CPU engine only'))"
rm -rf "$OUT"
mkdir -p "$OUT/src"
tar -C "$RADIK_ROOT" --exclude=./.git --exclude=./test/results --exclude=./tmp_check \
	--exclude=./dist --exclude='*.o' --exclude='*.so' --exclude='*.bc' -cf - . | tar -C "$OUT/src" -xf -
if ! (cd "$OUT/src" && dpkg-buildpackage -b -us -uc) >"$OUT/build.log" 2>&1; then
	tail -n 60 "$OUT/build.log"
	exit 1
fi
grep -E '^dpkg-deb: building package' "$OUT/build.log"

say "package contents"
dpkg-deb -c "$deb" >"$OUT/contents.txt"
pkglib=$($PG_CONFIG --pkglibdir)
extdir=$($PG_CONFIG --sharedir)/extension
missing=0
for f in "$pkglib/radik.so" "$extdir/radik.control" $(cd "$RADIK_ROOT/sql" && ls radik--*.sql | sed "s|^|$extdir/|"); do
	if awk '{print $NF}' "$OUT/contents.txt" | grep -qxF ".$f"; then echo "  $f"; else echo "  MISSING: $f"; missing=1; fi
done
[ $missing = 0 ]

say "apt-get install $deb"
apt-get install -y -qq "$deb" >"$OUT/install.log" 2>&1 || { cat "$OUT/install.log"; exit 1; }
# The server package starts a 'main' cluster where it can; the checks use a throwaway one.
if pg_lsclusters -h 2>/dev/null | grep -q "^$PG_VERSION main .* online"; then
	pg_ctlcluster "$PG_VERSION" main stop || true
fi
dpkg-query -W -f='${Package} ${Version} ${Status}\n' "postgresql-$PG_VERSION-radik"
[ "$(dpkg -S "$pkglib/radik.so" | cut -d: -f1)" = "postgresql-$PG_VERSION-radik" ]
dpkg --verify "postgresql-$PG_VERSION-radik"
echo "installed files are the package's (dpkg --verify)"

radik_start_cluster

say "CREATE EXTENSION radik, the update from 0.1.0, and top-k queries against PostgreSQL's answers"
psql -X -q -v ON_ERROR_STOP=1 <<'SQL'
CREATE EXTENSION radik;
SELECT format('radik %s installed (default version %s)', e.extversion, a.default_version) AS extension
FROM pg_extension e JOIN pg_available_extensions a ON a.name = e.extname WHERE e.extname = 'radik';
DO $$
BEGIN
	IF (SELECT extversion FROM pg_extension WHERE extname = 'radik')
	   IS DISTINCT FROM (SELECT default_version FROM pg_available_extensions WHERE name = 'radik') THEN
		RAISE EXCEPTION 'CREATE EXTENSION radik did not install the default version';
	END IF;
END $$;

CREATE TABLE pkg_t AS
	SELECT i AS id, (i::int8 * 7919 % 100003)::float8 AS v, i % 1000 AS g,
		date '2026-01-01' - i % 5000 AS d, (i::int8 * 31 % 9973)::numeric / 7 AS n
	FROM generate_series(1, 300000) i;
ANALYZE pkg_t;

-- radik's answer (radik.force on: its node must be in the plan) and PostgreSQL's (radik.enabled
-- off), as text; in the output's order, or sorted when ties leave the order open.
CREATE FUNCTION pkg_same(q text, ordered boolean) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	agg text := CASE WHEN ordered THEN 'string_agg(s::text, '' '')'
		ELSE 'string_agg(s::text, '' '' ORDER BY s::text)' END;
	got text;
	want text;
	line text;
	used boolean := false;
BEGIN
	PERFORM set_config('radik.force', 'on', true);
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		used := used OR line LIKE '%Custom Scan (RadiK Top-K)%';
	END LOOP;
	IF NOT used THEN
		RETURN 'radik not used';
	END IF;
	EXECUTE format('SELECT %s FROM (%s) s', agg, q) INTO got;
	PERFORM set_config('radik.enabled', 'off', true);
	EXECUTE format('SELECT %s FROM (%s) s', agg, q) INTO want;
	PERFORM set_config('radik.enabled', 'on', true);
	PERFORM set_config('radik.force', 'off', true);
	RETURN CASE WHEN got IS NULL THEN 'no rows'
		WHEN got = want THEN 'ok' ELSE 'differs' END;
END $$;

CREATE TEMP TABLE pkg_result (query text, result text);
INSERT INTO pkg_result SELECT q, pkg_same(q, ordered) FROM (VALUES
	('SELECT id, v FROM pkg_t ORDER BY v DESC, id LIMIT 10', true),
	('SELECT * FROM pkg_t WHERE g < 500 ORDER BY v, id LIMIT 1000', true),
	('SELECT id, d FROM pkg_t ORDER BY d DESC, id LIMIT 50 OFFSET 25', true),
	('SELECT id, n FROM pkg_t ORDER BY n, id LIMIT 100', true),
	('SELECT id, g FROM pkg_t ORDER BY g DESC FETCH FIRST 3 ROWS WITH TIES', false)) x(q, ordered);

-- the same with parallel workers reading the table
SET max_parallel_workers_per_gather = 2;
SET min_parallel_table_scan_size = 0;
SET parallel_setup_cost = 0;
INSERT INTO pkg_result
	SELECT 'parallel: ' || q, pkg_same(q, true) FROM (VALUES
		('SELECT id, v FROM pkg_t ORDER BY v DESC, id LIMIT 10')) x(q);
CREATE FUNCTION pkg_workers_launched(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	PERFORM set_config('radik.force', 'on', true);
	FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
		IF line ~ 'Workers Launched: [1-9]' THEN
			RETURN 'ok';
		END IF;
	END LOOP;
	RETURN 'no workers launched';
END $$;
INSERT INTO pkg_result
	SELECT 'parallel workers launched', pkg_workers_launched(
		'SELECT id, v FROM pkg_t ORDER BY v DESC, id LIMIT 10');
RESET max_parallel_workers_per_gather;
RESET min_parallel_table_scan_size;
RESET parallel_setup_cost;

-- radik_topk(): the TID form and the row form against ORDER BY ... LIMIT
SET radik.enabled = off;
CREATE TEMP TABLE pkg_want AS SELECT id FROM pkg_t ORDER BY id DESC LIMIT 20;
RESET radik.enabled;
INSERT INTO pkg_result
SELECT 'radik_topk(''pkg_t'', ''id'', 20)',
	CASE WHEN (SELECT array_agg(t.id ORDER BY r.rank) FROM radik_topk('pkg_t', 'id', 20) r
			JOIN pkg_t t ON t.ctid = r.row_id)
		= (SELECT array_agg(id ORDER BY id DESC) FROM pkg_want) THEN 'ok' ELSE 'differs' END
UNION ALL
SELECT 'radik_topk(NULL::pkg_t, ''id'', 20)',
	CASE WHEN (SELECT array_agg(id) FROM radik_topk(NULL::pkg_t, 'id', 20))
		= (SELECT array_agg(id ORDER BY id DESC) FROM pkg_want) THEN 'ok' ELSE 'differs' END;

-- the update path: 0.1.0 as released, then ALTER EXTENSION radik UPDATE, then a query
DROP EXTENSION radik;
CREATE EXTENSION radik VERSION '0.1.0';
INSERT INTO pkg_result SELECT 'CREATE EXTENSION radik VERSION ''0.1.0''',
	CASE WHEN extversion = '0.1.0' THEN 'ok' ELSE 'installed ' || extversion END
FROM pg_extension WHERE extname = 'radik';
ALTER EXTENSION radik UPDATE;
INSERT INTO pkg_result SELECT 'ALTER EXTENSION radik UPDATE',
	CASE WHEN e.extversion = a.default_version THEN 'ok' ELSE 'reached ' || e.extversion END
FROM pg_extension e JOIN pg_available_extensions a ON a.name = e.extname WHERE e.extname = 'radik';
INSERT INTO pkg_result SELECT 'updated: ' || q, pkg_same(q, true) FROM (VALUES
	('SELECT id, v FROM pkg_t ORDER BY v, id LIMIT 100')) x(q);

SELECT result, query FROM pkg_result ORDER BY query;
DO $$
BEGIN
	IF (SELECT count(*) FROM pkg_result) < 12 OR EXISTS (SELECT FROM pkg_result WHERE result <> 'ok') THEN
		RAISE EXCEPTION 'the installed package did not answer as PostgreSQL did';
	END IF;
END $$;
SQL

if [ "${RADIK_PACKAGE_SUITES:-1}" != 0 ]; then
	say "regression and isolation suites against the installed package (make installcheck)"
	cd "$OUT/src"
	if ! make -s installcheck TAP_TESTS= >"$OUT/installcheck.log" 2>&1; then
		cat "$OUT/installcheck.log"
		head -n 200 test/results/regression.diffs test/results/isolation/regression.diffs 2>/dev/null
		exit 1
	fi
	grep -E 'tests passed|failed' "$OUT/installcheck.log"

	say "TAP suite against the installed package (make prove_installcheck, as user postgres)"
	chown -R postgres "$OUT/src"
	runuser -u postgres -- env PATH="$PG_BIN:$PATH" PGHOST= PGPORT= PGUSER= PGDATABASE= \
		make -s -C "$OUT/src" prove_installcheck >"$OUT/tap.log" 2>&1 || { cat "$OUT/tap.log"; exit 1; }
	grep -q '^Result: PASS' "$OUT/tap.log" || { cat "$OUT/tap.log"; exit 1; }
	grep -E '^(Files=|Result:)' "$OUT/tap.log"
fi

say "package built, installed and checked in $(( $(date +%s) - started )) s: $deb"
echo "package: ok"
