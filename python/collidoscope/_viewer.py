"""The viewer and offscreen pictures from Python, through the ``collidoscope``
program.

``show`` writes the arrays to a private temporary folder (the mesh as OBJ,
a field as .npy with its sidecar, points as .npz) and runs the viewer on
them, blocking until its window closes; ``render`` runs the program's
``render`` subcommand, which draws without a window. Running the program
rather than linking the viewer into the extension keeps the extension free
of the windowing stack (eframe, winit, a second event loop inside the
interpreter's process, which macOS only allows on the main thread) and
lets a crash of the viewer end the viewer, not the Python session.

The program is found as ``COLLIDOSCOPE_BIN`` names it, else beside the
package (``collidoscope/bin/collidoscope``), else on ``PATH``.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from ._collidoscope import Grid, Mesh, gpu_adapter, load

_EXE = "collidoscope.exe" if sys.platform == "win32" else "collidoscope"


def program():
    """The path of the ``collidoscope`` program (module docs); RuntimeError
    naming every place looked at when there is none."""
    named = os.environ.get("COLLIDOSCOPE_BIN")
    if named:
        if Path(named).is_file():
            return Path(named)
        raise RuntimeError(f"COLLIDOSCOPE_BIN is {named!r}, which is not a file")
    beside = Path(__file__).resolve().parent / "bin" / _EXE
    if beside.is_file():
        return beside
    found = shutil.which("collidoscope")
    if found:
        return Path(found)
    raise RuntimeError(
        "cannot find the collidoscope program (the viewer): looked at $COLLIDOSCOPE_BIN, "
        f"{beside} and PATH. Build it with `cargo build --release` in the repository "
        "and set COLLIDOSCOPE_BIN=target/release/collidoscope, or put it on PATH"
    )


def _has_display():
    if not sys.platform.startswith("linux"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def _write_obj(mesh, folder):
    """``mesh`` (a Mesh, or the path of a file ``load`` reads) as an OBJ
    file in ``folder``; returns the Mesh and the file."""
    if isinstance(mesh, (str, os.PathLike)):
        if not Path(mesh).is_file():
            raise ValueError(f"mesh: {mesh} is not a file")
        mesh = load(mesh)
    if not isinstance(mesh, Mesh):
        raise ValueError(f"mesh: expected a collidoscope.Mesh or a path, got {type(mesh).__name__}")
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", Path(mesh.name).stem) or "mesh"
    path = Path(folder) / f"{stem}.obj"
    v, f = mesh.vertices, mesh.faces + 1
    with open(path, "w") as out:
        # %.9g keeps every float32 exactly.
        np.savetxt(out, v, fmt="v %.9g %.9g %.9g")
        np.savetxt(out, f, fmt="f %d %d %d")
    return mesh, path


def _write_field(field, points, values, mesh, obj, folder):
    """The field to load beside the mesh: a Grid saved with its sidecar, a
    .npy/.npz path as it is, or ``points`` with ``values`` as .npz; None
    without any."""
    if field is not None and points is not None:
        raise ValueError("field, points: pass a field or a point set, not both")
    if field is not None:
        if isinstance(field, Grid):
            path = Path(folder) / "field.npy"
            field.save(path)
            if field.info.get("mesh_hash") == mesh.content_hash:
                # The OBJ written for the viewer loads with its vertices in
                # another order: the same geometry under another hash. The
                # checksum covers the .npy alone, so the sidecar may say so.
                sidecar = path.with_suffix(".json")
                info = json.loads(sidecar.read_text())
                info["mesh_hash"] = load(obj).content_hash
                sidecar.write_text(json.dumps(info, indent=2))
            return path
        if isinstance(field, (str, os.PathLike)) and Path(field).suffix in (".npy", ".npz"):
            if not Path(field).is_file():
                raise ValueError(f"field: {field} is not a file")
            return Path(field)
        raise ValueError(
            "field: expected a collidoscope.Grid (from sdf_grid) or the path of a .npy "
            "(with its sidecar) or .npz field; for values at your own points pass "
            "points= and values="
        )
    if points is None:
        if values is not None:
            raise ValueError("values: given without points")
        return None
    if values is None:
        raise ValueError("values: required with points (one value per point)")
    p = np.asarray(points, dtype=np.float32)
    v = np.asarray(values, dtype=np.float32)
    if p.ndim != 2 or p.shape[1] != 3 or len(p) == 0:
        raise ValueError(f"points: expected shape (N, 3) with N > 0, got {p.shape}")
    if v.shape != (len(p),):
        raise ValueError(f"values: expected shape ({len(p)},), one per point, got {v.shape}")
    if not (np.isfinite(p).all() and np.isfinite(v).all()):
        raise ValueError("points, values: NaN or inf")
    path = Path(folder) / "points.npz"
    np.savez(path, points=p, values=v)
    return path


def _run(args, what, folder):
    env = dict(os.environ)
    env.setdefault("XDG_RUNTIME_DIR", folder)  # private (0700), as wgpu and winit want it
    done = subprocess.run([str(program()), *map(str, args)], env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        tail = (done.stderr.strip() or done.stdout.strip()).splitlines()[-5:]
        raise RuntimeError(f"{what} failed (exit {done.returncode}): " + " / ".join(tail))
    return done


def show(mesh, field=None, points=None, values=None, *, script=None, camera=None):
    """Open the collidoscope viewer on ``mesh`` (and a field), and wait
    until its window is closed, as ``polyscope.show()`` does.

    Parameters
    ----------
    mesh : Mesh or path
        The mesh shown (a path: any file ``load`` reads).
    field : Grid or path, optional
        A field to show and check against the exact one (the signed
        distance field mode's Verify view): a ``Grid`` from ``sdf_grid``,
        or a .npy with collidoscope's sidecar or an .npz point set.
    points, values : array_like, optional
        Instead of ``field``: (N, 3) points with (N,) signed distances
        from any tool, checked and shown the same way.
    script : str, optional
        Viewer steps run after the files are open, as ``collidoscope
        --script`` takes them (``"wait; screenshot:shot.png; quit"``;
        ``collidoscope --script help`` lists them). With ``quit`` the call
        returns without anyone closing the window.
    camera : path, optional
        A camera saved as JSON by the viewer.

    The files go to a private temporary folder, removed when the viewer
    exits. Raises RuntimeError without a display (on Linux: neither
    DISPLAY nor WAYLAND_DISPLAY is set; run under ``xvfb-run``, or draw a
    PNG with ``collidoscope.render``), when the program is missing, or when
    the viewer fails; ValueError for bad arguments.
    """
    if not _has_display():
        raise RuntimeError(
            "show() needs a display and neither DISPLAY nor WAYLAND_DISPLAY is set: run "
            "under `xvfb-run` for a virtual one, or use collidoscope.render(mesh, out='x.png') "
            "to draw a PNG without a window"
        )
    program()  # a missing program is the error, before any file is written
    with tempfile.TemporaryDirectory(prefix="collidoscope-show-") as folder:
        mesh, obj = _write_obj(mesh, folder)
        loaded = _write_field(field, points, values, mesh, obj, folder)
        # A scripted session opens what its steps open (a sample otherwise).
        steps = [f"open:{obj}"]
        if loaded is not None:
            steps.append(f"open-field:{loaded}")
        if script:
            steps.append(script)
        args = ["--script", "; ".join(steps)]
        if camera is not None:
            args += ["--camera", Path(camera)]
        _run(args, "the viewer", folder)


def render(mesh, out, *, view=None, field=None, size=(1600, 1000), res=64, pad=0.1,
           sign=None, backend=None, camera=None, axis="z", slice_index=None,
           colormap="sundholm", filter="all", iso=None, opacity=1.0, legend=True):
    """Draw ``mesh``, its field's cells or a slice of its field to a PNG,
    without a window (``collidoscope render``).

    Parameters
    ----------
    mesh : Mesh or path
    out : path
        The PNG written.
    view : {"mesh", "field", "slice"}, optional
        The mesh alone (shaded with its wireframe); the field's cells as
        coloured points with the mesh; or one axis-aligned slice of the
        field with iso-lines. Default: "field" when ``field`` is given,
        else "mesh".
    field : Grid, optional
        Draw the field ``sdf_grid`` computed: its resolution, padding and
        sign are used (the program computes the same field again; a
        narrow-band Grid is refused, the picture draws the whole field).
    size : (int, int)
        Picture size in pixels (a slice: the most it may fill).
    res, pad, sign, backend
        The field's parameters when no ``field`` is given, as for
        ``sdf_grid`` (``sign`` None: the mesh's default).
    camera : path, optional
        A camera saved as JSON by the viewer (default: framing the scene).
    axis, slice_index
        The slice (``view="slice"``): axis "x", "y" or "z" and index
        (default: the middle).
    colormap : {"sundholm", "diverging", "viridis", "turbo"}
    filter : {"all", "inside", "outside", "band"}
        Which cells are drawn.
    iso : float, optional
        Also draw the field's level set at this distance (``view="field"``).
    opacity : float
        The shaded mesh's opacity (0.05-1).
    legend : bool
        The colour bar, axes and caption around field and slice pictures.

    Returns the path of the PNG. Raises RuntimeError when the program is
    missing or fails (its message), ValueError for bad arguments.
    """
    if field is not None:
        if not isinstance(field, Grid):
            raise ValueError("field: expected a collidoscope.Grid from sdf_grid")
        if field.band_world is not None:
            raise ValueError("field: a narrow-band Grid cannot be drawn; compute it with band=None")
        res, pad, sign = field.info["resolution"], field.info["padding"], field.sign
        backend = backend or field.backend
        view = view or "field"
    view = view or "mesh"
    if view not in ("mesh", "field", "slice"):
        raise ValueError(f"view: {view!r} is not 'mesh', 'field' or 'slice'")
    if sign not in (None, "auto", "winding", "pseudo-normal"):
        raise ValueError(f"sign: {sign!r} is not 'auto', 'winding' or 'pseudo-normal'")
    if backend not in (None, "gpu", "cpu"):
        raise ValueError(f"backend: {backend!r} is not 'gpu' or 'cpu'")
    try:
        width, height = (int(s) for s in size)
    except (TypeError, ValueError):
        raise ValueError(f"size: expected (width, height), got {size!r}") from None
    out = Path(out)
    if backend is None:
        backend = "gpu" if gpu_adapter() is not None else "cpu"
    with tempfile.TemporaryDirectory(prefix="collidoscope-render-") as folder:
        args = ["render", _write_obj(mesh, folder)[1], "--out", out, "--view", view,
                "--size", f"{width}x{height}", "--res", res, "--pad", pad,
                "--backend", backend, "--axis", axis, "--colormap", colormap,
                "--filter", filter, "--opacity", opacity]
        if sign not in (None, "auto"):
            args += ["--sign", sign]
        if camera is not None:
            args += ["--camera", Path(camera)]
        if slice_index is not None:
            args += ["--slice-index", slice_index]
        if iso is not None:
            args += ["--iso", iso]
        if not legend:
            args.append("--no-legend")
        _run(args, "collidoscope render", folder)
    return out
