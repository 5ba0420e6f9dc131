"""Runs a generated program eagerly and staged, compares the two and classifies the difference.

Each call of `f` is made twice: `f(*args)` (plain Python + NumPy) and
`staging.function(f)(*args)`, on fresh copies of the arguments, with stdout captured. The calls
go A1, A2 (same signature: a cache hit), B (a new dtype or shape: a retrace), A1 (a cache hit
after the retrace). Categories, worst first:

SILENT_MISMATCH  staged returned without error but a value, dtype, Python type, shape,
                 structure or printed text differs (or eager raised and staged returned);
                 or both raised the same error but printed different text before it
CRASH            staged raised an internal error (a non-staging exception from inside
                 staging/, autograph/ or runtime/ whose message does not start with the
                 program's file:line)
TIMEOUT          staged did not finish in time
WRONG_ERROR      staged raised something eager does not raise, or another type, or the
                 program's own exception class with other arguments or attributes, or a
                 staging error whose message does not start with the program's file:line
REFUSED          staged raised a staging.errors type (not ExecutionError) whose message
                 starts with the program's file:line: a clear refusal
SAME_ERROR       both raised: an exception of eager's class (the very class, or for a
                 built-in class a subclass of it), with the same arguments and attributes
                 when the class is the program's own, after the same printed text
AGREE            same values, dtypes, Python types, printed text
INVALID          the program itself is broken (eager NameError, timeout...): a generator bug
"""

from __future__ import annotations

import collections
import contextlib
import importlib.util
import io
import itertools
import math
import os
import re
import signal
import sys
import tempfile
import traceback
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

import staging
from staging import errors

from .analysis import analyze
from .program import Program, may_be_refused

ORDER = [
    "SILENT_MISMATCH",
    "CRASH",
    "TIMEOUT",
    "WRONG_ERROR",
    "REFUSED",
    "SAME_ERROR",
    "AGREE",
    "INVALID",
]
FAILURES = ("SILENT_MISMATCH", "CRASH", "TIMEOUT", "WRONG_ERROR", "INVALID")
_RANK = {c: i for i, c in enumerate(ORDER)}
_FRAMEWORK_DIRS = tuple(
    str(Path(m.__file__).resolve().parent) + os.sep
    for m in (
        staging,
        sys.modules.get("autograph") or __import__("autograph"),
        __import__("runtime"),
    )
)
_INVALID_EAGER = (NameError, SyntaxError, RecursionError)  # UnboundLocalError is a NameError


class _Timeout(BaseException):
    """Raised by the alarm; a BaseException so that `except Exception` in the code under test
    does not swallow it."""


@contextlib.contextmanager
def time_limit(seconds):
    if (
        seconds is None
        or not hasattr(signal, "setitimer")
        or __import__("threading").current_thread() is not __import__("threading").main_thread()
    ):
        yield
        return

    armed = [True]

    def on_alarm(signum, frame):
        if armed[0]:
            raise _Timeout()

    old = signal.signal(signal.SIGALRM, on_alarm)
    # The alarm repeats: an exception raised where Python ignores it (a gc callback, a
    # __del__) must not let the call run on.
    signal.setitimer(signal.ITIMER_REAL, seconds, 0.25)
    try:
        yield
    finally:
        armed[0] = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


@dataclass
class CallResult:
    value: object = None
    error: BaseException | None = None
    stdout: str = ""
    timed_out: bool = False
    trace: list = field(default_factory=list)  # (filename, lineno, function) of the error's frames


def _call(func, args, seconds):
    out = io.StringIO()
    result = CallResult()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            with contextlib.redirect_stdout(out), time_limit(seconds):
                result.value = func(*args)
        except _Timeout:
            result.timed_out = True
        except Exception as error:  # noqa: BLE001 - every error is data here
            result.error = error
            result.trace = [
                (f.filename, f.lineno, f.name) for f in traceback.extract_tb(error.__traceback__)
            ]
    result.stdout = out.getvalue()
    return result


# -- comparing results ----------------------------------------------------------------------


def type_name(v) -> str:
    if isinstance(v, np.ndarray):
        return f"ndarray[{v.dtype.name}, ndim={v.ndim}]"
    if isinstance(v, np.generic):
        return f"np.{v.dtype.name}"
    return type(v).__name__


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    if a.dtype.kind in "fc":
        if a.dtype.kind == "c":
            return _same_bits(a.real.copy(), b.real.copy()) and _same_bits(
                a.imag.copy(), b.imag.copy()
            )
        nan = np.isnan(a) & np.isnan(b)
        a, b = np.where(nan, 0, a), np.where(nan, 0, b)
        return a.tobytes() == b.tobytes() and not (np.isnan(a) | np.isnan(b)).any()
    if a.dtype == object:
        return all(x == y and type(x) is type(y) for x, y in zip(a.ravel(), b.ravel()))
    return a.tobytes() == b.tobytes()


