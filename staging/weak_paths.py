"""Values that were Python numbers on some paths: where a join's conversion would change an answer.

Where a Python number meets a NumPy value (the branches of a staged `if`, a loop variable
before and after an iteration), the joined value takes one type (staging.joins.join_types):
`s = 0` meeting an int32 value is int32 on every path. Eagerly it stays the Python number on
the path where it was one. That is the same value, but the operations it then takes part in can
differ: `np.exp(s)` is float64 for the Python 0 and float64 for int32, the same; `np.exp(b)` for
a bool `b` joined with a uint8 is float64 eagerly and float16 staged, a different answer.

So a joined tensor remembers the types it has on the other paths (`Tensor._weak_paths`), and
`record` asks `check` before each op: an op that would give another result type on one of those
paths than the staged one (other than a Python number of a type the result absorbs, which is
the documented conversion) is refused, naming the line, the variable and both types. Results
of ops that keep such a difference remember it in turn.
"""

from __future__ import annotations

import itertools
import threading

import numpy as np

from runtime import TensorType

from . import errors
from .source_map import where

_KIND_ORDER = (bool, int, float, complex)
_REPRESENTATIVE = {bool: True, int: 1, float: 1.0, complex: 1j}


class WeakPaths:
    """The other types of a joined value: `types` (weak TensorTypes), the variable's `name`,
    where the paths met (`location`), and the error type to refuse with. For a staged loop's
    output whose variable was a Python number before the loop, `zero_trip` is (the Tensor
    outputs of that loop and of the loops after it the number passed through unchanged, that
    number's type, staging.loop_flags.check_ran): what it still is when they all ran zero
    times, and how to check that one did not."""

    __slots__ = ("types", "name", "location", "error", "zero_trip")

    def __init__(self, types, name, location, error, zero_trip=None):
        self.types, self.name, self.location, self.error = tuple(types), name, location, error
        self.zero_trip = zero_trip


def absorbs(staged: TensorType, other: TensorType) -> bool:
    """True when `other` (a value's type on another path) becoming `staged` is the documented
    join conversion: the same type, or a Python number of a kind `staged` takes (a wider Python
    number, or a NumPy dtype that NEP 50 keeps when the number meets it)."""
    if other == staged:
        return True
    if not (isinstance(other, TensorType) and isinstance(staged, TensorType)) or not other.weak:
        return False
    if staged.weak:
        return _KIND_ORDER.index(other.python_type) <= _KIND_ORDER.index(staged.python_type)
    return np.result_type(staged.dtype, _REPRESENTATIVE[other.python_type]) == staged.dtype


def joined(
    a_type,
    b_type,
    joined_type,
    a_paths=None,
    b_paths=None,
    name="a value",
    location="",
    error=errors.BranchMismatchError,
):
    """The WeakPaths of a value of `joined_type` made where values of `a_type` and `b_type` meet
    (each possibly a joined value itself), or None when it has that type on every path. A
    loop's output that is still the Python number it started as when the loop ran zero times
    (`zero_trip`) brings that number's type along."""
    others = []
    for t, paths in ((a_type, a_paths), (b_type, b_paths)):
        for u in (
            t,
            *(paths.types if paths is not None else ()),
            *((paths.zero_trip[1],) if paths is not None and paths.zero_trip is not None else ()),
        ):
            if isinstance(u, TensorType) and u != joined_type and u.weak and u not in others:
                others.append(u)
    if not others or not isinstance(joined_type, TensorType):
        return None
    return WeakPaths(others, name, location, error)


def types_only(paths):
    """`paths` without its zero-trip part (None when that leaves nothing): the types a loop's
    initial value has on other paths, which its output keeps (on the path where the loop ran
    zero times it is that value; its own zero-trip Python number is the loop's zero_trip)."""
    if paths is None or not paths.types:
        return None
    return WeakPaths(paths.types, paths.name, paths.location, paths.error)


def _substituted(inputs, in_types, paths, other) -> list:
    """`in_types` with `other` wherever an input is the joined value `paths` describes (on the
    path where it is `other`, it is so in every position: `v // v`). In an explicit NumPy call
    (`np.abs(v)`, not `abs(v)`) whose operands are all Python numbers on that path, NumPy makes
    them arrays of its default dtypes first: `np.abs(3)` is np.int64(3), a strong type."""
    types = [
        other if getattr(item, "_weak_paths", None) is paths else t
        for item, t in zip(inputs, in_types)
    ]
    if getattr(_explicit, "call", False) and all(
        isinstance(t, TensorType) and t.weak or type(t) in NUMBERS for t in types
    ):
        types = [
            TensorType(t.dtype) if isinstance(t, TensorType) else TensorType(np.asarray(t).dtype)
            for t in types
        ]
    return types


NUMBERS = (bool, int, float, complex)  # Python literals among an op's input types


