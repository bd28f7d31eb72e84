"""Times collidoscope.sdf_grid on meshes, and NVIDIA Warp's point queries
on exactly the same cell centres where Warp is installed.

    python python/bench/bench_grid.py MESH.obj ... [--generate DIR] [--subdivide K]
        [--res 128,256] [--signs pseudo-normal,winding] [--out bench_grid.csv]

For each mesh, resolution and sign:

* collidoscope: ``sdf_grid(mesh, res=R, sign=S)``, ``--repeats`` calls (the
  first one prepares the pipelines and the mesh's trees); ``gpu_ms`` is the
  least sum of the GPU's phases by timestamp queries
  (``collidoscope.last_timings()``), ``wall_ms`` the least whole call as the
  binding saw it.
* Warp: a kernel calling ``wp.mesh_query_point_sign_normal`` (pseudo-normal)
  or ``wp.mesh_query_point_sign_winding_number`` (winding, accuracy 2,
  threshold ½) and ``wp.mesh_eval_position`` at each of the grid's cell
  centres, read from ``Grid.cell_centers()`` (zyx order, the very float32
  positions collidoscope's field is given at) into a device array once.
  The ``wp.Mesh`` is built outside the timing (``warp_build_ms``). The
  kernel is launched again and again for at least ``--warmup-s`` seconds,
  then ``--launches`` launches are each timed by CUDA events
  (``wp.Event``); ``warp_ms`` is their median, ``warp_min_ms`` the least.

``warp_over_ours`` is ``warp_ms / gpu_ms``. Warp's values are compared
with collidoscope's exact field: ``warp_max_distance_error`` is the
largest difference of the two distances' magnitudes (world units, and in
cells), ``sign_disagreements`` the cells whose signs differ (collidoscope's
sign is the exact one for the winding sign). Without Warp (not importable,
or ``--no-warp``) collidoscope is timed alone and Warp's columns stay
empty. Rows are appended to ``--out`` with the device, driver and date;
``scripts/bench-tables.py`` writes the README's grid-against-Warp table
from such a CSV kept in ``docs/bench/``.

``--generate DIR`` writes the open meshes of ``open_meshes.py`` (large
regions where the winding number is near ½) into DIR and adds them to the
meshes; ``--subdivide K`` splits every triangle of each OBJ into four K
times first, as ``bench_signed_distance.py`` does.
"""

import argparse
import csv
import datetime
import statistics
import sys
import time
from pathlib import Path

import numpy as np

import collidoscope as cs

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_signed_distance as points_bench  # noqa: E402
import open_meshes  # noqa: E402

COLUMNS = ["mesh", "triangles", "resolution", "cells", "sign", "backend", "gpu_ms", "wall_ms",
           "warp_ms", "warp_min_ms", "warp_build_ms", "warp_over_ours",
           "warp_max_distance_error", "warp_max_error_cells", "sign_disagreements",
           "warp_version", "device", "driver", "date", "repeats"]
SIGNS = ("pseudo-normal", "winding")


def ours(mesh, res, sign, repeats, backend):
    """The grid of the last of ``repeats`` calls, and the least GPU and wall times."""
    gpu, wall = [], []
    grid = None
    for _ in range(max(1, repeats)):
        grid = cs.sdf_grid(mesh, res=res, sign=sign, backend=backend)
        t = cs.last_timings() or {}
        wall.append(t.get("wall_ms"))
        if t.get("gpu_ms") is not None:
            gpu.append(t["gpu_ms"])
    return grid, (min(gpu) if gpu else None), min(w for w in wall if w is not None)


