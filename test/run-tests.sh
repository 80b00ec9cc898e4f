#!/bin/bash
# run-tests.sh: set up and run every radik test suite on a fresh Debian 12 machine (as root).
#
# Installs PostgreSQL 15 and the build packages if missing, builds radik with warnings as errors,
# runs the engine's unit tests (CPU twin; GPU too when one is present), then starts a throwaway
# cluster and runs the regression suite and the isolation suite (make installcheck), then the
# TAP tests (make prove_installcheck) as an ordinary user, then the regression and isolation
# suites again on PostgreSQL 16, 17 and 18 (test/pg-versions.sh), then builds the Debian package,
# installs it over the PostgreSQL 15 install and checks it (test/package.sh; RADIK_PACKAGE=0
# leaves this out).  Prints each suite's summary and a last line "N passed, N failed" counting
# suites; exits non-zero if any failed.  Extra postgres options for the throwaway cluster can be
# given in RADIK_SERVER_OPTIONS; PGOPTIONS reaches every test session (for instance
# PGOPTIONS="-c radik.device=gpu -c radik.force=on" on a GPU host).
source "$(dirname "$0")/radik-env.sh"

radik_setup
cd "$RADIK_ROOT"

passed=0 failed=0 failed_names=""
record() {	# record NAME STATUS
	if [ "$2" = 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); failed_names="$failed_names $1"; fi
}

say "suite: the house (test/house.sh: no include cycle, no source file over 1000 lines)"
set +e
bash test/house.sh
record house $?
set -e

say "suite: engine unit tests (test/engine/engine_test)"
set +e
make -s engine-test ${RADIK_MAKE_FLAGS:-} 2>&1 | tee /tmp/radik-engine-test.log | tail -n 25
record engine "${PIPESTATUS[0]}"
set -e

radik_start_cluster ${RADIK_SERVER_OPTIONS:-}

say "suites: regression and isolation tests (make installcheck)"
set +e
# TAP_TESTS= leaves the TAP tests to their own suite, which runs them as an ordinary user
make -s installcheck TAP_TESTS= ${RADIK_MAKE_FLAGS:-} > /tmp/radik-installcheck.log 2>&1
status=$?
set -e
cat /tmp/radik-installcheck.log
if [ $status != 0 ]; then
	for d in test/results/regression.diffs test/results/isolation/regression.diffs; do
		[ -f "$d" ] && { echo "---- $d (first 200 lines)"; head -n 200 "$d"; }
	done
fi
record installcheck $status

say "suite: the README's Getting started, run as written (test/readme-check.sh)"
set +e
bash test/readme-check.sh
record readme $?
set -e

if compgen -G "test/t/*.pl" >/dev/null; then
	say "suite: TAP tests (make prove_installcheck, as user postgres in a copy of the tree)"
	tapdir=$(mktemp -d /tmp/radik-tap.XXXXXX)
	tar --exclude=./.git -cf - . | tar -xf - -C "$tapdir"
	chown -R postgres "$tapdir"
	set +e
	runuser -u postgres -- env PATH="$PG_BIN:$PATH" PGHOST= PGPORT= PGUSER= PGDATABASE= \
		make -s -C "$tapdir" prove_installcheck ${RADIK_MAKE_FLAGS:-} 2>&1 | tee /tmp/radik-tap.log
	# a PostgreSQL without TAP support prints a notice and succeeds: only prove's PASS counts
	[ "${PIPESTATUS[0]}" = 0 ] && grep -q '^Result: PASS' /tmp/radik-tap.log
	record tap $?
	set -e
	rm -rf "$tapdir"
fi

# The regression and isolation suites on the other supported major versions (RADIK_PG_VERSIONS
# overrides the list; empty skips them).
for major in ${RADIK_PG_VERSIONS-16 17 18}; do
	say "suite: regression and isolation tests on PostgreSQL $major (test/pg-versions.sh)"
	set +e
	bash test/pg-versions.sh "$major"
	record "postgresql-$major" $?
	set -e
done

[ "${RADIK_PACKAGE:-1}" = 0 ] || { say "suite: Debian package (test/package.sh)"; set +e; bash test/package.sh; record package $?; set -e; }

say "summary"
[ -n "$failed_names" ] && echo "failed suites:$failed_names"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
