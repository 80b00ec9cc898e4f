#!/bin/bash
# house.sh: the source tree's shape, checked: no include cycle among the files of src/ and cuda/
# (test/include-cycles.py), and no source file there over 1000 lines.  Exits non-zero otherwise.
set -uo pipefail
cd "$(dirname "$0")/.."
status=0
python3 test/include-cycles.py || status=1
long=$(wc -l src/*.[ch] cuda/*.[ch] cuda/*.cu cuda/*.cuh | awk '$2 != "total" && $1 > 1000')
if [ -n "$long" ]; then
	echo "source files over 1000 lines:"
	echo "$long"
	status=1
else
	echo "no source file over 1000 lines"
fi
exit $status