def _py_same(a, b) -> bool:
    if isinstance(a, float):
        return (math.isnan(a) and math.isnan(b)) or (
            a == b and math.copysign(1, a) == math.copysign(1, b)
        )
    if isinstance(a, complex):
        return _py_same(a.real, b.real) and _py_same(a.imag, b.imag)
    return a == b


_KIND_ORDER = (bool, int, float, complex)
_REPRESENTATIVE = {bool: True, int: 1, float: 1.0, complex: 1j}


def documented_join(eager, staged) -> bool:
    """Whether `staged` is the Python number `eager` converted as docs/semantics.md says a
    value is where a Python number meets another type (the branches of a staged `if`, a loop
    variable): to a wider Python number, or to a NumPy scalar whose dtype NEP 50 keeps when
    the number meets it (`0` meeting an int32 value is np.int32(0)), holding the number as
    that type holds it (`0.1` as np.float32(0.1)); a number the type cannot hold is not one."""
    kind = type(eager)
    if kind not in _KIND_ORDER:
        return False
    if type(staged) in _KIND_ORDER:
        return _KIND_ORDER.index(kind) < _KIND_ORDER.index(type(staged)) and _py_same(
            type(staged)(eager), staged
        )
    if (
        not isinstance(staged, np.generic)
        or np.result_type(staged.dtype, _REPRESENTATIVE[kind]) != staged.dtype
    ):
        return False
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            converted = np.asarray(eager, dtype=staged.dtype)
    except (OverflowError, TypeError, ValueError):
        return False
    return converted.tobytes() == np.asarray(staged).tobytes() or _same_bits(
        converted, np.asarray(staged)
    )


def differences(eager, staged, path="result", joins=False) -> list:
    """(aspect, detail) pairs; empty when the two results are the same. With `joins` (for a
    program that is not dtype-stable), a Python number that comes back as its documented join
    conversion (`documented_join`) is the same."""
    if joins and documented_join(eager, staged):
        return []
    if isinstance(eager, str) or isinstance(staged, str):
        if type(eager) is not type(staged):
            return [("pytype", f"{path}: {type_name(eager)} -> {type_name(staged)}")]
        return [] if eager == staged else [("value str", f"{path}: {eager!r} -> {staged!r}")]
    if isinstance(eager, (set, frozenset)) or isinstance(staged, (set, frozenset)):
        return _set_differences(eager, staged, path)
    if isinstance(eager, collections.deque) and type(eager) is type(staged):
        return differences(list(eager), list(staged), f"{path}(deque)", joins)
    if isinstance(eager, (list, tuple, dict)) or isinstance(staged, (list, tuple, dict)):
        if type(eager) is not type(staged):
            return [("structure", f"{path}: {type_name(eager)} -> {type_name(staged)}")]
        if isinstance(eager, dict):
            if set(eager) != set(staged):
                return [("structure", f"{path}: keys {sorted(eager)} -> {sorted(staged)}")]
            pairs = [(eager[k], staged[k], f"{path}[{k!r}]") for k in sorted(eager)]
        else:
            if len(eager) != len(staged):
                return [("structure", f"{path}: length {len(eager)} -> {len(staged)}")]
            pairs = [(a, b, f"{path}[{i}]") for i, (a, b) in enumerate(zip(eager, staged))]
        out = []
        for a, b, p in pairs:
            out += differences(a, b, p, joins)
        return out
    if hasattr(eager, "__dict__") and not isinstance(eager, (np.ndarray, np.generic, type)):
        # an instance of the program's class: same class, same attributes
        if type(eager).__name__ != type(staged).__name__ or not hasattr(staged, "__dict__"):
            return [("structure", f"{path}: {type_name(eager)} -> {type_name(staged)}")]
        return differences(dict(vars(eager)), dict(vars(staged)), f"{path}.__dict__", joins)
    out = []
    if type(eager) is not type(staged):
        out.append(("pytype", f"{path}: {type_name(eager)} -> {type_name(staged)}"))
    if (
        isinstance(eager, (bool, int, float, complex))
        and not isinstance(eager, np.generic)
        and type(eager) is type(staged)
    ):
        if not _py_same(eager, staged):
            out.append((f"value {type_name(eager)}", f"{path}: {eager!r} -> {staged!r}"))
        return out
    try:
        a, b = np.asarray(eager), np.asarray(staged)
    except Exception:  # noqa: BLE001
        if eager is not staged:
            out.append((f"value {type_name(eager)}", f"{path}: {eager!r} -> {staged!r}"))
        return out
    if a.dtype != b.dtype:
        if not out:  # a Python int against np.int64 is already a pytype difference
            out.append(("dtype", f"{path}: {a.dtype.name} -> {b.dtype.name}"))
        elif isinstance(eager, (np.ndarray, np.generic)):
            out.append(("dtype", f"{path}: {a.dtype.name} -> {b.dtype.name}"))
    if a.shape != b.shape:
        out.append(("shape", f"{path}: {a.shape} -> {b.shape}"))
        return out
    if a.dtype == b.dtype:
        same = _same_bits(a, b)
    else:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            try:
                same = bool(
                    np.all((a == b) | (np.isnan(a.astype(complex)) & np.isnan(b.astype(complex))))
                )
            except Exception:  # noqa: BLE001
                same = False
    if not same:
        out.append((f"value {type_name(eager)}", f"{path}: {_short(eager)} -> {_short(staged)}"))
    return out


