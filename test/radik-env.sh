# radik-env.sh: shared steps of test/demo.sh and test/run-tests.sh, sourced by both.
#
#   radik_setup            install PostgreSQL 15 and its build packages if missing, build and
#                          install radik (with the CUDA engine when nvcc is found)
#   radik_start_cluster    initdb + start a throwaway cluster in a temporary directory owned by
#                          an ordinary user; exports PGHOST/PGPORT/PGUSER/PGDATABASE; stopped
#                          and removed again on exit (trap)
#
# Written for a fresh Debian 12 machine, run as root; every step says what it does and is
# skipped when already done, so running it again is harmless.

set -euo pipefail

RADIK_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PG_VERSION=15
PG_BIN=/usr/lib/postgresql/$PG_VERSION/bin
export PG_CONFIG=$PG_BIN/pg_config

say() { printf '\n==> %s\n' "$*"; }

radik_need_root() {
	if [ "$(id -u)" != 0 ]; then
		echo "run this as root (it installs packages and starts a server as an ordinary user)" >&2
		exit 1
	fi
}

radik_install_packages() {
	local wanted="postgresql-$PG_VERSION postgresql-server-dev-$PG_VERSION postgresql-client-$PG_VERSION libicu-dev libipc-run-perl make gcc python3"
	local missing=""
	for p in $wanted; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
	done
	if [ -z "$missing" ]; then
		say "PostgreSQL $PG_VERSION and build packages already installed"
		return
	fi
	say "installing:$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq $missing >/dev/null
	# The Debian package starts a 'main' cluster; radik uses throwaway clusters of its own.
	if command -v pg_lsclusters >/dev/null && pg_lsclusters -h 2>/dev/null | grep -q "^$PG_VERSION main .* online"; then
		say "stopping the package's own cluster $PG_VERSION/main (radik uses a throwaway one)"
		pg_ctlcluster "$PG_VERSION" main stop || true
	fi
}

radik_build() {
	say "building and installing radik ($(command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ] && echo 'CUDA engine and CPU twin' || echo 'no nvcc found: CPU twin only'))"
	make -C "$RADIK_ROOT" -s -j"$(nproc)" WERROR=1 ${RADIK_MAKE_FLAGS:-}
	make -C "$RADIK_ROOT" -s install ${RADIK_MAKE_FLAGS:-} >/dev/null
	echo "installed into $($PG_CONFIG --pkglibdir) and $($PG_CONFIG --sharedir)/extension"
}

radik_setup() {
	radik_need_root
	radik_install_packages
	radik_build
}

RADIK_CLUSTER_DIR=""

radik_stop_cluster() {
	if [ -n "$RADIK_CLUSTER_DIR" ] && [ -d "$RADIK_CLUSTER_DIR" ]; then
		say "stopping and removing the throwaway cluster"
		runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$RADIK_CLUSTER_DIR/data" -m fast -w stop >/dev/null 2>&1 || true
		rm -rf "$RADIK_CLUSTER_DIR"
		RADIK_CLUSTER_DIR=""
	fi
}

# radik_start_cluster [postgres -c options...]
radik_start_cluster() {
	RADIK_CLUSTER_DIR=$(mktemp -d /tmp/radik-cluster.XXXXXX)
	trap radik_stop_cluster EXIT
	chown postgres "$RADIK_CLUSTER_DIR"
	local port=$((55000 + RANDOM % 5000))
	say "starting a throwaway cluster in $RADIK_CLUSTER_DIR (user postgres, port $port)"
	runuser -u postgres -- "$PG_BIN/initdb" -D "$RADIK_CLUSTER_DIR/data" -A trust -U postgres >"$RADIK_CLUSTER_DIR/initdb.log" 2>&1 ||
		{ cat "$RADIK_CLUSTER_DIR/initdb.log"; exit 1; }
	local opts="-k $RADIK_CLUSTER_DIR -p $port -c listen_addresses= $*"
	runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$RADIK_CLUSTER_DIR/data" -l "$RADIK_CLUSTER_DIR/postgres.log" \
		-o "$opts" -w start >/dev/null || { tail -20 "$RADIK_CLUSTER_DIR/postgres.log"; exit 1; }
	export PGHOST=$RADIK_CLUSTER_DIR PGPORT=$port PGUSER=postgres PGDATABASE=postgres
	export PATH=$PG_BIN:$PATH
}
