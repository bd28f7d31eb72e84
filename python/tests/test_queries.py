"""Point queries against analytic distances, a numpy brute force, the
exact winding number, trimesh, and the CLI's own check (the Rust CPU
reference)."""

import time

import numpy as np
import pytest

import collidoscope as cs
from conftest import (
    ASSETS, assert_calls_overlap, box_sdf, closest_points_brute, random_points, read_json,
    run_cli, winding_exact,
)


def grid_points(lo, hi, n):
    g = np.linspace(lo, hi, n)
    return np.stack(np.meshgrid(g, g, g, indexing="ij"), -1).reshape(-1, 3)


@pytest.mark.parametrize("sign", ["auto", "winding", "pseudo-normal"])
@pytest.mark.parametrize("backend", ["cpu", "gpu"])
def test_box_distances_are_analytic(box, sign, backend, request):
    if backend == "gpu":
        request.getfixturevalue("gpu")
    p = grid_points(-2.3, 2.1, 13) + 0.013  # off the planes of symmetry
    d = cs.signed_distance(box, p, sign=sign, backend=backend)
    assert d.dtype == np.float32 and d.shape == (len(p),)
    np.testing.assert_allclose(d, box_sdf(p), atol=2e-6)


def test_sphere_distances_lie_between_the_inscribed_and_the_circumscribed(sphere):
    v, f = sphere.vertices.astype(np.float64), sphere.faces
    r_in = np.linalg.norm(v[f].mean(1), axis=1).min()  # centroids: at most 1 - sag
    p = random_points(sphere, 2000, seed=1, grow=1.0)
    r = np.linalg.norm(p, axis=1)
    d = cs.signed_distance(sphere, p, backend="cpu")
    assert np.all(d <= r - r_in + 1e-5) and np.all(d >= r - 1 - 1e-5)
    # Clearly inside or outside: the sign is the sphere's.
    assert np.all(np.sign(d[r < r_in - 1e-3]) == -1)
    assert np.all(np.sign(d[r > 1 + 1e-3]) == 1)


def test_distances_equal_a_numpy_brute_force(spot):
    p = random_points(spot, 300, seed=2)
    corners = spot.vertices.astype(np.float64)[spot.faces]
    expected, _ = closest_points_brute(p, corners)
    u = cs.unsigned_distance(spot, p)
    np.testing.assert_allclose(u, expected, rtol=1e-5, atol=1e-6)
    s = cs.signed_distance(spot, p, sign="winding", backend="cpu")
    np.testing.assert_allclose(np.abs(s), expected, rtol=1e-5, atol=1e-6)


def test_winding_numbers_and_inside_equal_the_exact_sum(spot):
    holed = cs.Mesh(spot.vertices, spot.faces[200:])  # open: holes where faces went
    assert holed.report()["sign"] == "winding"
    p = random_points(holed, 400, seed=3)
    corners = holed.vertices.astype(np.float64)[holed.faces]
    w = winding_exact(p, corners)
    assert ((np.abs(w) > 0.05) & (np.abs(w) < 0.95)).any()  # fractional somewhere
    np.testing.assert_allclose(cs.winding_number(holed, p), w, atol=1e-2)
    # Points exactly at |w| = 1/2 have no side; none of these is near it.
    clear = np.abs(np.abs(w) - 0.5) > 1e-4
    inside = cs.contains(holed, p)
    assert inside.dtype == np.bool_
    np.testing.assert_array_equal(inside[clear], (np.abs(w) > 0.5)[clear])
    s = cs.signed_distance(holed, p, sign="winding", backend="cpu")
    np.testing.assert_array_equal((s < 0)[clear], inside[clear])


def test_open_mesh_winding_numbers_are_fractional(open_box):
    w = cs.winding_number(open_box, np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 0.9], [0, 0, 5.0]]))
    assert 0.5 < w[0] < 1.0 and 0.0 < w[1] < w[0] and abs(w[2]) < 0.05
    report = open_box.report()
    assert report["sign"] == "winding" and report["boundary_edges"] == 4


def test_contains_agrees_with_trimesh_on_closed_meshes(spot):
    trimesh = pytest.importorskip("trimesh")
    tm = trimesh.Trimesh(spot.vertices, spot.faces)
    assert tm.is_watertight
    p = random_points(spot, 1000, seed=4)
    d = cs.unsigned_distance(spot, p)
    far = d > 1e-3  # ray tests are unreliable on the surface
    np.testing.assert_array_equal(cs.contains(spot, p)[far], tm.contains(p)[far])