def _set_differences(eager, staged, path) -> list:
    """Sets: the same type, and the same elements of the same types (NaNs matched by count)."""
    if type(eager) is not type(staged):
        return [("structure", f"{path}: {type_name(eager)} -> {type_name(staged)}")]

    def key(v):
        return (type_name(v), "nan" if isinstance(v, float) and v != v else repr(v))

    if sorted(map(key, eager)) != sorted(map(key, staged)):
        return [("value set", f"{path}: {_short(eager)} -> {_short(staged)}")]
    return []


def _short(v, limit=120) -> str:
    text = repr(v)
    return text if len(text) <= limit else text[:limit] + "..."


# -- classification -------------------------------------------------------------------------


def _builtin_base(exc_type):
    for klass in exc_type.__mro__:
        if klass.__module__ == "builtins":
            return klass
    return Exception


def _in_framework(filename) -> bool:
    try:
        resolved = str(Path(filename).resolve())
    except OSError:
        return False
    return resolved.startswith(_FRAMEWORK_DIRS)


def _names_location(error, path) -> bool:
    """Whether the message starts with the program's file:line (as the project's errors do), or
    a PEP 678 note added to an error raised as itself names it."""
    name = re.escape(os.path.basename(path)) + r":\d+"
    if re.match(r"\s*\S*" + name, str(error)):
        return True
    return any(re.search(name, str(note)) for note in getattr(error, "__notes__", ()) or ())


_NORMALIZE = [
    (re.compile(r"(/[^\s:'\"]*|<[a-z]+>)\.py(:\d+)?:?"), "<file>"),
    (re.compile(r"\b(bool|u?int(8|16|32|64)|float(16|32|64)|complex(64|128))\b"), "<dtype>"),
    (re.compile(r"\b(bool|[iuf](8|16|32|64)|c(64|128))(?=\[)"), "<dtype>"),
    (re.compile(r"<string>:\d+:?"), "<file>"),
    (re.compile(r"\b[vkiedlosgha]\d+\b"), "v#"),
    (re.compile(r"\bp\d+\b"), "p#"),
    (re.compile(r"fuzzprog_\w+"), "prog"),
    (re.compile(r"-?\d+(\.\d+)?(e[+-]?\d+)?"), "#"),
    (re.compile(r"\s+"), " "),
]


def normalize_message(text: str, limit=110) -> str:
    for pattern, repl in _NORMALIZE:
        text = pattern.sub(repl, text)
    text = text.strip()
    return text if len(text) <= limit else text[:limit] + "..."


def _framework_frame(trace):
    for filename, lineno, name in reversed(trace):
        if _in_framework(filename):
            rel = filename
            for d in _FRAMEWORK_DIRS:
                if str(Path(filename).resolve()).startswith(d):
                    rel = os.path.join(
                        os.path.basename(d.rstrip(os.sep)), str(Path(filename).resolve())[len(d) :]
                    )
            return f"{rel}:{name}"
    return None


