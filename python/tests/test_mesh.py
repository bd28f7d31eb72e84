"""Meshes from arrays and files, their reports, and bad input."""

import json

import numpy as np
import pytest

import collidoscope as cs
from conftest import ASSETS, box_arrays, run_cli


def test_mesh_from_any_dtype_and_layout():
    v, f = box_arrays()
    expected = cs.Mesh(v, f)
    for vv in (v, v.astype(np.float32), np.asfortranarray(v), v.tolist()):
        for ff in (f, f.astype(np.int32), f.astype(np.uint32), np.asfortranarray(f), f.astype(np.int16)):
            m = cs.Mesh(vv, ff)
            np.testing.assert_array_equal(m.vertices, expected.vertices)
            np.testing.assert_array_equal(m.faces, expected.faces)
    assert expected.vertices.dtype == np.float32 and expected.faces.dtype == np.int64
    assert "12 faces" in repr(expected)


@pytest.mark.parametrize("vertices, faces, words", [
    (np.zeros((0, 3)), np.zeros((0, 3), dtype=int), ["vertices", "no vertices"]),
    (np.eye(3), np.zeros((0, 3), dtype=int), ["faces", "no faces"]),
    (np.eye(3)[:, :2], [[0, 1, 2]], ["vertices", "(N, 3)"]),
    (np.eye(3), [[0, 1]], ["faces", "(F, 3)"]),
    (np.eye(3).astype(int), [[0, 1, 2]], ["vertices", "int64"]),
    (np.eye(3), [[0.0, 1.0, 2.0]], ["faces", "float64"]),
    (np.eye(3), [[0, 1, 3]], ["faces", "face 0", "outside"]),
    (np.eye(3), [[0, 1, 2], [0, -1, 2]], ["faces", "face 1"]),
    (np.array([[0, 0, 0], [1, 0, np.nan], [0, 1, 0]]), [[0, 1, 2]], ["vertices", "row 1"]),
])
def test_bad_meshes_are_value_errors(vertices, faces, words):
    with pytest.raises(ValueError) as e:
        cs.Mesh(vertices, faces)
    for w in words:
        assert w in str(e.value), str(e.value)


def test_degenerate_meshes_are_refused():
    with pytest.raises(ValueError, match="faces: .*zero area"):
        cs.Mesh([[0.0, 0, 0], [1, 0, 0], [2, 0, 0]], [[0, 1, 2]])


def test_report_of_a_closed_box():
    v, f = box_arrays()
    r = cs.Mesh(v, f).report()
    assert r["closed"] and r["consistently_oriented"] and r["pseudo_normal_sign_trusted"]
    assert r["boundary_edges"] == 0 and r["non_manifold_edges"] == 0
    assert r["closed_shell_volumes"] == pytest.approx([8.0])
    assert r["sign"] == "pseudo-normal" and "closed" in r["sign_reason"]
    assert r["warnings"] == []
    assert r["repairs"] == {"degenerate_skipped": 0, "duplicates_removed": 0, "shells_flipped": 0}


def test_report_of_an_inward_box_with_duplicates():
    v, f = box_arrays()
    r = cs.Mesh(v, f[:, ::-1]).report()
    assert r["closed_shell_volumes"] == pytest.approx([-8.0]) and r["inward_shells"] == 1
    assert r["repairs"]["shells_flipped"] == 1
    f = np.concatenate([f[:, ::-1], f[:1, ::-1]])
    r = cs.Mesh(v, f).report()
    assert r["duplicate_faces"] == 1 and r["non_manifold_edges"] > 0
    assert r["repairs"]["shells_flipped"] == 1 and r["repairs"]["duplicates_removed"] == 1


def test_report_equals_cli_info(bunny):
    out = run_cli("info", ASSETS / "stanford-bunny.obj", "--json")
    cli = json.loads(out.stdout)
    ours = bunny.report()
    for key, value in cli.items():
        if key != "name":  # the file's path there, the object's name here
            assert ours[key] == value, key
    assert ours["sign"] == "winding" and "cannot be trusted" in ours["sign_reason"]


def test_load_errors(tmp_path):
    with pytest.raises(OSError, match="missing.obj"):
        cs.load(tmp_path / "missing.obj")
    bad = tmp_path / "bad.obj"
    bad.write_text("v 0 0 0\nv 1 0 0\nf 1 2 9\n")
    with pytest.raises(ValueError):
        cs.load(bad)
    partial = tmp_path / "partial.obj"
    partial.write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nf 1 2\n")
    with pytest.warns(UserWarning, match="partial.obj"):
        m = cs.load(str(partial))
    assert len(m.faces) == 1


def test_help_is_enough():
    for f in (cs.load, cs.signed_distance, cs.unsigned_distance, cs.winding_number,
              cs.contains, cs.sdf_grid, cs.check, cs.gpu_adapter, cs.Mesh, cs.Grid):
        assert f.__doc__ and len(f.__doc__) > 80, f
    for word in ("sign", "backend", "return_closest", "chunk_size", "Returns"):
        assert word in cs.signed_distance.__doc__
