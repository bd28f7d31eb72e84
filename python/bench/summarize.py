"""The CSV of bench_signed_distance.py as a markdown table.

    python python/bench/summarize.py bench_signed_distance.csv [> table.md]

One row per measurement, in the file's order, with the per-call overhead
(``with_copies_ms - kernel_ms``) where the kernel time is known.
"""

import argparse
import csv
import sys
from pathlib import Path

HEADER = ["mesh", "triangles", "points", "tool", "with copies (ms)", "kernel (ms)",
          "overhead (ms)", "sign disagreements", "device", "driver", "date"]


def table(rows):
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    for r in rows:
        kernel = r["kernel_ms"]
        overhead = (f"{float(r['with_copies_ms']) - float(kernel):.3f}" if kernel else "")
        cells = [r["mesh"], r["triangles"], f"{int(r['points']):,}", r["tool"],
                 f"{float(r['with_copies_ms']):.3f}", f"{float(kernel):.3f}" if kernel else "",
                 overhead, r["sign_disagreements"], r["device"], r["driver"], r["date"]]
        lines.append("| " + " | ".join(str(c).replace("|", "/") for c in cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv", type=Path)
    args = parser.parse_args(argv)
    with open(args.csv, newline="") as f:
        sys.stdout.write(table(list(csv.DictReader(f))))


if __name__ == "__main__":
    main()
