#!/usr/bin/env python3
"""Compares two builds' GPU times from an ABBA run on the device.

Usage: compare-abba.py DIR OUT.csv, where DIR holds 1-old, 2-new, 3-new and
4-old, each with the sdf128, sdf256, adaptive and interfere outputs of
`collidoscope bench` (the old and new binaries run in the same call, in
the order old, new, new, old, so that a drift of the clock cancels). Writes
one row per benchmark row: the mean GPU time of each build, the change in
per cent, and the spread of the two old runs (the noise floor).
"""
import csv
import statistics
import sys


def key(sub, r):
    if sub.startswith("sdf"):
        return (r["model"], r["resolution"], r["backend"])
    if sub == "adaptive":
        return (r["model"], "", r["config"])
    return (r["scene"], "", r["mode"] + (" (no cull)" if r["culling"] == "false" else ""))


def load(root, run, sub, name):
    with open(f"{root}/{run}/{sub}/{name}.csv") as f:
        return {key(sub, r): float(r["gpu_ms"]) for r in csv.DictReader(f) if r["gpu_ms"]}


def main(root, out):
    rows = []
    for sub, name in [("sdf128", "sdf"), ("sdf256", "sdf"), ("adaptive", "adaptive"), ("interfere", "interfere")]:
        o1, n2, n3, o4 = (load(root, r, sub, name) for r in ["1-old", "2-new", "3-new", "4-old"])
        for k in o1:
            old = statistics.mean([o1[k], o4[k]])
            new = statistics.mean([n2[k], n3[k]])
            rows.append([name, *k, f"{old:.4f}", f"{new:.4f}", f"{(new / old - 1) * 100:+.2f}",
                         f"{abs(o1[k] - o4[k]) / old * 100:.2f}"])
    with open(out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["bench", "model_or_scene", "resolution", "backend_or_config", "old_gpu_ms", "new_gpu_ms",
                    "change_percent", "old_old_spread_percent"])
        w.writerows(rows)
    worst = max(rows, key=lambda r: abs(float(r[6])))
    print(f"{len(rows)} rows; largest change {worst[6]}% ({' '.join(worst[:4])}, old-old spread {worst[7]}%)")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
