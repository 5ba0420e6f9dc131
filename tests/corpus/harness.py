"""Runs each corpus program eagerly and staged, and says how the staged calls differ.

For one (program, case) the harness calls the plain function once and the staged function
(`staging.function(program)`) twice, each time on a fresh deep copy of the arguments: the first
staged call traces, the second runs the cached graph. Each staged call is compared with the eager
call on

- the returned value, bit for bit, recursively through tuples, lists, dicts, sets and deques:
  arrays by dtype, shape and bytes (NaN positions and signed zeros included, NaN payloads not),
  Python and NumPy numbers by type and value (`0.0` and `np.float64(0.0)` differ);
- the text printed to stdout;
- the arguments' state afterwards (in-place writes, a generator's state, an object's attributes),
  and which arguments the result *is* (`return x` after writing into `x`);
- the exception raised: its type, its message, and, for a refusal (an error from
  `staging.errors`), that it names the file and line of the program.

The case gets one category, the worse of the two staged calls:

- `agree`: everything above is equal;
- `both_raise_same`: both raise the same exception type with the same message (counts as agree);
- `silent`: a different result, printout or argument state, and no error;
- `wrong_error`: another exception than eager's, or an error where eager returned that is not a
  refusal, or a refusal that does not name the user's line;
- `refused`: a `staging.errors.StagingError`, naming the user's line, where eager returned or
  raised something else.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import importlib
import inspect
import io
import math
import pathlib
import pkgutil
import re
import signal
import sys
import threading
import time
import warnings
from collections import deque
from typing import Any, Callable

import numpy as np

import staging
from staging.core import recording as graph_building
from staging.errors import StagingError

CATEGORIES = ("agree", "both_raise_same", "silent", "wrong_error", "refused")
PASSING = ("agree", "both_raise_same")
FAILING = ("silent", "wrong_error", "refused")
SEVERITY = {"agree": 0, "both_raise_same": 0, "refused": 1, "wrong_error": 2, "silent": 3}

CALL_TIMEOUT = 4.0  # seconds; every call takes milliseconds: a longer one is stopped, reported
MIN_CASES = 3


# -- the cases ------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Case:
    """One call of one program: `func(*args)`."""

    module: str
    domain: str
    func: Callable
    index: int
    args: tuple

    @property
    def key(self) -> tuple[str, str, int]:
        return (self.module, self.func.__name__, self.index)

    @property
    def id(self) -> str:
        return f"{self.module}.{self.func.__name__}[{self.index}]"


def discover() -> list[Case]:
    """Every case of every module of `programs`, in module, program and case order."""
    from . import programs

    cases = []
    for info in sorted(pkgutil.iter_modules(programs.__path__), key=lambda info: info.name):
        module = importlib.import_module(f"{programs.__name__}.{info.name}")
        for func, calls in module.CASES.items():
            if func.__module__ != module.__name__:
                raise ValueError(f"{info.name}: {func.__name__} is not defined in the module")
            if len(calls) < MIN_CASES:
                raise ValueError(f"{info.name}.{func.__name__}: fewer than {MIN_CASES} cases")
            for index, args in enumerate(calls):
                if not isinstance(args, tuple):
                    raise TypeError(f"{info.name}.{func.__name__}[{index}]: args must be a tuple")
                cases.append(Case(info.name, module.DOMAIN, func, index, args))
    return cases


# -- running one call -----------------------------------------------------------------------------


class CallTimeout(BaseException):
    """A call ran longer than CALL_TIMEOUT (a BaseException, so `except Exception` lets it go)."""


PROGRAMS_DIR = str(pathlib.Path(__file__).with_name("programs"))
GRACE = 2.0  # seconds after the limit before a call is stopped wherever it is


@contextlib.contextmanager
def _time_limit(seconds: float):
    """Stops a call that runs longer than `seconds`, raising CallTimeout.

    An exception raised at an arbitrary point of the framework's own code could leave its state
    half updated (a graph pushed but not popped), so when the time is up the harness first asks
    for the stop where the program itself runs: at the next call of a function of the corpus
    programs (converted code keeps their file name), as if the program had raised there. Only
    if no such call comes within GRACE seconds is the call stopped wherever it is.
    """
    if threading.current_thread() is not threading.main_thread() or not hasattr(
        signal, "setitimer"
    ):
        yield
        return
    message = f"did not finish within {seconds:g} s"
    previous_trace = sys.gettrace()

    def stop_in_program(frame, event, arg):
        if event == "call" and PROGRAMS_DIR in frame.f_code.co_filename:
            sys.settrace(previous_trace)
            raise CallTimeout(message)
        return None

    def on_alarm(signum, frame):
        if sys.gettrace() is stop_in_program:  # the grace period is over too
            sys.settrace(previous_trace)
            raise CallTimeout(message)
        sys.settrace(stop_in_program)
        signal.setitimer(signal.ITIMER_REAL, GRACE)

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        sys.settrace(previous_trace)


@dataclasses.dataclass
class Outcome:
    """What one call did."""

    value: Any = None
    error: BaseException | None = None
    stdout: str = ""
    args: tuple = ()
    aliases: dict = dataclasses.field(default_factory=dict)  # result path -> argument path


_CONTAINERS = (np.ndarray, list, dict, set, deque, bytearray)


def _walk(value, path, seen, depth=0):
    """(path, object) for every mutable container reachable through plain containers."""
    if depth > 20 or id(value) in seen:
        return
    if isinstance(value, _CONTAINERS):
        seen.add(id(value))
        yield path, value
    if isinstance(value, (tuple, list, deque)):
        for i, item in enumerate(value):
            yield from _walk(item, f"{path}[{i}]", seen, depth + 1)
    elif isinstance(value, dict):
        for k, item in value.items():
            yield from _walk(item, f"{path}[{k!r}]", seen, depth + 1)


def run(callable_: Callable, args: tuple) -> Outcome:
    """Calls `callable_` on a deep copy of `args`, capturing stdout, result and error."""
    args = copy.deepcopy(args)
    # Keep each argument container alive (with its path) so that ids cannot be reused.
    owned = {id(obj): (path, obj) for path, obj in _walk(args, "args", set())}
    out = io.StringIO()
    outcome = Outcome(args=args)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with contextlib.redirect_stdout(out):
            try:
                with _time_limit(CALL_TIMEOUT):
                    outcome.value = callable_(*args)
            except (Exception, CallTimeout) as error:  # noqa: BLE001 - any error is a result
                outcome.error = error
    outcome.stdout = out.getvalue()
    outcome.aliases = {
        path: owned[id(obj)][0]
        for path, obj in _walk(outcome.value, "result", set())
        if id(obj) in owned
    }
    return outcome


# -- comparing values -----------------------------------------------------------------------------


_PATH = re.compile(r"(?:[\w.-]*[/\\])+([\w.-]+\.py)")


def one_line(text: str) -> str:
    """`text` on one line, with file paths shortened to their base names."""
    return " ".join(_PATH.sub(r"\1", text).split())


def short(value, width: int = 60) -> str:
    """A one-line repr of at most `width` characters."""
    if isinstance(value, str):
        text = repr(one_line(value))
    else:
        try:
            text = one_line(repr(value))
        except Exception as error:  # noqa: BLE001 - a repr that fails is still described
            text = f"<{type(value).__name__}: repr raised {type(error).__name__}>"
    return text if len(text) <= width else text[: width - 3] + "..."


def type_name(value) -> str:
    kind = type(value)
    if kind.__module__ in ("builtins",):
        return kind.__qualname__
    if kind.__module__ == "numpy":
        return f"np.{kind.__qualname__}"
    return f"{kind.__module__}.{kind.__qualname__}"


def _same_float(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)


def _array_diff(a: np.ndarray, b: np.ndarray, path: str) -> str | None:
    if a.dtype != b.dtype:
        return f"{path}: dtype {a.dtype} vs {b.dtype}"
    if a.shape != b.shape:
        return f"{path}: shape {a.shape} vs {b.shape}"
    if a.dtype.hasobject:
        for index in np.ndindex(a.shape):
            found = diff(a[index], b[index], f"{path}[{','.join(map(str, index))}]")
            if found:
                return found
        return None
    a = np.ascontiguousarray(a)
    b = np.ascontiguousarray(b)
    if a.dtype.kind in "fc":
        nan_a, nan_b = np.isnan(a), np.isnan(b)
        differs = (nan_a != nan_b) | (~nan_a & ~nan_b & (a != b))
        # Signed zeros compare equal: tell them apart by their sign bits.
        if a.dtype.kind == "f":
            differs |= ~nan_a & ~nan_b & (np.signbit(a) != np.signbit(b))
        else:
            for part in ("real", "imag"):
                pa, pb = getattr(a, part), getattr(b, part)
                differs |= ~nan_a & ~nan_b & (np.signbit(pa) != np.signbit(pb))
    elif a.dtype.kind in "SUVMm" or a.dtype.names:
        differs = np.array(
            [x.tobytes() != y.tobytes() for x, y in zip(a.reshape(-1), b.reshape(-1))],
            dtype=bool,
        ).reshape(a.shape)
    else:
        differs = a != b
    if not np.any(differs):
        return None
    where = np.argwhere(differs)
    first = tuple(int(i) for i in where[0])
    return (
        f"{path}: {len(where)} of {a.size} elements differ, first at {list(first)}: "
        f"eager {short(a[first], 25)} vs staged {short(b[first], 25)}"
    )


def _sequence_diff(a, b, path: str) -> str | None:
    if len(a) != len(b):
        return (
            f"{path}: length {len(a)} vs {len(b)} (eager {short(a, 40)} vs staged {short(b, 40)})"
        )
    for i, (x, y) in enumerate(zip(a, b)):
        found = diff(x, y, f"{path}[{i}]")
        if found:
            return found
    return None


def _object_diff(a, b, path: str) -> str | None:
    if isinstance(a, np.random.Generator):
        if a.bit_generator.state != b.bit_generator.state:
            return f"{path}: generator state differs (a different number of draws)"
        return None
    if isinstance(a, np.random.RandomState):
        return diff(a.get_state(legacy=False), b.get_state(legacy=False), f"{path}.state")
    if isinstance(a, BaseException):
        return diff((str(a), a.args), (str(b), b.args), f"{path}.args")
    if hasattr(a, "__dict__") and not callable(a):
        return diff(vars(a), vars(b), f"{path}.__dict__")
    if a is b:
        return None
    try:
        equal = bool(a == b)
    except Exception:  # noqa: BLE001 - incomparable objects differ
        equal = False
    return None if equal else f"{path}: eager {short(a)} vs staged {short(b)}"


def diff(a, b, path: str = "result") -> str | None:
    """None when `a` (eager) and `b` (staged) are the same, else where and how they differ."""
    if type(a) is not type(b):
        return f"{path}: type {type_name(a)} vs {type_name(b)} (eager {short(a, 30)}, staged {short(b, 30)})"
    if isinstance(a, np.ndarray):
        return _array_diff(a, b, path)
    if isinstance(a, np.generic):
        found = _array_diff(np.asarray(a), np.asarray(b), path)
        return found and f"{path}: eager {short(a, 30)} vs staged {short(b, 30)}"
    if isinstance(a, float):
        return None if _same_float(a, b) else f"{path}: eager {a!r} vs staged {b!r}"
    if isinstance(a, complex):
        same = _same_float(a.real, b.real) and _same_float(a.imag, b.imag)
        return None if same else f"{path}: eager {a!r} vs staged {b!r}"
    if isinstance(a, (bool, int, str, bytes, type(None), range, slice)):
        return None if a == b else f"{path}: eager {short(a)} vs staged {short(b)}"
    if isinstance(a, deque) and a.maxlen != b.maxlen:
        return f"{path}: maxlen {a.maxlen} vs {b.maxlen}"
    if isinstance(a, (tuple, list, deque)):
        return _sequence_diff(a, b, path)
    if isinstance(a, dict):
        if list(a) != list(b):
            return f"{path}: keys {short(list(a), 50)} vs {short(list(b), 50)}"
        for k in a:
            found = diff(a[k], b[k], f"{path}[{k!r}]")
            if found:
                return found
        return None
    if isinstance(a, (set, frozenset)):
        if a != b or sorted(map(repr, a)) != sorted(map(repr, b)):
            return f"{path}: eager {short(a)} vs staged {short(b)}"
        return None
    return _object_diff(a, b, path)


def _stdout_diff(a: str, b: str) -> str | None:
    if a == b:
        return None
    lines_a, lines_b = a.splitlines(), b.splitlines()
    for i in range(max(len(lines_a), len(lines_b))):
        x = lines_a[i] if i < len(lines_a) else None
        y = lines_b[i] if i < len(lines_b) else None
        if x != y:
            x = "<missing>" if x is None else short(x, 40)
            y = "<missing>" if y is None else short(y, 40)
            return (
                f"stdout line {i + 1} of {len(lines_a)}: eager {x} vs staged {y} "
                f"({len(lines_b)} lines printed)"
            )
    return f"stdout differs in line endings: eager {short(a, 40)} vs staged {short(b, 40)}"


# -- classifying ----------------------------------------------------------------------------------

_LOCATION = re.compile(r'([\w./\\-]+\.py)(?::|", line )(\d+)')


def error_text(error: BaseException) -> str:
    notes = getattr(error, "__notes__", None) or []
    return "\n".join([str(error), *map(str, notes)])


def names_user_line(error: BaseException, case: Case) -> bool:
    """Whether the error's message or notes name a line of the program's module."""
    source = inspect.getsourcefile(case.func) or ""
    for match in _LOCATION.finditer(error_text(error)):
        if source.endswith(match.group(1)) or match.group(1).endswith(source):
            return True
    return False


_IN_HELPER = re.compile(r"in ([\w.<>]+)\(\), called here: [\w.-]+\.py:\d+: ")


def describe_error(error: BaseException) -> str:
    """`Type at file.py:line: first line of the message`, on one line."""
    text = str(error)
    location = _LOCATION.search(error_text(error))
    where = ""
    if location:
        where = f" at {location.group(1).rsplit('/', 1)[-1]}:{location.group(2)}"
        text = text.replace(f"{location.group(0)}: ", "").replace(location.group(0), "")
    text = one_line(text)
    helper = _IN_HELPER.match(text)
    if helper:  # raised in a helper the program calls: name it, then its own message
        text = f"in {helper.group(1).rsplit('.', 1)[-1]}(): {text[helper.end() :]}"
    if len(text) > 110:
        text = text[:107] + "..."
    return f"{type(error).__name__}{where}: {text}" if text else f"{type(error).__name__}{where}"


def _same_message(eager: BaseException, staged: BaseException) -> bool:
    if str(eager) == str(staged):
        return True
    # Staging's own subclasses (UndefinedNameError for UnboundLocalError...) may add the line.
    return isinstance(staged, StagingError) and str(eager) in str(staged)


def compare(eager: Outcome, staged: Outcome, case: Case) -> tuple[str, str | None]:
    """The category of one staged call against the eager call, and what differs."""
    e, s = eager.error, staged.error
    # A staging error that is not a subclass of eager's own error (UndefinedNameError is an
    # UnboundLocalError) is a refusal; the others are compared like any exception below.
    if isinstance(s, StagingError) and not (e is not None and isinstance(s, type(e))):
        if not names_user_line(s, case):
            return "wrong_error", f"refusal without the program's file:line: {describe_error(s)}"
        elif e is None:
            return "refused", describe_error(s)
        else:
            return "refused", f"{describe_error(s)} (eager raised {type(e).__name__})"
    if e is None and s is None:
        found = (
            diff(eager.value, staged.value, "result")
            or _stdout_diff(eager.stdout, staged.stdout)
            or diff(eager.args, staged.args, "args")
            or diff(eager.aliases, staged.aliases, "result is argument")
        )
        return ("silent", found) if found else ("agree", None)
    if isinstance(s, CallTimeout):
        return "silent", f"staged call {s}" + ("" if e is None else f"; eager raised {e!r}")
    if e is None:
        return "wrong_error", f"raised {describe_error(s)} where eager returned"
    if s is None:
        return (
            "silent",
            f"returned {short(staged.value, 40)} where eager raised {describe_error(e)}",
        )
    if not isinstance(s, type(e)):
        return "wrong_error", f"raised {describe_error(s)} where eager raised {describe_error(e)}"
    if not _same_message(e, s):
        return (
            "wrong_error",
            f"{type(e).__name__} message: eager {short(str(e), 50)} vs staged {short(str(s), 70)}",
        )
    found = _stdout_diff(eager.stdout, staged.stdout)
    if found:
        return "silent", f"both raised {type(e).__name__}; {found}"
    return "both_raise_same", None


@dataclasses.dataclass
class Result:
    case: Case
    category: str
    description: str | None
    eager: Outcome
    staged: tuple[Outcome, Outcome]
    seconds: float

    @property
    def passed(self) -> bool:
        return self.category in PASSING


def _safe_compare(eager: Outcome, staged: Outcome, case: Case) -> tuple[str, str | None]:
    try:
        return compare(eager, staged, case)
    except Exception as error:  # noqa: BLE001 - a result that cannot be compared differs
        return "silent", f"the staged result cannot be compared: {describe_error(error)}"


def run_case(case: Case, stage: Callable = staging.function) -> Result:
    """Runs one case eagerly and staged twice (`stage(func)` makes the staged function), and
    classifies it."""
    start = time.perf_counter()
    eager = run(case.func, case.args)
    if isinstance(eager.error, CallTimeout):
        raise RuntimeError(f"{case.id}: the eager call {eager.error}; the program is wrong")
    function = stage(case.func)
    first = run(function, case.args)
    # A call that hangs would hang again: do not wait for it twice.
    second = first if isinstance(first.error, CallTimeout) else run(function, case.args)
    staged = (first, second)
    if graph_building.current_graph() is not None:
        raise RuntimeError(
            f"{case.id}: a staged call left a graph open; later cases would run in it"
        )
    verdicts = [_safe_compare(eager, outcome, case) for outcome in staged]
    worst = max((0, 1), key=lambda i: (SEVERITY[verdicts[i][0]], -i))
    category, found = verdicts[worst]
    description = None
    if found is not None:
        if verdicts[0] == verdicts[1]:
            which = "both calls"
        else:
            which = "call 1 (trace)" if worst == 0 else "call 2 (cached graph)"
        description = f"{which}: {found}"
    return Result(case, category, description, eager, staged, time.perf_counter() - start)
