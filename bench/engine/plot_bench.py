#!/usr/bin/env python3
"""
plot_bench.py
    Draws the engine benchmark (run_bench.sh's radik.tsv and torch.tsv) as a PNG: time against n
    at k = 1024, and time against k at n = 2^30, for radik and torch.topk, one panel per input.

    python3 plot_bench.py RESULT_DIR OUTPUT.png
"""
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read(path):
    rows = {}
    for line in open(path):
        if line.startswith("#") or not line.strip():
            continue
        fields = line.rstrip("\n").split("\t")
        rows[fields[0]] = fields
    return rows


def main():
    result_dir, output = sys.argv[1], sys.argv[2]
    radik = read(result_dir + "/radik.tsv")
    torch = {key: float(fields[1]) for key, fields in read(result_dir + "/torch.tsv").items()}
    inputs = ["f32-uniform", "f32-128.6-128.7", "i64-uniform"]
    figure, axes = plt.subplots(2, 3, figsize=(15, 8.5))
    for column, name in enumerate(inputs):
        single = [r for r in radik.values() if r[1] == name and r[4] == "1"]
        by_n = sorted((int(r[2][2:]), float(r[5]), torch.get(r[0])) for r in single if r[3] == "1024")
        by_k = sorted((int(r[3]), float(r[5]), torch.get(r[0])) for r in single if r[2] == "2^30")
        for row, (points, label) in enumerate(((by_n, "n (k = 1024)"), (by_k, "k (n = 2^30)"))):
            ax = axes[row][column]
            xs = [2 ** p[0] if row == 0 else p[0] for p in points]
            ax.loglog(xs, [p[1] for p in points], "o-", label="radik")
            ax.loglog(xs, [p[2] for p in points], "s--", label="torch.topk")
            ax.set_xscale("log", base=2)
            ax.set_title(name)
            ax.set_xlabel(label)
            ax.set_ylabel("ms (median of 10)")
            ax.grid(True, which="both", alpha=0.3)
            ax.legend()
    figure.suptitle("radik engine vs torch.topk, k smallest sorted, data on device, one H200")
    figure.tight_layout()
    figure.savefig(output, dpi=80)


if __name__ == "__main__":
    main()
