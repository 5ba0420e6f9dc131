"""if_stmt, while_stmt, for_stmt, if_exp: Python control flow on concrete values, staged on symbolic ones."""

from __future__ import annotations

import sys

import numpy as np

from autograph.operators import data_structures, py_builtins
from autograph.operators.variables import is_undefined, is_undefined_return
from staging import control_flow as staged
from staging import errors
from staging.source_map import where as _where
from staging.tensor import is_symbolic


def _outer_write_error(kind, outer_writes):
    names = ", ".join(repr(n) for n in outer_writes)
    return errors.UnsupportedConstructError(
        f"{_where()}global/nonlocal {names} is written inside a staged {kind} (its condition "
        f"is symbolic); such writes would happen once while tracing, not on every call. Return the "
        f"value instead, or use a staging.Variable")


# -- if ------------------------------------------------------------------------

def if_stmt(cond, if_true, if_false, state, names, outer_writes=()):
    """Runs one branch on a concrete condition, stages both with staging.cond on a symbolic one.

    Branches take the state names as arguments and return their new values.
    """
    if is_symbolic(cond) or data_structures.is_staged_value(cond):
        if outer_writes:
            raise _outer_write_error("`if`", outer_writes)
        return _staged_if(cond, if_true, if_false, tuple(state), names)
    if cond:
        result = if_true(*state)
    elif if_false is not None:
        result = if_false(*state)
    else:
        return state
    return () if result is None else result


class _Refill(Exception):
    """The true branch left the return value unset and the false branch set it: trace again
    with a placeholder of that type in the true branch."""

    def __init__(self, fill):
        super().__init__()
        self.fill = fill


def _staged_if(cond, if_true, if_false, state, names):
    where = _where()
    fill = {}  # position -> placeholder for a return value one branch leaves unset
    for _attempt in range(2):
        outputs = {}

        def branch(label, fn):
            def run():
                result = state if fn is None else fn(*state)
                result = () if result is None else tuple(result)
                if label == "then" and fill:
                    result = tuple(fill[i]() if i in fill and is_undefined_return(v) else v
                                   for i, v in enumerate(result))
                other = outputs.get("then")
                if other is not None:
                    result = _fill_return_value(other, result)
                    _check_defined(other, result, names, where)
                outputs[label] = result
                return tuple(data_structures.to_staged(v) for v in result)
            return run

        try:
            results = staged.cond(cond, branch("then", if_true), branch("else", if_false),
                                              names=tuple(names))
        except _Refill as retry:
            fill = retry.fill
            continue
        return tuple(data_structures.from_staged(v) for v in results)
    raise AssertionError("unreachable: the second trace of a staged `if` has its placeholders")


def _fill_return_value(then, other):
    """The false branch's outputs, with the return value given a placeholder where exactly one
    branch sets it (converted code never reads it unset: `do_return` tells)."""
    out = list(other)
    refill = {}
    for i, (a, b) in enumerate(zip(then, other)):
        if is_undefined_return(b) and not is_undefined(a):
            zero = _zero_like(a)
            if zero is not None:
                out[i] = zero()
        elif is_undefined_return(a) and not is_undefined(b):
            zero = _zero_like(b)
            if zero is not None:
                refill[i] = zero
    if refill:
        raise _Refill(refill)
    return tuple(out)


def _zero_like(x):
    """A function making a zero of x's type (in the graph being built when it is called), or None."""
    if is_symbolic(x):
        shape = tuple(0 if d is None else d for d in x.shape)
        dtype = x.dtype
        return lambda: np.zeros(shape, dtype)[()] if shape == () else np.zeros(shape, dtype)
    if isinstance(x, (np.ndarray, np.generic)):
        zero = np.zeros_like(x)
        return lambda: zero[()] if zero.ndim == 0 else zero.copy()
    if type(x) in (bool, int, float, complex):
        return lambda: type(x)(0)
    return None


def _check_defined(a, b, names, where):
    for name, x, y in zip(names, a, b):
        if is_undefined(x) != is_undefined(y):
            raise errors.UndefinedNameError(
                f"{where}'{name}' is assigned in only one branch of this `if`, whose condition is "
                f"symbolic, and is used afterwards; assign it in both branches or before the `if`")


def if_exp(cond, true_fn, false_fn):
    """`a if cond else b`; staged with staging.cond when cond is symbolic."""
    if is_symbolic(cond):
        return staged.cond(cond, true_fn, false_fn)
    return true_fn() if cond else false_fn()


def return_value(value, do_return):
    """The value a converted function with a `return` inside a loop returns at its end:
    `value` if a `return` ran (`do_return`), else None (the function fell off its end)."""
    if is_symbolic(do_return):
        name = sys._getframe(1).f_code.co_name
        raise errors.UndefinedNameError(
            f"{_where()}{name!r} returns a value from inside a staged loop but may also "
            f"end without a `return` (returning None), depending on a symbolic value; end it with "
            f"a `return` of a value of the same type")
    if not do_return or is_undefined_return(value):
        return None
    return value


# -- while ------------------------------------------------------------------

def _options(opts):
    opts = opts or {}
    unknown = set(opts) - {"maximum_iterations", "shape_invariants"}
    if unknown:
        raise TypeError(f"set_loop_options() got unknown options {sorted(unknown)}")
    return opts.get("maximum_iterations"), opts.get("shape_invariants")


