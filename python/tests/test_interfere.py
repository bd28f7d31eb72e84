"""Image-space interference detection against the CLI's `interfere`
(its JSON and counts_<axis>.npy, bit for bit) and between backends."""

import json

import numpy as np
import pytest

import collidoscope as cs
from conftest import icosphere, read_json, run_cli, write_obj

POSES = [[0.0, 0.0, 0.0], [1.5, 0.1, 0.0], [5.0, 0.0, 0.0]]


@pytest.fixture(scope="module")
def spheres(tmp_path_factory):
    v, f = icosphere(2)
    path = write_obj(tmp_path_factory.mktemp("interfere") / "sphere.obj", v, f)
    return path, cs.load(path)


def test_two_of_three_interfere(spheres):
    _, s = spheres
    r = cs.interfere([s, s, s], POSES, res=64, backend="cpu")
    np.testing.assert_array_equal(r["pairs"], [[0, 1]])
    assert r["pairs"].dtype == np.int64
    np.testing.assert_array_equal(r["interfering"], [True, True, False])
    assert set(r["views"]) == {"x", "y", "z"} and r["backend"] == "cpu"
    z = r["views"]["z"]
    assert z["counts"].shape == (64, 64) and z["counts"].dtype == np.int32
    assert z["edge_ids"].shape == (64, 64, 2) and z["penetrated"].shape == (64, 64)
    assert (z["counts"] > 0).any() and z["negative_pixels"] == 0
    pts = r["points"]
    k = len(pts["count"])
    assert k > 0 and pts["position"].shape == (k, 3)
    assert set(np.unique(pts["mesh"])) <= {0, 1} and set(np.unique(pts["inside"])) <= {0, 1}
    # Localised points lie where the two spheres overlap.
    d0 = np.linalg.norm(pts["position"] - POSES[0], axis=1)
    d1 = np.linalg.norm(pts["position"] - POSES[1], axis=1)
    assert (np.minimum(d0, d1) < 1.05).all() and (np.maximum(d0, d1) < 1.3).all()
    assert r["interfering_edges"].shape[1] == 2


def test_equals_the_cli(spheres, tmp_path):
    path, s = spheres
    poses = tmp_path / "poses.json"
    poses.write_text(json.dumps(POSES))
    out = tmp_path / "result.json"
    run_cli("interfere", path, path, path, "--poses", poses, "--res", "48x40",
            "--axes", "x,z", "--backend", "cpu", "--out", out)
    cli = read_json(out)
    r = cs.interfere([s, s, s], POSES, res=(48, 40), axes="xz", backend="cpu")
    np.testing.assert_array_equal(r["pairs"], np.array(cli["interfering_pairs"]).reshape(-1, 2))
    assert r["edge_offset"] == cli["edge_offset"]
    for view in cli["views"]:
        counts = np.load(view["counts_npy"])
        assert counts.shape == (40, 48)
        np.testing.assert_array_equal(r["views"][view["axis"]]["counts"].astype(np.float32), counts)
        assert r["views"][view["axis"]]["negative_pixels"] == view["negative_pixels"]
    assert len(r["points"]["count"]) == cli["localised_point_count"]
    first = cli["localised_points"]
    np.testing.assert_array_equal(r["points"]["position"][: len(first)],
                                  [p["position"] for p in first])
    np.testing.assert_array_equal(r["points"]["inside"][: len(first)], [p["inside"] for p in first])
    assert r["self_interference"] == cli["self_interference"]
    assert r["open_meshes"] == cli["open_meshes"]


def test_gpu_backends_equal_the_cli(spheres, gpu, tmp_path):
    path, s = spheres
    poses = tmp_path / "poses.json"
    poses.write_text(json.dumps(POSES))
    for backend in ("stencil", "compute"):
        out = tmp_path / f"{backend}.json"
        run_cli("interfere", path, path, path, "--poses", poses, "--res", "64x64",
                "--axes", "z", "--backend", backend, "--out", out)
        cli = read_json(out)
        r = cs.interfere([s, s, s], POSES, res=64, axes="z", backend=backend)
        assert r["backend"] == cli["backend"] == backend
        np.testing.assert_array_equal(r["pairs"], np.array(cli["interfering_pairs"]).reshape(-1, 2))
        counts = np.load(cli["views"][0]["counts_npy"])
        np.testing.assert_array_equal(r["views"]["z"]["counts"].astype(np.float32), counts)
    assert cs.interfere([s, s], POSES[:2], res=32, backend="gpu")["backend"] == "stencil"


def test_no_poses_and_matrix_poses(spheres):
    _, s = spheres
    alone = cs.interfere([s, s], res=32, backend="cpu")  # same place: they coincide
    assert alone["touching_pairs"].shape[1] == 2
    m = np.eye(4)
    m[:3, 3] = POSES[1]
    r = cs.interfere([s, s], [None, m], res=32, backend="cpu")
    np.testing.assert_array_equal(r["pairs"], [[0, 1]])


@pytest.mark.parametrize("kwargs, word", [
    ({"poses": POSES[:2]}, "poses"),
    ({"poses": [None, None, [1, 2]]}, "poses[2]"),
    ({"res": 0}, "res"),
    ({"res": "big"}, "res"),
    ({"axes": "xw"}, "axes"),
    ({"axes": "xx"}, "axes"),
    ({"axes": ""}, "axes"),
    ({"backend": "cuda"}, "backend"),
    ({"edge_offset": -1.0}, "edge_offset"),
    ({"edge_offset": float("nan")}, "edge_offset"),
])
def test_bad_arguments_are_value_errors(spheres, kwargs, word):
    _, s = spheres
    args = {"res": 16, "backend": "cpu", **kwargs}
    with pytest.raises(ValueError) as e:
        cs.interfere([s, s, s], **args)
    assert word in str(e.value), str(e.value)


def test_bad_meshes(spheres):
    _, s = spheres
    with pytest.raises(ValueError, match="meshes"):
        cs.interfere([], backend="cpu")
    with pytest.raises(ValueError, match="meshes"):
        cs.interfere([s, "sphere.obj"], backend="cpu")
    with pytest.raises(ValueError, match="meshes"):
        cs.interfere(s, backend="cpu")
