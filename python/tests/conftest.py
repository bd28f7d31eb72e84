"""Meshes, independent references and the CLI, shared by the tests."""

import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

import collidoscope as cs

ROOT = Path(__file__).resolve().parents[2]
ASSETS = ROOT / "assets"


def box_arrays(half=1.0):
    """The cube [-half, half]^3, 12 outward-facing triangles."""
    v = np.array(
        [[x, y, z] for z in (-half, half) for y in (-half, half) for x in (-half, half)],
        dtype=np.float64,
    )
    # Corners: index = x + 2y + 4z (0/1 per axis).
    f = np.array(
        [
            [0, 2, 3], [0, 3, 1],  # z = -1, normal -z
            [4, 5, 7], [4, 7, 6],  # z = +1
            [0, 1, 5], [0, 5, 4],  # y = -1
            [2, 6, 7], [2, 7, 3],  # y = +1
            [0, 4, 6], [0, 6, 2],  # x = -1
            [1, 3, 7], [1, 7, 5],  # x = +1
        ],
        dtype=np.int64,
    )
    return v, f


def box_sdf(p, half=1.0):
    """Analytic signed distance of the cube [-half, half]^3."""
    q = np.abs(p) - half
    outside = np.linalg.norm(np.maximum(q, 0.0), axis=1)
    inside = np.minimum(q.max(axis=1), 0.0)
    return outside + inside


def icosphere(subdivisions=3):
    """A unit icosphere: every vertex on the unit sphere."""
    t = (1.0 + 5 ** 0.5) / 2.0
    v = [[-1, t, 0], [1, t, 0], [-1, -t, 0], [1, -t, 0], [0, -1, t], [0, 1, t],
         [0, -1, -t], [0, 1, -t], [t, 0, -1], [t, 0, 1], [-t, 0, -1], [-t, 0, 1]]
    f = [[0, 11, 5], [0, 5, 1], [0, 1, 7], [0, 7, 10], [0, 10, 11], [1, 5, 9],
         [5, 11, 4], [11, 10, 2], [10, 7, 6], [7, 1, 8], [3, 9, 4], [3, 4, 2],
         [3, 2, 6], [3, 6, 8], [3, 8, 9], [4, 9, 5], [2, 4, 11], [6, 2, 10],
         [8, 6, 7], [9, 8, 1]]
    v = [np.array(p, dtype=np.float64) / np.linalg.norm(p) for p in v]
    for _ in range(subdivisions):
        cache = {}

        def mid(a, b):
            key = (min(a, b), max(a, b))
            if key not in cache:
                m = v[a] + v[b]
                v.append(m / np.linalg.norm(m))
                cache[key] = len(v) - 1
            return cache[key]

        nf = []
        for a, b, c in f:
            ab, bc, ca = mid(a, b), mid(b, c), mid(c, a)
            nf += [[a, ab, ca], [b, bc, ab], [c, ca, bc], [ab, bc, ca]]
        f = nf
    return np.array(v), np.array(f, dtype=np.int64)


def chunked(f):
    """`f` over 16 points at a time (its arrays are points × triangles)."""
    def over_chunks(p, corners):
        parts = [f(p[i:i + 16], corners) for i in range(0, len(p), 16)]
        if isinstance(parts[0], tuple):
            return tuple(np.concatenate(x) for x in zip(*parts))
        return np.concatenate(parts)
    return over_chunks


@chunked
def closest_points_brute(p, corners):
    """Closest point on every triangle (Ericson 5.1.5, vectorised) to
    every point: returns the (N,) distances and (N,) triangle indices."""
    a, b, c = (corners[:, i][None] for i in range(3))
    p = p[:, None]
    ab, ac, ap = b - a, c - a, p - a
    d1, d2 = (ab * ap).sum(-1), (ac * ap).sum(-1)
    bp = p - b
    d3, d4 = (ab * bp).sum(-1), (ac * bp).sum(-1)
    cp = p - c
    d5, d6 = (ab * cp).sum(-1), (ac * cp).sum(-1)
    va = d3 * d6 - d5 * d4
    vb = d5 * d2 - d1 * d6
    vc = d1 * d4 - d3 * d2
    denom = va + vb + vc
    with np.errstate(divide="ignore", invalid="ignore"):
        v = vb / denom
        w = vc / denom
        res = a + ab * v[..., None] + ac * w[..., None]
        # Edges and corners, in Ericson's order (applied last-first).
        vab = d1 / (d1 - d3)
        vac = d2 / (d2 - d6)
        wbc = (d4 - d3) / ((d4 - d3) + (d5 - d6))
    cands = [
        ((va <= 0) & ((d4 - d3) >= 0) & ((d5 - d6) >= 0), b + (c - b) * wbc[..., None]),
        ((vb <= 0) & (d2 >= 0) & (d6 <= 0), a + ac * vac[..., None]),
        ((d6 >= 0) & (d5 <= d6), np.broadcast_to(c, res.shape)),
        ((vc <= 0) & (d1 >= 0) & (d3 <= 0), a + ab * vab[..., None]),
        ((d3 >= 0) & (d4 <= d3), np.broadcast_to(b, res.shape)),
        ((d1 <= 0) & (d2 <= 0), np.broadcast_to(a, res.shape)),
    ]
    for mask, point in cands:
        res = np.where(mask[..., None], point, res)
    dist = np.linalg.norm(p - res, axis=-1)
    tri = dist.argmin(axis=1)
    return dist[np.arange(len(tri)), tri], tri


