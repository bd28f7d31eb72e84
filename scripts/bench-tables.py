#!/usr/bin/env python3
"""The benchmark tables of the book and the README's summary, from docs/bench/.

    scripts/bench-tables.py          # rewrites the generated parts
    scripts/bench-tables.py --check  # exits 1 naming each file that is out of date

Writes, between `<!-- bench-... -->` markers:
  README.md                          the summary (headline times against NVIDIA
                                     Warp and the papers, with device and date)
  docs/src/benchmarks/index.md       the same summary
  docs/src/benchmarks/h200.md        the H200 run's measured bounds
and the whole of docs/src/benchmarks/results.md: every run's table with its
device, driver, date, command and CSV. tests/it/bench_docs.rs runs --check.
"""
import csv
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "docs" / "bench"
H100 = ("NVIDIA H100 80GB HBM3 (16-core host)", "Vulkan, driver 580.159.04, wgpu 30")
H200 = ("NVIDIA H200 (16-core Intel Xeon host, a virtual machine)", "Vulkan, driver 580.159.04, wgpu 30")

# Every run the book shows: CSV stem → (title, device, date, command, columns).
RUNS = [
    ("sdf-h100", "Uniform fields: every model and backend", H100, "2026-11-22",
     "collidoscope bench sdf --suite all --res 128,256 --out bench/",
     ["model", "triangles", "resolution", "backend", "gpu_ms", "wall_ms",
      "million_cells_per_s", "evaluations_per_cell", "max_abs_diff_vs_cpu"]),
    ("sdf-winding-h100", "Uniform fields: the winding sign", H100, "2026-11-24",
     "collidoscope bench sdf --suite scaling --models stanford-bunny,bunny-sub2 "
     "--backends gpu --res 128,256 --signs pseudo-normal,winding --out bench/",
     ["model", "resolution", "sign", "gpu_ms", "wall_ms", "warm_wall_ms", "refined_cells",
      "exact_cells"]),
    ("sdf-winding-check-h100", "Uniform fields: GPU winding sign against the CPU's", H100,
     "2026-11-24",
     "collidoscope bench sdf --suite scaling --models stanford-bunny --backends cpu,gpu "
     "--signs winding --res 128 --out bench/",
     ["model", "resolution", "backend", "sign", "gpu_ms", "wall_ms", "sign_mismatches_vs_cpu"]),
    ("sdf-wall-box-h100", "Uniform fields: the smallest model's wall time", H100, "2026-11-24",
     "collidoscope bench sdf --models box-12 --backends gpu --res 128,256 "
     "--signs pseudo-normal --out bench/",
     ["model", "resolution", "sign", "gpu_ms", "wall_ms", "warm_wall_ms"]),
    ("adaptive-h100", "Adaptive fields and their ablations", H100, "2026-11-24",
     "collidoscope bench adaptive --suite all --out bench/",
     ["model", "triangles", "backend", "config", "points", "gpu_ms", "wall_ms",
      "evals_per_point"]),
    ("adaptive-winding-h100", "Adaptive fields: the winding sign", H100, "2026-11-24",
     "collidoscope bench adaptive --suite all --models stanford-bunny,ogre,bunny-sub "
     "--repeats 3 --no-ablations --winding --out bench/",
     ["model", "backend", "config", "points", "gpu_ms", "wall_ms", "winding_ms", "refined",
      "cpu_nodes"]),
    ("tritri-h100", "Triangle–triangle", H100, "2026-11-22",
     "collidoscope bench tritri --out bench/",
     ["scenario", "triangles", "backend", "mode", "gpu_ms", "wall_ms", "queries_per_s",
      "pairs"]),
    ("collide-h100", "Colliders: contacts of 1 to 1000 pairs", H100, "2026-11-24",
     "collidoscope bench collide --repeats 10 --out bench/",
     ["pairs", "points_tested", "mode", "gpu_ms", "wall_ms", "contacts", "mismatches_vs_cpu",
      "wall_over_gpu"]),
    ("interfere-h100", "Interference by stencil ray counting", H100, "2026-11-22",
     "collidoscope bench interfere --studies objects,polygons,readback,early,target "
     "--repeats 20 --out bench/",
     ["study", "scene", "objects", "triangles", "mode", "culling", "gpu_ms", "wall_ms",
      "interfering"]),
    ("interfere-compute-h100", "Interference: the compute backend beside the stencil path",
     H100, "2026-11-24",
     "collidoscope bench interfere --studies target --out bench/",
     ["backend", "study", "scene", "mode", "culling", "gpu_ms", "wall_ms", "interfering"]),
    ("simulate-h100", "The many-body pipeline", H100, "2026-11-24",
     "collidoscope bench simulate --repeats 60 --cpu --broad sweep --out bench/",
     ["bodies", "backend", "broad", "wall_ms", "pipelined_ms", "gpu_ms", "response_ms",
      "pairs", "contacts"]),
    ("simulate-image-h100", "The many-body pipeline: the image-space broad phase", H100,
     "2026-11-24",
     "collidoscope bench simulate --repeats 30 --bodies 100 --broad sweep,image --out bench/",
     ["bodies", "backend", "broad", "wall_ms", "gpu_ms", "pairs", "contacts"]),
    ("particles-h100", "Closed-form particles", H100, "2026-11-24",
     "collidoscope bench particles --repeats 60 --out bench/",
     ["study", "particles", "colliders", "map_res", "impacts", "compute_ms", "frame_ms",
      "particles_per_s", "stalls"]),
    ("radial-h100", "Radial fields on an animated character", H100, "2026-11-24",
     "collidoscope bench radial --repeats 20 --out bench/",
     ["triangles", "fields", "particles", "resolution", "rasteriser", "frame_gpu_ms",
      "update_cd_gpu_ms", "frame_wall_ms", "contacts"]),
    ("radial-alternatives-h100", "Radial fields against the alternatives of the paper's table 1",
     H100, "2026-11-24",
     "collidoscope bench radial --repeats 20 --out bench/",
     ["technique", "structure", "particles", "update_gpu_ms", "query_gpu_ms",
      "total_gpu_ms", "memory_mb", "contacts"]),
    ("sdf-h200", "Uniform fields on the H200", H200, "2026-12-02",
     "collidoscope bench sdf --suite scaling --models stanford-bunny,bunny-sub2 "
     "--backends gpu --res 128,256 --signs pseudo-normal,winding --out bench/",
     ["model", "resolution", "sign", "gpu_ms", "wall_ms", "warm_wall_ms", "wall_target_ms"]),
    ("collide-h200", "Colliders on the H200", H200, "2026-12-02",
     "collidoscope bench collide --repeats 10 --out bench/",
     ["pairs", "mode", "gpu_ms", "wall_ms", "contacts", "wall_over_gpu", "chunks"]),
    ("collide-again-h200", "Colliders on the H200, second run", H200, "2026-12-02",
     "collidoscope bench collide --repeats 10 --out bench/",
     ["pairs", "mode", "gpu_ms", "wall_ms", "contacts", "wall_over_gpu", "chunks"]),
    ("simulate-h200", "The many-body pipeline on the H200", H200, "2026-12-02",
     "collidoscope bench simulate --repeats 60 --broad sweep --out bench/",
     ["bodies", "backend", "broad", "wall_ms", "pipelined_ms", "gpu_ms", "target_ms",
      "contacts"]),
    ("restructure-check-h100", "One build against the next, alternated (ABBA)", H100,
     "2026-11-23", "scripts/compare-abba.py (bench sdf, bench adaptive --suite all, "
     "bench interfere --studies target, each build twice)",
     ["bench", "model_or_scene", "resolution", "backend_or_config", "old_gpu_ms",
      "new_gpu_ms", "change_percent"]),
]


def rows(stem):
    with open(BENCH / f"{stem}.csv", newline="") as f:
        return list(csv.DictReader(f))


def cell(value):
    return value.replace("|", "\\|") if value != "" else "–"


def table(header, body):
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(cell(str(v)) for v in r) + " |" for r in body]
    return out


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
    for stem, title, (device, driver), date, command, columns in RUNS:
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
    shown = {stem for stem, *_ in RUNS}
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
        f"GPU time on an {H100[0].replace(' (16-core host)', '')} ({H100[1]};",
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
