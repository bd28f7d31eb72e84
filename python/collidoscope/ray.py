"""Whole datasets on a Ray cluster: ``collidoscope.dataset`` spread over
Ray workers, one GPU each where the cluster has GPUs.

>>> import ray, collidoscope.ray
>>> ray.init()                                   # or ray.init(address="auto") on a cluster
>>> rows = collidoscope.ray.dataset("ShapeNetCore/*/*/models/model_normalized.obj", "/shared/out")

The meshes are listed once (``collidoscope.dataset_meshes``), put in a Ray
Dataset of paths and mapped in batches: each batch runs the same per-mesh
work as ``collidoscope.dataset`` (the same files, names and seeds, so a
Ray run, a local run and a SLURM array of ``--shard`` runs write the same
bytes), and a rerun skips the meshes whose files are complete. ``out``
must be a folder every worker sees (a shared file system). The results
manifest (``out/results.jsonl``) is written by the driver once every
batch has returned.
"""

from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Optional

from . import _collidoscope

# The options passed through to `collidoscope.dataset` unchanged.
_OPTIONS = {
    "near",
    "uniform",
    "variances",
    "pad",
    "normalize",
    "sign",
    "seed",
    "closest",
    "normals",
    "grid",
    "report",
    "time_limit",
    "backend",
    "prefetch",
}


def _run_batch(batch: Dict[str, Any], out: str, root: str, options: Dict[str, Any]) -> Dict[str, Any]:
    """One batch of mesh paths on one worker: their results as JSON text."""
    import numpy as np

    paths = [str(p) for p in batch["path"]]
    rows = _collidoscope.dataset(paths, out, root=root, results=False, progress=False, **options)
    return {"result": np.array([json.dumps(r) for r in rows], dtype=object)}


def dataset(
    manifest: Any,
    out: Any,
    *,
    num_gpus: Optional[float] = None,
    batch_size: int = 16,
    concurrency: Optional[int] = None,
    results: Any = None,
    **options: Any,
) -> List[Dict[str, Any]]:
    """dataset(manifest, out, *, num_gpus=None, batch_size=16, concurrency=None, results=None, **options) -> list[dict]

    ``collidoscope.dataset(manifest, out, **options)`` over a Ray Dataset
    of the manifest's mesh paths (see the module docs).

    Parameters
    ----------
    manifest, out
        As ``collidoscope.dataset``: a folder, a glob, a list file or a
        list of mesh paths; the output folder, seen by every worker.
    num_gpus : float or None
        GPUs per worker. None: 1 when the cluster has GPUs, else 0 (then
        ``backend`` defaults to ``"cpu"``).
    batch_size : int
        Meshes per Ray task (one task prepares the next mesh while the
        device works on the current one).
    concurrency : int or None
        At most this many workers at once (None: as many as the cluster
        holds).
    results : str, os.PathLike, False or None
        The results manifest the driver writes (None: ``out/results.jsonl``;
        False: none).
    **options
        ``near``, ``uniform``, ``variances``, ``pad``, ``normalize``,
        ``sign``, ``seed``, ``closest``, ``normals``, ``grid``, ``report``,
        ``time_limit``, ``backend``, ``prefetch``: as
        ``collidoscope.dataset``.

    Returns
    -------
    list of dict
        One per mesh in the manifest's (sorted) order, as
        ``collidoscope.dataset`` returns them.

    Ray is started with ``ray.init()`` when it is not running yet.
    """
    unknown = sorted(set(options) - _OPTIONS)
    if unknown:
        raise ValueError(
            f"{unknown[0]}: not an option of collidoscope.ray.dataset "
            f"(it takes {', '.join(sorted(_OPTIONS))})"
        )
    if num_gpus is not None and not (isinstance(num_gpus, (int, float)) and num_gpus >= 0):
        raise ValueError(f"num_gpus: {num_gpus!r} is not a number >= 0 (or None)")
    if not (isinstance(batch_size, int) and batch_size >= 1):
        raise ValueError(f"batch_size: {batch_size!r} is not an integer >= 1")
    if concurrency is not None and not (isinstance(concurrency, int) and concurrency >= 1):
        raise ValueError(f"concurrency: {concurrency!r} is not an integer >= 1 (or None)")
    try:
        import ray
    except ImportError as e:
        raise ImportError("collidoscope.ray needs Ray: pip install 'ray[data]'") from e

    root, meshes = _collidoscope.dataset_meshes(manifest)
    out = os.fspath(out)
    os.makedirs(out, exist_ok=True)
    if not ray.is_initialized():
        ray.init()
    if num_gpus is None:
        num_gpus = 1 if ray.cluster_resources().get("GPU", 0) >= 1 else 0
    options.setdefault("backend", "gpu" if num_gpus else "cpu")

    items = ray.data.from_items([{"path": p} for p in meshes])
    mapped = items.map_batches(
        _run_batch,
        fn_kwargs={"out": out, "root": root, "options": options},
        batch_size=batch_size,
        num_gpus=num_gpus or None,
        concurrency=concurrency,
        batch_format="numpy",
    )
    rows = [json.loads(r["result"]) for r in mapped.take_all()]
    order = {p: i for i, p in enumerate(meshes)}
    rows.sort(key=lambda r: order.get(r["path"], len(order)))
    if results is None:
        results = os.path.join(out, "results.jsonl")
    if results is not False:
        results = os.fspath(results)
        if isinstance(manifest, (str, os.PathLike)) and _same_file(results, os.fspath(manifest)):
            raise ValueError(f"results: {results} is the manifest; refusing to overwrite an input")
        _write_lines(results, rows)
    return rows


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _write_lines(path: str, rows: List[Dict[str, Any]]) -> None:
    """The results manifest, written to a temporary and renamed over `path`."""
    tmp = os.path.join(os.path.dirname(path) or ".", f".{os.path.basename(path)}.{os.getpid()}.tmp")
    with open(tmp, "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
