"""A staged function over the blocks of a Dask array, on a local cluster of two worker processes.

    python examples/cluster/dask_blocks.py

`soft_clip` is defined in the script (`__main__`), so cloudpickle ships it by value: each
worker rebuilds it from its Python function and source lines, traces it for the block shape,
and runs its graph on the blocks it gets (a staged function of an importable module travels by
reference instead). The result is checked against the eager function on the whole array.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's packages

import staging  # noqa: E402


@staging.function
def soft_clip(block):
    """Rows whose sum is positive go through tanh, the others are halved."""
    out = np.empty_like(block)
    for i in range(block.shape[0]):
        row = block[i]
        if row.sum() > 0:
            out[i] = np.tanh(row)
        else:
            out[i] = row * 0.5
    return out


def main() -> None:
    import dask.array as da
    from dask.distributed import Client, LocalCluster

    data = np.random.default_rng(0).normal(size=(4_000, 200))
    with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster:
        with Client(cluster):
            x = da.from_array(data, chunks=(500, 200))
            staged = da.map_blocks(soft_clip, x, dtype=x.dtype).compute()
    eager = soft_clip.python_function(data)
    print(f"{x.numblocks[0]} blocks on 2 worker processes")
    print("agree with eager:", np.array_equal(staged, eager))


if __name__ == "__main__":
    main()
