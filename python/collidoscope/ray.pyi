"""Type stubs of ``collidoscope.ray``."""

import os
from typing import Any, Dict, List, Literal, Optional, Sequence, Union

PathLike = Union[str, "os.PathLike[str]"]

def dataset(
    manifest: Union[PathLike, Sequence[PathLike]],
    out: PathLike,
    *,
    num_gpus: Optional[float] = None,
    batch_size: int = 16,
    concurrency: Optional[int] = None,
    results: Union[PathLike, Literal[False], None] = None,
    **options: Any,
) -> List[Dict[str, Any]]:
    """``collidoscope.dataset`` over a Ray Dataset of the manifest's mesh
    paths, one GPU per worker where the cluster has GPUs."""
