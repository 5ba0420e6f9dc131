"""A value that is None on some paths (runtime.types.NONE): `best = None` before a staged loop
that may set it, a branch that gives None where the other gives a number, a function that
returns None on one path. When the graph runs the value is what its path made it, so results,
Python types, printed text and errors are eager's; `x is None` is staged, and a branch on it
sees `x` without its None kind. What one graph cannot do is refused naming the line."""

from __future__ import annotations

import contextlib
import io
import os
import tempfile

import numpy as np
import pytest

import staging
from staging import errors
from tests.staging.test_kinds import _outcome, assert_identical, line_of


def assert_same_as_eager(func, *argument_lists):
    """Staged (traced, then run again from the cache) gives eager's result, printed text, or
    error type and message, for each list of arguments."""
    staged_f = staging.function(func)
    for args in argument_lists:
        eager_out, staged_outs = io.StringIO(), []
        with contextlib.redirect_stdout(eager_out):
            kind, eager = _outcome(func, args)
        for _ in range(2):
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed):
                staged_outs.append((_outcome(staged_f, args), printed.getvalue()))
        for (staged_kind, staged), text in staged_outs:
            assert text == eager_out.getvalue(), f"{func.__name__}{args}: printed {text!r}"
            assert staged_kind == kind, f"{func.__name__}{args}: {staged!r}, eager {eager!r}"
            if kind == "raises":
                assert type(staged) is type(eager), f"{func.__name__}{args}: {staged!r}"
                assert str(staged) == str(eager)
            else:
                assert_identical(staged, eager)


# -- programs ------------------------------------------------------------------------------


def largest_above(x, t):
    best = None
    for v in x:
        if v > t and (best is None or v > best):
            best = v
    return best


def first_negative(x):
    i = 0
    found = None
    while i < len(x) and found is None:
        if x[i] < 0:
            found = i
        i += 1
    return found


def count_rises(x):
    prev = None
    rises = 0
    for v in x:
        if prev is not None and v > prev:
            rises += 1
        prev = v
    return rises


def runs(codes):
    """Tokens of equal classes, the way a tokenizer is written: `kind` starts as None."""
    tokens = []
    start = None
    kind = None
    for i, c in enumerate(codes):
        k = c % 3
        if k != kind:
            if kind is not None and kind != 0:
                tokens.append((kind, start, i))
            start, kind = i, k
    if kind is not None and kind != 0:
        tokens.append((kind, start, len(codes)))
    return tokens


def or_default(c):
    r = None
    if c > 0:
        r = c
    return r or -1.0


def negated(c):
    r = None
    if c > 0:
        r = c
    return not r


def compared_with_none(c):
    r = None
    if c > 0:
        r = c
    return r == None, r != None, None == r  # noqa: E711  (what users write)


def arithmetic_on_none(c):
    r = None
    if c > 0:
        r = c
    return r + 1.0  # TypeError when r is None, as eagerly


def printed(c):
    r = None
    if c > 0:
        r = c * 2
    print("r is", r)
    return f"value={r}"


def pair(c):
    r, s = None, None
    if c > 0:
        r, s = c, c + 1
    return (r, s)


def shape_when_set(c):
    r = None
    if c > 0:
        r = np.array([c, c, c])
    return r.shape[0] if r is not None else 0  # `.shape` of r without its None kind


def size_or_zero(c):
    r = None
    if c > 0:
        r = np.zeros(4)
    if r is None:
        return 0
    return r.size


def log_det(a):
    try:
        lower = np.linalg.cholesky(a)
    except np.linalg.LinAlgError:
        lower = None
    if lower is None:
        sign, logdet = np.linalg.slogdet(a)
        return logdet if sign > 0 else float("nan")
    return 2.0 * np.sum(np.log(np.diag(lower)))


def winner(board):
    for i in range(board.shape[0]):
        if board[i, 0] != 0 and np.all(board[i] == board[i, 0]):
            return "X" if board[i, 0] == 1 else "O"
    if np.all(board != 0):
        return "draw"
    return None


def root_or_none(lo, hi):
    flo = lo**3 - 2.0
    if flo * (hi**3 - 2.0) > 0:
        return None
    for _ in range(40):
        mid = (lo + hi) / 2
        if (mid**3 - 2.0 > 0) == (flo > 0):
            lo, flo = mid, mid**3 - 2.0
        else:
            hi = mid
    return (lo + hi) / 2


def maybe_falls_off(c):
    if c > 0:
        return c * 2.0


def text_or_number(c):
    r = 0
    if c > 0:
        r = "positive"
    return r


@staging.function
def doubled_or_zero(s):
    if s is None:
        return 0.0
    return s * 2.0


def nested_call(c, u):
    s = None
    if c > 0:
        s = u
    return doubled_or_zero(s)


