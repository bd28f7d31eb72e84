"""The benchmark script runs end to end on a tiny mesh (its timings are
not checked), and the summary turns its CSV into a table."""

import csv
import importlib.util
import subprocess
import sys

import numpy as np
import pytest

import collidoscope as cs

from conftest import ROOT, icosphere, write_obj

BENCH = ROOT / "python" / "bench"


def test_bench_writes_rows_and_the_summary_reads_them(tmp_path):
    mesh = write_obj(tmp_path / "sphere.obj", *icosphere(1))
    out = tmp_path / "bench.csv"
    run = subprocess.run([sys.executable, BENCH / "bench_signed_distance.py", mesh,
                          "--points", "1000", "--overhead-points", "100", "--repeats", "2",
                          "--out", out], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    rows = list(csv.DictReader(out.open()))
    has_warp = importlib.util.find_spec("warp") is not None
    assert len(rows) == (4 if has_warp else 2)
    assert {r["points"] for r in rows} == {"1000", "100"}
    ours = [r for r in rows if r["tool"].startswith("collidoscope")]
    assert len(ours) == 2 and all(float(r["with_copies_ms"]) > 0 for r in ours)
    assert all(r["mesh"] == "sphere.obj" and r["triangles"] == "80" for r in rows)
    if has_warp:
        warp = [r for r in rows if r["tool"].startswith("warp")]
        assert all(float(r["kernel_ms"]) > 0 and int(r["sign_disagreements"]) >= 0 for r in warp)
    table = subprocess.run([sys.executable, BENCH / "summarize.py", out],
                           capture_output=True, text=True, check=True).stdout
    lines = table.splitlines()
    assert lines[0].startswith("| mesh | triangles | points | tool |")
    assert len(lines) == 2 + len(rows) and "1,000" in table


def bench_module():
    spec = importlib.util.spec_from_file_location("bench", BENCH / "bench_signed_distance.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return bench


def test_points_are_half_near_the_surface():
    bench = bench_module()
    v, f = icosphere(2)
    p = bench.sample_points(v, f, 2000)
    assert p.shape == (2000, 3) and p.dtype.name == "float32"
    r = np.linalg.norm(p[:1000], axis=1)
    diagonal = np.linalg.norm(v.max(0) - v.min(0))
    assert (np.abs(r - 1) <= 0.02 * diagonal + 0.02).all()  # near: within 2% (+ the chord sag)
    assert (np.abs(p[1000:]) <= 1).all()  # uniform in the box



def test_subdivision_keeps_the_surface():
    """Four triangles for one, the same area, a closed mesh again (every
    edge shared by two faces), and the same distances."""
    v, f = icosphere(1)
    sv, sf = bench_module().subdivided(v, f)
    assert len(sf) == 4 * len(f) and len(sv) == len(v) + len(f) * 3 // 2

    def area(v, f):
        a, b, c = (v[f[:, i]] for i in range(3))
        return 0.5 * np.linalg.norm(np.cross(b - a, c - a), axis=1).sum()

    assert area(sv, sf) == pytest.approx(area(v, f), rel=1e-12)
    edges = np.sort(np.concatenate([sf[:, [0, 1]], sf[:, [1, 2]], sf[:, [2, 0]]]), axis=1)
    assert (np.unique(edges, axis=0, return_counts=True)[1] == 2).all()
    p = np.random.default_rng(3).uniform(-1.5, 1.5, (500, 3))
    original = cs.signed_distance(cs.Mesh(v, f), p, backend="cpu")
    np.testing.assert_allclose(cs.signed_distance(cs.Mesh(sv, sf), p, backend="cpu"), original,
                               atol=1e-6)
