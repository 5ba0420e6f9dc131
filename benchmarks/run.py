"""Runs every staging benchmark and prints staged vs plain NumPy/Python times and their ratios.

    python benchmarks/run.py            # full run (about a minute)
    python benchmarks/run.py --quick    # fewer repeats, for a smoke test

TensorFlow / JAX figures are added when those packages happen to be installed.
"""

from __future__ import annotations

import argparse
import itertools
import linecache
import sys
import textwrap
import time
import timeit
import warnings

import numpy as np

import autograph
import staging

try:
    from . import others as _others  # python -m benchmarks.run
    from . import user_workloads as _user
except ImportError:
    import others as _others  # python benchmarks/run.py
    import user_workloads as _user

add_one, collatz, sum_even, chain = _user.add_one, _user.collatz, _user.sum_even, _user.chain

QUICK = False
FRAMEWORKS: list = []  # TensorFlow / JAX when installed (benchmarks/others.py)


def best_time(fn, min_total=0.2, repeat=5) -> float:
    """Best per-call seconds over `repeat` runs of enough calls to last ~min_total/repeat."""
    if QUICK:
        min_total, repeat = min_total / 4, 3
    number = 1
    while True:
        t = timeit.timeit(fn, number=number)
        if t >= min_total / repeat or number >= 1 << 20:
            break
        number *= 2 if t == 0 else max(2, min(100, int(min_total / repeat / max(t, 1e-9))))
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number


def best_pair(staged, plain, min_total=0.2, repeat=7) -> tuple[float, float]:
    """Best per-call seconds of `staged` and of `plain`, their repeats interleaved (staged,
    plain, staged, ...): a noisy spell of a shared machine hits both sides alike."""
    if QUICK:
        min_total, repeat = min_total / 4, 3
    numbers = []
    for fn in (staged, plain):
        number = 1
        while True:
            t = timeit.timeit(fn, number=number)
            if t >= min_total / repeat / 2 or number >= 1 << 20:
                break
            number *= 2 if t == 0 else max(2, min(100, int(min_total / repeat / 2 / max(t, 1e-9))))
        numbers.append(number)
    best = [float("inf"), float("inf")]
    for _ in range(repeat):
        for k, fn in enumerate((staged, plain)):
            best[k] = min(best[k], timeit.timeit(fn, number=numbers[k]) / numbers[k])
    return best[0], best[1]


def fmt(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:.2f} us"
    if seconds < 1:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.2f} s"


ROWS: list[tuple] = []


def row(name, staged, plain, target="", others=""):
    ratio = staged / plain if plain else float("nan")
    ROWS.append(
        (
            name,
            fmt(staged),
            fmt(plain) if plain else "-",
            f"{ratio:.2f}x" if plain else "-",
            target,
            others,
        )
    )


def compare(method: str, *args, quoted: str = "", min_total: float = 0.2) -> str:
    """Times `method` of each installed framework (see others.py); the quoted figures otherwise."""
    found = []
    for fw in FRAMEWORKS:
        if not hasattr(fw, method):
            continue
        try:
            made = getattr(fw, method)(*args)
            note = ""
            if isinstance(made, tuple):  # (result, how the workload had to be changed for it)
                made, note = made
            seconds = made if isinstance(made, float) else best_time(made, min_total=min_total)
        except Exception as error:  # a framework quirk must not stop the table
            found.append(f"{fw.label} failed ({type(error).__name__})")
            continue
        label = fw.label + (" (lax version)" if method.endswith("_lax") else "")
        found.append(f"{label} {fmt(seconds)}" + (f" ({note})" if note else ""))
    if not found:
        return quoted
    return "; ".join(found) + " (measured here)"


# ---------------------------------------------------------------------------
# workloads

LOOP_SOURCE = """
def loop_heavy(n, xs):
    steps = 0
    total = 0
    while n != 1:
        if n > 1000000:
            break
        elif n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        for x in xs:
            if x < 0:
                continue
            total += x
        steps += 1
    return steps, total
"""


_serial = itertools.count()


def define(source: str, name: str):
    """A new function object from `source` (new code object, so no conversion cache applies),
    with its source visible to inspect through linecache, as if it came from a file."""
    filename = f"<benchmark {name} {next(_serial)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace: dict = {}
    exec(compile(source, filename, "exec"), namespace)
    return namespace[name]


def fresh_loop_heavy():
    return define(LOOP_SOURCE, "loop_heavy")


