"""The multi-body pipeline against the CLI's `simulate` trajectory (bit
for bit), from a dict and from a scene file."""

import json

import numpy as np
import pytest

import collidoscope as cs
from conftest import assert_calls_overlap, box_arrays, read_json, run_cli, write_obj


@pytest.fixture(scope="module")
def scene(tmp_path_factory):
    """Two boxes falling onto the ground, one on the other, the upper one
    turned; the scene file and the same scene as a dict."""
    folder = tmp_path_factory.mktemp("simulate")
    v, f = box_arrays(0.5)
    write_obj(folder / "box.obj", v, f)
    content = {
        "timestep": 1 / 60,
        "gravity": [0, -9.81, 0],
        "ground": {"point": [0, 0, 0], "normal": [0, 1, 0]},
        "bodies": [
            {"mesh": "box.obj", "position": [0, 0.8, 0]},
            {"mesh": "box.obj", "position": [0.2, 2.2, 0], "orientation": [0, 0, 0.2, 0.98],
             "angular_velocity": [0, 1, 0]},
        ],
    }
    path = folder / "scene.json"
    path.write_text(json.dumps(content))
    as_dict = json.loads(json.dumps(content))
    for b in as_dict["bodies"]:
        b["mesh"] = str(folder / b["mesh"])
    return path, as_dict


def check_against_cli(got, cli):
    frames = cli["frames"]
    assert len(got["t"]) == len(frames)
    np.testing.assert_array_equal(got["t"], [fr["t"] for fr in frames])
    np.testing.assert_array_equal(got["contacts"], [fr["contacts"] for fr in frames])
    for key in ("position", "orientation", "velocity", "angular_velocity"):
        expected = np.array([[b[key] for b in fr["bodies"]] for fr in frames], dtype=np.float32)
        np.testing.assert_array_equal(got[key], expected, err_msg=key)


def test_cpu_equals_the_cli_bit_for_bit(scene, tmp_path):
    path, as_dict = scene
    out = tmp_path / "trajectory.json"
    run_cli("simulate", path, "--frames", 90, "--backend", "cpu", "--out", out)
    cli = read_json(out)
    got = cs.simulate(path, 90, backend="cpu")
    assert got["backend"] == "cpu" and got["broad"] == "sweep"
    assert got["position"].shape == (90, 2, 3) and got["orientation"].shape == (90, 2, 4)
    assert got["position"].dtype == np.float32 and got["energy"].dtype == np.float64
    check_against_cli(got, cli)
    from_dict = cs.simulate(as_dict, 90, backend="cpu")
    for key in ("position", "orientation", "energy", "contacts"):
        np.testing.assert_array_equal(from_dict[key], got[key])
    # The boxes fall and land (the turned one slides off the other): contacts
    # appear, the lower box rests on the ground, energy is lost, not gained.
    assert got["contacts"][-1] > 0
    assert abs(got["position"][-1, 0, 1] - 0.5) < 0.02
    assert got["position"][0, 1, 1] > got["position"][-1, 1, 1] > 0.45
    assert got["energy"][-1] < got["energy"][0]
    assert (np.diff(got["energy"]) < 1e-3 * abs(got["energy"][0]) + 1e-6).all()


def test_gpu_equals_the_cli(scene, gpu, tmp_path):
    path, _ = scene
    out = tmp_path / "trajectory.json"
    run_cli("simulate", path, "--frames", 70, "--backend", "gpu", "--out", out)
    got = cs.simulate(path, 70, backend="gpu")
    assert got["backend"] == "gpu"
    check_against_cli(got, read_json(out))


def test_image_broad_phase_and_options(scene):
    _, as_dict = scene
    got = cs.simulate(as_dict, 5, backend="cpu", broad="image", image_res=32, res=16,
                      contact_threshold=0.001)
    assert got["broad"] == "image" and got["position"].shape == (5, 2, 3)
    assert cs.simulate(as_dict, 0, backend="cpu")["position"].shape == (0, 2, 3)
    arrays = dict(as_dict, gravity=np.array([0.0, -9.81, 0.0]))  # numpy arrays as lists
    assert cs.simulate(arrays, 1, backend="cpu")["t"][0] == pytest.approx(1 / 60)


@pytest.mark.parametrize("change, kwargs, error, words", [
    ({"statc": True}, {}, ValueError, ["scene", "statc"]),
    ({"timestep": -1}, {}, ValueError, ["scene", "timestep"]),
    ({"bodies": []}, {}, ValueError, ["scene", "bodies"]),
    ({"bodies": [{"mesh": "/nowhere/box.obj"}]}, {}, ValueError, ["bodies[0].mesh"]),
    ({"bodies": [{"mesh": "MESH", "orientation": [0, 0, 1]}]}, {}, ValueError, ["orientation"]),
    ({}, {"frames": -1}, ValueError, ["frames"]),
    ({}, {"broad": "fast"}, ValueError, ["broad"]),
    ({}, {"image_res": 4}, ValueError, ["image_res"]),
    ({}, {"res": 2}, ValueError, ["res"]),
    ({}, {"contact_threshold": -1.0}, ValueError, ["contact_threshold"]),
    ({}, {"threshold": float("nan")}, ValueError, ["threshold"]),
    ({}, {"backend": "cuda"}, ValueError, ["backend"]),
])
def test_bad_scenes_and_options(scene, change, kwargs, error, words):
    _, as_dict = scene
    mesh = as_dict["bodies"][0]["mesh"]
    change = json.loads(json.dumps(change).replace('"MESH"', json.dumps(mesh)))
    args = {"frames": 1, "backend": "cpu", **kwargs}
    with pytest.raises(error) as e:
        cs.simulate({**as_dict, **change}, args.pop("frames"), **args)
    for w in words:
        assert w in str(e.value), str(e.value)


def test_scene_file_errors(tmp_path):
    with pytest.raises(OSError, match="missing.json"):
        cs.simulate(tmp_path / "missing.json", 1, backend="cpu")
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    with pytest.raises(ValueError, match="not JSON"):
        cs.simulate(str(bad), 1, backend="cpu")
    with pytest.raises(ValueError, match="scene"):
        cs.simulate(object(), 1, backend="cpu")


def test_simulations_release_the_gil(scene):
    _, as_dict = scene
    assert_calls_overlap(lambda: cs.simulate(as_dict, 40, backend="cpu"))


def test_odd_inputs_raise_errors_never_panics(scene, box):
    """A panic inside the library comes back as RuntimeError, never as
    pyo3's PanicException (a BaseException that `except Exception`
    misses)."""
    _, as_dict = scene
    mesh = as_dict["bodies"][0]["mesh"]
    calls = [
        lambda: cs.tritri(box, None, box, [1e30, 0, 0], backend="cpu"),
        lambda: cs.tritri(box, [3e38, -3e38, 0], box, [-3e38, 0, 3e38], backend="cpu"),
        lambda: cs.interfere([box], res=1, backend="cpu"),
        lambda: cs.interfere([box, box], [None, [1e6, 0, 0]], res=(1, 9), backend="cpu"),
        lambda: cs.simulate({"timestep": 1, "bodies": [{"mesh": mesh, "position": [0, 1e30, 0]}]},
                            3, backend="cpu"),
        lambda: cs.simulate({"timestep": 1e-9, "bodies": [{"mesh": mesh, "density": 1e-30}]},
                            2, backend="cpu"),
    ]
    for call in calls:
        try:
            call()
        except Exception:
            pass
