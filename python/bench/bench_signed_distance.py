"""Times collidoscope.signed_distance on one mesh, and NVIDIA Warp's
winding-number query on the same points where Warp is installed.

    python python/bench/bench_signed_distance.py MESH.obj [--subdivide K] [--points 1000000] [--out bench.csv]

``--subdivide K`` splits every triangle into four K times (midpoints, the
surface unchanged): the Stanford bunny (69 K triangles) twice gives the
1.1 M-triangle bunny of the README's tables.

The points: half within 2% of the bounding-box diagonal of the surface
(surface points, area-weighted, moved by up to that distance in a random
direction), half uniform in the bounding box. Both tools get a float32
numpy array and return one:

* collidoscope: ``signed_distance(mesh, points, sign="winding")``, numpy in
  and out (the binding, the upload, the kernels, the read-back);
  ``kernel_ms`` is the sum of its GPU phases by timestamp queries
  (``collidoscope.last_timings()``), the median over the repeats.
* Warp: a kernel calling ``wp.mesh_query_point_sign_winding_number`` and
  ``wp.mesh_eval_position``; the ``wp.Mesh`` (with
  ``support_winding_number=True``) is built once, outside the timing.
  ``with_copies_ms`` copies the points in and the distances out inside the
  timing; ``kernel_ms`` times the launch alone on arrays already on the
  device. ``sign_disagreements``: points whose Warp sign differs from
  collidoscope's exact winding-number sign.

Each measurement is the median of ``--repeats`` runs after one warm-up.
The same rows are taken on ``--overhead-points`` points (default 1,000):
there the time is mostly per-call overhead (for Warp, ``with_copies_ms -
kernel_ms`` is the binding's and the copies' share). Rows are appended to
``--out`` (CSV; ``summarize.py`` turns it into a markdown table).
"""

import argparse
import csv
import datetime
import re
import statistics
import time
from pathlib import Path

import numpy as np

import collidoscope as cs

COLUMNS = ["mesh", "triangles", "points", "tool", "with_copies_ms", "kernel_ms",
           "sign_disagreements", "device", "driver", "date"]


def sample_points(vertices, faces, n, seed=0):
    """Half near the surface (within 2% of the box diagonal), half uniform
    in the bounding box, float32 (n, 3)."""
    rng = np.random.default_rng(seed)
    v = vertices.astype(np.float64)
    lo, hi = v.min(0), v.max(0)
    diagonal = np.linalg.norm(hi - lo)
    a, b, c = (v[faces[:, i]] for i in range(3))
    area = 0.5 * np.linalg.norm(np.cross(b - a, c - a), axis=1)
    near = n // 2
    tri = rng.choice(len(faces), near, p=area / area.sum())
    r1, r2 = rng.random(near), rng.random(near)
    flip = r1 + r2 > 1
    r1[flip], r2[flip] = 1 - r1[flip], 1 - r2[flip]
    surface = a[tri] + r1[:, None] * (b[tri] - a[tri]) + r2[:, None] * (c[tri] - a[tri])
    direction = rng.normal(size=(near, 3))
    direction /= np.linalg.norm(direction, axis=1, keepdims=True)
    offset = rng.uniform(0, 0.02 * diagonal, near)[:, None] * direction
    uniform = rng.uniform(lo, hi, (n - near, 3))
    return np.concatenate([surface + offset, uniform]).astype(np.float32)


def subdivided(vertices, faces):
    """Every triangle split into four at its edges' midpoints (shared
    edges get one midpoint): the same surface, four times the triangles."""
    v = vertices.astype(np.float64)
    f = faces.astype(np.int64)
    edges = np.concatenate([f[:, [0, 1]], f[:, [1, 2]], f[:, [2, 0]]])
    unique, slot = np.unique(np.sort(edges, axis=1), axis=0, return_inverse=True)
    mids = len(v) + slot.reshape(3, -1)  # (edge of the face, face)
    v = np.concatenate([v, 0.5 * (v[unique[:, 0]] + v[unique[:, 1]])])
    a, b, c = f.T
    ab, bc, ca = mids
    f = np.concatenate([np.stack(t, axis=1) for t in
                        ((a, ab, ca), (ab, b, bc), (ca, bc, c), (ab, bc, ca))])
    return v, f


def median_ms(f, repeats):
    f()  # warm-up: pipelines, trees, caches
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        f()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def split_adapter(adapter):
    """``gpu_adapter()``'s "name (Backend, driver)" as (name, driver)."""
    found = re.match(r"^(.*) \((Vulkan|Metal|Dx12|Gl|BrowserWebGpu|Noop), (.*)\)$", adapter)
    return (found.group(1), found.group(3)) if found else (adapter, "")


