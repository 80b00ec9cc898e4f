#!/usr/bin/env python3
"""
plot_orderby.py
    Draws the whole-query benchmark (the markdown table orderby_bench.sh prints, as saved in
    bench.md) as a PNG: execution time against k, both on log scales, for PostgreSQL and radik
    with max_parallel_workers_per_gather = 0, 2 and 8, one panel per query shape.  The issue 7 targets (100 ms
    for k <= 1000, 120 ms for k = 100000, 200 ms for k = 1000000) are drawn as a dotted line, so
    the distance left to go is visible next to the distance to PostgreSQL.

    python3 plot_orderby.py BENCH.md OUTPUT.png [ROWS]

    Only the table rows and the "date: ..." and "rows: ..." lines are read; NOTICE lines and the
    like are skipped.  When BENCH.md holds several tables (one per table size), the one of ROWS
    rows is drawn, by default the last.
"""
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

TARGET_MS = {10: 100.0, 1000: 100.0, 100000: 120.0, 1000000: 200.0}
SERIES = (  # (column in the row, label, style)
    (2, "PostgreSQL, 0 workers", "C0s--"),
    (5, "PostgreSQL, max 2 workers", "C1^--"),
    (8, "PostgreSQL, max 8 workers", "C2v--"),
    (3, "radik, 0 workers", "C0o-"),
    (6, "radik, max 2 workers", "C1o-"),
    (9, "radik, max 8 workers", "C2o-"),
)


def read(path, wanted_rows):
    """The date line, the table's row count and, per query shape in table order, its rows as
    (k, [columns]), for the table of wanted_rows rows (None: the last table)."""
    tables = []
    header = ""
    for line in open(path):
        if line.startswith("date:"):
            header = " ".join(line.split())
        if line.startswith("rows:"):
            tables.append((header, line.split()[1], {}))
        if not line.startswith("| `") or not tables:
            continue
        shapes = tables[-1][2]
        fields = [f.strip() for f in line.strip().strip("|").split("|")]
        shapes.setdefault(fields[0].strip("`"), []).append((int(fields[1]), fields))
    for table in reversed(tables):
        if wanted_rows is None or table[1] == wanted_rows:
            return table
    return "", "?", {}


def main():
    bench, output = sys.argv[1], sys.argv[2]
    header, table_rows, shapes = read(bench, sys.argv[3] if len(sys.argv) > 3 else None)
    if not shapes:
        sys.exit("no table rows in " + bench)
    columns = 2 if len(shapes) > 1 else 1
    rows = (len(shapes) + columns - 1) // columns
    figure, axes = plt.subplots(rows, columns, figsize=(6.5 * columns, 4.4 * rows + 0.8),
                                 sharey=True, squeeze=False)
    for ax, (shape, points) in zip(axes.flat, shapes.items()):
        points.sort()
        ks = [k for k, _ in points]
        for column, label, style in SERIES:
            ax.plot(ks, [float(f[column]) for _, f in points], style, label=label)
        targets = [(k, TARGET_MS[k]) for k in ks if k in TARGET_MS]
        if targets:
            ax.plot([t[0] for t in targets], [t[1] for t in targets], ":", color="gray",
                    label="issue 7 target")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(shape + " LIMIT k", fontsize=10)
        ax.set_xlabel("k")
        ax.set_ylabel("execution time, ms")
        ax.grid(True, which="both", alpha=0.3)
    for ax in list(axes.flat)[len(shapes):]:
        ax.set_visible(False)
    figure.suptitle("ORDER BY ... LIMIT k on a table of %s rows, PostgreSQL vs radik\n%s"
                    % (table_rows, header), fontsize=11)
    handles, labels = axes.flat[0].get_legend_handles_labels()
    figure.legend(handles, labels, loc="lower center", ncol=4, fontsize=9)
    figure.tight_layout(rect=(0, 0.08, 1, 1))
    figure.savefig(output, dpi=80)


if __name__ == "__main__":
    main()
