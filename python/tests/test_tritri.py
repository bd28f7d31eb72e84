"""Triangle–triangle collision of two posed meshes against the CLI's
`tritri --all-pairs` (the Rust CPU reference) and between backends."""

import numpy as np
import pytest

import collidoscope as cs
from conftest import ASSETS, quaternion_matrix, read_json, run_cli

T = [0.31, -0.22, 0.17]
Q = [0.2, -0.4, 0.3, 0.85]  # normalised when used


def test_overlapping_boxes_collide_along_segments_on_both(box):
    hit = cs.tritri(box, None, box, ([0.5, 0.5, 0.5], [0, 0, 0, 1]), backend="cpu")
    assert hit["collides"] and hit["backend"] == "cpu" and hit["predicate"] == "exact"
    pairs, segments = hit["pairs"], hit["segments"]
    assert pairs.dtype == np.int64 and pairs.shape[1] == 2 and len(pairs) > 0
    assert segments.dtype == np.float32 and segments.shape == (len(pairs), 2, 3)
    assert (pairs >= 0).all() and (pairs < 12).all()
    # Every end point lies on both boxes' surfaces: in both boxes, on a face of each.
    p = segments.reshape(-1, 3)
    for centre in (np.zeros(3), np.full(3, 0.5)):
        q = np.abs(p - centre)
        assert (q <= 1 + 1e-6).all() and (np.abs(q.max(axis=1) - 1) < 1e-5).all()
    assert hit["near_touching"] is not None


def test_apart_and_first_only(box):
    apart = cs.tritri(box, None, box, [3.0, 0, 0], backend="cpu")
    assert not apart["collides"]
    assert apart["pairs"].shape == (0, 2) and apart["segments"].shape == (0, 2, 3)
    first = cs.tritri(box, None, box, [0.5, 0, 0], all_pairs=False, backend="cpu")
    assert first["collides"] and len(first["pairs"]) == 0


def test_pose_forms_agree(spot):
    expected = cs.tritri(spot, None, spot, (T, Q), backend="cpu")
    assert expected["collides"] and len(expected["pairs"]) > 10
    for pose in (T + Q, np.array(T + Q), quaternion_matrix(T, Q), quaternion_matrix(T, Q).tolist()):
        got = cs.tritri(spot, np.eye(4), spot, pose, backend="cpu")
        np.testing.assert_array_equal(got["pairs"], expected["pairs"])
        np.testing.assert_allclose(got["segments"], expected["segments"], atol=1e-5)


def test_equals_the_cli_bit_for_bit(spot, tmp_path):
    ta, qa = [0.0, 0.05, 0.0], [0.0, 0.0, 0.0, 1.0]
    hit = cs.tritri(spot, (ta, qa), spot, (T, Q), backend="cpu")
    out = tmp_path / "pairs.json"
    fmt = lambda v: ",".join(repr(float(x)) for x in v)  # noqa: E731
    run_cli("tritri", ASSETS / "spot.obj", ASSETS / "spot.obj", "--pose-a", fmt(ta + qa),
            "--pose-b", fmt(T + Q), "--all-pairs", "--backend", "cpu", "--out", out)
    cli = read_json(out)
    assert cli["collides"] == hit["collides"] and cli["near_touching"] == hit["near_touching"]
    np.testing.assert_array_equal(np.array(cli["pairs"], dtype=np.int64), hit["pairs"])
    np.testing.assert_array_equal(np.array(cli["segments"], dtype=np.float32), hit["segments"])


def test_gpu_equals_cpu(spot, gpu):
    cpu = cs.tritri(spot, None, spot, (T, Q), backend="cpu")
    on_gpu = cs.tritri(spot, None, spot, (T, Q), backend="gpu")
    assert on_gpu["backend"] == "gpu" and on_gpu["near_touching"] is None
    ours, theirs = (set(map(tuple, r["pairs"])) for r in (cpu, on_gpu))
    # float32 and exact answers differ only on pairs within rounding of touching.
    assert len(ours ^ theirs) <= cpu["near_touching"]
    assert len(ours & theirs) > 0.95 * len(ours)
    both = sorted(ours & theirs)
    at = lambda r: {tuple(p): s for p, s in zip(r["pairs"], r["segments"])}  # noqa: E731
    a, b = at(cpu), at(on_gpu)
    for pair in both:  # the same segment, its ends possibly swapped
        sa, sb = a[pair], b[pair]
        assert min(np.abs(sa - sb).max(), np.abs(sa - sb[::-1]).max()) < 1e-4, pair


def scale(s):
    m = np.eye(4)
    m[:3, :3] *= s
    return m


@pytest.mark.parametrize("pose, words", [
    (scale(2.0), ["pose_b", "rotation and a translation"]),
    (np.diag([1.0, 1.0, -1.0, 1.0]), ["pose_b", "reflects"]),
    (np.array([[1.0, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [1, 0, 0, 1]]), ["pose_b", "last row"]),
    (np.zeros((3, 3)), ["pose_b", "shape"]),
    ([1.0, 2.0], ["pose_b", "shape"]),
    ([0.0, 0, np.nan], ["pose_b", "finite"]),
    (([0, 0, 0], [0, 0, 0, 0]), ["pose_b", "quaternion"]),
    (([0, 0], [0, 0, 0, 1]), ["pose_b", "3 and 4"]),
    ("left", ["pose_b"]),
])
def test_bad_poses_are_value_errors(box, pose, words):
    with pytest.raises(ValueError) as e:
        cs.tritri(box, None, box, pose, backend="cpu")
    for w in words:
        assert w in str(e.value), str(e.value)


def test_bad_options(box):
    with pytest.raises(ValueError, match="predicate"):
        cs.tritri(box, None, box, None, predicate="fast", backend="cpu")
    with pytest.raises(ValueError, match="backend"):
        cs.tritri(box, None, box, None, backend="cuda")
    with pytest.raises(TypeError):
        cs.tritri("box.obj", None, box, None)
    # The tutorial's predicate runs too (and finds the same on a clear overlap).
    tut = cs.tritri(box, None, box, [0.5, 0.5, 0.5], predicate="tutorial", backend="cpu")
    assert tut["collides"] and tut["predicate"] == "tutorial"