def user_workloads():
    """Code people stage first: each function staged against the same function undecorated."""
    cases = (
        (_user.newton_sqrt, _user.NEWTON_ARGS, "3a. Newton sqrt, 100 float64, tolerance loop"),
        (_user.bisection, _user.BISECTION_ARGS, "3b. bisection on float64 scalars (43 steps)"),
        (_user.euler, _user.EULER_ARGS, "3c. Euler, 100 steps, list append + np.stack"),
    )
    for func, args, label in cases:
        f = staging.function(func)
        staged_result, plain_result = f(*args), func(*args)
        assert type(staged_result) is type(plain_result) and np.array_equal(
            staged_result, plain_result
        ), label
        row(label, *best_pair(lambda: f(*args), lambda: func(*args)), "<= 1.0x")
    xs = _user.MEAN_INPUTS
    staged_mean, plain_mean = _user.StagedRunningMean(), _user.RunningMean()
    assert _user.feed(staged_mean, xs) == _user.feed(plain_mean, xs)
    row(
        "3d. running mean in Variables, 1000 staged method calls",
        *best_pair(lambda: _user.feed(staged_mean, xs), lambda: _user.feed(plain_mean, xs)),
        "<= 1.0x",
    )


def call_overhead():
    x = np.float64(1.0)
    f = staging.function(add_one)
    f(x)
    staged, plain = best_pair(lambda: f(x), lambda: add_one(x))
    row(
        "1. call overhead, x + 1 on a NumPy scalar",
        staged,
        plain,
        f"+{(staged - plain) * 1e6:.2f} us (<= +0.5 us)",
        compare("call_overhead", add_one, x, quoted="TF ~240 us, JAX ~6 us"),
    )


def conversion():
    n, xs = np.int64(27), np.arange(-3, 5)
    times = []
    for _ in range(5 if QUICK else 20):
        func = fresh_loop_heavy()
        t0 = time.perf_counter()
        autograph.convert(func)
        times.append(time.perf_counter() - t0)
    convert_time = min(times)
    first = []
    for _ in range(5 if QUICK else 20):
        func = fresh_loop_heavy()
        f = staging.function(func)
        t0 = time.perf_counter()
        f(n, xs)
        first.append(time.perf_counter() - t0)
    first_call = min(first)
    plain_func = fresh_loop_heavy()
    assert staging.function(fresh_loop_heavy())(n, xs) == plain_func(n, xs)
    row(
        "2a. conversion of the 16-line loop function",
        convert_time,
        None,
        "<= 2 ms",
        compare("conversion", fresh_loop_heavy, quoted="TF ~65 ms"),
    )
    measured = [compare("first_call", fresh_loop_heavy, n, xs), compare("first_call_lax", n, xs)]
    row(
        "2b. first call (conversion + trace)",
        first_call,
        None,
        "<= 8 ms",
        "; ".join(m for m in measured if m) or "TF ~58 ms",
    )
    f = staging.function(fresh_loop_heavy())
    f(n, xs)
    row(
        "2c. later calls of that function (n=27)",
        *best_pair(lambda: f(n, xs), lambda: plain_func(n, xs)),
        "",
        "",
    )


def collatz_bench():
    n = np.int64(837799)
    f = staging.function(collatz)
    assert f(n) == collatz(n) == 524
    staged, plain = best_pair(lambda: f(n), lambda: collatz(n))
    row(
        "3. Collatz steps of 837799 (524 iterations)",
        staged,
        plain,
        "<= 1.0x",
        compare("collatz", collatz, n, quoted="TF 4.1 ms, JAX 0.01 ms"),
    )


def sum_even_bench():
    xs = np.arange(1000, dtype=np.int64)
    f = staging.function(sum_even)
    assert f(xs) == sum_even(xs)
    staged, plain = best_pair(lambda: f(xs), lambda: sum_even(xs))
    row(
        "4. sum of even elements, 1000 int64 (for + continue)",
        staged,
        plain,
        "<= 1.0x",
        compare("sum_even", sum_even, xs, quoted="TF 10.8 ms"),
    )


