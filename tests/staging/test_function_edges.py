"""The edges of staging.function and input signatures: builtins and ufuncs are staged as converted
code calls them, what cannot be staged is refused when decorating (not when called), and input
signatures refuse what a call without one refuses, naming why (a masked array, a byte order)."""

import functools

import numpy as np
import pytest

import staging
from staging import errors


def test_print_staged_prints_on_every_call(capsys):
    p = staging.function(print)
    p(np.array([1.0, 2.0]))
    p(np.array([1.0, 2.0]))
    p(np.array([3.0, 4.0]))
    assert capsys.readouterr().out == "[1. 2.]\n[1. 2.]\n[3. 4.]\n"
    assert p.tracing_count == 1


@pytest.mark.parametrize(
    "func, args",
    [
        (np.add, (np.arange(3.0), 1.0)),
        (functools.partial(np.multiply, 3.0), (np.arange(3.0),)),
        (np.sum, (np.ones(3),)),  # (its signature's keepdims=<no value> was passed on: [3.])
        (np.maximum, (np.arange(3.0), np.float64(1.5))),
        (len, (np.ones(4),)),
        (abs, (np.array([-1.0, 2.0]),)),
        (sum, (np.ones(3),)),
    ],
)
def test_builtins_and_ufuncs_are_staged(func, args):
    want = func(*args)
    got = staging.function(func)(*args)
    assert type(got) is type(want) and np.array_equal(got, want)


def test_ufuncs_without_autograph():
    x = np.arange(3.0)
    np.testing.assert_array_equal(staging.function(np.add, autograph=False)(x, 1.0), x + 1.0)


async def fetch(x):
    return x + 1


async def stream(x):
    yield x


@pytest.mark.parametrize("func", [fetch, stream, functools.partial(fetch)])
def test_async_functions_are_refused_when_decorating(func):
    with pytest.raises(errors.UnsupportedConstructError) as caught:
        staging.function(func)
    inner = func.func if isinstance(func, functools.partial) else func
    code = inner.__code__
    message = str(caught.value)
    assert f"{code.co_filename}:{code.co_firstlineno}: cannot stage {code.co_name!r}" in message
    assert "it is an `async def` function" in message


@pytest.mark.parametrize("value", [3, "f", None.__class__, [len]])
def test_what_is_not_callable_is_refused_when_decorating(value):
    if callable(value):  # (a class is callable: staged as a callable without Python code)
        return
    with pytest.raises(TypeError) as caught:
        staging.function(value)
    assert "staging.function stages a function (or another callable), not " in str(caught.value)
    with pytest.raises(TypeError, match="stages a function"):
        staging.function(input_signature=[staging.TensorSpec([2])])(value)


@pytest.mark.parametrize(
    "shape, dtype",
    [([10**30], np.float64), ([1 << 40, 1 << 40], np.float32), ([None, 1 << 62], np.float64)],
)
def test_a_spec_no_array_can_have_is_refused(shape, dtype):
    with pytest.raises(ValueError) as caught:
        staging.TensorSpec(shape, dtype)
    assert "larger than any array NumPy can make" in str(caught.value)
    assert f"describes more than {np.iinfo(np.intp).max} bytes" in str(caught.value)


def test_large_specs_numpy_could_make_are_fine():
    assert staging.TensorSpec([None, 1 << 40], np.uint8).shape == (None, 1 << 40)


# -- input signatures -----------------------------------------------------------------------------


def doubled(x):
    return x * 2.0


MASKED = np.ma.masked_array([1.0, 2.0, 3.0], mask=[0, 1, 0])


@pytest.mark.parametrize("first", [np.ones(3), None])
def test_input_signature_refuses_a_masked_array_as_a_call_without_one(first):
    f = staging.function(doubled, input_signature=[staging.TensorSpec([3], np.float64)])
    if first is not None:
        f(first)
    for _ in range(2):
        with pytest.raises(TypeError) as caught:
            f(MASKED)
        message = str(caught.value)
        assert (
            "doubled(): argument 'x' is a masked array: staged ops would compute on the masked values too"
            in message
        )
        assert "the input_signature is doubled(x: f64[3])" in message


def test_input_signature_refuses_a_matrix():
    f = staging.function(doubled, input_signature=[staging.TensorSpec([1, 3], np.float64)])
    with pytest.raises(TypeError, match="argument 'x' is a numpy.matrix"):
        f(np.matrix([[1.0, 2.0, 3.0]]))


def test_input_signature_names_the_byte_order():
    f = staging.function(doubled, input_signature=[staging.TensorSpec([3], np.float64)])
    swapped = np.ones(3, dtype=np.dtype(np.float64).newbyteorder())
    order = "big" if swapped.dtype.byteorder == ">" else "little"
    with pytest.raises(TypeError) as caught:
        f(swapped)
    assert (
        f"doubled(): argument 'x' is f64[3] in {order}-endian byte order, which input_signature "
        f"f64[3] does not accept (it takes the machine's byte order: pass "
        f"x.astype(x.dtype.newbyteorder('=')))" in str(caught.value)
    )
    np.testing.assert_array_equal(f(swapped.astype(swapped.dtype.newbyteorder("="))), 2.0)
