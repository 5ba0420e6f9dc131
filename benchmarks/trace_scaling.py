"""Benchmark (not a test): how the cost of the first staged call (conversion, tracing,
optimisation, lowering) grows with the size of the program.

Run: python benchmarks/trace_scaling.py            (every row)
     python benchmarks/trace_scaling.py --quick    (skips the 10^5-op row)
     python benchmarks/trace_scaling.py --phases 100000   (where one first call's time goes)

Rows: `if` nested 10 to 50 deep on symbolic conditions, an `elif` chain of 10 to 100 cases,
straight-line code of 10^2 to 10^5 operations. Each row gives the time of the first call of a
fresh staging.function (best of a few runs for the small ones), the processor time this
process spent in it (on a shared machine the wall time also counts other work), and its peak
memory: traced by tracemalloc in a separate run (tracing memory slows Python down), or for the
10^5-op row the growth of the peak resident set size in a fresh process. Targets (issue 13):
depth 50 and 100 cases each under 1 s; 10^5 operations under 3 s and 200 MiB. The time
targets are judged on the processor time (on a machine shared with other work, the wall
time also counts that work; on an idle one the two agree).

--phases N splits the first call of the N-op straight-line program: recording (with the
conversion), the optimiser's passes, code generation, compile() with the line tables, and
the garbage collector's share of all of them (processor time: other work on the machine does
not count), and says into how many functions the graph was compiled (runtime/chunks.py).
"""

from __future__ import annotations

import argparse
import gc
import importlib
import itertools
import linecache
import resource
import subprocess
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


def first_call(source: str, arg) -> tuple[float, float]:
    """(seconds, seconds of this process's processor time) of the first call."""
    f = staging.function(define(source))
    start, processor = time.perf_counter(), time.process_time()
    f(arg)
    return time.perf_counter() - start, time.process_time() - processor


def peak_memory(source: str, arg) -> int:
    """Peak bytes traced by tracemalloc during the first call."""
    f = staging.function(define(source))
    gc.collect()
    tracemalloc.start()
    try:
        f(arg)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def peak_rss_growth(make_name: str, size: int) -> int:
    """Growth of the maximum resident set size during the first call, in a fresh process
    (tracemalloc makes a 10^5-op trace take many minutes; at 10^4 ops this gives 60 MiB
    where tracemalloc gives 68 MiB: the same order, not the same measure)."""
    out = subprocess.run(
        [sys.executable, __file__, "--rss-child", make_name, str(size)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return int(out.split()[-1])


def _rss_child(make_name: str, size: int) -> None:
    make = globals()[make_name]
    f = staging.function(define(make(size)))  # (compiling the user's function is not counted)
    arg = np.linspace(0.0, 1.0, 8) if make is straight_line else np.float64(0.5)
    gc.collect()
    before = _reset_peak_rss()
    f(arg)
    print(_peak_rss() - before)


def _status(field: str) -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise OSError(field)


def _reset_peak_rss() -> int:
    """Resets the peak resident set size (Linux); returns the current one."""
    try:
        with open("/proc/self/clear_refs", "w") as clear:
            clear.write("5")
        return _status("VmRSS")
    except OSError:  # elsewhere: the peak so far (may hide a smaller peak of the call)
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _peak_rss() -> int:
    try:
        return _status("VmHWM")
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def phases(size: int) -> None:
    """Prints where the first call of straight_line(size) spends its processor time."""
    from runtime import chunks, executor

    function_module = importlib.import_module("staging.function")
    spent: dict[str, float] = {}

    def timed(label, func):
        def wrapper(*args, **kwargs):
            start = time.process_time()
            try:
                return func(*args, **kwargs)
            finally:
                spent[label] = spent.get(label, 0.0) + time.process_time() - start

        return wrapper

    patched = [
        (function_module, "optimize", "optimiser passes"),
        (executor._Emitter, "function", "code generation"),
        (chunks, "compile_at_user_lines", "compile() + line tables"),
    ]
    saved = [(owner, name, getattr(owner, name)) for owner, name, _ in patched]
    collecting = [0.0, 0.0]

    def on_gc(phase, info):
        if phase == "start":
            collecting[1] = time.process_time()
        else:
            collecting[0] += time.process_time() - collecting[1]

    arg = np.linspace(0.0, 1.0, 8)
    f = staging.function(define(straight_line(size)))
    for owner, name, label in patched:
        setattr(owner, name, timed(label, getattr(owner, name)))
    gc.collect()
    gc.callbacks.append(on_gc)
    start, wall = time.process_time(), time.perf_counter()
    try:
        f(arg)
    finally:
        total, wall = time.process_time() - start, time.perf_counter() - wall
        gc.callbacks.remove(on_gc)
        for owner, name, func in saved:
            setattr(owner, name, func)
    functions = len(f.get_concrete_function(arg)._compiled._codes)
    print(
        f"first call of {size} straight-line ops: {wall:.2f} s ({total:.2f} s of processor time), "
        f"compiled as {functions} function(s)"
    )
    rows = [
        ("recording (and conversion)", total - sum(spent.values())),
        *spent.items(),
        ("(garbage collection, within the above)", collecting[0]),
    ]
    for label, seconds in rows:
        print(f"  {label:<40}{seconds:>7.2f} s {100 * seconds / total:>5.0f}%")


ROWS = (
    [("nesting depth", n, nested_ifs, 1.0, None) for n in (10, 20, 30, 40, 50)]
    + [("elif cases", n, elif_chain, 1.0 if n == 100 else None, None) for n in (10, 25, 50, 100)]
    + [
        (
            "straight-line ops",
            n,
            straight_line,
            3.0 if n == 100_000 else None,
            200 * MiB if n == 100_000 else None,
        )
        for n in (100, 1_000, 10_000, 100_000)
    ]
)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="skip the 10^5-op row")
    parser.add_argument(
        "--phases",
        type=int,
        metavar="N",
        help="only split the first call of the N-op straight-line program",
    )
    parser.add_argument("--rss-child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.phases:
        phases(args.phases)
        return 0
    if args.rss_child:
        _rss_child(args.rss_child[0], int(args.rss_child[1]))
        return 0
    scalar, vector = np.float64(0.5), np.linspace(0.0, 1.0, 8)
    missed = 0
    print(
        f"{'program':<20}{'size':>8}{'first call':>13}{'(processor)':>13}{'peak memory':>14}   target"
    )
    for label, size, make, time_target, memory_target in ROWS:
        if args.quick and size >= 100_000:
            continue
        source = make(size)
        arg = vector if make is straight_line else scalar
        repeat = 3 if size <= 1_000 else 1
        seconds, processor = min(first_call(source, arg) for _ in range(repeat))
        if size > 20_000:
            peak = peak_rss_growth(make.__name__, size)
        else:
            peak = peak_memory(source, arg)
        target = []
        if time_target is not None:
            ok = processor < time_target
            missed += not ok
            target.append(f"< {time_target:g} s (processor) {'ok' if ok else 'MISSED'}")
        if memory_target is not None:
            ok = peak < memory_target
            missed += not ok
            target.append(f"< {memory_target // MiB} MiB {'ok' if ok else 'MISSED'}")
        print(
            f"{label:<20}{size:>8}{seconds * 1000:>10.1f} ms{processor * 1000:>10.1f} ms"
            f"{peak / MiB:>10.1f} MiB   {', '.join(target)}",
            flush=True,
        )
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
