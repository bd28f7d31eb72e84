"""Grids: the CLI's own .npy bit for bit, analytic values, GPU = CPU."""

import numpy as np
import pytest

import collidoscope as cs
from conftest import ASSETS, box_sdf, read_json, run_cli


def test_cpu_grid_equals_the_cli_bit_for_bit(spot, tmp_path):
    run_cli("sdf", ASSETS / "spot.obj", "--res", 24, "--pad", 0.15, "--backend", "cpu",
            "--no-cache", "--out", tmp_path / "cli.npy")
    grid = cs.sdf_grid(spot, res=24, pad=0.15, backend="cpu", out=tmp_path / "ours.npy")
    cli = np.load(tmp_path / "cli.npy")
    assert grid.values.shape == cli.shape and grid.values.dtype == np.float32
    np.testing.assert_array_equal(grid.values, cli)
    assert (tmp_path / "ours.npy").read_bytes() == (tmp_path / "cli.npy").read_bytes()
    meta, ours = read_json(tmp_path / "cli.json"), read_json(tmp_path / "ours.json")
    for key in ("shape", "origin", "cell_size", "sign_mode", "mesh_hash", "axis_order"):
        assert ours[key] == meta[key], key
    assert list(grid.origin) == meta["origin"] and grid.cell_size == meta["cell_size"]
    assert grid.axis_order == "zyx" and grid.info["mesh_hash"] == meta["mesh_hash"]


def test_gpu_grid_equals_the_cli(spot, gpu, tmp_path):
    run_cli("sdf", ASSETS / "spot.obj", "--res", 20, "--backend", "gpu", "--sign", "winding",
            "--no-cache", "--out", tmp_path / "cli.npy")
    grid = cs.sdf_grid(spot, res=20, sign="winding", backend="gpu")
    np.testing.assert_array_equal(grid.values, np.load(tmp_path / "cli.npy"))
    cpu = cs.sdf_grid(spot, res=20, sign="winding", backend="cpu")
    np.testing.assert_allclose(grid.values, cpu.values, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(np.sign(grid.values), np.sign(cpu.values))


@pytest.mark.parametrize("backend", ["cpu", "gpu"])
def test_box_grid_is_analytic(box, backend, request):
    if backend == "gpu":
        request.getfixturevalue("gpu")
    grid = cs.sdf_grid(box, res=16, pad=0.3, backend=backend)
    centers = grid.cell_centers()
    assert centers.shape == grid.values.shape + (3,)
    expected = box_sdf(centers.reshape(-1, 3).astype(np.float64)).reshape(grid.values.shape)
    np.testing.assert_allclose(grid.values, expected, atol=2e-6)
    # The grid's points give the point queries' values.
    points = cs.signed_distance(box, centers.reshape(-1, 3), backend="cpu")
    np.testing.assert_allclose(points.reshape(grid.values.shape), grid.values, atol=1e-6)


def test_band(box):
    grid = cs.sdf_grid(box, res=16, band=2, backend="cpu")
    assert grid.band_world == pytest.approx(2 * grid.cell_size)
    assert np.abs(grid.values).max() <= grid.band_world + 1e-7
    far = np.abs(grid.values) == np.float32(grid.band_world)
    exact = box_sdf(grid.cell_centers().reshape(-1, 3).astype(np.float64))
    exact = exact.reshape(grid.values.shape)
    assert far.any()
    np.testing.assert_array_equal(np.sign(grid.values[far]), np.sign(exact[far]))
    near = np.abs(exact) < grid.band_world - 1e-6
    np.testing.assert_allclose(grid.values[near], exact[near], atol=2e-6)


@pytest.mark.parametrize("kwargs, word", [
    ({"res": 4}, "res"),
    ({"res": 4096}, "res"),
    ({"pad": -1.0}, "pad"),
    ({"pad": float("nan")}, "pad"),
    ({"band": 0.5}, "band"),
    ({"sign": "outside"}, "sign"),
    ({"backend": "tpu"}, "backend"),
])
def test_bad_grid_parameters(box, kwargs, word):
    with pytest.raises(ValueError, match=word):
        cs.sdf_grid(box, **kwargs)


def test_refuses_an_output_it_cannot_write(box, tmp_path):
    with pytest.raises(OSError, match="out"):
        cs.sdf_grid(box, res=8, backend="cpu", out=tmp_path)  # a directory
