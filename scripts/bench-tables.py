#!/usr/bin/env python3
"""The benchmark tables of the book and the README's summary, from docs/bench/.

    scripts/bench-tables.py          # rewrites the generated parts
    scripts/bench-tables.py --check  # exits 1 naming each file that is out of date

Writes, between `<!-- bench-... -->` markers:
  README.md                          the summary (headline times against NVIDIA
                                     Warp and the papers, with device and date)
  docs/src/benchmarks/index.md       the same summary
  docs/src/benchmarks/h200.md        the H200 run's measured bounds
and the whole of docs/src/benchmarks/results.md: every run listed in
docs/bench/runs.csv (its CSV, device, driver, date, command and the columns
shown) as a table. tests/it/bench_docs.rs runs --check.
"""
import csv
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "docs" / "bench"
H100 = ("NVIDIA H100 80GB HBM3", "Vulkan, driver 580.159.04, wgpu 30")


def rows(stem):
    with open(BENCH / f"{stem}.csv", newline="") as f:
        return list(csv.DictReader(f))


def cell(value):
    return value.replace("|", "\\|") if value != "" else "–"


def table(header, body):
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(cell(str(v)) for v in r) + " |" for r in body]
    return out


def runs():
    """Every run the book shows, from docs/bench/runs.csv: its CSV's stem,
    title, device, driver, date, command and the columns shown."""
    return [(r["csv"], r["title"], (r["device"], r["driver"]), r["date"], r["command"],
             r["columns"].split()) for r in rows("runs")]


def results_page():
    out = [
        "# Every measurement",
        "",
        "<!-- written by scripts/bench-tables.py from docs/bench/; do not edit -->",
        "",
        "Each table is one `collidoscope bench` run, read from its CSV in",
        "`docs/bench/`, with the device, driver, date and command that wrote it.",
        "The CSVs hold more columns than are shown here; the JSON beside some of",
        "them holds every phase. Times are milliseconds: `gpu_ms` from timestamp",
        "queries, `wall_ms` end to end. The A/B runs behind design choices are",
        "listed at the end and explained in the",
        "[design measurements](../../bench/design-measurements.md).",
        "",
    ]
    for stem, title, (device, driver), date, command, columns in runs():
        data = rows(stem)
        missing = [c for c in columns if c not in data[0]]
        if missing:
            raise SystemExit(f"{stem}.csv has no column {missing}")
        out += [
            f"## {title}",
            "",
            f"- device: {device}; {driver}",
            f"- date: {date}",
            f"- command: `{command}`",
            f"- CSV: [`docs/bench/{stem}.csv`](../../bench/{stem}.csv)",
            "",
        ]
        out += table(columns, [[r[c] for c in columns] for r in data])
        out.append("")
    shown = {stem for stem, *_ in runs()}
    out += ["## A/B runs", "",
            "Builds alternated in one call on the H200 (Vulkan, driver 580.159.04);",
            "what each compares is in the design measurements.", ""]
    for path in sorted(BENCH.glob("*-ab-*.csv")) + sorted(BENCH.glob("collide-threads-*.csv")):
        if path.stem not in shown:
            out.append(f"- [`docs/bench/{path.name}`](../../bench/{path.name}) "
                       f"({len(rows(path.stem))} rows)")
    return "\n".join(out) + "\n"


def number(x):
    """Three significant figures at most, thousands separated."""
    return f"{x:,.0f}" if x >= 100 else f"{x:.3g}"


def summary():
    """The headline table: our GPU time against Warp and the papers."""
    refs = rows("reference-times")
    sdf = rows("sdf-h100")
    adaptive = rows("adaptive-h100")
    body = []
    for ref in refs:
        if ref["bench"] == "sdf":
            ours = next(r for r in sdf if r["triangles"] == ref["triangles"]
                        and r["resolution"] == ref["resolution"] and r["backend"] == "gpu")
            what = f"exact SDF, {ours['model'].split(' ')[0]}, {ref['resolution']}³"
        else:
            ours = next(r for r in adaptive if r["triangles"] == ref["triangles"]
                        and r["backend"] == "gpu" and r["config"] == "rss-multi")
            what = f"adaptive SDF, {ours['model'].split(' ')[0]}, depth 10"
        gpu, theirs = float(ours["gpu_ms"]), float(ref["ms"])
        body.append([what, f"{int(ours['triangles']):,}", f"{gpu:.2f} ms", ref["tool"],
                     f"{number(theirs)} ms", f"{number(theirs / gpu)}×"])
    out = [
        f"GPU time on an {H100[0]} ({H100[1]};",
        "2026-11-22 and 2026-11-24),",
        "kernels and the copy of the result to host-visible memory, against",
        "NVIDIA Warp on the same GPU and the papers' own figures on their",
        "hardware ([`docs/bench/reference-times.csv`](docs/bench/reference-times.csv)):",
        "",
    ]
    out += table(["case", "triangles", "collidoscope", "against", "their time", "their time / ours"],
                 body)
    return out