def collidoscope_rows(mesh, points, repeats, backend):
    adapter = cs.gpu_adapter() if backend != "cpu" else None
    device, driver = split_adapter(adapter) if adapter else ("cpu", "")
    kernel = []

    def run():
        cs.signed_distance(mesh, points, sign="winding", backend=backend)
        kernel.append((cs.last_timings() or {}).get("gpu_ms"))

    ms = median_ms(run, repeats)
    timed = [k for k in kernel[1:] if k is not None]  # the warm-up left out
    return {"tool": f"collidoscope ({'gpu' if adapter else 'cpu'})", "with_copies_ms": ms,
            "kernel_ms": statistics.median(timed) if timed else "", "sign_disagreements": 0,
            "device": device, "driver": driver}


class WarpQuery:
    """Warp's winding-number query on one mesh (the mesh built once)."""

    def __init__(self, wp, vertices, faces):
        self.wp = wp
        wp.init()
        self.device = wp.get_device("cuda") if wp.is_cuda_available() else wp.get_device("cpu")
        self.mesh = wp.Mesh(
            points=wp.array(vertices.astype(np.float32), dtype=wp.vec3, device=self.device),
            indices=wp.array(faces.astype(np.int32).ravel(), dtype=wp.int32, device=self.device),
            support_winding_number=True,
        )

        @wp.kernel
        def signed(mesh: wp.uint64, points: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
            tid = wp.tid()
            p = points[tid]
            q = wp.mesh_query_point_sign_winding_number(mesh, p, 1.0e30, 2.0, 0.5)
            d = float(1.0e30)
            if q.result:
                c = wp.mesh_eval_position(mesh, q.face, q.u, q.v)
                d = q.sign * wp.length(p - c)
            out[tid] = d

        self.kernel = signed

    def launch(self, points_device, out_device):
        self.wp.launch(self.kernel, dim=len(points_device),
                       inputs=[self.mesh.id, points_device, out_device], device=self.device)
        self.wp.synchronize_device(self.device)

    def with_copies(self, points):
        wp = self.wp
        p = wp.array(points, dtype=wp.vec3, device=self.device)
        out = wp.empty(len(points), dtype=float, device=self.device)
        self.launch(p, out)
        return out.numpy()

    def rows(self, points, repeats, reference):
        wp = self.wp
        with_copies = median_ms(lambda: self.with_copies(points), repeats)
        p = wp.array(points, dtype=wp.vec3, device=self.device)
        out = wp.empty(len(points), dtype=float, device=self.device)
        kernel = median_ms(lambda: self.launch(p, out), repeats)
        values = self.with_copies(points)
        disagree = int(np.count_nonzero((values < 0) != (reference < 0)))
        version = getattr(wp, "get_cuda_driver_version", lambda: None)()
        driver = f"CUDA {version[0]}.{version[1]}" if version else ""
        return {"tool": f"warp {wp.config.version}", "with_copies_ms": with_copies,
                "kernel_ms": kernel, "sign_disagreements": disagree,
                "device": str(getattr(self.device, "name", self.device)), "driver": driver}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mesh", type=Path, help="OBJ file")
    parser.add_argument("--points", type=int, default=1_000_000)
    parser.add_argument("--overhead-points", type=int, default=1_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--backend", choices=["gpu", "cpu"], default=None,
                        help="collidoscope's backend (default: the GPU when there is one)")
    parser.add_argument("--no-warp", action="store_true", help="leave Warp out")
    parser.add_argument("--out", type=Path, default=Path("bench_signed_distance.csv"))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--subdivide", type=int, default=0,
                        help="split every triangle into four this many times first")
    args = parser.parse_args(argv)

    mesh = cs.load(args.mesh)
    vertices, faces = mesh.vertices, mesh.faces
    for _ in range(args.subdivide):
        vertices, faces = subdivided(vertices, faces)
    if args.subdivide:
        mesh = cs.Mesh(vertices, faces)
    name = args.mesh.name + (f" subdivided {args.subdivide}x" if args.subdivide else "")
    warp = None
    if not args.no_warp:
        try:
            import warp as wp
            warp = WarpQuery(wp, vertices, faces)
        except ImportError:
            print("warp-lang is not installed: timing collidoscope alone")
    date = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    rows = []
    for n in (args.points, args.overhead_points):
        points = sample_points(vertices, faces, n, args.seed)
        reference = cs.signed_distance(mesh, points, sign="winding", backend=args.backend)
        found = [collidoscope_rows(mesh, points, args.repeats, args.backend)]
        if warp is not None:
            found.append(warp.rows(points, args.repeats, reference))
        for row in found:
            row.update(mesh=name, triangles=len(faces), points=n, date=date)
            rows.append(row)
            kernel = f", kernel {row['kernel_ms']:.3f} ms" if row["kernel_ms"] != "" else ""
            print(f"{row['tool']:<24} {n:>9} points: {row['with_copies_ms']:.3f} ms with copies"
                  f"{kernel}, {row['sign_disagreements']} sign disagreements")
    new = not args.out.exists()
    with open(args.out, "a", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=COLUMNS)
        if new:
            writer.writeheader()
        for row in rows:
            writer.writerow({k: (f"{v:.4f}" if isinstance(v, float) else v)
                             for k, v in row.items()})
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
