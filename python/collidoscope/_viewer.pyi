"""Type stubs of the viewer calls (re-exported by ``collidoscope``)."""

import os
from pathlib import Path
from typing import Literal, Optional, Tuple, Union

import numpy.typing as npt

from ._collidoscope import Grid, Mesh

PathLike = Union[str, "os.PathLike[str]"]

def program() -> Path: ...
def show(
    mesh: Union[Mesh, PathLike],
    field: Optional[Union[Grid, PathLike]] = None,
    points: Optional[npt.ArrayLike] = None,
    values: Optional[npt.ArrayLike] = None,
    *,
    script: Optional[str] = None,
    camera: Optional[PathLike] = None,
) -> None:
    """Open the viewer on the mesh (and a field) and wait until it closes."""

def render(
    mesh: Union[Mesh, PathLike],
    out: PathLike,
    *,
    view: Optional[Literal["mesh", "field", "slice"]] = None,
    field: Optional[Grid] = None,
    size: Tuple[int, int] = (1600, 1000),
    res: int = 64,
    pad: float = 0.1,
    sign: Optional[Literal["auto", "winding", "pseudo-normal"]] = None,
    backend: Optional[Literal["gpu", "cpu"]] = None,
    camera: Optional[PathLike] = None,
    axis: Literal["x", "y", "z"] = "z",
    slice_index: Optional[int] = None,
    colormap: Literal["sundholm", "diverging", "viridis", "turbo"] = "sundholm",
    filter: Literal["all", "inside", "outside", "band"] = "all",
    iso: Optional[float] = None,
    opacity: float = 1.0,
    legend: bool = True,
) -> Path:
    """Draw the mesh, its field's cells or a slice to a PNG, without a window."""