def while_stmt(test, body, state, names, opts=None, outer_writes=()):
    """Loops natively while `test(*state)` is concrete; the first symbolic test stages the rest
    of the loop as one staging.while_loop."""
    maximum_iterations, shape_invariants = _options(opts)
    state = tuple(state)
    count = 0
    while True:
        if maximum_iterations is not None and not is_symbolic(maximum_iterations) \
                and count >= maximum_iterations:
            return state
        t = test(*state)
        if is_symbolic(t):
            if outer_writes:
                raise _outer_write_error("`while` loop", outer_writes)
            remaining = maximum_iterations - count if maximum_iterations is not None else None
            return _staged_loop(test, body, state, names, remaining, shape_invariants, "`while` loop")
        if not t:
            return state
        result = body(*state)
        state = () if result is None else result
        count += 1


def _staged_loop(test, body, state, names, maximum_iterations, shape_invariants, kind):
    where = _where()
    for name, value in zip(names, state):
        if is_undefined(value) and not is_undefined_return(value):
            # (the return value may be unset: staging.while_loop gives it the body's type)
            raise errors.UndefinedNameError(
                f"{where}'{name}' is assigned inside this staged {kind} but not before it, and is "
                f"used afterwards (or in a later iteration); assign it before the loop")
    loop_vars = tuple(data_structures.to_staged(v) for v in state)

    def cond_fn(*loop_vars):
        return test(*(data_structures.from_staged(v) for v in loop_vars))

    def body_fn(*loop_vars):
        result = body(*(data_structures.from_staged(v) for v in loop_vars))
        result = () if result is None else tuple(result)
        for name, value in zip(names, result):
            if is_undefined(value) and not is_undefined_return(value):
                raise errors.UndefinedNameError(
                    f"{where}'{name}' may be left unassigned by an iteration of this staged {kind}")
        return tuple(data_structures.to_staged(v) for v in result)

    kwargs = {"names": tuple(names)}
    if shape_invariants:
        kwargs["shape_invariants"] = shape_invariants
    results = staged.while_loop(cond_fn, body_fn, loop_vars, maximum_iterations, **kwargs)
    return tuple(data_structures.from_staged(v) for v in results)


# -- for ----------------------------------------------------------------------

def for_stmt(iterable, extra_test, body, state, names, opts=None, outer_writes=()):
    """`for item in iterable` natively for Python iterables; one staging.while_loop over a
    symbolic tensor's first axis, a range with a symbolic bound, or enumerate/zip of those."""
    maximum_iterations, shape_invariants = _options(opts)
    state = tuple(state)
    if py_builtins.is_staged_iterable(iterable):
        if outer_writes:
            raise _outer_write_error("`for` loop", outer_writes)
        return _staged_for(iterable, extra_test, body, state, names, maximum_iterations,
                           shape_invariants)
    if is_undefined(iterable):
        iterable._fail()
    if isinstance(iterable, range) and extra_test is not None:
        return _range_for(iterable, extra_test, body, state, names, maximum_iterations,
                          shape_invariants, outer_writes)
    iterator = iter(iterable)
    count = 0
    while True:
        if maximum_iterations is not None and count >= maximum_iterations:
            return state
        if extra_test is not None:
            t = extra_test(*state)
            if is_symbolic(t):
                raise errors.SymbolicValueError(
                    f"{_where()}this `for` loop iterates over a Python "
                    f"{type(iterable).__name__}, but its `break`/`return` condition became symbolic; "
                    f"iterate over a tensor or a range() so the loop can be staged")
            if not t:
                return state
        try:
            item = next(iterator)
        except StopIteration:
            return state
        result = body(item, *state)
        state = () if result is None else result
        count += 1


def _range_for(rng, extra_test, body, state, names, maximum_iterations, shape_invariants,
               outer_writes):
    """A loop over a concrete range whose break condition may turn symbolic: the remaining
    iterations are then staged."""
    count = 0
    for position, item in enumerate(rng):
        if maximum_iterations is not None and count >= maximum_iterations:
            return state
        t = extra_test(*state)
        if is_symbolic(t):
            if outer_writes:
                raise _outer_write_error("`for` loop", outer_writes)
            rest = py_builtins.StagedRange(rng.start + position * rng.step, rng.stop, rng.step)
            remaining = maximum_iterations - count if maximum_iterations is not None else None
            return _staged_for(rest, extra_test, body, state, names, remaining, shape_invariants)
        if not t:
            return state
        result = body(item, *state)
        state = () if result is None else result
        count += 1
    return state


def _staged_for(iterable, extra_test, body, state, names, maximum_iterations, shape_invariants):
    length = py_builtins.staged_length(iterable)

    def test(i, *state):
        in_range = i < length
        if extra_test is None:
            return in_range
        more = extra_test(*state)
        if not is_symbolic(more) and not is_symbolic(in_range):
            return in_range and more
        return np.logical_and(in_range, more)

    def loop_body(i, *state):
        item = py_builtins.staged_item(iterable, i)
        result = body(item, *state)
        result = () if result is None else tuple(result)
        return (i + 1, *result)

    result = _staged_loop(test, loop_body, (0, *state), ("<for index>", *names),
                          maximum_iterations, shape_invariants, "`for` loop")
    return result[1:]