def test_signed_distances_equal_the_cli_check_reference(bunny, tmp_path):
    """The CLI's `check` computes the exact field at a point set on the
    CPU; ours must match it exactly."""
    p = random_points(bunny, 2000, seed=5).astype(np.float32)
    d = cs.signed_distance(bunny, p, sign="winding", backend="cpu")
    np.savez(tmp_path / "ours.npz", points=p, values=d)
    run_cli("check", tmp_path / "ours.npz", "--mesh", ASSETS / "stanford-bunny.obj",
            "--backend", "cpu", "--out", tmp_path / "report.json")
    report = read_json(tmp_path / "report.json")
    assert report["max_abs_error"] == 0.0
    assert report["sign_disagreements"] == 0


def test_gpu_equals_cpu(bunny, gpu):
    p = random_points(bunny, 20_000, seed=6)
    cpu = cs.signed_distance(bunny, p, sign="winding", backend="cpu")
    gpu_values = cs.signed_distance(bunny, p, sign="winding", backend="gpu")
    np.testing.assert_allclose(gpu_values, cpu, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(np.sign(gpu_values), np.sign(cpu))


@pytest.mark.parametrize("backend", ["cpu", "gpu"])
def test_chunked_equals_unchunked(bunny, backend, request):
    if backend == "gpu":
        request.getfixturevalue("gpu")
    p = random_points(bunny, 5000, seed=7)
    whole = cs.signed_distance(bunny, p, backend=backend)
    chunked = cs.signed_distance(bunny, p, backend=backend, chunk_size=777)
    np.testing.assert_array_equal(whole, chunked)
    for f in (cs.unsigned_distance, cs.winding_number, cs.contains):
        np.testing.assert_array_equal(f(bunny, p), f(bunny, p, chunk_size=333))


def test_return_closest(box):
    p = np.array([[0.2, 0.3, 3.0], [5.0, 0.1, -0.2], [0.1, -0.2, 0.3], [2.0, 2.0, 2.0]])
    d, face, bary, closest = cs.signed_distance(box, p, return_closest=True, backend="cpu")
    expected_closest = np.array([[0.2, 0.3, 1.0], [1.0, 0.1, -0.2], [0.1, -0.2, 1.0], [1, 1, 1]])
    np.testing.assert_allclose(closest, expected_closest, atol=1e-6)
    np.testing.assert_allclose(d, box_sdf(p), atol=1e-6)
    assert face.dtype == np.int64 and bary.shape == (4, 3)
    v, f = box.vertices, box.faces
    on_face = (bary[:, :, None] * v[f[face]]).sum(1)
    np.testing.assert_allclose(on_face, closest, atol=1e-6)
    np.testing.assert_allclose(bary.sum(1), 1.0, atol=1e-6)


def test_return_closest_names_the_callers_faces_after_repairs():
    """Faces the preparation leaves out (a duplicate, a zero-area face)
    and a shell it flips (inward-facing) must not shift the face indices
    or the corner order of the barycentric weights."""
    from conftest import box_arrays
    v, f = box_arrays()
    f = f[:, ::-1]  # inward: the preparation flips the shell
    f = np.concatenate([[[0, 0, 1]], [f[5]], f])  # zero-area, then a duplicate
    mesh = cs.Mesh(v, f)
    p = np.random.default_rng(8).uniform(-3, 3, (200, 3))
    d, face, bary, closest = cs.signed_distance(mesh, p, return_closest=True, backend="cpu")
    np.testing.assert_allclose(d, box_sdf(p), atol=2e-6)
    assert np.all(face >= 1)  # never the zero-area face
    on_face = (bary[:, :, None] * v[f[face]]).sum(1)
    np.testing.assert_allclose(on_face, closest, atol=1e-6)
    np.testing.assert_allclose(np.linalg.norm(p - closest, axis=1), np.abs(d), atol=1e-5)


def test_inputs_any_layout_and_array_like(box):
    p = np.asfortranarray(grid_points(-2, 2, 5))
    expected = cs.signed_distance(box, np.ascontiguousarray(p), backend="cpu")
    for variant in (p, p.astype(np.float32), p[::-1][::-1], p.tolist()):
        np.testing.assert_array_equal(cs.signed_distance(box, variant, backend="cpu"), expected)
    wide = np.zeros((len(p), 6))
    wide[:, ::2] = p  # a strided view
    np.testing.assert_array_equal(cs.signed_distance(box, wide[:, ::2], backend="cpu"), expected)

    class Tensor:  # a CPU torch tensor: __array__ and a device
        class device:
            type = "cpu"

        def __array__(self, dtype=None, copy=None):
            return p

    np.testing.assert_array_equal(cs.signed_distance(box, Tensor(), backend="cpu"), expected)
    empty = cs.signed_distance(box, np.zeros((0, 3)), backend="cpu")
    assert empty.shape == (0,)


class CudaTensor:
    class device:
        type = "cuda"

    def __array__(self, dtype=None, copy=None):
        raise AssertionError("a CUDA tensor must not be read")


@pytest.mark.parametrize("points, words", [
    (np.zeros((4, 2)), ["points", "(N, 3)"]),
    (np.zeros(3), ["points", "(N, 3)"]),
    (np.zeros((4, 3), dtype=np.int64), ["points", "int64"]),
    (np.zeros((4, 3), dtype=np.complex64), ["points", "complex64"]),
    (np.array([[0.0, 0.0, np.nan]]), ["points", "row 0"]),
    (np.array([[0, 0, 0], [0.0, np.inf, 0]]), ["points", "row 1"]),
    (np.array([[0, 0, 1e39]]), ["points", "row 0"]),
    (CudaTensor(), ["points", ".cpu()"]),
    ("not an array", ["points"]),
])
def test_bad_points_are_value_errors(box, points, words):
    for f in (cs.signed_distance, cs.unsigned_distance, cs.winding_number, cs.contains):
        with pytest.raises(ValueError) as e:
            f(box, points)
        for w in words:
            assert w in str(e.value), (f.__name__, str(e.value))


def test_bad_options_are_value_errors(box):
    p = np.zeros((2, 3))
    for kwargs, word in [
        ({"sign": "inside-out"}, "sign"),
        ({"backend": "cuda"}, "backend"),
        ({"chunk_size": 0}, "chunk_size"),
    ]:
        with pytest.raises(ValueError, match=word):
            cs.signed_distance(box, p, **kwargs)
    with pytest.raises(TypeError, match="mesh"):
        cs.signed_distance("box.obj", p)


def test_queries_release_the_gil(bunny):
    """Two threads' CPU queries overlap in time: neither holds the GIL
    while the library works."""
    p = random_points(bunny, 200_000, seed=9)
    cs.signed_distance(bunny, p[:10], backend="cpu")  # prepared once, outside the timing
    assert_calls_overlap(lambda: cs.signed_distance(bunny, p, sign="winding", backend="cpu"))


def test_prepared_once(bunny):
    """The second query on a mesh skips the preparation."""
    mesh = cs.load(ASSETS / "stanford-bunny.obj")
    p = np.zeros((1, 3))
    start = time.perf_counter()
    cs.signed_distance(mesh, p, backend="cpu")
    first = time.perf_counter() - start
    start = time.perf_counter()
    cs.signed_distance(mesh, p, backend="cpu")
    second = time.perf_counter() - start
    assert second < first / 5, (first, second)


def test_last_timings_account_for_the_call(bunny, spot, gpu):
    """``last_timings()`` describes the last call: its backend, its points
    and chunks, a wall time, and on the GPU the phases' sum within it. A
    query on another mesh and back gives the first mesh's values again
    (the mesh kept on the GPU follows the mesh queried)."""
    p = random_points(bunny, 3000, seed=11)
    first = cs.signed_distance(bunny, p, sign="winding", backend="gpu", chunk_size=1000)
    t = cs.last_timings()
    assert t["function"] == "signed_distance" and t["backend"] == "gpu"
    assert t["points"] == 3000 and t["chunks"] == 3 and t["wall_ms"] > 0
    if t["gpu_ms"] is not None:  # the adapter has timestamp queries
        assert 0 < t["gpu_ms"] <= t["wall_ms"] and sum(t["phases"].values()) == pytest.approx(t["gpu_ms"])
    cs.signed_distance(spot, p, sign="winding", backend="gpu")
    np.testing.assert_array_equal(
        cs.signed_distance(bunny, p, sign="winding", backend="gpu"), first)
    cs.signed_distance(bunny, p[:5], backend="cpu")
    t = cs.last_timings()
    assert t["backend"] == "cpu" and t["points"] == 5 and t["gpu_ms"] is None and t["phases"] is None
    grid = cs.sdf_grid(spot, res=16, backend="gpu")
    t = cs.last_timings()
    assert t["function"] == "sdf_grid" and t["points"] == grid.values.size and t["wall_ms"] > 0
