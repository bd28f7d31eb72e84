"""Type stubs of the native module (re-exported by ``collidoscope``)."""

import os
from typing import Any, Dict, List, Literal, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

__version__: str

ArrayLike = npt.ArrayLike
Sign = Literal["auto", "winding", "pseudo-normal"]
BackendName = Optional[Literal["gpu", "cpu"]]
PathLike = Union[str, "os.PathLike[str]"]
# None, a 4×4 rigid matrix, (translation, quaternion xyzw), or 3 / 7 numbers.
Pose = Optional[Union[ArrayLike, Tuple[ArrayLike, ArrayLike]]]

class Mesh:
    """A triangle mesh: (V, 3) float vertices and (F, 3) integer faces."""

    def __init__(self, vertices: ArrayLike, faces: ArrayLike, name: str = "mesh") -> None: ...
    @property
    def vertices(self) -> npt.NDArray[np.float32]:
        """(V, 3) float32 vertex positions (a copy)."""
    @property
    def faces(self) -> npt.NDArray[np.int64]:
        """(F, 3) int64 vertex indices (a copy)."""
    @property
    def name(self) -> str: ...
    @property
    def content_hash(self) -> str:
        """xxh3-64 of the geometry in hex, as field sidecars record it."""
    def report(self) -> Dict[str, Any]:
        """The ``collidoscope info --json`` report plus ``sign``, ``sign_reason``, ``warnings``, ``repairs``."""

class Grid:
    """A signed distance field on a uniform grid (``sdf_grid``'s result)."""

    @property
    def values(self) -> npt.NDArray[np.float32]:
        """(nz, ny, nx) float32 signed distances, ``values[k, j, i]``."""
    @property
    def origin(self) -> Tuple[float, float, float]: ...
    @property
    def cell_size(self) -> float: ...
    @property
    def axis_order(self) -> Literal["zyx"]: ...
    @property
    def band_world(self) -> Optional[float]: ...
    @property
    def sign(self) -> Literal["winding", "pseudo-normal"]: ...
    @property
    def backend(self) -> Literal["gpu", "cpu"]: ...
    @property
    def info(self) -> Dict[str, Any]:
        """The JSON sidecar ``collidoscope sdf`` writes."""
    def cell_centers(self) -> npt.NDArray[np.float32]:
        """(nz, ny, nx, 3) float32 world positions of the cell centres."""
    def save(self, path: PathLike) -> None:
        """Write the field as .npy with ``info`` as its JSON sidecar."""

def load(path: PathLike) -> Mesh:
    """Load a mesh file (OBJ, PLY, STL, OFF, or glTF .glb/.gltf) as one Mesh (objects merged)."""

def signed_distance(
    mesh: Mesh,
    points: ArrayLike,
    sign: Sign = "auto",
    backend: BackendName = None,
    return_closest: bool = False,
    chunk_size: int = 1048576,
) -> Union[
    npt.NDArray[np.float32],
    Tuple[
        npt.NDArray[np.float32],
        npt.NDArray[np.int64],
        npt.NDArray[np.float32],
        npt.NDArray[np.float32],
    ],
]:
    """Exact signed distance at each point; with ``return_closest``, also
    ``(face, barycentric, closest)``."""

def unsigned_distance(
    mesh: Mesh, points: ArrayLike, chunk_size: int = 1048576
) -> npt.NDArray[np.float32]:
    """Exact distance to the surface at each point."""

def winding_number(
    mesh: Mesh, points: ArrayLike, chunk_size: int = 1048576
) -> npt.NDArray[np.float32]:
    """Generalised winding number at each point (fast evaluation)."""

def contains(mesh: Mesh, points: ArrayLike, chunk_size: int = 1048576) -> npt.NDArray[np.bool_]:
    """Inside test by the exact winding number (|w| > 1/2)."""

def sdf_grid(
    mesh: Mesh,
    res: int = 64,
    pad: float = 0.1,
    band: Optional[float] = None,
    sign: Sign = "auto",
    backend: BackendName = None,
    out: Optional[PathLike] = None,
) -> Grid:
    """The exact signed distance field on a uniform grid, as ``collidoscope sdf``."""

