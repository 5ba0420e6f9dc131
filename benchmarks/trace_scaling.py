"""Benchmark (not a test): how the cost of the first staged call (conversion, tracing,
optimisation, lowering) grows with the size of the program.

Run: python benchmarks/trace_scaling.py            (every row)
     python benchmarks/trace_scaling.py --quick    (skips the 10^5-op row)

Rows: `if` nested 10 to 50 deep on symbolic conditions, an `elif` chain of 10 to 100 cases,
straight-line code of 10^2 to 10^5 operations. Each row gives the time of the first call of a
fresh staging.function (best of a few runs for the small ones) and its peak traced memory
(tracemalloc, a separate run: tracing memory slows Python down). Targets (issue 13): depth 50
and 100 cases each under 1 s; 10^5 operations under 3 s and 200 MiB.
"""

from __future__ import annotations

import argparse
import gc
import itertools
import linecache
import sys
import time
import tracemalloc

import numpy as np

sys.path.insert(0, __file__.rsplit("/benchmarks/", 1)[0])

import staging  # noqa: E402

_serial = itertools.count()
MiB = 1 << 20


def define(source: str, name: str = "f"):
    """A new function from `source` (a new code object each time: no cache applies), its
    source visible through linecache as if it came from a file."""
    filename = f"<trace scaling {next(_serial)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace: dict = {"np": np}
    exec(compile(source, filename, "exec"), namespace)
    return namespace[name]


def nested_ifs(depth: int) -> str:
    """`if` statements nested `depth` deep, each on a symbolic condition."""
    lines = ["def f(x):"]
    for level in range(depth):
        pad = "    " * (level + 1)
        lines += [f"{pad}if x > {level}:", f"{pad}    x = x + {level + 1}"]
    lines.append("    return x")
    return "\n".join(lines) + "\n"


def elif_chain(cases: int) -> str:
    lines = ["def f(x):", "    if x < 0:", "        y = x - 1"]
    for case in range(1, cases):
        lines += [f"    elif x < {case}:", f"        y = x * {case + 1}"]
    lines += ["    else:", "        y = x", "    return y"]
    return "\n".join(lines) + "\n"


def straight_line(ops: int) -> str:
    """`ops` arithmetic operations, one per statement, on an array (no control flow)."""
    body = [f"    x = x + {1 + i % 7}.0" if i % 2 else "    x = x * 0.5" for i in range(ops)]
    return "\n".join(["def f(x):", *body, "    return x"]) + "\n"


def first_call(source: str, arg) -> float:
    f = staging.function(define(source))
    start = time.perf_counter()
    f(arg)
    return time.perf_counter() - start


def peak_memory(source: str, arg) -> int:
    f = staging.function(define(source))
    gc.collect()
    tracemalloc.start()
    try:
        f(arg)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


ROWS = (
    [("nesting depth", n, nested_ifs, 1.0, None) for n in (10, 20, 30, 40, 50)]
    + [("elif cases", n, elif_chain, 1.0 if n == 100 else None, None) for n in (10, 25, 50, 100)]
    + [("straight-line ops", n, straight_line, 3.0 if n == 100_000 else None,
        200 * MiB if n == 100_000 else None) for n in (100, 1_000, 10_000, 100_000)]
)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="skip the 10^5-op row")
    args = parser.parse_args(argv)
    scalar, vector = np.float64(0.5), np.linspace(0.0, 1.0, 8)
    missed = 0
    print(f"{'program':<20}{'size':>8}{'first call':>13}{'peak memory':>14}   target")
    for label, size, make, time_target, memory_target in ROWS:
        if args.quick and size >= 100_000:
            continue
        source = make(size)
        arg = vector if make is straight_line else scalar
        repeat = 3 if size <= 1_000 else 1
        seconds = min(first_call(source, arg) for _ in range(repeat))
        peak = peak_memory(source, arg)
        target = []
        if time_target is not None:
            ok = seconds < time_target
            missed += not ok
            target.append(f"< {time_target:g} s {'ok' if ok else 'MISSED'}")
        if memory_target is not None:
            ok = peak < memory_target
            missed += not ok
            target.append(f"< {memory_target // MiB} MiB {'ok' if ok else 'MISSED'}")
        print(f"{label:<20}{size:>8}{seconds * 1000:>10.1f} ms{peak / MiB:>10.1f} MiB   {', '.join(target)}",
              flush=True)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
