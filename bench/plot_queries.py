#!/usr/bin/env python3
"""
plot_queries.py
    Draws the tables that bench/queries.sh prints as a PNG: for each row (a query shape, its
    workers and regime), PostgreSQL's time beside radik's on a log scale, with the speed-up over
    each pair.  Several logs may be given; their rows are drawn in order.

    python3 bench/plot_queries.py OUTPUT.png LOG [LOG ...] [--label 'SHAPE=TEXT' ...]

    A row's label is its query, shortened: --label replaces a query containing SHAPE with TEXT;
    with its workers, and its regime where the logs hold several.
"""
import sys
import textwrap

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read_rows(path):
    """The result rows of one queries.sh log: (regime, query, workers, postgres ms, radik ms)."""
    rows = []
    for line in open(path):
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) != 7 or cells[0] in ("regime", "---"):
            continue
        try:
            rows.append((cells[0], cells[1].strip("`"), cells[2], float(cells[3]), float(cells[4])))
        except ValueError:
            continue
    return rows


def label_of(query, workers, regime, labels):
    for shape, text in labels:
        if shape in query:
            query = text
            break
    else:
        query = query if len(query) <= 40 else query[:37] + "..."
    return f"{query}\n{workers} workers" + (f", {regime}" if regime else "")


def main():
    args = sys.argv[1:]
    labels = []
    while "--label" in args:
        at = args.index("--label")
        shape, _, text = args[at + 1].partition("=")
        labels.append((shape, text))
        del args[at:at + 2]
    if len(args) < 2:
        sys.exit(__doc__)
    output, logs = args[0], args[1:]
    rows = [row for log in logs for row in read_rows(log)]
    if not rows:
        sys.exit("no result rows in " + ", ".join(logs))

    fig, ax = plt.subplots(figsize=(max(6, 2.4 * len(rows)), 4.5))
    positions = range(len(rows))
    width = 0.38
    postgres = [row[3] / 1000 for row in rows]
    radik = [row[4] / 1000 for row in rows]
    ax.bar([p - width / 2 for p in positions], postgres, width, label="PostgreSQL", color="#4c72b0")
    ax.bar([p + width / 2 for p in positions], radik, width, label="radik", color="#dd8452")
    for p, pg, rk in zip(positions, postgres, radik):
        ax.annotate(f"{pg / rk:.1f}x", (p, max(pg, rk)), textcoords="offset points",
                    xytext=(0, 4), ha="center", fontsize=9)
    ax.set_yscale("log")
    ax.set_ylabel("seconds (log scale)")
    ax.set_xticks(list(positions))
    # the regime is named where the logs hold more than one
    several_regimes = len({row[0] for row in rows}) > 1
    ax.set_xticklabels([label_of(row[1], row[2], row[0] if several_regimes else "", labels)
                        for row in rows], fontsize=8)
    ax.legend()
    ax.grid(axis="y", which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(output, dpi=110)


if __name__ == "__main__":
    main()