def numba_bench():
    """jit_compile="numba" against hand-written @numba.njit (the issue's target: within 2x,
    warm) and plain Python; only when numba is installed."""
    try:
        import numba
    except ImportError:
        return
    for name, fn, arg in (
        (
            "3n. Collatz(837799), jit_compile='numba' (plain = @numba.njit)",
            collatz,
            np.int64(837799),
        ),
        (
            "4n. sum-even(1000), jit_compile='numba' (plain = @numba.njit)",
            sum_even,
            np.arange(1000),
        ),
    ):
        staged, hand = staging.function(fn, jit_compile="numba"), numba.njit(fn)
        assert staged(arg) == hand(arg) == fn(arg)
        fast, by_hand = best_pair(lambda: staged(arg), lambda: hand(arg))
        row(name, fast, by_hand, "<= 2.0x", f"plain Python {fmt(best_time(lambda: fn(arg)))}")
    for name, fn, args in (
        ("5n. Newton sqrt(100 float64), jit_compile='numba'", _user.newton_sqrt, _user.NEWTON_ARGS),
        ("6n. bisection, jit_compile='numba'", _user.bisection, _user.BISECTION_ARGS),
        ("7n. Euler (list + np.stack), jit_compile='numba'", _user.euler, _user.EULER_ARGS),
    ):
        staged = staging.function(fn, jit_compile="numba")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (a graph numba does not take: the note)
            assert np.array_equal(staged(*args), fn(*args))
        fallback = staged.get_concrete_function(*args).backend_fallback
        note = f"interpreted: {fallback.split(':')[0]}" if fallback else "compiled"
        fast, plain = best_pair(lambda: staged(*args), lambda: fn(*args))
        row(name, fast, plain, "<= 0.2x", note)


def fill_bench():
    """`out[i] = v` filling an np.zeros(n) in a staged loop: each write goes into the buffer
    (a copy per write would make it quadratic: 2 s at this size)."""
    n = np.int64(100_000)
    f = staging.function(_user.fill)
    assert np.array_equal(f(n), _user.fill(n))
    staged, plain = best_pair(lambda: f(n), lambda: _user.fill(n), min_total=1.0)
    note = "<= 1.2x"
    try:
        import numba  # noqa: F401
    except ImportError:
        pass
    else:
        compiled = staging.function(_user.fill, jit_compile="numba")
        assert np.array_equal(compiled(n), _user.fill(n))
        note += f"; jit_compile='numba' {fmt(best_time(lambda: compiled(n)))}"
    row("11. fill np.zeros(100000) by out[i] = i * 0.5", staged, plain, note)


def chain_bench():
    f = staging.function(chain)
    unfused = staging.function(chain)
    sizes = (
        (100, "<= 0.5x", "TF 280 us, JAX 8 us"),
        (1_000_000, "<= 0.2x", "TF 6.4 ms, JAX 3 ms"),
        (10_000_000, "(beyond the L3 cache)", ""),
    )
    for n, target, quoted in sizes:
        x = np.linspace(0, 1, n, dtype=np.float32)
        with staging.optimizer_options(elementwise_fusion=False):  # options apply when tracing
            unfused.get_concrete_function(x)
        assert np.array_equal(f(x), chain(x)), "staged chain differs from eager"
        assert np.array_equal(unfused(x), chain(x)), "staged chain differs from eager"
        budget = 0.5 if n < 10_000_000 else 2.0
        staged, plain = best_pair(lambda: f(x), lambda: chain(x), min_total=budget)
        numpy_loops = staging.function(chain)
        with staging.optimizer_options(native_kernels=False):
            numpy_loops.get_concrete_function(x)
        assert np.array_equal(numpy_loops(x), chain(x)), "staged chain differs from eager"
        others = [
            f"op by op (no fusion) {fmt(best_time(lambda: unfused(x), min_total=budget))}",
            f"NumPy loops (native_kernels=False) {fmt(best_time(lambda: numpy_loops(x), min_total=budget))}",
        ]
        ne = _numexpr()
        if ne is not None:
            evaluate = _numexpr_chain(ne)
            assert np.array_equal(evaluate(x), chain(x))
            others.append(f"numexpr {fmt(best_time(lambda: evaluate(x), min_total=budget))}")
        others.append(compare("chain", chain, x, quoted=quoted, min_total=budget))
        row(
            f"5. 150 elementwise ops on {n:,} float32",
            staged,
            plain,
            target,
            "; ".join(o for o in others if o),
        )


def normalize(x, mean, scale, w, b):
    y = (x - mean) / scale
    y = y * w + b
    return np.maximum(y, 0.0) * y + 1.0