_explicit = threading.local()  # .call: this thread records an explicit NumPy ufunc call


def in_explicit_call() -> bool:
    """Whether this thread is recording an explicit NumPy ufunc call (see explicit_numpy_call)."""
    return getattr(_explicit, "call", False)


class explicit_numpy_call:
    """While an explicit NumPy ufunc call (`np.add(a, b)`) records its op: the ufunc makes
    Python-number operands NumPy scalars of the default dtypes, where `a + b` would keep
    Python's arithmetic. Per thread: two staged functions may be traced at once."""

    __slots__ = ("_saved",)

    def __enter__(self):
        self._saved = getattr(_explicit, "call", False)
        _explicit.call = True

    def __exit__(self, *exc):
        _explicit.call = self._saved


def check(op_name, inputs, in_types, output_types, infer):  # noqa: C901
    """For an op whose inputs include joined values (`inputs` the op's inputs, `in_types` their
    types): raise if, with one of those values as it is on another path, the op would give
    another type than `output_types` (not a Python number the staged type absorbs). Returns
    the WeakPaths of each output (None where there is no difference)."""
    outs = list(output_types) if isinstance(output_types, (tuple, list)) else [output_types]
    found = [None] * len(outs)
    seen = set()
    for position, item in enumerate(inputs):
        paths = getattr(item, "_weak_paths", None)
        if paths is None or id(paths) in seen:
            continue
        seen.add(id(paths))
        if op_name in _FORMATTING_OPS:
            _check_text(op_name, item, paths)
            continue
        for other in paths.types:
            types = _substituted(inputs, in_types, paths, other)
            try:
                alternative = infer(types)
            except Exception as exc:  # noqa: BLE001 - eagerly that path raises, staged it would not
                raise paths.error(
                    f"{where()}{op_name}: {paths.name} is {describe(other)} on some paths and "
                    f"{describe(item.type)} on others (they meet at {paths.location.rstrip(': ')}); "
                    f"here Python raises on the first ({type(exc).__name__}: {_plain(exc)}) and not on "
                    f"the second, which the staged value is. A staged function computes one "
                    f"type: convert {paths.name} explicitly where it is set (e.g. "
                    f"np.{item.type.dtype.name}(...)) so that every path has the same type"
                ) from None
            alternative = (
                list(alternative) if isinstance(alternative, (tuple, list)) else [alternative]
            )
            for i, (staged, alt) in enumerate(zip(outs, alternative)):
                if not isinstance(staged, TensorType) or alt == staged:
                    continue
                if (
                    not absorbs(staged, alt)
                    or (op_name in _SIGN_OPS and staged.dtype.kind == "u")
                    or (
                        op_name in _ZERO_SIGN_OPS
                        and staged.dtype.kind == "c"
                        and alt.dtype.kind != "c"
                    )
                ):
                    raise paths.error(
                        f"{where()}{op_name}: {paths.name} is {describe(other)} on some paths and "
                        f"{describe(item.type)} on others (they meet at {paths.location.rstrip(': ')}); "
                        f"here that gives {describe(alt)} eagerly on the first and {describe(staged)} "
                        f"staged. A staged function computes one type: convert {paths.name} "
                        f"explicitly where it is set (e.g. np.{item.type.dtype.name}(...)) so that "
                        f"every path has the same type"
                    )
                previous = found[i]
                kept = [*previous.types] if previous is not None else []
                if alt not in kept:
                    kept.append(alt)
                found[i] = WeakPaths(kept, paths.name, paths.location, paths.error)
        if paths.zero_trip is not None and len(outs) == 1:
            _keep_zero_trip(inputs, in_types, paths, outs[0], infer, found)
    _check_together(op_name, inputs, in_types, outs, infer, found)
    return found


def _keep_zero_trip(inputs, in_types, paths, out, infer, found) -> None:
    """An op on a value that is still a Python number when staged loops ran zero times: when the
    op gives a Python number from it there too (`s + 0`), so does the result (its types there
    are not checked: see `joined`). Sets found[0].zero_trip."""
    loops, start, check_ran = paths.zero_trip
    if not isinstance(out, TensorType) or out.weak:
        return
    try:
        alternative = infer(_substituted(inputs, in_types, paths, start))
    except Exception as exc:  # noqa: BLE001 - Python raises there: so does the graph, when it runs
        if not isinstance(exc, TypeError):
            return  # (a value's error, a division by zero: staging.value_checks)
        check_ran(
            loops,
            f"{where()}{paths.name} is still {describe(start)} because the staged loop at "
            f"{paths.location.rstrip(': ')} ran zero times, and there Python raises "
            f"{type(exc).__name__}: {_plain(exc)}",
            errors.LoopVariableError,
        )
        return
    alternative = alternative[0] if isinstance(alternative, (tuple, list)) else alternative
    if isinstance(alternative, TensorType) and alternative.weak:
        if found[0] is None:
            found[0] = WeakPaths((), paths.name, paths.location, paths.error)
        found[0].zero_trip = (loops, alternative, check_ran)


