"""Staged functions on a Dask cluster (`dask.array.map_blocks`, `dask.delayed`): a LocalCluster
with two worker processes, started by the test on this machine. The workers unpickle the staged
functions by reference (their module is importable), trace once per signature in their own
process, and give eager's results on every block."""

from __future__ import annotations

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")

import _dask_helpers as helpers  # noqa: E402


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
        silence_logs=40,
    )
    with distributed.Client(cluster) as client:
        yield client
    cluster.close()


BLOCKS = (np.linspace(-2.0, 2.0, 64 * 8).reshape(64, 8) * np.arange(1, 65)[:, None] % 3) - 1.0


def test_map_blocks_of_a_staged_function_gives_the_eager_blocks(client):
    x = da.from_array(BLOCKS, chunks=(16, 8))  # four blocks of one signature
    staged = da.map_blocks(helpers.soft_clip, x, dtype=x.dtype).compute()
    np.testing.assert_array_equal(staged, helpers.soft_clip.python_function(BLOCKS))
    counts = client.run(helpers.tracing_counts)
    assert len(counts) == 2
    traced = [c["soft_clip"] for c in counts.values()]
    assert all(n <= 1 for n in traced) and sum(traced) >= 1  # once per worker that ran a block


def test_delayed_calls_of_a_staged_while_loop(client):
    chunks = [np.linspace(1.0, 100.0, 50) * k for k in (1, 2, 3, 4)] + [np.array([4.0, 9.0])]
    tasks = [dask.delayed(helpers.newton_sqrt)(c) for c in chunks]
    results = dask.compute(*tasks)
    for chunk, result in zip(chunks, results):
        expected = helpers.newton_sqrt.python_function(chunk)
        assert result.dtype == expected.dtype
        np.testing.assert_array_equal(result, expected)
    traced = [c["newton_sqrt"] for c in client.run(helpers.tracing_counts).values()]
    assert all(n <= 2 for n in traced) and sum(traced) >= 2  # f64[50] and f64[2], per worker
