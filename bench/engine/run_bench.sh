#!/bin/sh
# run_bench.sh: the engine benchmark (engine_bench) and torch.topk on the same inputs
# (torch_topk_bench.py), joined into one table with the ratio torch / radik.
#
#   bench/engine/run_bench.sh [RESULT_DIR] [engine_bench options...]
#
# Run from the project root after `make bench/engine/engine_bench`.  RESULT_DIR (default: a
# temporary directory) receives cases.txt, radik.tsv, torch.tsv and table.md.
set -e
dir=${1:-$(mktemp -d)}
[ $# -gt 0 ] && shift
mkdir -p "$dir"
here=$(dirname "$0")

echo "# $(date -u '+%Y-%m-%d %H:%M UTC'); $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null)"
"$here/engine_bench" --list "$@" > "$dir/cases.txt"
"$here/engine_bench" "$@" > "$dir/radik.tsv"
python3 "$here/torch_topk_bench.py" "$dir/cases.txt" > "$dir/torch.tsv"
grep '^#' "$dir/radik.tsv" "$dir/torch.tsv" | sed 's/^[^:]*://'

awk -F'\t' '
	BEGIN {
		print "| input | n | k | segments | radik ms | rounds ms | two-pass ms | warp-hist ms | torch.topk ms | torch / radik | check |"
		print "|---|---|---|---|---:|---:|---:|---:|---:|---:|---|"
	}
	FNR == NR { if ($0 !~ /^#/) torch[$1] = $2; next }
	/^#/ { next }
	{
		ratio = ($6 > 0 && ($1 in torch)) ? sprintf("%.1fx", torch[$1] / $6) : "-"
		printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $2, $3, $4, $5, $6, $7, $8, $9, torch[$1], ratio, $10
	}
' "$dir/torch.tsv" "$dir/radik.tsv" | tee "$dir/table.md"
