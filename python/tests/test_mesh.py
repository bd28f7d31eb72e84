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
              cs.contains, cs.sdf_grid, cs.check, cs.gpu_adapter, cs.Mesh, cs.Grid,
              cs.tritri, cs.interfere, cs.simulate, cs.show, cs.render, cs.Grid.save):
        assert f.__doc__ and len(f.__doc__) > 80, f
    for word in ("sign", "backend", "return_closest", "chunk_size", "Returns"):
        assert word in cs.signed_distance.__doc__
    for word in ("pose_a", "4×4", "quaternion", "(K, 2)", "segments", "Returns"):
        assert word in cs.tritri.__doc__
    for word in ("scene", "orientation", "energy", "(F, B, 3)"):
        assert word in cs.simulate.__doc__


def box_gltf(path, translation):
    """The cube as a glTF file with its buffer in a data URI, placed by a
    parent node's translation and a child node's 90° turn about z."""
    import base64
    v, f = box_arrays()
    v = v.astype(np.float32)
    f = f.astype(np.uint16)
    blob = v.tobytes() + f.tobytes()
    doc = {
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [{"translation": translation, "children": [1]},
                  {"rotation": [0, 0, 0.70710678, 0.70710678], "mesh": 0}],
        "meshes": [{"name": "cube", "primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}],
        "buffers": [{"byteLength": len(blob),
                     "uri": "data:application/octet-stream;base64," + base64.b64encode(blob).decode()}],
        "bufferViews": [{"buffer": 0, "byteLength": v.nbytes},
                        {"buffer": 0, "byteOffset": v.nbytes, "byteLength": f.nbytes}],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": len(v), "type": "VEC3",
             "min": v.min(0).tolist(), "max": v.max(0).tolist()},
            {"bufferView": 1, "componentType": 5123, "count": f.size, "type": "SCALAR"},
        ],
    }
    path.write_text(json.dumps(doc))
    return v, f


def test_load_gltf_places_meshes_by_their_nodes(tmp_path):
    v, f = box_gltf(tmp_path / "cube.gltf", [1.0, 2.0, 3.0])
    m = cs.load(tmp_path / "cube.gltf")
    np.testing.assert_array_equal(m.faces, f)
    turned = np.stack([-v[:, 1], v[:, 0], v[:, 2]], axis=1)  # 90° about z
    np.testing.assert_allclose(m.vertices, turned + [1, 2, 3], atol=1e-6)
    d = cs.signed_distance(m, np.array([[1.0, 2.0, 3.0], [1.0, 2.0, 5.0]]), backend="cpu")
    np.testing.assert_allclose(d, [-1.0, 1.0], atol=1e-6)


def test_load_glb_skinned_character_in_its_bind_pose():
    m = cs.load(ASSETS / "CesiumMan.glb")
    assert len(m.faces) > 1000 and m.report()["triangles"] == len(m.faces)
    assert "CesiumMan.glb" in m.name


def test_load_gltf_errors(tmp_path):
    with pytest.raises(OSError, match="missing.glb"):
        cs.load(tmp_path / "missing.glb")
    bad = tmp_path / "bad.gltf"
    bad.write_text("{not json")
    with pytest.raises(ValueError, match="bad.gltf"):
        cs.load(bad)
    empty = tmp_path / "empty.gltf"
    empty.write_text(json.dumps({"asset": {"version": "2.0"}}))
    with pytest.raises(ValueError, match="no triangle"):
        cs.load(empty)