def broadcast_bench():
    """An elementwise run with operands that broadcast (chunked by rows when fused)."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4000, 1000))
    args = (x, x.mean(axis=0), x.std(axis=0), rng.standard_normal(1000), rng.standard_normal(1000))
    f, unfused = staging.function(normalize), staging.function(normalize)
    with staging.optimizer_options(elementwise_fusion=False):
        unfused.get_concrete_function(*args)
    assert np.array_equal(f(*args), normalize(*args)) and np.array_equal(
        unfused(*args), normalize(*args)
    )
    staged = best_time(lambda: f(*args), min_total=1.0)
    plain = best_time(lambda: normalize(*args), min_total=1.0)
    row(
        "5b. normalize + ReLU, 4000x1000 float64 (broadcasting)",
        staged,
        plain,
        "",
        f"op by op (no fusion) {fmt(best_time(lambda: unfused(*args), min_total=1.0))}",
    )


def _numexpr_chain(ne):
    expr = "x"
    for _ in range(50):
        expr = f"(({expr}) * a + b) - c"
    constants = dict(a=np.float32(1.0001), b=np.float32(0.5), c=np.float32(0.25))
    return lambda x: ne.evaluate(expr, local_dict=dict(constants, x=x))


def memory_bench():
    """Peak memory allocated during one call (tracemalloc sees NumPy's buffers)."""
    import tracemalloc

    def expression(x):
        y = x * 2.0
        z = y + x
        w = z * y
        v = w - z
        return v * 0.5

    def peak(fn, x):
        fn(x)
        tracemalloc.start()
        try:
            fn(x)
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    for func, label in ((expression, "5-op expression"), (chain, "150-op chain")):
        for n in (1_000_000, 4_000_000):
            f = staging.function(func)
            x = np.linspace(0, 1, n)
            staged, plain = peak(f, x), peak(func, x)
            ROWS.append(
                (
                    f"7. peak memory, {label}, {n // 1_000_000}M float64",
                    f"{staged / 2**20:.1f} MiB",
                    f"{plain / 2**20:.1f} MiB",
                    f"{staged / plain:.2f}x",
                    f"result itself: {x.nbytes / 2**20:.1f} MiB",
                    "",
                )
            )


def scaling():
    per_stmt = []
    for size in (10, 100, 1000):
        body = "\n".join("    x = x * 1.0001 + 0.5" for _ in range(size))
        source = f"def big(x):\n{body}\n    return x\n"
        x = np.ones(4)
        times = []
        for _ in range(3):
            f = staging.function(define(source, "big"))
            t0 = time.perf_counter()
            f.get_concrete_function(x)
            times.append(time.perf_counter() - t0)
        t = min(times)
        per_stmt.append(t / size)
        ROWS.append(
            (f"6a. trace, {size} statements", fmt(t), "-", "-", f"{fmt(t / size)}/statement", "")
        )
    growth = per_stmt[-1] / per_stmt[0]
    ROWS.append(
        ("6a. per-statement cost, 1000 vs 10", "-", "-", f"{growth:.2f}x", "~1x = linear", "")
    )

    def count(n):
        i = 0
        total = 0
        while i < n:
            total += i
            i += 1
        return total

    f = staging.function(count)
    per_iter = []
    for trips in (100, 1000, 10_000, 100_000):
        n = np.int64(trips)
        assert f(n) == count(n)
        t = best_time(lambda: f(n), min_total=0.3)
        plain = best_time(lambda: count(n), min_total=0.3)
        per_iter.append(t / trips)
        row(f"6b. staged while, {trips:,} iterations", t, plain, f"{fmt(t / trips)}/iteration", "")
    ROWS.append(
        (
            "6b. per-iteration cost, 10^5 vs 10^2",
            "-",
            "-",
            f"{per_iter[-1] / per_iter[0]:.2f}x",
            "~1x = linear",
            "",
        )
    )


def draw_normals(rng, n):
    """n draws of 1000 normals in a loop (staged: a while_loop of `random` nodes)."""
    total = np.zeros(1000)
    for i in range(n):
        total = total + rng.standard_normal(1000)
    return total


def draw_scalars(rng, n):
    """n draws of one uniform number each: the per-draw cost of a staged draw."""
    total = 0.0
    for i in range(n):
        total = total + rng.random()
    return total


def random_bench():
    """Random draws run when the graph runs: staged and eager streams are bitwise equal."""
    for func, n, label in (
        (draw_normals, 1000, "8a. 10^6 normals drawn in a staged loop (1000 x 1000)"),
        (draw_scalars, 100_000, "8b. 10^5 single uniform draws in a staged loop"),
    ):
        f = staging.function(func)
        n = np.int64(n)
        assert np.array_equal(f(np.random.default_rng(0), n), func(np.random.default_rng(0), n))
        rng = np.random.default_rng(1)
        staged, plain = best_pair(lambda: f(rng, n), lambda: func(rng, n), min_total=0.5)
        row(label, staged, plain, "~1x (bitwise-equal streams)", "")


def _numexpr():
    try:
        import numexpr  # optional: only for comparison figures

        return numexpr
    except ImportError:
        return None


def relax(x):
    """1000 iterations of an elementwise update: the loop a gradient replays in reverse."""
    y = x
    for _ in range(1000):
        y = y - 0.001 * (y * y * y - x)
    return np.sum(y)


def squared_chain(x):
    return np.sum(chain(x) ** 2)


def _jax_gradient_figures(jax_source: str, name: str, x) -> str:
    """jax.jit(jax.grad(f)) and jax.jit(f) of the same workload, when JAX is installed."""
    try:
        import jax
    except ImportError:
        return ""
    jax.config.update("jax_enable_x64", True)
    scope: dict = {"jax": jax, "jnp": jax.numpy}
    exec(jax_source, scope)  # noqa: S102  (our own benchmark source, below)
    f = scope[name]
    forward, gradient = jax.jit(f), jax.jit(jax.grad(f))
    xj = jax.numpy.asarray(x)
    forward(xj).block_until_ready()
    gradient(xj).block_until_ready()
    tf = best_time(lambda: forward(xj).block_until_ready())
    tg = best_time(lambda: gradient(xj).block_until_ready())
    return f"jax.grad (jit) {fmt(tg)} = {tg / tf:.2f}x its forward {fmt(tf)}"


_JAX_RELAX = """
def relax(x):
    body = lambda i, y: y - 0.001 * (y * y * y - x)
    return jnp.sum(jax.lax.fori_loop(0, 1000, body, x))
"""
_JAX_CHAIN = """
def squared_chain(x):
    for _ in range(50):
        x = x * 1.0001 + 0.5
        x = x - 0.25
    return jnp.sum(x ** 2)
"""


def gradient_bench():
    """staging.grad against the staged forward call of the same function (plain = forward)."""
    cases = (
        (
            "9. gradient of a 1000-iteration loop, 16 float64",
            relax,
            np.linspace(0.5, 1.5, 16),
            "<= 4x its forward",
            _JAX_RELAX,
            "relax",
        ),
        (
            "10. gradient of the 150-op chain, 1M float32",
            squared_chain,
            np.linspace(0, 1, 1_000_000, dtype=np.float32),
            "<= 3x its forward",
            _JAX_CHAIN,
            "squared_chain",
        ),
    )
    for name, f, x, target, jax_source, jax_name in cases:
        forward, gradient = staging.function(f), staging.grad(f)
        forward(x)
        gradient(x)
        staged, plain = best_pair(lambda: gradient(x), lambda: forward(x), min_total=0.5)
        row(
            name + " (plain = its staged forward)",
            staged,
            plain,
            target,
            _jax_gradient_figures(jax_source, jax_name, x),
        )


def main(argv=None) -> int:
    global QUICK
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats (smoke test)")
    args = parser.parse_args(argv)
    QUICK = args.quick
    FRAMEWORKS[:] = _others.frameworks()
    for workload in (
        call_overhead,
        conversion,
        user_workloads,
        collatz_bench,
        sum_even_bench,
        numba_bench,
        fill_bench,
        chain_bench,
        broadcast_bench,
        memory_bench,
        scaling,
        random_bench,
        gradient_bench,
    ):
        workload()
    headers = ("workload", "staged", "plain", "ratio", "target / note", "others (measured here)")
    widths = [max(len(str(r[i])) for r in ROWS + [headers]) for i in range(len(headers))]
    line = "  ".join(h.ljust(w) for h, w in zip(headers, widths))
    print(line)
    print("-" * len(line))
    for r in ROWS:
        print("  ".join(str(c).ljust(w) for c, w in zip(r, widths)))
    print(
        textwrap.dedent(f"""
        ratio = staged time / plain time, measured in this run (below 1.00x, staging is faster).
        python {sys.version.split()[0]}, numpy {np.__version__}; times are best-of-N per call.
        'others' are the figures quoted in the issue for TF 2.21 / JAX unless measured in this run.""")
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