@chunked
def winding_exact(p, corners):
    """Exact generalised winding number (Van Oosterom & Strackee)."""
    a, b, c = (corners[:, i][None] - p[:, None] for i in range(3))
    la, lb, lc = (np.linalg.norm(x, axis=-1) for x in (a, b, c))
    det = (a * np.cross(b, c)).sum(-1)
    den = la * lb * lc + (a * b).sum(-1) * lc + (b * c).sum(-1) * la + (c * a).sum(-1) * lb
    return (2 * np.arctan2(det, den)).sum(axis=1) / (4 * np.pi)


@pytest.fixture(scope="session")
def box():
    v, f = box_arrays()
    return cs.Mesh(v, f, name="box")


@pytest.fixture(scope="session")
def open_box():
    """The cube without its top (z = +1) face: open, winding sign."""
    v, f = box_arrays()
    return cs.Mesh(v, np.delete(f, [2, 3], axis=0), name="open box")


@pytest.fixture(scope="session")
def sphere():
    v, f = icosphere(3)
    return cs.Mesh(v, f, name="sphere")


@pytest.fixture(scope="session")
def spot():
    return cs.load(ASSETS / "spot.obj")


@pytest.fixture(scope="session")
def bunny():
    """The Stanford bunny: open (holes in its base)."""
    return cs.load(ASSETS / "stanford-bunny.obj")


@pytest.fixture(scope="session")
def gpu():
    adapter = cs.gpu_adapter()
    assert adapter is not None, (
        "no GPU adapter: install Mesa's software Vulkan driver "
        "(apt install mesa-vulkan-drivers libvulkan1)"
    )
    return adapter


def random_points(mesh, n, seed=0, grow=0.2):
    """Points uniform in the mesh's box grown by `grow` of its size, half
    of them near the surface (vertices jittered)."""
    rng = np.random.default_rng(seed)
    v = mesh.vertices.astype(np.float64)
    lo, hi = v.min(0), v.max(0)
    size = hi - lo
    uniform = rng.uniform(lo - grow * size, hi + grow * size, (n - n // 2, 3))
    near = v[rng.integers(0, len(v), n // 2)] + rng.normal(0, 0.01 * size.max(), (n // 2, 3))
    return np.concatenate([uniform, near])


def cli():
    """The built `collidoscope` binary (scripts/test-all builds it)."""
    exe = Path(os.environ.get("COLLIDOSCOPE_BIN", ROOT / "target" / "debug" / "collidoscope"))
    assert exe.exists(), f"{exe} is missing: run `cargo build` first (scripts/test-all does)"
    return exe


def run_cli(*args):
    out = subprocess.run([str(cli()), *map(str, args)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out


def read_json(path):
    return json.loads(Path(path).read_text())


def write_obj(path, vertices, faces):
    """`vertices`, `faces` as an OBJ file (every float32 exactly)."""
    v, f = np.asarray(vertices, dtype=np.float32), np.asarray(faces) + 1
    with open(path, "w") as out:
        np.savetxt(out, v, fmt="v %.9g %.9g %.9g")
        np.savetxt(out, f, fmt="f %d %d %d")
    return Path(path)


def quaternion_matrix(t, q):
    """The 4×4 world_from_object of translation `t` and unit quaternion
    `q` (x, y, z, w)."""
    x, y, z, w = np.asarray(q, dtype=np.float64) / np.linalg.norm(q)
    m = np.eye(4)
    m[:3, :3] = [
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ]
    m[:3, 3] = t
    return m


def assert_calls_overlap(call):
    """Runs `call` in two threads at once and checks that their spans
    overlap in time: neither holds the GIL while the library works."""
    import threading
    import time

    spans = []

    def timed():
        start = time.perf_counter()
        call()
        spans.append((start, time.perf_counter()))

    threads = [threading.Thread(target=timed) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    (a0, a1), (b0, b1) = spans
    assert max(a0, b0) < min(a1, b1), f"no overlap: {spans}"