_NOTHING = object()  # (a WeakPaths no input has: _substituted changes no type)


def _check_together(op_name, inputs, in_types, outs, infer, found) -> None:
    """check() for several joined inputs that are Python numbers on the same path at once
    (`np.where(v == v, v, v if c else v)`: both operands come from `v`): with each as a Python
    number alone the op may give the staged type, with all of them not. A result that is then
    a Python number the staged type absorbs (`a + b`, both Python ints there) remembers it in
    found[i], as for one joined input."""
    joined = {}
    for item in inputs:
        paths = getattr(item, "_weak_paths", None)
        if paths is not None and id(paths) not in joined:
            joined[id(paths)] = (
                item,
                paths,
                [u for u in paths.types if isinstance(u, TensorType) and u.weak],
            )
    if (
        len(joined) < 2
        or op_name in _FORMATTING_OPS
        or not all(weak for _, _, weak in joined.values())
    ):
        return
    for combo in itertools.islice(itertools.product(*[weak for _, _, weak in joined.values()]), 16):
        chosen = dict(zip(joined, combo))
        types = [
            chosen.get(id(getattr(item, "_weak_paths", None)), t)
            for item, t in zip(inputs, in_types)
        ]
        try:
            alternative = infer(_substituted(inputs, types, _NOTHING, None))
        except Exception:  # noqa: BLE001 - check_failure's concern
            continue
        alternative = list(alternative) if isinstance(alternative, (tuple, list)) else [alternative]
        for i, (staged, alt) in enumerate(zip(outs, alternative)):
            if not isinstance(staged, TensorType) or alt == staged:
                continue
            item, paths, _ = next(iter(joined.values()))
            if absorbs(staged, alt):
                kept = [*found[i].types] if found[i] is not None else []
                found[i] = WeakPaths(
                    kept + [alt] * (alt not in kept),
                    paths.name,
                    paths.location,
                    paths.error,
                    found[i].zero_trip if found[i] is not None else None,
                )
            else:
                raise paths.error(
                    f"{where()}{op_name}: {paths.name} and the other joined values here are Python "
                    f"numbers on some paths and {describe(item.type)} on others (they meet at "
                    f"{paths.location.rstrip(': ')}); with all of them Python numbers this gives "
                    f"{describe(alt)} eagerly, and {describe(staged)} staged. A staged function "
                    f"computes one type: convert {paths.name} explicitly where it is set (e.g. "
                    f"np.{item.type.dtype.name}(...)) so that every path has the same type"
                )


# Ops that make a Python number negative (`~True` is -2, `-3` is -3) where an unsigned type
# wraps around (254, 253): the same type on both paths, but not the same value.
_SIGN_OPS = frozenset({"invert", "negative"})
# Ops that give a real number made complex an imaginary part of -0.0 (`-(0.1+0j)` is
# `(-0.1-0j)`), where the real number on its own path gives a real result.
_ZERO_SIGN_OPS = frozenset({"negative", "multiply", "mul", "divide", "true_divide"})

# Ops that turn their inputs into text (the staged print): a Python int and a float64 scalar of
# the same value print differently (`6`, `6.0`), so do a bool and an int (`True`, `1`).
_FORMATTING_OPS = frozenset({"print"})
_TEXT_KIND = {"b": bool, "i": int, "u": int, "f": float, "c": complex}


def _text_kind(t):
    if t.weak:
        return t.python_type
    return _TEXT_KIND.get(t.dtype.kind) if t.shape == () else None


def _check_text(op_name, item, paths):
    staged = item.type
    for other in paths.types:
        if isinstance(other, TensorType) and _text_kind(other) != _text_kind(staged):
            raise paths.error(
                f"{where()}{op_name}: {paths.name} is {describe(other)} on some paths and "
                f"{describe(staged)} on others (they meet at {paths.location.rstrip(': ')}), and the "
                f"two print differently (`{_sample(other)}` and `{_sample(staged)}`). A staged function "
                f"computes one type: convert {paths.name} explicitly where it is set so that every "
                f"path has the same type"
            )


