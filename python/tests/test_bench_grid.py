"""The grid benchmark runs end to end on tiny meshes (its timings are not
checked), the book's table reads its CSV, and the open test meshes it
generates are open where they should be, with large regions where the
winding number is near ½."""

import csv
import importlib.util
import subprocess
import sys

import numpy as np

import collidoscope as cs

from conftest import ROOT, icosphere, write_obj

BENCH = ROOT / "python" / "bench"


def module(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    return loaded


def test_grid_bench_writes_rows_and_the_tables_read_them(tmp_path, gpu):
    mesh = write_obj(tmp_path / "sphere.obj", *icosphere(1))
    out = tmp_path / "grid.csv"
    run = subprocess.run([sys.executable, BENCH / "bench_grid.py", mesh, "--no-warp",
                          "--generate", tmp_path / "open", "--stacks", "8", "--res", "12,16",
                          "--repeats", "2", "--out", out], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    rows = list(csv.DictReader(out.open()))
    meshes = ["sphere", "capless-sphere", "slit-sphere", "open-scan"]
    assert [(r["mesh"], r["resolution"], r["sign"]) for r in rows] == [
        (m, res, s) for m in meshes for res in ("12", "16") for s in ("pseudo-normal", "winding")]
    for r in rows:
        nz_ny_nx = int(r["cells"])
        assert nz_ny_nx >= int(r["resolution"]) ** 2 and float(r["wall_ms"]) > 0
        assert r["backend"] == "gpu" and r["device"] and r["date"] and r["repeats"] == "2"
        assert r["warp_ms"] == "" and r["sign_disagreements"] == ""  # Warp left out
        if r["gpu_ms"]:  # the adapter has timestamp queries
            assert 0 < float(r["gpu_ms"]) <= float(r["wall_ms"])
    assert rows[0]["triangles"] == "80"
    tables = module(ROOT / "scripts" / "bench-tables.py", "bench_tables")
    lines = tables.grid_warp_table(out)
    body = [l for l in lines if l.startswith("| ")][1:]
    assert len(body) == len(rows) and body[0].startswith("| sphere (80) | 12³ | pseudo-normal |")
    assert any("grid.csv" in l for l in lines)


def test_warp_is_compared_cell_by_cell():
    bench = module(BENCH / "bench_grid.py", "bench_grid")
    field = np.array([-1.0, 0.5, 2.0, -0.25], np.float32)
    theirs = np.array([-1.0, -0.5, 2.25, 0.25], np.float32)
    error, cells, disagree = bench.compare(theirs, field, cell_size=0.5)
    assert (error, cells, disagree) == (0.25, 0.5, 2)


def test_open_meshes_are_open_with_wide_regions_near_one_half():
    """Each generated mesh has boundary edges (a hole, a slit, the scan's
    open side and drop-outs), no edge shared by more than two faces, and,
    unlike a closed sphere, a twentieth or more (the capless sphere, the
    scan) or some (the slit) of the cells of a 24³ grid over them have |w|
    within 0.15 of ½."""
    meshes = module(BENCH / "open_meshes.py", "open_meshes")
    near_half = {}
    for name in meshes.NAMES:
        v, f = meshes.generate(name, stacks=16)
        edges = np.sort(np.concatenate([f[:, [0, 1]], f[:, [1, 2]], f[:, [2, 0]]]), axis=1)
        counts = np.unique(edges, axis=0, return_counts=True)[1]
        assert (counts == 1).sum() > 0 and counts.max() == 2, name
        assert len(np.unique(f)) == len(v), f"{name}: every vertex used"
        mesh = cs.Mesh(v, f)
        centres = cs.sdf_grid(mesh, res=24, backend="cpu").cell_centers().reshape(-1, 3)
        w = cs.winding_number(mesh, centres)
        near_half[name] = np.mean(np.abs(np.abs(w) - 0.5) < 0.15)
    assert near_half["capless-sphere"] > 0.05 and near_half["open-scan"] > 0.05, near_half
    assert near_half["slit-sphere"] > 0.004, near_half
    closed = cs.Mesh(*icosphere(2))
    centres = cs.sdf_grid(closed, res=24, backend="cpu").cell_centers().reshape(-1, 3)
    assert not (np.abs(np.abs(cs.winding_number(closed, centres)) - 0.5) < 0.15).any()
    # The same parameters give the same mesh.
    a, b = meshes.generate("open-scan", 16), meshes.generate("open-scan", 16)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