def test_a_name_that_is_none_until_a_staged_loop_sets_it():
    assert_same_as_eager(
        largest_above, (np.array([1.0, 5.0, 3.0]), 2.0), (np.array([1.0]), 2.0), (np.array([]), 0.0)
    )
    assert_same_as_eager(first_negative, (np.array([1.0, -1.0]),), (np.array([1.0]),))
    assert_same_as_eager(count_rises, (np.array([1.0, 2.0, 1.0, 3.0]),), (np.array([]),))


def test_a_tokenizer_whose_state_starts_as_none():
    assert_same_as_eager(
        runs, (np.array([1, 1, 2, 0, 0, 1]),), (np.array([0, 0]),), (np.array([], np.int64),)
    )


@pytest.mark.parametrize(
    "func",
    [or_default, negated, compared_with_none, arithmetic_on_none, printed, pair, maybe_falls_off],
)
def test_a_branch_that_gives_none(func):
    assert_same_as_eager(func, (np.float64(2.0),), (np.float64(-2.0),), (3,), (-3,), (np.nan,))


def test_comparing_an_array_that_may_be_none_with_none():
    def f(c):
        r = None
        if c > 0:
            r = np.array([c, 2 * c])
        return r == None  # noqa: E711  (elementwise on the array, a bool on None)

    assert_same_as_eager(f, (np.float64(2.0),), (np.float64(-2.0),))


@pytest.mark.parametrize("func", [shape_when_set, size_or_zero])
def test_a_branch_on_is_none_sees_the_value_without_its_none_kind(func):
    assert_same_as_eager(func, (np.float64(2.0),), (np.float64(-2.0),))


def test_none_where_a_try_caught_the_error():
    spd = np.array([[4.0, 2.0], [2.0, 3.0]])
    assert_same_as_eager(log_det, (spd,), (-spd,), (np.array([[1.0, 2.0], [2.0, 1.0]]),))


def test_returned_str_or_none():
    assert_same_as_eager(
        winner,
        (np.array([[1, 1], [2, 0]]),),
        (np.array([[1, 2], [2, 1]]),),
        (np.array([[1, 2], [0, 1]]),),
    )
    assert_same_as_eager(text_or_number, (np.float64(1.0),), (np.float64(-1.0),))


def test_returns_none_on_one_path():
    assert_same_as_eager(root_or_none, (0.0, 2.0), (1.5, 2.0))


def test_a_nested_staged_call_takes_a_value_that_may_be_none():
    assert_same_as_eager(
        nested_call, (np.float64(2.0), np.float64(3.0)), (np.float64(-2.0), np.float64(3.0))
    )


def test_the_none_kind_is_in_the_type_and_its_text():
    sf = staging.function(or_default)
    cf = sf.get_concrete_function(staging.TensorSpec([], np.float64))
    assert "None | f64[]" in str(cf.graph)


# -- refusals -------------------------------------------------------------------------------


def where_of_none(c):
    r = None
    if c > 0:
        r = c
    return np.where(c > 1, r, 0.0)  # eagerly an object array where r is None


def str_compared(c):
    r = 0
    if c > 0:
        r = "positive"
    return r == "positive"


@pytest.mark.parametrize(
    "func, text, fragment",
    [
        (where_of_none, "np.where", "is None on some path"),
        (str_compared, 'r == "positive"', "a str on some paths"),
    ],
)
def test_what_one_graph_cannot_do_with_it_is_refused_naming_the_line(func, text, fragment):
    with pytest.raises(errors.BranchMismatchError) as info:
        staging.function(func)(np.float64(2.0))
    message = str(info.value)
    assert fragment in message
    assert f"test_none_kind.py:{line_of(func, text)}" in message


def test_a_tuple_on_one_path_and_none_on_the_other_is_one_value():
    def f(c):
        pair = None
        if c > 0:
            pair = (c, c)
        return pair

    # (tests/staging/test_optional_tuples.py: what such a value does)
    assert_same_as_eager(f, (np.float64(1.0),), (np.float64(-1.0),), (0,))


def test_jit_compile_refuses_a_value_that_may_be_none():
    pytest.importorskip("jax")
    from runtime.jax_lowering import LoweringError

    sf = staging.function(largest_above, jit_compile=True)
    with pytest.raises(LoweringError, match="None on some paths") as info:
        sf(np.array([1.0, 2.0]), 0.0)
    assert "test_none_kind.py:" in str(info.value)


def test_saved_and_loaded_with_its_none_kind():
    sf = staging.function(largest_above, input_signature=[staging.TensorSpec([None], np.float64)])
    sf_bound = staging.function(lambda x: sf(x, 0.0))
    sf_bound.get_concrete_function(staging.TensorSpec([None], np.float64))
    path = os.path.join(tempfile.mkdtemp(), "largest.stg")
    staging.save(sf_bound, path)
    loaded = staging.load(path)
    for x in (np.array([1.0, -2.0, 3.0]), np.array([-1.0])):
        assert_identical(loaded(x), largest_above(x, 0.0))
