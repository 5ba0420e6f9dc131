"""The kinds a staged value may have at run time, and the one place that refuses a trace-time
decision that differs between them.

A staged value's type (runtime.types) says what it may be when the graph runs: a NumPy value
of one dtype and shape, a Python number (a weak type), or, where paths met, a union of such
kinds (`s = 0` on one branch and an int8 value on the other: `int | i8[]`). When the graph runs
the value is what the path taken made it, and every op computes on it as eager Python would,
so results keep eager's values and Python types. Only decisions taken while tracing can differ
between kinds: reading `.dtype`, `.shape` or a method a Python number lacks, a NumPy function
whose frontend picks an op by dtype. Those ask `one_answer` here, which gives the answer when
every kind agrees and otherwise refuses, naming the user's line, the value and its kinds.
"""

from __future__ import annotations

import numpy as np

from runtime._compat import add_note
from runtime.types import NONE, TensorType, UnionType, is_union, kinds  # noqa: F401  (re-exported)
from staging import errors
from staging.core.recording import seen_type
from staging.core.source_map import user_names, where
from staging.core.tensor import Tensor


def describe(t) -> str:
    """`a Python int`, `an int8 scalar`, `a float64 array (f64[3])`: one kind, for messages."""
    if isinstance(t, TensorType) and t.weak:
        return f"a Python {t.python_type.__name__}"
    if isinstance(t, TensorType):
        article = "an" if t.dtype.name.startswith("int") else "a"
        if t.shape == ():
            return f"{article} {t.dtype.name} scalar"
        return f"{article} {t.dtype.name} array ({t})"
    if isinstance(t, UnionType):
        return " or ".join(describe(k) for k in t.alternatives)
    return f"a {t}"


def name_of(tensor) -> str:
    """The user's name for `tensor` in the innermost user frame, quoted, or `a value`."""
    names = user_names(tensor)
    return f"'{names[0]}'" if names else "a value"


def is_python_number(t) -> bool:
    return isinstance(t, TensorType) and t.weak


def may_be_python_number(t) -> bool:
    """True when a value of type `t` is a Python number on some path."""
    return any(is_python_number(k) for k in kinds(t))


def one_answer(tensor, what: str, answer):
    """`answer(kind)` for the value `tensor`, when it is the same for every kind the value may
    have at run time (`what` names the decision for the message: "`.dtype`"). A kind for which
    `answer` raises AttributeError lacks the attribute: with every kind lacking it, that error
    is raised (as eagerly, on every path); with some, or with answers that differ, the trace
    cannot take one decision, and the read is refused."""
    t = seen_type(tensor)
    found, missing = [], []
    for kind in kinds(t):
        try:
            found.append((kind, answer(kind)))
        except AttributeError as exc:
            missing.append((kind, exc))
    if not found:  # (eager's own error: the line in a note)
        error = errors.MissingAttributeError(str(missing[0][1]))
        add_note(error, f"{where().rstrip(': ')}: raised while tracing")
        raise error
    if not missing and all(_same(found[0][1], value) for _, value in found[1:]):
        return found[0][1]
    raise errors.BranchMismatchError(
        f"{where()}{what}: {name_of(tensor)} is {describe(t)} depending on the path taken to "
        f"here, and {what} {'exists for only some of them' if missing else 'differs between them'}"
        f", which a staged function decides once, while tracing. Give it one type on every "
        f"path (e.g. convert it explicitly where it is set: np.asarray(...), float(...))"
    )


def _same(a, b) -> bool:
    return a is b or (type(a) is type(b) and a == b)


def number_attribute(kind, name: str):
    """Raises the AttributeError Python raises for `name` on a Python number of type `kind`
    (`(3).dtype`); returns None when the number has it."""
    if is_python_number(kind) and not hasattr(kind.python_type(0), name):
        raise AttributeError(f"{kind.python_type.__name__!r} object has no attribute {name!r}")
    if kind is NONE and not hasattr(None, name):
        raise AttributeError(f"'NoneType' object has no attribute {name!r}")