# Python's operators that raise ZeroDivisionError on Python numbers where NumPy warns.
def check_failure(op_name, inputs, in_types, error, infer) -> None:
    """An op whose type rule raised `error`: when one of its inputs is a joined value with which,
    as it is on another path, the op works (`n & 1` for the Python int `n` that became a float
    where it met 1.5), eagerly that path does not fail: refuse, naming the value, instead."""
    for item, paths, other, types in _alternatives(inputs, in_types):
        eagerly = "works eagerly on the first"
        try:
            infer(types)
        except Exception as exc:  # noqa: BLE001 - fails on that path too (with another error: refused)
            if isinstance(exc, type(error)) or isinstance(error, type(exc)):
                continue
            eagerly = f"raises {type(exc).__name__} eagerly on the first"
        raise paths.error(
            f"{where()}{op_name}: {paths.name} is {describe(other)} on some paths and "
            f"{describe(item.type)} on others (they meet at {paths.location.rstrip(': ')}); "
            f"{op_name} {eagerly} and fails staged ({type(error).__name__}: "
            f"{error}). A staged function computes one type: convert {paths.name} explicitly "
            f"where it is set so that every path has the same type"
        ) from None


def check_index(item, error) -> None:
    """An index `item` that is not an integer (`error`, the IndexError it gives): when it is a
    joined value that is an integer or a bool on another path, eagerly that path indexes;
    refuse, naming the value, instead."""
    paths = getattr(item, "_weak_paths", None)
    if paths is None:
        return
    for other in paths.types:
        if isinstance(other, TensorType) and (
            other.python_type in (bool, int) if other.weak else other.dtype.kind in "iub"
        ):
            raise paths.error(
                f"{where()}{paths.name} is {describe(other)} on some paths and {describe(item.type)} "
                f"on others (they meet at {paths.location.rstrip(': ')}); as an index it works eagerly "
                f"on the first and fails staged (IndexError: {_plain(error)}). A staged function "
                f"computes one type: convert {paths.name} explicitly where it is set so that every "
                f"path has the same type"
            ) from None


def _alternatives(inputs, in_types):
    """(input, its WeakPaths, its type there, the op's input types) for each other type of each
    joined input; then, when several inputs are joined values, each of them as a Python number
    at once (`(a if c else 100) | a`: on the path where `a` is an int, both operands are)."""
    joined = [
        (item, item._weak_paths)
        for item in inputs
        if getattr(item, "_weak_paths", None) is not None
    ]
    for item, paths in joined:
        for other in paths.types:
            yield item, paths, other, _substituted(inputs, in_types, paths, other)
    if len(joined) < 2:
        return
    weak = {
        id(paths): next((u for u in paths.types if isinstance(u, TensorType) and u.weak), None)
        for _, paths in joined
    }
    if None in weak.values():
        return
    types = [
        weak.get(id(getattr(item, "_weak_paths", None)), t) for item, t in zip(inputs, in_types)
    ]
    item, paths = joined[0]
    yield item, paths, weak[id(paths)], types


def check_attribute(item, name) -> None:
    """`item.name` for a joined value: refused when on another path `item` is a Python number,
    which has no such attribute (`.astype`, `.sum`: eagerly an AttributeError there). After a
    staged loop whose variable was a Python number before it, the read is checked when the
    graph runs: it raises AttributeError there if the loop ran zero times."""
    paths = item._weak_paths
    if paths.zero_trip is not None and not hasattr(paths.zero_trip[1].python_type(0), name):
        loop_outputs, start, check_ran = paths.zero_trip
        kind = start.python_type.__name__
        loops = "loop at" if len(loop_outputs) == 1 else f"loops ({len(loop_outputs)}, the last at"
        check_ran(
            loop_outputs,
            f"{where()}{kind!r} object has no attribute {name!r}: {paths.name} is a "
            f"Python {kind} before the staged {loops} {paths.location.rstrip(': ')}"
            f"{'' if len(loop_outputs) == 1 else ')'}, which ran zero times",
            errors.MissingAttributeError,
        )
    for other in paths.types:
        if isinstance(other, TensorType) and other.weak and not hasattr(other.python_type(0), name):
            raise paths.error(
                f"{where()}{paths.name} is {describe(other)} on some paths and {describe(item.type)} "
                f"on others (they meet at {paths.location.rstrip(': ')}); a Python "
                f"{other.python_type.__name__} has no attribute {name!r}, so eagerly `.{name}` fails on "
                f"the first. Convert {paths.name} explicitly where it is set so that every path has "
                f"the same type"
            )


def _plain(exc) -> str:
    """An op rule's error message without the op name it starts with."""
    text = str(exc)
    return text.split(": ", 1)[1] if ": " in text and " " not in text.split(": ", 1)[0] else text


def _sample(t):
    value = t.python_type(1) if t.weak else np.ones((), t.dtype)[()]
    return str(value)


def describe(t) -> str:
    if isinstance(t, TensorType) and t.weak:
        return f"a Python {t.python_type.__name__}"
    if isinstance(t, TensorType):
        article = "an" if t.dtype.name.startswith("int") else "a"  # "a uint8"
        return (
            f"{article} {t.dtype.name} scalar"
            if t.shape == ()
            else f"{article} {t.dtype.name} array ({t})"
        )
    return f"a {t!r}"
