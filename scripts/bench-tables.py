#!/usr/bin/env python3
"""The README's table of issue 14's and 18's goals, from one device run's CSVs.

    scripts/goals-table.py h200   # reads docs/bench/{sdf,collide,collide-again,simulate}-h200.csv

Prints the markdown table; tests/it/readme_bench.rs checks the README's copy
against the same CSVs.
"""
import csv
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "docs" / "bench"


def rows(name, device):
    with open(BENCH / f"{name}-{device}.csv") as f:
        return list(csv.DictReader(f))


def yes(ok):
    return "yes" if ok else "**no**"


def main(device):
    out = ["| goal | case | measured | target | met |", "|---|---|---:|---:|---|"]
    sdf = rows("sdf", device)
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
            f"| winding / pseudo-normal GPU time (14) | {r['model']} {r['resolution']}³ "
            f"| {ratio:.2f}× | 1.30× | {yes(ratio <= 1.3)} |"
        )
    for r in sdf:
        for call, wall, met in [("cold", "wall_ms", "wall_target_met"),
                                ("warm", "warm_wall_ms", "warm_target_met")]:
            out.append(
                f"| `bench sdf` wall ≤ gpu + 2 × copy + 5 ms (18) | {r['model']} {r['resolution']}³ "
                f"{r['sign']}, {call} | {float(r[wall]):.2f} ms | {float(r['wall_target_ms']):.2f} ms "
                f"| {yes(r[met] == 'true')} |"
            )
    for name in ["collide", "collide-again"]:
        for r in rows(name, device):
            if r["pairs"] == "1000" and r["mode"] == "gpu batched":
                ratio = float(r["wall_over_gpu"])
                out.append(
                    f"| `bench collide` wall / kernels (18) | 1000 pairs, {name} "
                    f"| {ratio:.2f}× | 3.00× | {yes(ratio <= 3.0)} |"
                )
    for r in rows("simulate", device):
        if r["backend"] == "gpu":
            wall, target = float(r["wall_ms"]), float(r["target_ms"])
            out.append(
                f"| `bench simulate` wall per frame (18) | {r['bodies']} bodies "
                f"| {wall:.2f} ms | {target:.2f} ms | {yes(wall <= target)} |"
            )
    print("\n".join(out))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "h200")
