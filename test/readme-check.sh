#!/bin/bash
# readme-check.sh: runs the SQL of README.md's "Getting started" section as written, against the
# server in the environment (PGHOST, PGPORT, PGUSER, as psql reads them), and fails if a statement
# fails or if no EXPLAIN in it shows radik's node, "Custom Scan (RadiK Top-K)".
#
# The SQL is every ```sql block between the heading "## Getting started" and the next "## "
# heading, run in order in one psql session with ON_ERROR_STOP, in a new database that is dropped
# again at exit (so the role needs CREATEDB, and CREATE EXTENSION radik needs a superuser).
# radik must be installed on that server.
#   usage: bash test/readme-check.sh [README.md]
# PGDATABASE (default postgres) is only the database connected to for CREATE and DROP DATABASE.
set -euo pipefail

readme=${1:-$(dirname "$0")/../README.md}
admin_db=${PGDATABASE:-postgres}
db=radik_readme_check_$$

sql=$(awk '
	/^## / { in_section = /^## Getting started/; in_block = 0; next }
	in_section && !in_block && /^```sql/ { in_block = 1; next }
	in_section && in_block && /^```/ { in_block = 0; next }
	in_section && in_block { print }
' "$readme")
if [ -z "$sql" ]; then
	echo "readme-check: no \`\`\`sql block under \"## Getting started\" in $readme" >&2
	exit 1
fi

psql -X -q -v ON_ERROR_STOP=1 -d "$admin_db" -c "CREATE DATABASE $db"
trap 'psql -X -q -d "$admin_db" -c "DROP DATABASE IF EXISTS $db" || true' EXIT

status=0
output=$(printf '%s\n' "$sql" | psql -X -v ON_ERROR_STOP=1 -d "$db" 2>&1) || status=$?
printf '%s\n' "$output"
if [ "$status" != 0 ]; then
	echo "readme-check: FAILED: a statement of Getting started failed (psql exit status $status)" >&2
	exit 1
fi
if ! grep -q 'Custom Scan (RadiK Top-K)' <<<"$output"; then
	echo "readme-check: FAILED: no EXPLAIN of Getting started shows Custom Scan (RadiK Top-K)" >&2
	exit 1
fi
echo "readme-check: ok"
