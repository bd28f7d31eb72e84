"""check(): the report `collidoscope check` writes, from arrays."""

import numpy as np
import pytest

import collidoscope as cs
from conftest import ASSETS, random_points, read_json, run_cli


@pytest.mark.parametrize("backend", ["cpu", "gpu"])
def test_own_grid_checks_clean(spot, backend, request):
    if backend == "gpu":
        request.getfixturevalue("gpu")
    grid = cs.sdf_grid(spot, res=16, sign="winding", backend="cpu")
    report = cs.check(grid, spot, backend=backend)
    assert report["points"] == grid.values.size
    assert report["sign_disagreements"] == 0
    assert report["max_abs_error"] <= 1e-6
    assert report["layout"]["kind"] == "grid" and report["layout"]["axis_order"] == "zyx"
    assert report["reference"]["backend"] == backend


def test_wrong_values_are_found_and_the_report_equals_the_cli(spot, tmp_path):
    grid = cs.sdf_grid(spot, res=16, sign="winding", backend="cpu")
    values = grid.values.copy()
    k, j, i = np.argwhere(values < 0)[0]
    values[k, j, i] = -values[k, j, i]  # one flipped sign
    values[0, 0, 0] += 0.01
    report = cs.check(values, spot, origin=grid.origin, cell_size=grid.cell_size, backend="cpu")
    assert report["sign_disagreements"] == 1
    assert report["sign_disagreement_indices"] == [[int(k), int(j), int(i)]]
    # The same field through the CLI.
    np.save(tmp_path / "field.npy", values)
    origin = ",".join(map(str, grid.origin))
    run_cli("check", tmp_path / "field.npy", "--mesh", ASSETS / "spot.obj", "--origin=" + origin,
            "--cell-size", repr(grid.cell_size), "--axis-order", "zyx", "--backend", "cpu",
            "--out", tmp_path / "report.json")
    cli = read_json(tmp_path / "report.json")
    for key in ("points", "max_abs_error", "mean_abs_error", "sign_disagreements",
                "sign_disagreement_indices", "worst", "histogram", "layout", "mesh_hash"):
        assert report[key] == cli[key], key
    # xyz order: the same field transposed.
    xyz = cs.check(values.transpose(2, 1, 0), spot, origin=grid.origin,
                   cell_size=grid.cell_size, axis_order="xyz", backend="cpu")
    assert xyz["sign_disagreements"] == 1 and xyz["max_abs_error"] == report["max_abs_error"]


def test_points(bunny):
    p = random_points(bunny, 500, seed=10)
    exact = cs.signed_distance(bunny, p, sign="winding", backend="cpu")
    report = cs.check(exact, bunny, points=p, backend="cpu")
    assert report["max_abs_error"] == 0 and report["layout"]["kind"] == "points"
    flipped = exact.copy()
    flipped[7] = -flipped[7]
    report = cs.check(flipped, bunny, points=p, cell_size=0.01, backend="cpu")
    assert report["sign_disagreement_indices"] == [7]
    assert report["max_abs_error_cells"] == pytest.approx(2 * abs(exact[7]) / 0.01, rel=1e-5)


def test_bad_checks(spot):
    grid = cs.sdf_grid(spot, res=8, backend="cpu")
    v = grid.values
    cases = [
        (lambda: cs.check(v, spot), "origin"),
        (lambda: cs.check(v, spot, origin=grid.origin, cell_size=-1.0), "cell_size"),
        (lambda: cs.check(v, spot, origin=grid.origin, cell_size=0.1, axis_order="yxz"), "axis_order"),
        (lambda: cs.check(np.where(v > 0, np.nan, v), spot, origin=grid.origin, cell_size=0.1), "values"),
        (lambda: cs.check(v[0], spot, origin=grid.origin, cell_size=0.1), "values"),
        (lambda: cs.check(v, spot, origin=(1e3, 1e3, 1e3), cell_size=0.1), "mesh"),
        (lambda: cs.check(np.zeros(3), spot, points=np.zeros((4, 3))), "values"),
        (lambda: cs.check(np.zeros(1), spot, points=np.zeros((1, 3)), origin=(0, 0, 0)), "origin"),
        (lambda: cs.check(grid, spot, origin=(0, 0, 0)), "origin"),
        (lambda: cs.check(v.astype(np.int32), spot, origin=grid.origin, cell_size=0.1), "values"),
    ]
    for call, word in cases:
        with pytest.raises(ValueError, match=word):
            call()