class WarpGrid:
    """Warp's two signed queries, timed on given points."""

    def __init__(self, wp, warmup_s, launches):
        self.wp, self.warmup_s, self.launches = wp, warmup_s, launches
        wp.init()
        self.device = wp.get_device("cuda") if wp.is_cuda_available() else wp.get_device("cpu")

        @wp.kernel
        def pseudo_normal(mesh: wp.uint64, points: wp.array(dtype=wp.vec3),
                          out: wp.array(dtype=float)):
            tid = wp.tid()
            p = points[tid]
            q = wp.mesh_query_point_sign_normal(mesh, p, 1.0e30)
            d = float(1.0e30)
            if q.result:
                d = q.sign * wp.length(p - wp.mesh_eval_position(mesh, q.face, q.u, q.v))
            out[tid] = d

        @wp.kernel
        def winding(mesh: wp.uint64, points: wp.array(dtype=wp.vec3),
                    out: wp.array(dtype=float)):
            tid = wp.tid()
            p = points[tid]
            q = wp.mesh_query_point_sign_winding_number(mesh, p, 1.0e30, 2.0, 0.5)
            d = float(1.0e30)
            if q.result:
                d = q.sign * wp.length(p - wp.mesh_eval_position(mesh, q.face, q.u, q.v))
            out[tid] = d

        self.kernels = {"pseudo-normal": pseudo_normal, "winding": winding}

    def version(self):
        return f"warp {self.wp.config.version}"

    def run(self, vertices, faces, centres, sign):
        """Warp's values at ``centres`` ((N, 3) float32), its median and
        least kernel time (ms) and its mesh build time (ms)."""
        wp, dev = self.wp, self.device
        started = time.perf_counter()
        mesh = wp.Mesh(points=wp.array(vertices.astype(np.float32), dtype=wp.vec3, device=dev),
                       indices=wp.array(faces.astype(np.int32).ravel(), dtype=wp.int32, device=dev),
                       support_winding_number=sign == "winding")
        wp.synchronize_device(dev)
        build_ms = (time.perf_counter() - started) * 1e3
        points = wp.array(centres, dtype=wp.vec3, device=dev)
        out = wp.empty(len(centres), dtype=float, device=dev)
        args = dict(kernel=self.kernels[sign], dim=len(centres),
                    inputs=[mesh.id, points, out], device=dev)
        started = time.perf_counter()
        while time.perf_counter() - started < self.warmup_s:
            wp.launch(**args)
            wp.synchronize_device(dev)
        times = []
        for _ in range(max(1, self.launches)):
            if dev.is_cuda:
                begin, end = (wp.Event(device=dev, enable_timing=True) for _ in range(2))
                wp.record_event(begin)
                wp.launch(**args)
                wp.record_event(end)
                wp.synchronize_device(dev)
                times.append(wp.get_event_elapsed_time(begin, end))
            else:
                t = time.perf_counter()
                wp.launch(**args)
                wp.synchronize_device(dev)
                times.append((time.perf_counter() - t) * 1e3)
        return out.numpy(), statistics.median(times), min(times), build_ms


def compare(theirs, field, cell_size):
    """Their largest distance error (world, cells) and sign disagreements
    against ``field`` (flat, the same order)."""
    error = float(np.abs(np.abs(theirs) - np.abs(field)).max()) if len(field) else 0.0
    disagree = int(np.count_nonzero((theirs < 0) != (field < 0)))
    return error, error / cell_size, disagree