def check(
    values: Union[ArrayLike, Grid],
    mesh: Mesh,
    points: Optional[ArrayLike] = None,
    origin: Optional[Tuple[float, float, float]] = None,
    cell_size: Optional[float] = None,
    axis_order: Optional[Literal["zyx", "xyz"]] = None,
    backend: BackendName = None,
    max_list: int = 10000,
) -> Dict[str, Any]:
    """Check a field against the exact one: the ``collidoscope check`` report."""

def tritri(
    a: Mesh,
    pose_a: Pose,
    b: Mesh,
    pose_b: Pose,
    *,
    all_pairs: bool = True,
    backend: BackendName = None,
    predicate: Literal["exact", "tutorial"] = "exact",
) -> Dict[str, Any]:
    """Intersecting triangle pairs of two posed meshes: ``collides``,
    ``pairs`` (K, 2) int64, ``segments`` (K, 2, 3) float32,
    ``near_touching``, ``backend``, ``predicate``."""

def interfere(
    meshes: Sequence[Mesh],
    poses: Optional[Sequence[Pose]] = None,
    *,
    res: Union[int, Tuple[int, int], None] = None,
    axes: str = "xyz",
    backend: Optional[Literal["gpu", "stencil", "compute", "cpu"]] = None,
    edge_offset: Optional[float] = None,
    cull: bool = True,
    pair_passes: bool = False,
    separate_passes: bool = False,
) -> Dict[str, Any]:
    """Image-space interference of posed meshes: ``pairs``, ``interfering``,
    per-view ``counts``/``edge_ids``/``penetrated`` images, localised
    ``points``, ``interfering_edges``, ..."""

def simulate(
    scene: Union[Dict[str, Any], PathLike],
    frames: int,
    *,
    backend: BackendName = None,
    res: int = 32,
    threshold: float = 0.0,
    contact_threshold: float = 0.0,
    broad: Literal["sweep", "image", "image-stencil"] = "sweep",
    image_res: int = 256,
) -> Dict[str, Any]:
    """The multi-body pipeline's trajectory: ``t``, ``contacts``,
    ``position`` (F, B, 3), ``orientation`` (F, B, 4), ``velocity``,
    ``angular_velocity``, ``energy``, ``backend``, ``broad``."""

def last_timings() -> Optional[Dict[str, Any]]:
    """What the process's last ``signed_distance`` call cost, or None
    before the first: ``function``, ``backend``, ``points``, ``chunks``,
    ``wall_ms`` (the whole call), ``gpu_ms`` (the sum of the GPU's phases
    by timestamp queries; None on the CPU) and ``phases`` (name to ms)."""
    ...

def gpu_adapter() -> Optional[str]:
    """The GPU adapter in use, or None without one."""

def dataset(
    manifest: Union[PathLike, Sequence[PathLike]],
    out: PathLike,
    near: int = 250000,
    uniform: int = 25000,
    variances: Sequence[float] = (0.0025, 0.00025),
    pad: float = 0.1,
    normalize: Literal["unit-sphere", "unit-cube", "none"] = "unit-sphere",
    sign: Sign = "auto",
    seed: int = 0,
    closest: bool = False,
    normals: bool = False,
    grid: Optional[int] = None,
    report: bool = False,
    shard: Optional[Union[Tuple[int, int], str]] = None,
    time_limit: Optional[float] = None,
    backend: BackendName = None,
    results: Union[PathLike, Literal[False], None] = None,
    root: Optional[PathLike] = None,
    prefetch: int = 2,
    progress: bool = True,
) -> List[Dict[str, Any]]:
    """Exact signed distances sampled from every mesh of a folder, glob,
    list file or list of paths, written to ``out`` (``NAME.npz`` +
    ``NAME.json`` per mesh, a results manifest); resumable. One result
    dict per mesh (``status``: "written", "skipped" or "failed")."""

def dataset_meshes(manifest: Union[PathLike, Sequence[PathLike]]) -> Tuple[str, List[str]]:
    """The root and the sorted mesh paths ``dataset(manifest, ...)`` takes."""
