"""Benchmark `autograph lint`: 10,000 lines in 50 files, 10 of them with staged functions;
then one 3,000-line module of staged functions, a few of them with findings."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from autograph.lint import lint_paths  # noqa: E402

PLAIN_HEADER = '''"""Plain NumPy helpers (module {n})."""

import numpy as np

'''
PLAIN_BLOCK = '''

def helper_{n}_{i}(x, y=None):
    """Scale and clip."""
    total = np.zeros_like(x)
    for k in range(4):
        if k % 2:
            total = total + x * k  # odd
        else:
            total = total - (y if y is not None else 0)
    return np.clip(total, -1.0, 1.0)
'''
STAGED_HEADER = '''"""Staged model code (module {n})."""

import numpy as np
import staging

SCALE = 2.0
history = []

'''
STAGED_BLOCK = '''

@staging.function
def step_{n}_{i}(x, acc=[]):
    """One step."""
    print("tracing step")
    total = x * SCALE
    for k in [1, 2, 3]:
        total = total + k
    history.append(total)
    return total
'''

BIG_HEADER = '''"""One large staged module (3,000 lines): findings near the top, middle and end."""

import numpy as np
import staging

SCALE = 2.0
history = []

'''
BIG_CLEAN = '''

@staging.function
def clean_{i}(x, y=None):
    """A staged step without findings."""
    total = x * SCALE
    if y is not None:
        total = total + y
    for k in staging.range(3):
        total = total + k
    return total
'''


def build_big_module(path: str, lines: int = 3_000, every: int = 40) -> tuple[int, int]:
    """Write one module of staged functions, every `every`-th one with findings, to `path`.

    Return (lines written, staged functions).
    """
    text = BIG_HEADER
    i = 0
    while text.count("\n") + BIG_CLEAN.count("\n") <= lines:
        bad = i % every == 1 or i % every == every // 2
        text += STAGED_BLOCK.format(n="big", i=i) if bad else BIG_CLEAN.format(i=i)
        i += 1
    text += "\n" * (lines - text.count("\n"))
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)
    return text.count("\n"), i


def build_corpus(root: str, files: int = 50, staged: int = 10, lines: int = 10_000) -> int:
    """Write the corpus under `root`; return the number of lines written."""
    per_file = lines // files
    written = 0
    for n in range(files):
        is_staged = n % (files // staged) == 0 and n // (files // staged) < staged
        header, block = (STAGED_HEADER, STAGED_BLOCK) if is_staged else (PLAIN_HEADER, PLAIN_BLOCK)
        text = header.format(n=n)
        i = 0
        while text.count("\n") + block.count("\n") <= per_file:
            text += block.format(n=n, i=i)
            i += 1
        text += "\n" * (per_file - text.count("\n"))
        sub = os.path.join(root, f"pkg{n % 5}")
        os.makedirs(sub, exist_ok=True)
        with open(os.path.join(sub, f"mod_{n:02d}.py"), "w", encoding="utf-8") as handle:
            handle.write(text)
        written += text.count("\n")
    return written


def _time(paths: list[str], repeat: int) -> tuple[int, float, float]:
    """(findings, best, worst) of `repeat` timed runs of lint_paths(paths)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        findings = lint_paths(paths)
        times.append(time.perf_counter() - start)
    return len(findings), min(times), max(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5, help="timed runs (best is reported)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as root:
        lines = build_corpus(root)
        findings, best, worst = _time([root], args.repeat)
    print(f"{'corpus':<36} {'findings':>8} {'best s':>8} {'worst s':>8} {'budget s':>8}")
    print(
        f"{f'{lines} lines / 50 files / 10 staged':<36} {findings:>8} "
        f"{best:>8.3f} {worst:>8.3f} {2.0:>8.1f}"
    )
    # One large module with findings: their positions are resolved per statement, not
    # over the whole module (the rest of the time is parsing and the rule checks).
    with tempfile.TemporaryDirectory() as root:
        path = os.path.join(root, "big_module.py")
        lines, staged = build_big_module(path)
        findings, best, worst = _time([path], args.repeat)
    print(
        f"{f'{lines} lines / 1 file / {staged} staged':<36} {findings:>8} "
        f"{best:>8.3f} {worst:>8.3f} {'-':>8}"
    )


if __name__ == "__main__":
    main()