def meshes(args):
    """(name, vertices, faces) of each mesh to run."""
    found = []
    paths = list(args.meshes)
    generated = open_meshes.write_all(args.generate, args.stacks) if args.generate else []
    for path in paths + generated:
        m = cs.load(path)
        v, f = m.vertices, m.faces
        k = args.subdivide if path in paths else 0
        for _ in range(k):
            v, f = points_bench.subdivided(v, f)
        found.append((path.stem + (f" subdivided {k}x" if k else ""), v, f))
    return found


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("meshes", type=Path, nargs="*", help="OBJ files")
    parser.add_argument("--generate", type=Path, metavar="DIR",
                        help="write the open test meshes into DIR and run them too")
    parser.add_argument("--stacks", type=int, default=128,
                        help="the generated meshes' latitude bands (about 4 x stacks^2 triangles)")
    parser.add_argument("--subdivide", type=int, default=0,
                        help="split every triangle of the OBJ files into four this many times")
    parser.add_argument("--res", default="128,256", help="resolutions, comma-separated")
    parser.add_argument("--signs", default=",".join(SIGNS), help="signs, comma-separated")
    parser.add_argument("--repeats", type=int, default=3, help="collidoscope's calls (least taken)")
    parser.add_argument("--warmup-s", type=float, default=1.5, help="Warp's warm-up, seconds")
    parser.add_argument("--launches", type=int, default=20, help="Warp's timed launches")
    parser.add_argument("--backend", choices=["gpu", "cpu"], default=None,
                        help="collidoscope's backend (default: the GPU when there is one)")
    parser.add_argument("--no-warp", action="store_true", help="leave Warp out")
    parser.add_argument("--out", type=Path, default=Path("bench_grid.csv"))
    args = parser.parse_args(argv)
    resolutions = [int(r) for r in args.res.split(",")]
    signs = args.signs.split(",")
    if bad := [s for s in signs if s not in SIGNS]:
        parser.error(f"--signs: {bad[0]!r} is not one of {', '.join(SIGNS)}")
    if not args.meshes and not args.generate:
        parser.error("give OBJ files, --generate DIR, or both")

    warp = None
    if not args.no_warp:
        try:
            import warp as wp
            warp = WarpGrid(wp, args.warmup_s, args.launches)
        except ImportError:
            print("warp-lang is not installed: timing collidoscope alone")
    adapter = cs.gpu_adapter() if args.backend != "cpu" else None
    device, driver = points_bench.split_adapter(adapter) if adapter else ("cpu", "")
    date = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    new = not args.out.exists()
    with open(args.out, "a", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=COLUMNS)
        if new:
            writer.writeheader()
        for name, vertices, faces in meshes(args):
            mesh = cs.Mesh(vertices, faces)
            for res in resolutions:
                for sign in signs:
                    grid, gpu_ms, wall_ms = ours(mesh, res, sign, args.repeats, args.backend)
                    row = dict(mesh=name, triangles=len(faces), resolution=res,
                               cells=grid.values.size, sign=sign, backend=grid.backend,
                               gpu_ms=gpu_ms, wall_ms=wall_ms, device=device, driver=driver,
                               date=date, repeats=args.repeats)
                    if warp is not None:
                        centres = grid.cell_centers().reshape(-1, 3)
                        values, median, least, build = warp.run(vertices, faces, centres, sign)
                        error, cells, disagree = compare(values, grid.values.ravel(), grid.cell_size)
                        row.update(warp_ms=median, warp_min_ms=least, warp_build_ms=build,
                                   warp_over_ours=median / gpu_ms if gpu_ms else None,
                                   warp_max_distance_error=error, warp_max_error_cells=cells,
                                   sign_disagreements=disagree, warp_version=warp.version())
                    writer.writerow({k: cell(k, v) for k, v in row.items()})
                    out.flush()
                    print(summary_line(row), flush=True)
    print(f"wrote {args.out}")


def cell(column, value):
    """A CSV cell: times to 0.1 µs, errors to three significant figures."""
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.3e}" if column.startswith("warp_max_") else f"{value:.4f}"
    return value


def summary_line(row):
    def ms(v):
        return "–" if v is None else f"{v:.3f} ms"

    line = (f"{row['mesh']:<28} {row['resolution']:>4}³ {row['sign']:<13} "
            f"collidoscope {ms(row['gpu_ms'])} (wall {ms(row['wall_ms'])})")
    if "warp_ms" in row:
        ratio = row["warp_over_ours"]
        line += (f", Warp {ms(row['warp_ms'])}"
                 + (f" = {ratio:.2f}x ours" if ratio else "")
                 + f", its error {row['warp_max_error_cells']:.2g} cells,"
                 f" {row['sign_disagreements']} signs differ")
    return line


if __name__ == "__main__":
    main()
