"""collidoscope: exact signed distance fields, robust signs and field checks.

Numpy in, numpy out, on the GPU (any Vulkan, Metal or DX12 device through
wgpu, or Mesa's software Vulkan driver) or on all CPU cores:

>>> import numpy as np, collidoscope as cs
>>> mesh = cs.load("bunny.obj")                     # or cs.Mesh(vertices, faces)
>>> mesh.report()["sign"]                           # the sign "auto" will use, and why
>>> d = cs.signed_distance(mesh, np.random.rand(100_000, 3))
>>> grid = cs.sdf_grid(mesh, res=128, out="bunny.npy")
>>> cs.check(other_tools_grid, mesh, origin=(x, y, z), cell_size=h)
>>> hit = cs.tritri(mesh, np.eye(4), mesh, ([0.1, 0, 0], [0, 0, 0, 1]))
>>> found = cs.interfere([mesh, mesh], [None, [0.1, 0, 0]])
>>> run = cs.simulate("scene.json", frames=120)     # or the scene as a dict
>>> cs.render(mesh, "bunny.png"); cs.show(mesh, field=grid)
>>> rows = cs.dataset("shapes/", "samples/")         # sampled distances of every mesh

Functions: ``load`` (OBJ, glTF), ``Mesh``, ``signed_distance``,
``unsigned_distance``, ``winding_number``, ``contains``, ``sdf_grid``
(returns a ``Grid``), ``check``, ``tritri``, ``interfere``, ``simulate``,
``show``, ``render``, ``gpu_adapter``, ``last_timings`` (what the last
query cost on the GPU and in all), ``dataset``, ``dataset_meshes`` (and
``collidoscope.ray.dataset`` on a Ray cluster). ``help()`` on each says everything
it takes and returns. Every bad argument raises ValueError naming it; the GIL is
released while the library computes; the process makes one GPU device, on
first use, and each Mesh keeps its prepared trees for later queries.
"""

from ._collidoscope import (
    Grid,
    Mesh,
    __version__,
    check,
    contains,
    dataset,
    dataset_meshes,
    gpu_adapter,
    interfere,
    last_timings,
    load,
    sdf_grid,
    signed_distance,
    simulate,
    tritri,
    unsigned_distance,
    winding_number,
)
from ._viewer import render, show

__all__ = [
    "Grid",
    "Mesh",
    "__version__",
    "check",
    "contains",
    "dataset",
    "dataset_meshes",
    "gpu_adapter",
    "interfere",
    "last_timings",
    "load",
    "render",
    "sdf_grid",
    "show",
    "signed_distance",
    "simulate",
    "tritri",
    "unsigned_distance",
    "winding_number",
]
