"""The setitem, ufunc_out and list_stack ops against NumPy: `x[key] = value` on a copy, `x += y`,
and what an empty list gives."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import runtime.ops  # noqa: F401  (registers the ops)
from runtime.registry import get_op, infer_types
from runtime.types import TensorType

RNG = np.random.default_rng(3)
X = RNG.uniform(0.5, 2, size=(4, 5, 6)).astype(np.float32)
I2 = np.array([0, 3])
M45 = X[:, :, 0] > 1.2

# (index attr, index inputs, the same key in NumPy)
INDEXES = [
    ((1,), [], (1,)),
    ((-1, 2), [], (-1, 2)),
    ((1, 2, 3), [], (1, 2, 3)),
    (("1:3",), [], (slice(1, 3),)),
    (("::-1", "1::2"), [], (slice(None, None, -1), slice(1, None, 2))),
    ((None, "...", None), [], (None, Ellipsis, None)),
    (("...", 0), [], (Ellipsis, 0)),
    (("...",), [], (Ellipsis,)),
    ((), [], ()),
    ((0, "...", "?"), [I2], (0, Ellipsis, I2)),
    (("?",), [np.int64(2)], (np.int64(2),)),
    (
        ("?", "?", "?"),
        [np.int64(2), np.int64(1), np.int64(0)],
        (np.int64(2), np.int64(1), np.int64(0)),
    ),
    (("?:?",), [np.int64(1), np.int64(3)], (slice(np.int64(1), np.int64(3)),)),
    ((":", "?:"), [np.int32(-2)], (slice(None), slice(np.int32(-2), None))),
    (("?",), [I2], (I2,)),
    (("?",), [np.array([1, 1, 2])], (np.array([1, 1, 2]),)),  # duplicates: the last write wins
    (("?", "?"), [I2, np.array([[1], [4]])], (I2, np.array([[1], [4]]))),
    ((":", "?", "?"), [I2, np.array([1, 5])], (slice(None), I2, np.array([1, 5]))),
    (("?", ":", "?"), [I2, np.array([1, 5])], (I2, slice(None), np.array([1, 5]))),
    ((0, ":", "?"), [I2], (0, slice(None), I2)),
    (("?", None, "?"), [I2, I2], (I2, None, I2)),
    (("?",), [M45], (M45,)),
    (("?",), [X > 1.2], (X > 1.2,)),
    (("?", "1:3"), [M45], (M45, slice(1, 3))),
    (
        (":", "?"),
        [np.array([True, False, True, True, False])],
        (slice(None), np.array([True, False, True, True, False])),
    ),
]


def _values(target_shape, dtype):
    """Values to assign: numbers, NumPy scalars, arrays of fitting and unfitting shapes."""
    arr = RNG.uniform(-3, 3, size=target_shape)
    out = [
        2,
        2.7,
        True,
        -1,
        1j,
        float("nan"),
        np.float64(1.5),
        np.int8(3),
        np.complex64(1 + 2j),
        np.array(4.0),
        arr.astype(dtype),
        arr.astype(np.float64),
        arr.astype(np.int64),
        (arr + 1j).astype(np.complex128),
    ]
    if target_shape:
        out += [
            arr[..., :1].astype(dtype),
            arr[(0,) * (len(target_shape) - 1)].astype(np.float32),
            arr[None].astype(dtype),
            np.ones((2,) + target_shape, dtype),
            np.ones((7,), dtype),
        ]
    else:
        out += [np.ones((1,), dtype), np.ones((1, 1), dtype)]
    return out


def _numpy_setitem(x, key, value):
    out = x.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out[key] = value
    return out


def _type_of(value, unknown=False):
    if type(value) in (bool, int, float, complex):
        return value
    value = np.asarray(value)
    return TensorType(value.dtype, (None,) * value.ndim if unknown else value.shape)


def _check(x, index, inputs, key, value):
    """Staged and NumPy agree: the same result, or the same exception type (from the rule, or
    from the kernel when only the run can tell)."""
    op = get_op("setitem")
    attrs = {"index": index}
    try:
        expected = _numpy_setitem(x, key, value)
    except Exception as exc:  # noqa: BLE001  (the exception type is what we compare)
        with pytest.raises(type(exc)):
            infer_types(op, [_type_of(x), _type_of(value)] + [_type_of(i) for i in inputs], attrs)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                op.kernel(attrs)(x, value, *inputs)
        return
    for unknown in (False, True):
        types = [_type_of(x, unknown), _type_of(value, unknown)] + [
            _type_of(i, unknown) for i in inputs
        ]
        (out_type,) = infer_types(op, types, attrs)
        assert out_type == types[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = op.kernel(attrs)(x, value, *inputs)
    assert type(got) is np.ndarray and got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("case", range(len(INDEXES)))
@pytest.mark.parametrize("dtype", [np.float32, np.int8, np.uint8, np.bool_, np.complex64])
def test_setitem_matches_numpy(case, dtype):
    index, inputs, key = INDEXES[case]
    x = (X * 10).astype(dtype)
    target_shape = x[key].shape
    for value in _values(target_shape, dtype):
        _check(x, index, inputs, key, value)


def test_setitem_does_not_change_its_input_and_keeps_0d_arrays():
    x = np.zeros(3)
    out = get_op("setitem").kernel({"index": (0,)})(x, 5.0)
    assert x[0] == 0 and out[0] == 5
    got = get_op("setitem").kernel({"index": ()})(np.float64(1.0), 2.0)
    assert type(got) is np.ndarray and got.shape == () and got == 2.0


def test_setitem_rule_errors_name_numpys_reasons():
    op = get_op("setitem")
    t = TensorType(np.int8, (4, 5))

    def infer(value, *inputs, index):
        return infer_types(op, [t, value, *inputs], {"index": index})

    with pytest.raises(OverflowError, match="Python integer 300 out of bounds for int8"):
        infer(300, index=(0,))
    with pytest.raises(ValueError, match="cannot convert float NaN to integer"):
        infer(float("nan"), index=("1:3",))
    with pytest.raises(TypeError):
        infer(1j, index=(0, 0))
    with pytest.raises(
        ValueError, match=r"could not broadcast input array from shape \(3,\) into shape \(5,\)"
    ):
        infer(TensorType(np.int8, (3,)), index=(0,))
    # a 1-element array into one element: deprecated up to NumPy 2.2, refused by later NumPy;
    # the rule does what the installed NumPy does
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            np.zeros((4, 5), np.int8)[0, 0] = np.ones(1, np.int8)
            eager = None
        except ValueError as error:
            eager = error
    if eager is None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            assert infer(TensorType(np.int8, (1,)), index=(0, 0))
    else:
        with pytest.raises(ValueError, match="setting an array element with a sequence"):
            infer(TensorType(np.int8, (1,)), index=(0, 0))
    with pytest.raises(ValueError, match="shape mismatch: value array of shape"):
        infer(TensorType(np.int8, (3,)), TensorType(np.int64, (2,)), index=("?",))
    with pytest.raises(TypeError, match="requires a 0 or 1-dimensional input"):
        infer(TensorType(np.int8, (2, 2)), TensorType(np.bool_, (4, 5)), index=("?",))
    with pytest.raises(IndexError, match="too many indices"):
        infer(1, index=(0, 0, 0))
    with pytest.raises(IndexError, match="valid indices"):
        infer(1, TensorType(np.float64, ()), index=("?",))
    with pytest.raises(IndexError, match="out of bounds"):
        infer(1, index=(4,))
    # Unknown dims are checked when the graph runs, not rejected while tracing.
    assert infer(TensorType(np.int8, (None,)), index=(0,)) == (t,)
    assert infer(TensorType(np.float64, (None, 5)), TensorType(np.bool_, (4,)), index=("?",)) == (
        t,
    )


# --- ufunc_out: x op= y ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "ufunc",
    [
        "add",
        "subtract",
        "multiply",
        "true_divide",
        "floor_divide",
        "power",
        "bitwise_and",
        "left_shift",
        "matmul",
        "maximum",
    ],
)
@pytest.mark.parametrize(
    "target_dtype,other",
    [
        (np.float32, 2.5),
        (np.float32, np.arange(3.0)),
        (np.int64, 2),
        (np.int64, 1.5),
        (np.int8, 300),
        (np.int8, np.arange(3, dtype=np.int64)),
        (np.uint8, np.int8(1)),
        (np.bool_, True),
        (np.float64, np.ones((2, 3))),
        (np.float64, np.ones((3, 3))),
    ],
)
def test_ufunc_out_matches_numpy_in_place(ufunc, target_dtype, other):
    func = getattr(np, ufunc)
    name = func.__name__
    target = (np.arange(9).reshape(3, 3) % 4 + 1).astype(target_dtype)
    op = get_op("ufunc_out")
    attrs = {"ufunc": name}
    types = [_type_of(target), _type_of(target), _type_of(other)]
    try:
        expected = target.copy()
        with np.errstate(all="ignore"):
            func(expected, other, out=expected)
    except Exception as exc:  # noqa: BLE001
        with pytest.raises(type(exc)):
            infer_types(op, types, attrs)
        return
    assert infer_types(op, types, attrs) == (types[0],)
    with np.errstate(all="ignore"):
        got = op.kernel(attrs)(target, target, other)
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)
    assert not np.shares_memory(got, target)


# --- list_stack: an empty list -----------------------------------------------------------------


def test_list_stack_of_an_empty_list_as_numpy_gives_it():
    kernel = get_op("list_stack").kernel
    np.testing.assert_array_equal(
        kernel({"dtype": np.dtype(np.float64), "element_shape": (3,)})([]), np.zeros((0, 3))
    )
    with pytest.raises(ValueError, match="need at least one array to stack"):
        kernel({"dtype": np.dtype(np.float64), "element_shape": (3,), "empty": "stack"})([])
    with pytest.raises(ValueError, match=r"float64 array of shape \(0,\).*f64\[\?,3\]"):
        kernel({"dtype": np.dtype(np.float64), "element_shape": (3,), "empty": "array"})([])
    items = [np.ones(3), np.zeros(3)]
    for empty in ("zeros", "stack", "array"):
        np.testing.assert_array_equal(
            kernel({"dtype": np.dtype(np.float32), "element_shape": (3,), "empty": empty})(items),
            np.stack(items).astype(np.float32),
        )
    with pytest.raises(ValueError, match="empty must be"):
        get_op("list_stack").infer(
            None, dtype=np.dtype(np.float64), element_shape=(), empty="other"
        )