def _describe(result: CallResult) -> str:
    if result.timed_out:
        return "timed out"
    if result.error is not None:
        notes = "".join(
            f" [note: {_short(str(n), 200)}]" for n in getattr(result.error, "__notes__", ()) or ()
        )
        return f"raised {type(result.error).__name__}: {_short(str(result.error), 300)}{notes}"
    text = f"returned {_short(result.value, 300)}"
    if result.stdout:
        text += f"; printed {_short(result.stdout, 200)}"
    return text


@dataclass
class CallComparison:
    args: str
    eager: str
    staged: str
    category: str
    key: str
    detail: str = ""


@dataclass
class Outcome:
    category: str
    key: str
    stable: bool
    unstable: list
    calls: list
    program: Program | None = None

    @property
    def acceptable(self) -> bool:
        """What the differential test requires: AGREE or SAME_ERROR, or a clear refusal; a
        refusal only where the program is not dtype-stable or uses a construct staging may
        refuse (`program.MAY_BE_REFUSED`); never a silent mismatch, a wrong error, a crash or
        a generator bug."""
        if self.category in ("AGREE", "SAME_ERROR"):
            return True
        if self.category != "REFUSED":
            return False
        return not self.stable or self.program is None or may_be_refused(self.program)

    @property
    def failure_class(self) -> str:
        """The key used to group failures: category, stability (for refusals) and mechanism."""
        if self.category == "REFUSED":
            return f"REFUSED{'(stable)' if self.stable else ''} {self.key}"
        return f"{self.category} {self.key}"

    def report(self) -> str:
        lines = [
            f"category: {self.category}{' (dtype-stable program)' if self.stable else ''}",
            f"mechanism: {self.key}",
        ]
        if self.unstable:
            lines.append("dtype changes at joins: " + "; ".join(self.unstable[:4]))
        if self.program is not None:
            lines += ["", self.program.source().rstrip(), ""]
        for c in self.calls:
            lines.append(f"f({c.args})  [{c.category}]")
            lines.append(f"    eager:  {c.eager}")
            lines.append(f"    staged: {c.staged}")
            if c.detail:
                lines.append(f"    differs: {c.detail}")
        return "\n".join(lines)


def compare_call(eager: CallResult, staged: CallResult, path: str, joins: bool = False) -> tuple:
    """(category, mechanism key, detail) for one call. `joins`: the program is not dtype-stable,
    so the documented join conversion of a Python number is not a difference."""
    if eager.timed_out:
        return "INVALID", "eager timed out", ""
    if eager.error is not None and isinstance(eager.error, _INVALID_EAGER):
        return (
            "INVALID",
            f"eager {type(eager.error).__name__}: {normalize_message(str(eager.error))}",
            "",
        )
    if staged.timed_out:
        return "TIMEOUT", "staged call timed out", ""
    if staged.error is not None:
        err = staged.error
        message = normalize_message(f"{type(err).__name__}: {err}")
        # eager's class or a subclass (the project's errors subclass the built-in ones)
        if eager.error is not None and isinstance(err, type(eager.error)):
            category, key, detail = _same_error(eager, staged, path)
            if category == "SAME_ERROR" or not _is_refusal(err, path):
                return category, key, detail
            # a refusal that happens to subclass eager's error, raised before eager's prints
        if _is_refusal(err, path):
            return "REFUSED", message, ""
        if not isinstance(err, errors.StagingError) and not _names_location(err, path):
            frame = _framework_frame(staged.trace)
            last = staged.trace[-1][0] if staged.trace else ""
            if frame is not None and _in_framework(last):
                return "CRASH", f"{message} @ {frame}", ""
        eager_part = (
            f"eager raised {type(eager.error).__name__}"
            if eager.error is not None
            else "eager returned"
        )
        where = "" if _names_location(err, path) else " (no file:line of the program)"
        return "WRONG_ERROR", f"{eager_part}; staged {message}{where}", ""
    if eager.error is not None:
        return (
            "SILENT_MISMATCH",
            f"eager raised {type(eager.error).__name__}, staged returned",
            f"eager raised {type(eager.error).__name__}",
        )
    diffs = differences(eager.value, staged.value, joins=joins)
    if _ADDRESS.sub("0x?", eager.stdout) != _ADDRESS.sub("0x?", staged.stdout):
        diffs.append(("print", f"printed {eager.stdout!r} -> {staged.stdout!r}"))
    if not diffs:
        return "AGREE", "", ""
    key = "; ".join(sorted({_aspect_key(a, d) for a, d in diffs}))
    return "SILENT_MISMATCH", key, "; ".join(d for _, d in diffs)