def attribute_of_kind(name: str, of_kind):
    """An answer for one_answer: `of_kind(kind)`, or the AttributeError of a Python number,
    which has no attribute `name`."""

    def answer(kind):
        number_attribute(kind, name)
        return of_kind(kind)

    return answer


def require_attribute(tensor, name: str) -> None:
    """`tensor.name` (a method, `.size`) read where the value may be a Python number at run time:
    raises as eagerly when it is one on every path, refuses when only on some."""
    t = tensor.type
    if type(t) is TensorType and not t.weak:
        return
    one_answer(tensor, f"`.{name}`", attribute_of_kind(name, lambda kind: None))


REBIND, WRITE, ZERO_D = "rebind", "write", "0-d"


def in_place_target(tensor, what: str) -> str:
    """What `x op= y` (`what`, naming `{name}`) does to `tensor` eagerly: REBIND for a Python
    number (immutable: Python computes `x = x op y`), WRITE for an array with dims (written in
    place), ZERO_D for a 0-d NumPy value (a 0-d array is written, a NumPy scalar rebound:
    staging.kinds.forms tells). A value that is an array on some paths and a Python number on
    others is WRITE: the `ufunc_out` op computes `x op y` where it is a number. Refused when
    a 0-d NumPy value is one of several kinds."""
    found = {REBIND if k.weak else WRITE if k.shape else ZERO_D for k in kinds(tensor.type)}
    if len(found) == 1:
        return found.pop()
    if found == {REBIND, WRITE}:  # the write op makes a new number where it is one
        return WRITE
    if found == {REBIND, ZERO_D}:  # (staging.kinds.forms tells a 0-d array from a NumPy scalar)
        return ZERO_D
    names = user_names(tensor)
    name = names[0] if names else "x"
    raise errors.MutationError(
        f"{where()}{what.format(name=name)}: '{name}' is {describe(tensor.type)} depending on the "
        f"path taken to here; eagerly the write changes an array in place on one and makes a new "
        f"value on another, which one staged graph cannot do. Give it one type on every path, or "
        f"write `{name} = {name} op ...` to make a new value on every path"
    )


# -- what a symbolic tensor answers (installed on staging.core.tensor.Tensor) -----------------


def _dtype(self) -> np.dtype:
    """`x.dtype` as eager Python reads it: a Python number has none (staging.kinds)."""
    t = self._value.type
    if type(t) is TensorType and not t.weak:
        return t.dtype
    return one_answer(self, "`.dtype`", attribute_of_kind("dtype", lambda kind: kind.dtype))


def _ndim(self) -> int:
    t = self._value.type
    if type(t) is TensorType and not t.weak:
        return len(t.shape)
    return one_answer(self, "`.ndim`", attribute_of_kind("ndim", lambda kind: len(kind.shape)))


def _static_shape(self) -> tuple:
    """The shape with `None` for dims unknown until run time, as NumPy sees the value (a Python
    number is 0-d); for a value of several kinds, the one they share (else refused)."""
    t = self._value.type
    if type(t) is TensorType:
        return t.shape
    return one_answer(self, "its shape", lambda kind: kind.shape)


def _static_dtype(self) -> np.dtype:
    """The dtype NumPy gives the value (a Python number's default dtype); for a value of several
    kinds, the one they share (else refused)."""
    t = self._value.type
    if type(t) is TensorType:
        return t.dtype
    return one_answer(self, "its dtype", lambda kind: kind.strong().dtype)


def _install() -> None:
    Tensor.dtype = property(_dtype)
    Tensor.ndim = property(_ndim)
    Tensor.static_shape = property(_static_shape)
    Tensor.static_dtype = property(_static_dtype)
    Tensor.static_ndim = property(lambda self: len(_static_shape(self)))


_install()
