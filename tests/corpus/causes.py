"""A likely cause for each failing case, guessed from its description and the line it names.

The report groups failures by these causes, and known_failures.py starts each reason with one,
so that a fix of one mechanism shows as a group of cases. The rules are heuristics over today's
messages: a case they do not recognise is "other", and a changed message may move a case.
"""

from __future__ import annotations

import inspect
import linecache
import re

from . import harness

_WRITE = "traced value written into a concrete NumPy array (out = np.zeros(n); out[i] = v)"

# (cause, pattern searched in the description), first match wins.
_BY_DESCRIPTION = [
    ("staged call never finishes", r"did not finish"),
    ("try/except around staged code", r"`try`|Singular matrix where eager returned"),
    (
        _WRITE,
        r"setting an array element with a sequence|converting to a NumPy array|"
        r"np\.add\(\.\.\., out=\.\.\.\) into a NumPy array",
    ),
    ("iterating or unpacking a traced array in Python code", r"iterating \(a Python"),
    (".tolist() of a traced array", r"\.tolist\(\)"),
    ("NumPy function without a staged op", r"no staged op"),
    (
        "math.*, int(), round() of a traced scalar",
        r"float\(\) of a symbolic|int\(\) of a symbolic|__round__|using as a Python int",
    ),
    (
        "comparison inside unconverted code (sorted, min/max key, any, bisect, `in` a tuple)",
        r"truth value",
    ),
    (
        "zip/enumerate/range over traced values used by a generator or library call",
        r"'Staged(Zip|Enumerate|Range)' object|reduce\(\) arg",
    ),
    ("tuple appended to a list in a staged loop", r"list_write' cannot take a tuple"),
    ("Python print runs only while tracing", r"vs staged <missing>"),
    ("f-string of a traced value prints the tensor", r"stdout.*staging\.Tensor"),
    ("Python number comes back as a NumPy scalar", r"type (float|int|bool) vs np\."),
    (
        "run-time raise from a staged branch: message gets file:line or a tensor repr",
        r"message: eager .* vs staged .*(\.py:\d+: |staging\.Tensor)",
    ),
    ("global/nonlocal write in a helper called from staged code", r"global/nonlocal"),
    ("generator (yield) in user code", r"`yield`"),
    (
        "dict keyed by a traced value",
        r"dict\[<staging|OrderedDict\[<staging|KeyError.*staging\.Tensor",
    ),
    (
        "None or str on one path, a tensor on another",
        r"is None before|and None in|None cannot be used|is a str \(",
    ),
    (
        "a Python float on one path, a NumPy value on another",
        r"Python float (in one case|on some paths)",
    ),
    ("early return of differently shaped values", r"returns a value on one path|structures"),
    ("list or deque built in a staged loop used by Python code", r"list built by a staged loop"),
    ("in-place write into a loop variable refused", r"MutationError"),
    ("traced value used outside its trace (leaked)", r"LeakedTensorError|belongs to another"),
    ("ndarray method missing on traced arrays", r"'Tensor' object has no attribute"),
]

_CONTAINERS = "Python container or closure in a staged loop (set `in`, deque, nonlocal)"


def _program_error(result: harness.Result) -> BaseException | None:
    for outcome in result.staged:
        if outcome.error is not None:
            return outcome.error
    return None


def _line_of(result: harness.Result, error: BaseException) -> str:
    source = inspect.getsourcefile(result.case.func) or ""
    for match in re.finditer(r"([\w./\\-]+\.py):(\d+)", harness.error_text(error)):
        if source.endswith(match.group(1)):
            return linecache.getline(source, int(match.group(2))).strip()
    return ""


def cause(result: harness.Result) -> str:
    """The likely cause of a failing case (a short phrase), or "" for a passing one."""
    if result.passed:
        return ""
    description = result.description or ""
    error = _program_error(result)
    # The program's own exception, raised while a branch the call does not take was traced.
    if error is not None and type(error).__module__ == result.case.func.__module__:
        notes = "\n".join(map(str, getattr(error, "__notes__", None) or []))
        if "while tracing" in notes or result.eager.error is None:
            return "`raise` in a staged `if` runs while tracing"
    # A value needed as a Python number on a line that writes into an array: the write.
    if error is not None and re.search(
        r"(int|float)\(\) of a symbolic|as a Python int", description
    ):
        if re.match(r"[\w.]+\[.*\]\s*[-+*/]?=", _line_of(result, error)):
            return _WRITE
    for name, pattern in _BY_DESCRIPTION:
        if re.search(pattern, description):
            return name
    if "deque index" in description:
        return _CONTAINERS
    if result.category == "silent" and re.search(r"result\S*: (eager|\d+ of \d+)", description):
        return _CONTAINERS
    return "other"