def bounds_table():
    """The H200 run's measured bounds: each measured value, its bound and
    whether it holds (checked against the CSVs by tests/it/readme_bench.rs)."""
    out = ["| bound | case | measured | limit | holds |", "|---|---|---:|---:|---|"]
    sdf = rows("sdf-h200")

    def holds(ok):
        return "yes" if ok else "**no**"

    for r in sdf:
        if r["sign"] != "winding":
            continue
        pseudo = next(
            p for p in sdf
            if p["model"] == r["model"] and p["resolution"] == r["resolution"]
            and p["sign"] == "pseudo-normal"
        )
        ratio = float(r["gpu_ms"]) / float(pseudo["gpu_ms"])
        out.append(
            f"| winding / pseudo-normal GPU time | {r['model']} {r['resolution']}³ "
            f"| {ratio:.2f}× | 1.30× | {holds(ratio <= 1.3)} |"
        )
    for r in sdf:
        for call, wall, met in [("cold", "wall_ms", "wall_target_met"),
                                ("warm", "warm_wall_ms", "warm_target_met")]:
            out.append(
                f"| `bench sdf` wall ≤ gpu + 2 × copy + 5 ms | {r['model']} {r['resolution']}³ "
                f"{r['sign']}, {call} | {float(r[wall]):.2f} ms | {float(r['wall_target_ms']):.2f} ms "
                f"| {holds(r[met] == 'true')} |"
            )
    for name in ["collide-h200", "collide-again-h200"]:
        for r in rows(name):
            if r["pairs"] == "1000" and r["mode"] == "gpu batched":
                ratio = float(r["wall_over_gpu"])
                out.append(
                    f"| `bench collide` wall / kernels | 1000 pairs, {name.removesuffix('-h200')} "
                    f"| {ratio:.2f}× | 3.00× | {holds(ratio <= 3.0)} |"
                )
    for r in rows("simulate-h200"):
        if r["backend"] == "gpu":
            wall, limit = float(r["wall_ms"]), float(r["target_ms"])
            out.append(
                f"| `bench simulate` wall per frame | {r['bodies']} bodies "
                f"| {wall:.2f} ms | {limit:.2f} ms | {holds(wall <= limit)} |"
            )
    return out


def splice(text, name, lines, path):
    """`text` with the lines between `<!-- bench-NAME: ... -->` and
    `<!-- bench-NAME: end -->` replaced by `lines`."""
    begin, end = f"<!-- bench-{name}:", f"<!-- bench-{name}: end -->"
    all_lines = text.split("\n")
    try:
        start = next(i for i, l in enumerate(all_lines) if l.startswith(begin) and l != end)
        stop = all_lines.index(end)
    except (StopIteration, ValueError):
        raise SystemExit(f"{path}: no {begin} … {end} markers")
    return "\n".join(all_lines[: start + 1] + lines + all_lines[stop:])


def wanted():
    """Each generated file's path and the content it should have."""
    files = {}
    readme = ROOT / "README.md"
    files[readme] = splice(readme.read_text(), "summary", summary(), readme)
    index = ROOT / "docs/src/benchmarks/index.md"
    # The book's pages sit two folders below the root.
    book_summary = [l.replace("](docs/", "](../../") for l in summary()]
    files[index] = splice(index.read_text(), "summary", book_summary, index)
    h200 = ROOT / "docs/src/benchmarks/h200.md"
    files[h200] = splice(h200.read_text(), "bounds", bounds_table(), h200)
    files[ROOT / "docs/src/benchmarks/results.md"] = results_page()
    return files


def main(argv):
    check = "--check" in argv
    stale = []
    for path, text in wanted().items():
        current = path.read_text() if path.exists() else None
        if current == text:
            continue
        if check:
            stale.append(str(path.relative_to(ROOT)))
        else:
            path.write_text(text)
            print(f"wrote {path.relative_to(ROOT)}")
    if stale:
        print("out of date (run scripts/bench-tables.py): " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