_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")  # `<Box object at 0x...>` differs between any two runs


def _same_error(eager: CallResult, staged: CallResult, path: str) -> tuple:
    """Both raised an error of eager's class: the program's own class must also carry the same
    arguments and attributes, and the text printed before the error must be the same."""
    a, b = eager.error, staged.error
    name = type(a).__name__
    if _is_program_class(type(a)):
        if type(b) is not type(a):
            return "WRONG_ERROR", f"eager raised {name}; staged a subclass {type(b).__name__}", ""
        diffs = differences(a.args, b.args, f"{name}.args") + differences(
            _attributes(a), _attributes(b), f"{name} attributes"
        )
        if diffs:
            detail = "; ".join(d for _, d in diffs)
            return "WRONG_ERROR", f"{name} raised with other arguments or attributes", detail
    if _ADDRESS.sub("0x?", eager.stdout) != _ADDRESS.sub("0x?", staged.stdout):
        detail = f"printed {eager.stdout!r} -> {staged.stdout!r}"
        return (
            "SILENT_MISMATCH",
            f"print (before the same {_builtin_base(type(a)).__name__})",
            detail,
        )
    return "SAME_ERROR", "", ""


def _is_refusal(err, path) -> bool:
    """A staging error (not an error of the graph's run) naming the program's file:line."""
    refusal = isinstance(err, errors.StagingError) and not isinstance(err, errors.ExecutionError)
    return refusal and _names_location(err, path)


def _is_program_class(cls) -> bool:
    return cls.__module__.startswith("fuzzprog_")


def _attributes(error) -> dict:
    return {k: v for k, v in vars(error).items() if not k.startswith("__")}


def _aspect_key(aspect, detail):
    if aspect in ("pytype", "dtype", "structure"):
        return (
            f"{aspect} {detail.split(': ', 1)[-1]}"
            if aspect != "structure"
            else f"structure {re.sub(r'[0-9]+', '#', detail.split(': ', 1)[-1])}"
        )
    return aspect  # "value ..." and "print" carry their own detail


# -- running a program ----------------------------------------------------------------------

_counter = itertools.count()
_tmpdir = None


def _workdir() -> Path:
    global _tmpdir
    if _tmpdir is None or not Path(_tmpdir.name).exists():
        _tmpdir = tempfile.TemporaryDirectory(prefix="fuzzprog_")
    return Path(_tmpdir.name)


@contextlib.contextmanager
def loaded(program: Program):
    """The program's module, imported from a real file (the converter reads its source)."""
    name = f"fuzzprog_{os.getpid()}_{next(_counter)}"
    path = _workdir() / f"{name}.py"
    path.write_text(program.source(), encoding="utf-8")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
        yield module, str(path)
    finally:
        sys.modules.pop(name, None)
        with contextlib.suppress(OSError):
            path.unlink()


def run_program(
    program: Program, timeout: float | None = 10.0, staged_factory=None, analysis=None
) -> Outcome:
    """Runs every call of `program` eagerly and staged and classifies the worst difference.
    `staged_factory(f)` makes the staged callable (staging.function by default)."""
    analysis = analysis if analysis is not None else analyze(program)
    staged_factory = staged_factory or staging.function
    comparisons = []
    with loaded(program) as (module, path):
        staging.run_functions_eagerly(False)
        try:
            staged_f = staged_factory(module.f)
        except Exception as error:  # noqa: BLE001
            staged_f = _raiser(error)
        for i, call in enumerate(program.calls):
            np.random.seed(i)  # random draws (feature "random"): the same stream for both calls
            eager = _call(module.f, [a.build() for a in call], timeout)
            np.random.seed(i)
            staged = _call(staged_f, [a.build() for a in call], timeout)
            category, key, detail = compare_call(eager, staged, path, joins=not analysis.stable)
            comparisons.append(
                CallComparison(
                    ", ".join(a.source() for a in call),
                    _describe(eager),
                    _describe(staged),
                    category,
                    key,
                    detail,
                )
            )
            if category == "INVALID":
                break
    worst = min(comparisons, key=lambda c: _RANK[c.category])
    if any(c.category == "INVALID" for c in comparisons):
        worst = next(c for c in comparisons if c.category == "INVALID")
    return Outcome(
        worst.category,
        worst.key,
        analysis.stable,
        analysis.unstable + analysis.errors,
        comparisons,
        program,
    )


def _raiser(error):
    def staged(*args):
        raise error

    return staged
