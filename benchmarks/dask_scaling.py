"""Benchmark (not a test): a staged function over the blocks of a Dask array on one worker
process and on two, in one run.

    python benchmarks/dask_scaling.py [--quick]

The workload: Newton's square root to a tolerance on 16 blocks of 250,000 float64 values (a
staged while loop whose trip count depends on the data). Prints the best wall time of each
cluster size, the ratio two/one (0.5x is perfect scaling on two cores) and plain NumPy on one
process for reference. Each cluster's workers trace once per block shape, in a warm-up run.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's packages
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "staging"))

try:
    import dask.array as da
    from dask.distributed import Client, LocalCluster
except ImportError:
    sys.exit("dask is not installed: pip install '.[test]'")

import _dask_helpers as helpers  # noqa: E402  (a module the workers import)


def best_time(run, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def on_cluster(workers: int, x, repeats: int) -> tuple[float, np.ndarray]:
    with (
        LocalCluster(
            n_workers=workers, threads_per_worker=1, dashboard_address=None, silence_logs=40
        ) as cluster,
        Client(cluster) as client,
    ):
        x = client.persist(x)  # (the blocks live on the workers: not sent with each run)
        result = da.map_blocks(helpers.newton_sqrt, x, dtype=x.dtype).compute()  # warm up
        seconds = best_time(
            lambda: da.map_blocks(helpers.newton_sqrt, x, dtype=x.dtype).compute(), repeats
        )
        traces = client.run(helpers.tracing_counts)
    assert all(t["newton_sqrt"] <= 1 for t in traces.values()), traces  # once per worker
    return seconds, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    args = parser.parse_args()
    repeats = 2 if args.quick else 5
    data = np.random.default_rng(0).uniform(1.0, 1e6, size=16 * 250_000)
    x = da.from_array(data, chunks=250_000)
    one, result_one = on_cluster(1, x, repeats)
    two, result_two = on_cluster(2, x, repeats)
    plain = best_time(
        lambda: [helpers.newton_sqrt.python_function(b) for b in np.split(data, 16)], repeats
    )
    expected = np.concatenate([helpers.newton_sqrt.python_function(b) for b in np.split(data, 16)])
    assert np.array_equal(result_one, expected) and np.array_equal(result_two, expected)
    print(f"{'workload':<48}{'time':>10}{'ratio':>9}")
    print(f"{'plain NumPy, one process':<48}{plain * 1e3:>8.1f}ms{'':>9}")
    print(f"{'staged, dask, 1 worker process':<48}{one * 1e3:>8.1f}ms{'1.00x':>9}")
    print(f"{'staged, dask, 2 worker processes':<48}{two * 1e3:>8.1f}ms{two / one:>8.2f}x")
    print("ratio = time / time on one worker, measured in this run (0.50x: perfect on 2 cores)")


if __name__ == "__main__":
    main()
