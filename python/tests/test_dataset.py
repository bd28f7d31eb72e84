"""Whole datasets: seeded reproducibility, signs against the exact
winding number on generated open and nested meshes, resume, bad
arguments, and the Ray path writing what the local path writes."""

import json

import numpy as np
import pytest

import collidoscope as cs
from conftest import box_arrays, icosphere, winding_exact, write_obj

SMALL = dict(near=600, uniform=200, backend="cpu", progress=False)


def open_box_arrays():
    v, f = box_arrays()
    return v, np.delete(f, [2, 3], axis=0)


def nested_arrays():
    """The cube [-1, 1]^3 around a sphere of radius 0.4 facing inward (a cavity)."""
    v, f = box_arrays()
    sv, sf = icosphere(1)
    return np.vstack([v, 0.4 * sv]), np.vstack([f, sf[:, ::-1] + len(v)])


@pytest.fixture(scope="module")
def shapes(tmp_path_factory):
    """Three meshes in folders of their own, one file name (as ShapeNet)."""
    root = tmp_path_factory.mktemp("shapes")
    for name, (v, f) in {
        "open": open_box_arrays(),
        "nested": nested_arrays(),
        "box": box_arrays(),
    }.items():
        (root / name).mkdir()
        write_obj(root / name / "model.obj", v * 2.0 + 1.0, f)
    return root


def load_npz(path):
    with np.load(path) as z:
        return {k: z[k] for k in z.files}


def test_one_seed_gives_the_same_files_and_another_seed_others(shapes, tmp_path):
    a = cs.dataset(shapes, tmp_path / "a", seed=7, **SMALL)
    b = cs.dataset(str(shapes / "*" / "model.obj"), tmp_path / "b", seed=7, **SMALL)
    c = cs.dataset(shapes, tmp_path / "c", seed=8, **SMALL)
    assert [r["status"] for r in a] == ["written"] * 3
    assert [r["path"] for r in a] == [r["path"] for r in b]
    for name in ("box", "nested", "open"):
        one = (tmp_path / "a" / name / "model.npz").read_bytes()
        assert one == (tmp_path / "b" / name / "model.npz").read_bytes()
        assert one != (tmp_path / "c" / name / "model.npz").read_bytes()
    z = load_npz(tmp_path / "a" / "box" / "model.npz")
    assert z["points"].shape == (800, 3) and z["points"].dtype == np.float32
    assert z["sdf"].shape == (800,) and z["sdf"].dtype == np.float32
    # The box [-1, 3]^3 in the unit sphere: centre 1, farthest corner at 2 sqrt(3).
    np.testing.assert_allclose(z["center"], [1.0, 1.0, 1.0])
    np.testing.assert_allclose(z["scale"], 1 / (2 * np.sqrt(3)), rtol=1e-6)
    lines = [json.loads(l) for l in (tmp_path / "a" / "results.jsonl").read_text().splitlines()]
    assert [l["path"] for l in lines] == [r["path"] for r in a]
    assert "open" in next(l for l in lines if "open" in l["path"])["flags"]


@pytest.mark.parametrize("name", ["open", "nested"])
def test_signs_are_the_exact_winding_numbers(shapes, tmp_path, name):
    cs.dataset([shapes / name / "model.obj"], tmp_path, sign="winding", closest=True,
               normals=True, **SMALL)
    z = load_npz(tmp_path / "model.npz")
    v, f = open_box_arrays() if name == "open" else nested_arrays()
    v = (v * 2.0 + 1.0 - z["center"]) * z["scale"]
    w = winding_exact(z["points"].astype(np.float64), v[f])
    clear = (np.abs(np.abs(w) - 0.5) > 1e-6) & (np.abs(z["sdf"]) > 1e-6)
    assert clear.sum() > 700
    np.testing.assert_array_equal((z["sdf"] < 0)[clear], (np.abs(w) > 0.5)[clear])
    d = np.linalg.norm(z["points"] - z["closest"], axis=1)
    np.testing.assert_allclose(d, np.abs(z["sdf"]), atol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(z["normals"], axis=1), 1.0, atol=1e-5)


def test_a_rerun_skips_complete_meshes_and_a_shard_takes_its_part(shapes, tmp_path):
    cs.dataset(shapes, tmp_path, **SMALL)
    again = cs.dataset(shapes, tmp_path, **SMALL)
    assert [r["status"] for r in again] == ["skipped"] * 3
    part = cs.dataset(shapes, tmp_path / "s", shard=(1, 2), **SMALL)
    assert [r["path"] for r in part] == [again[1]["path"]]
    assert (tmp_path / "s" / "results-1-of-2.jsonl").exists()


@pytest.mark.parametrize(
    "kwargs, name",
    [
        (dict(near=0, uniform=0), "near"),
        (dict(variances=[-1.0]), "variances"),
        (dict(pad=float("nan")), "pad"),
        (dict(normalize="ball"), "normalize"),
        (dict(sign="up"), "sign"),
        (dict(shard=(2, 2)), "shard"),
        (dict(shard="x"), "shard"),
        (dict(time_limit=0.0), "time_limit"),
        (dict(backend="tpu"), "backend"),
        (dict(results=3), "results"),
    ],
)
def test_bad_arguments_name_themselves(shapes, tmp_path, kwargs, name):
    options = dict(SMALL, **kwargs)
    with pytest.raises(ValueError, match=f"^{name}"):
        cs.dataset(shapes, tmp_path, **options)


def test_a_missing_manifest_is_a_value_error(tmp_path):
    with pytest.raises(ValueError, match="no mesh files"):
        cs.dataset(tmp_path, tmp_path / "out", **SMALL)


def test_the_ray_path_writes_what_the_local_path_writes(shapes, tmp_path):
    ray = pytest.importorskip("ray")
    import collidoscope.ray

    with pytest.raises(ValueError, match="^shard"):
        collidoscope.ray.dataset(shapes, tmp_path / "r", shard=(0, 2))
    local = cs.dataset(shapes, tmp_path / "local", seed=3, **SMALL)
    # One mesh already complete in the Ray run's folder: it is skipped.
    cs.dataset([shapes / "box" / "model.obj"], tmp_path / "ray", root=shapes, seed=3, **SMALL)
    options = {k: v for k, v in SMALL.items() if k != "progress"}
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        ray.data.DataContext.get_current().enable_progress_bars = False
        rows = collidoscope.ray.dataset(shapes, tmp_path / "ray", seed=3, batch_size=2, **options)
    finally:
        ray.shutdown()
    assert [r["status"] for r in rows] == ["skipped", "written", "written"]
    assert [r["path"] for r in rows] == [r["path"] for r in local]
    for name in ("box", "nested", "open"):
        assert (tmp_path / "ray" / name / "model.npz").read_bytes() == (
            tmp_path / "local" / name / "model.npz"
        ).read_bytes()
    lines = (tmp_path / "ray" / "results.jsonl").read_text().splitlines()
    assert [json.loads(l)["path"] for l in lines] == [r["path"] for r in local]
