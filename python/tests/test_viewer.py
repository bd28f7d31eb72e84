"""show() under Xvfb with a script that closes the window, render() to a
PNG, and their errors."""

import os
import shutil
import struct
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import collidoscope as cs
from conftest import ROOT, cli


@pytest.fixture
def program(monkeypatch):
    monkeypatch.setenv("COLLIDOSCOPE_BIN", str(cli()))
    return cli()


def png_size(path):
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    return struct.unpack(">II", data[16:24])


def test_render_mesh_field_and_slice(spot, program, tmp_path):
    shot = cs.render(spot, tmp_path / "mesh.png", size=(320, 200), backend="cpu")
    assert shot == tmp_path / "mesh.png" and png_size(shot) == (320, 200)
    grid = cs.sdf_grid(spot, res=24, backend="cpu")
    field = cs.render(spot, tmp_path / "field.png", field=grid, size=(320, 200), backend="cpu")
    w, h = png_size(field)
    assert w >= 320 and h >= 200  # the legend adds its margins
    bare = cs.render(spot, tmp_path / "slice.png", view="slice", res=24, size=(200, 200),
                     legend=False, backend="cpu")
    assert max(png_size(bare)) <= 200


def test_render_errors(spot, box, program, tmp_path):
    with pytest.raises(ValueError, match="view"):
        cs.render(spot, tmp_path / "x.png", view="cells")
    with pytest.raises(ValueError, match="narrow-band"):
        cs.render(box, tmp_path / "x.png", field=cs.sdf_grid(box, res=8, band=2, backend="cpu"))
    with pytest.raises(ValueError, match="field"):
        cs.render(box, tmp_path / "x.png", field=np.zeros((4, 4, 4)))
    with pytest.raises(ValueError, match="size"):
        cs.render(box, tmp_path / "x.png", size="big")
    with pytest.raises(RuntimeError, match="--out"):  # the program's own message
        cs.render(box, tmp_path / "x.jpg", backend="cpu")


def test_missing_program_is_a_clear_error(box, monkeypatch, tmp_path):
    monkeypatch.setenv("COLLIDOSCOPE_BIN", str(tmp_path / "nothing"))
    with pytest.raises(RuntimeError, match="COLLIDOSCOPE_BIN"):
        cs.render(box, tmp_path / "x.png")
    monkeypatch.delenv("COLLIDOSCOPE_BIN")
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(RuntimeError, match="cannot find the collidoscope program"):
        cs.render(box, tmp_path / "x.png")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="DISPLAY is Linux's")
def test_show_without_a_display_names_xvfb_and_render(box, monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    with pytest.raises(RuntimeError) as e:
        cs.show(box)
    assert "xvfb-run" in str(e.value) and "collidoscope.render" in str(e.value)


def test_show_bad_arguments(box, program, monkeypatch):
    monkeypatch.setenv("DISPLAY", ":99")  # never reached: the arguments fail first
    with pytest.raises(ValueError, match="values"):
        cs.show(box, points=np.zeros((3, 3)))
    with pytest.raises(ValueError, match="not both"):
        cs.show(box, field=cs.sdf_grid(box, res=8, backend="cpu"), points=np.zeros((1, 3)),
                values=np.zeros(1))
    with pytest.raises(ValueError, match="points"):
        cs.show(box, points=np.zeros((3, 2)), values=np.zeros(3))
    with pytest.raises(ValueError, match="mesh"):
        cs.show(42)


@pytest.mark.skipif(shutil.which("xvfb-run") is None, reason="needs xvfb-run")
@pytest.mark.parametrize("what", ["grid", "points"])
def test_show_blocks_until_the_scripted_window_closes(what, program, tmp_path):
    """The viewer opens on the arrays, takes a screenshot and quits; show()
    returns after it."""
    shot = tmp_path / "shot.png"
    code = textwrap.dedent(f"""
        import numpy as np, collidoscope as cs
        from conftest import box_arrays
        box = cs.Mesh(*box_arrays(), name="box")
        if {what!r} == "grid":
            kw = dict(field=cs.sdf_grid(box, res=16, backend="cpu"))
        else:
            p = np.random.default_rng(0).uniform(-1.5, 1.5, (500, 3))
            kw = dict(points=p, values=cs.signed_distance(box, p, backend="cpu") + 0.01)
        cs.show(box, script="expect-mesh:box; wait:5; screenshot:{shot}; quit", **kw)
        print("returned")
    """)
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python" / "tests"))
    done = subprocess.run(["xvfb-run", "-a", "-s", "-screen 0 1280x800x24", sys.executable,
                           "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "returned" in done.stdout
    w, h = png_size(shot)
    assert w > 100 and h > 100
