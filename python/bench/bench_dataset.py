"""Meshes per hour of ``collidoscope.dataset``, end to end: OBJ files on
disk to ``.npz`` files on disk.

    python python/bench/bench_dataset.py [MESH.obj ...] [--bunny-levels 0,1,2]
        [--copies 20] [--near 250000] [--uniform 25000] [--backend gpu]
        [--out bench_dataset.csv]

Each mesh (default: every OBJ model in ``assets/``, then the Stanford bunny
subdivided ``--bunny-levels`` times, 1-to-4 midpoint subdivision) is copied
``--copies`` times into folders of a scratch directory, and one
``collidoscope.dataset`` run samples them all (``--near`` near-surface and
``--uniform`` uniform points each, the default DeepSDF settings) into a
fresh output folder: the copies keep the pipeline full, as a real dataset
does. From the run's results:

* ``meshes_per_hour``: copies / wall time × 3600;
* ``load_s``, ``prepare_s``, ``gpu_s``, ``write_s``: the per-mesh steps
  summed over the run (loading and preparing run on a worker thread that
  overlaps the distances, so they may add up to more than the wall time);
* ``gpu_busy``: the share of the wall time the device thread spent
  computing distances (``gpu_s / wall_s``): how seldom the device waits for
  the disk or the BVH builds.

One CSV row per mesh, appended to ``--out``.
"""

import argparse
import csv
import datetime
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np

import collidoscope as cs

ROOT = Path(__file__).resolve().parents[2]
ASSETS = ROOT / "assets"
COLUMNS = ["mesh", "triangles", "copies", "points", "backend", "wall_s", "meshes_per_hour",
           "load_s", "prepare_s", "gpu_s", "write_s", "gpu_busy", "failed", "device", "date"]


def subdivided(vertices, faces):
    """One step of 1-to-4 midpoint subdivision, midpoints shared per edge."""
    edges = np.sort(np.concatenate([faces[:, [0, 1]], faces[:, [1, 2]], faces[:, [2, 0]]]), axis=1)
    unique, inverse = np.unique(edges, axis=0, return_inverse=True)
    mids = len(vertices) + inverse.reshape(3, -1).T  # (F, 3): midpoints of ab, bc, ca
    v = np.vstack([vertices, vertices[unique].mean(axis=1)])
    a, b, c = faces.T
    ab, bc, ca = mids.T
    f = np.concatenate([np.stack(t, 1) for t in ((a, ab, ca), (ab, b, bc), (ca, bc, c), (ab, bc, ca))])
    return v, f


def write_obj(path, vertices, faces):
    with open(path, "w") as out:
        np.savetxt(out, np.asarray(vertices, dtype=np.float32), fmt="v %.9g %.9g %.9g")
        np.savetxt(out, np.asarray(faces) + 1, fmt="f %d %d %d")


def inputs(args, scratch):
    """(label, OBJ path) of every mesh measured."""
    meshes = [(Path(m).stem, Path(m)) for m in args.meshes] or [
        (p.stem, p) for p in sorted(ASSETS.glob("*.obj"))
    ]
    bunny = cs.load(ASSETS / "stanford-bunny.obj")
    v, f = bunny.vertices, bunny.faces
    levels = [int(x) for x in args.bunny_levels.split(",") if x.strip()]
    for level in range(max(levels, default=-1) + 1):
        if level in levels and level > 0:
            path = scratch / f"bunny-x{4 ** level}.obj"
            write_obj(path, v, f)
            meshes.append((path.stem, path))
        v, f = subdivided(v, f)
    return meshes


def measure(label, mesh_path, args, scratch):
    """One dataset run over `--copies` copies of `mesh_path`: a CSV row."""
    src = scratch / f"in-{label}"
    for i in range(args.copies):
        (src / str(i)).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(mesh_path, src / str(i) / "model.obj")
    out = scratch / f"out-{label}"
    start = time.perf_counter()
    rows = cs.dataset(src, out, near=args.near, uniform=args.uniform, backend=args.backend,
                      progress=False)
    wall = time.perf_counter() - start
    shutil.rmtree(src)
    shutil.rmtree(out)
    step = {k: sum(r["timings_ms"][k] for r in rows) / 1e3 for k in ("load", "prepare", "gpu", "write")}
    done = [r for r in rows if r["status"] == "written"]
    return {
        "mesh": label,
        "triangles": max((r["triangles"] for r in done), default=0),
        "copies": args.copies,
        "points": args.near + args.uniform,
        "backend": done[0]["backend"] if done else args.backend,
        "wall_s": f"{wall:.3f}",
        "meshes_per_hour": f"{len(done) / wall * 3600:.0f}",
        "load_s": f"{step['load']:.3f}",
        "prepare_s": f"{step['prepare']:.3f}",
        "gpu_s": f"{step['gpu']:.3f}",
        "write_s": f"{step['write']:.3f}",
        "gpu_busy": f"{step['gpu'] / wall:.3f}",
        "failed": len(rows) - len(done),
        "device": (cs.gpu_adapter() or "cpu") if args.backend != "cpu" else "cpu",
        "date": datetime.date.today().isoformat(),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("meshes", nargs="*", help="OBJ files (default: the OBJ models in assets/)")
    parser.add_argument("--bunny-levels", default="1,2",
                        help="subdivision levels of the Stanford bunny to add (comma-separated; '' for none)")
    parser.add_argument("--copies", type=int, default=20, help="copies of each mesh in one run")
    parser.add_argument("--near", type=int, default=250_000, help="near-surface points per mesh")
    parser.add_argument("--uniform", type=int, default=25_000, help="uniform points per mesh")
    parser.add_argument("--backend", default="gpu", choices=["gpu", "cpu"], help="where the distances run")
    parser.add_argument("--out", default="bench_dataset.csv", help="CSV to append the rows to")
    args = parser.parse_args()
    if args.copies < 1:
        parser.error("--copies must be at least 1")
    out = Path(args.out)
    new = not out.exists()
    with tempfile.TemporaryDirectory(prefix="bench-dataset-") as tmp, open(out, "a", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=COLUMNS)
        if new:
            writer.writeheader()
        for label, path in inputs(args, Path(tmp)):
            row = measure(label, path, args, Path(tmp))
            writer.writerow(row)
            f.flush()
            print(f"{row['mesh']:>16} {row['triangles']:>9} triangles: {row['meshes_per_hour']:>7} meshes/h, "
                  f"GPU busy {float(row['gpu_busy']):.0%} (load {row['load_s']} s, prepare "
                  f"{row['prepare_s']} s, distances {row['gpu_s']} s, write {row['write_s']} s)")


if __name__ == "__main__":
    main()
