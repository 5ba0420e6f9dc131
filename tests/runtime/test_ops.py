"""Every registered NumPy op: the infer rule matches the kernel's real result, and the kernel matches NumPy."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

import runtime.ops  # noqa: F401  (registers the ops)
from runtime.ops import OPERATOR_EXPRS, UFUNCS
from runtime.registry import get_op, infer_types
from runtime.types import TensorType

RNG = np.random.default_rng(0)

DTYPES = [
    np.bool_,
    np.int8,
    np.int32,
    np.int64,
    np.uint8,
    np.uint64,
    np.float16,
    np.float32,
    np.float64,
    np.complex64,
    np.complex128,
]


def sample(dtype, shape):
    """Small positive values (safe for log/sqrt/shifts/integer powers)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return RNG.integers(0, 2, size=shape).astype(bool)
    if dtype.kind in "iu":
        return RNG.integers(1, 5, size=shape).astype(dtype)
    if dtype.kind in "mM":
        return RNG.integers(0, 1000, size=shape).astype(dtype)
    if dtype.kind == "c":
        return (RNG.uniform(0.5, 2, size=shape) + 1j * RNG.uniform(0.5, 2, size=shape)).astype(
            dtype
        )
    return RNG.uniform(0.5, 2, size=shape).astype(dtype)


def type_of(value, unknown=()):
    """The input type of a value; Python scalars stay weak literals; `unknown` axes become None."""
    if type(value) in (bool, int, float, complex):
        return value
    value = np.asarray(value)
    shape = tuple(None if i in unknown else d for i, d in enumerate(value.shape))
    return TensorType(value.dtype, shape)


def quiet(func, *args, **kwargs):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return func(*args, **kwargs)


def assert_same_value(got, expected):
    assert type(got) is type(expected), (
        f"kernel returned {type(got).__name__}, NumPy {type(expected).__name__}"
    )
    assert np.asarray(got).dtype == np.asarray(expected).dtype
    np.testing.assert_array_equal(got, expected)


def check(op_name, inputs, attrs=None, expected=None, unknown=None, exact=True):
    """infer(types) agrees with the kernel's result; the kernel agrees with `expected`.

    unknown: per-input tuples of axes to make None in the input types (None: run both the exact
    and the all-unknown variants). exact=False for ops whose output size depends on input values.
    """
    attrs = attrs or {}
    op = get_op(op_name)
    got = quiet(op.kernel(attrs), *inputs)
    gots = got if op.num_outputs != 1 else (got,)
    if expected is not None:
        exps = expected if op.num_outputs != 1 else (expected,)
        assert len(gots) == len(exps)
        for g, e in zip(gots, exps):
            assert_same_value(g, e)
    variants = [[()] * len(inputs)]
    if unknown is None:
        variants.append([tuple(range(np.ndim(v))) for v in inputs])
    else:
        variants.append(unknown)
    for axes in variants:
        types = [type_of(v, a) for v, a in zip(inputs, axes)]
        out_types = infer_types(op, types, attrs)
        assert len(out_types) == len(gots)
        for t, g in zip(out_types, gots):
            g = np.asarray(g)
            assert t.dtype == g.dtype, f"{op_name}{types}: inferred {t}, got dtype {g.dtype}"
            assert t.accepts_shape(g.shape), f"{op_name}{types}: inferred {t}, got shape {g.shape}"
            if exact and not any(axes):
                assert t.shape == g.shape, (
                    f"{op_name}: exact input shapes must give the exact shape"
                )
    return got


def check_raises_like_numpy(op_name, inputs, attrs, numpy_call):
    """When NumPy rejects the call, infer rejects the types with the same kind of exception."""
    try:
        quiet(numpy_call)
    except Exception as exc:  # noqa: BLE001  (we compare the exception class with NumPy's)
        expected = type(exc)
    else:
        raise AssertionError("NumPy accepted the call")
    with pytest.raises(expected):
        infer_types(get_op(op_name), [type_of(v) for v in inputs], attrs)


# --- ufuncs ----------------------------------------------------------------------------------

ELEMENTWISE = {n: u for n, u in UFUNCS.items() if not u.signature}


def _ufunc_inputs(ufunc, dtypes):
    shapes = [(3, 4), (4,), (1, 4)][: ufunc.nin]
    return [sample(dt, s) for dt, s in zip(dtypes, shapes)]


@pytest.mark.parametrize("name", sorted(ELEMENTWISE))
def test_every_ufunc_matches_numpy_over_dtypes(name):
    ufunc = ELEMENTWISE[name]
    dtypes_ = DTYPES + (
        [np.dtype("datetime64[s]"), np.dtype("timedelta64[ms]")] if name == "isnat" else []
    )
    combos = list(itertools.product(dtypes_, repeat=ufunc.nin))
    if ufunc.nin == 2:
        combos = [
            c
            for c in combos
            if c[0] in (np.bool_, np.int8, np.uint8, np.int64, np.float32, np.float64, np.complex64)
        ]
    checked = 0
    for dtypes in combos:
        inputs = _ufunc_inputs(ufunc, dtypes)
        try:
            expected = quiet(ufunc, *inputs)
        except TypeError:
            check_raises_like_numpy(name, inputs, {}, lambda: ufunc(*inputs))
            continue
        check(name, inputs, expected=expected)
        checked += 1
    assert checked, f"no dtype combination of {name} was accepted by NumPy"


@pytest.mark.parametrize("name", sorted(n for n, u in ELEMENTWISE.items() if u.nin == 2))
@pytest.mark.parametrize("scalar", [True, 3, -2, 2.5, 1j, 300, 2**40])
@pytest.mark.parametrize(
    "dtype", [np.bool_, np.int8, np.uint8, np.int32, np.float16, np.float32, np.complex64]
)
def test_binary_ufuncs_with_weak_python_scalars(name, scalar, dtype):
    ufunc = ELEMENTWISE[name]
    x = sample(dtype, (2, 3))
    for inputs in ([x, scalar], [scalar, x]):
        try:
            expected = quiet(ufunc, *inputs)
        except (TypeError, OverflowError, ValueError):
            check_raises_like_numpy(name, inputs, {}, lambda: ufunc(*inputs))
            continue
        check(name, inputs, expected=expected)


def test_weak_scalar_promotion_follows_nep50():
    add = get_op("add")
    f32 = TensorType(np.float32, (3,))
    assert add.infer(f32, 1.0) == TensorType(np.float32, (3,))
    assert add.infer(TensorType(np.int64, (3,)), 1.5) == TensorType(np.float64, (3,))
    assert add.infer(TensorType(np.int8, ()), 1) == TensorType(np.int8, ())
    with pytest.raises(OverflowError, match="1000 out of bounds for int8"):
        add.infer(TensorType(np.int8, (3,)), 1000)
    assert get_op("multiply").infer(TensorType(np.float16, (2,)), 2j).dtype == np.complex64


def test_zero_d_inputs_give_numpy_scalars():
    got = check("add", [np.float32(1.5), 2.0], expected=np.add(np.float32(1.5), 2.0))
    assert isinstance(got, np.float32)
    got = check("sin", [np.array(0.5)], expected=np.sin(np.array(0.5)))
    assert isinstance(got, np.float64)


def test_multi_output_ufuncs():
    x = sample(np.float32, (2, 3))
    for name in ("modf", "frexp"):
        assert get_op(name).num_outputs == 2
        check(name, [x], expected=getattr(np, name)(x))
    a, b = sample(np.int32, (2, 3)), sample(np.int8, (3,))
    check("divmod", [a, b], expected=np.divmod(a, b))
    check("divmod", [a, 7], expected=np.divmod(a, 7))
    out = get_op("divmod").infer(TensorType(np.int16, (None, 3)), 2.5)
    assert out == (TensorType(np.float64, (None, 3)), TensorType(np.float64, (None, 3)))


def test_broadcast_errors_are_numpy_like():
    with pytest.raises(
        ValueError, match=r"operands could not be broadcast together with shapes \(3,\) \(4,\)"
    ):
        get_op("add").infer(TensorType(np.float64, (3,)), TensorType(np.float64, (4,)))
    # unknown dims broadcast with anything
    t = get_op("add").infer(TensorType(np.float64, (None, 1)), TensorType(np.float32, (5,)))
    assert t == TensorType(np.float64, (None, 5))
    assert get_op("less").infer(
        TensorType(np.float64, (None,)), TensorType(np.float64, (1,))
    ) == TensorType(np.bool_, (None,))


def test_invalid_dtype_combinations_raise_like_numpy():
    x = sample(np.float64, (3,))
    check_raises_like_numpy("bitwise_and", [x, 1], {}, lambda: np.bitwise_and(x, 1))
    check_raises_like_numpy("isnat", [x], {}, lambda: np.isnat(x))
    check_raises_like_numpy("left_shift", [x, x], {}, lambda: np.left_shift(x, x))


@pytest.mark.parametrize("name", sorted(OPERATOR_EXPRS))
def test_operator_exprs_compute_what_the_ufunc_computes(name):
    ufunc = UFUNCS[name]
    expr = OPERATOR_EXPRS[name]
    if (
        name == "absolute"
    ):  # inline except on complex scalars (abs() of one is not the ufunc's loop)
        op = get_op(name)
        assert op.make_expr(TensorType(np.float64, ())) == expr
        assert op.make_expr(TensorType(np.complex128, ())) is None
    elif name == "multiply":  # the same: `a * b` of complex NumPy scalars is not the ufunc's loop
        op, c128 = get_op(name), TensorType(np.complex128, ())
        assert op.make_expr(TensorType(np.float64, ()), TensorType(np.float64, ())) == expr
        assert op.make_expr(TensorType(np.complex128, (3,)), c128) == expr
        assert op.make_expr(c128, c128) is None and op.make_expr(c128, 2.0) is None
        assert op.make_expr(TensorType.python_scalar(complex), 2j) == expr  # Python's own product
    else:
        assert get_op(name).expr == expr
    if ufunc.signature:
        cases = [
            [sample(np.float64, (2, 3)), sample(np.float32, (3, 4))],
            [sample(np.int32, (3,)), sample(np.int32, (3,))],
        ]
    else:
        kinds = [np.int8, np.int64, np.float32, np.bool_, np.uint8]
        cases = []
        for dt in kinds:
            x = sample(dt, (2, 3))
            cases += [
                [x] * ufunc.nin,
                [x, 3][: ufunc.nin],
                [2, x][-ufunc.nin :],
                [np.asarray(x)[0, 0]] * ufunc.nin,
                [np.array(x[0, 0])] * ufunc.nin,
            ]
    tried = 0
    for inputs in cases:
        try:
            expected = quiet(ufunc, *inputs)
        except TypeError:
            continue
        names = {f"v{i}": v for i, v in enumerate(inputs)}
        code = expr.format(*names)
        got = quiet(eval, code, {}, names)  # noqa: S307  (the template under test)
        assert_same_value(got, expected)
        tried += 1
    assert tried


def test_power_has_no_operator_expr():
    # ndarray.__pow__ special-cases x**0.5 as sqrt, which differs from np.power at -0.0
    assert get_op("power").expr is None


# --- gufuncs (matmul, vecdot, matvec, vecmat) ------------------------------------------------


@pytest.mark.parametrize(
    "sa,sb",
    [
        ((2, 3), (3, 4)),
        ((3,), (3, 4)),
        ((2, 3), (3,)),
        ((3,), (3,)),
        ((5, 2, 3), (3, 4)),
        ((5, 1, 2, 3), (4, 3, 2)),
    ],
)
@pytest.mark.parametrize(
    "dta,dtb",
    [
        (np.float32, np.float64),
        (np.int8, np.int8),
        (np.bool_, np.int32),
        (np.complex64, np.float32),
    ],
)
def test_matmul_shapes_and_dtypes(sa, sb, dta, dtb):
    a, b = sample(dta, sa), sample(dtb, sb)
    check("matmul", [a, b], expected=np.matmul(a, b))


def test_matmul_errors():
    mm = get_op("matmul")
    with pytest.raises(ValueError, match="mismatch in its core dimension 0"):
        mm.infer(TensorType(np.float64, (2, 3)), TensorType(np.float64, (4, 5)))
    with pytest.raises(ValueError, match="does not have enough dimensions"):
        mm.infer(TensorType(np.float64, ()), TensorType(np.float64, (4, 5)))
    assert mm.infer(
        TensorType(np.float64, (None, 3)), TensorType(np.float64, (None, 7))
    ) == TensorType(np.float64, (None, 7))


@pytest.mark.parametrize(
    "name,sa,sb", [("vecdot", (2, 3), (3,)), ("matvec", (4, 2, 3), (3,)), ("vecmat", (3,), (3, 5))]
)
def test_other_gufuncs(name, sa, sb):
    a, b = sample(np.float32, sa), sample(np.int64, sb)
    check(name, [a, b], expected=UFUNCS[name](a, b))


# --- reductions ------------------------------------------------------------------------------

REDUCTION_CASES = [
    {},
    {"axis": 0},
    {"axis": -1},
    {"axis": (0, 2)},
    {"axis": None, "keepdims": True},
    {"axis": 1, "keepdims": True},
]


@pytest.mark.parametrize("name", ["sum", "prod", "mean", "max", "min", "any", "all", "std", "var"])
@pytest.mark.parametrize(
    "dtype", [np.bool_, np.int8, np.uint16, np.int64, np.float16, np.float32, np.complex64]
)
def test_reductions(name, dtype):
    x = sample(dtype, (2, 3, 4))
    func = getattr(np, name)
    for attrs in REDUCTION_CASES:
        try:
            expected = quiet(func, x, **attrs)
        except TypeError:
            continue
        check(name, [x], attrs, expected=expected)


@pytest.mark.parametrize(
    "name,extra",
    [
        ("sum", {"dtype": np.dtype(np.int8)}),
        ("prod", {"dtype": np.dtype(np.float32)}),
        ("mean", {"dtype": np.dtype(np.float32)}),
        ("std", {"ddof": 1}),
        ("var", {"ddof": 2, "dtype": np.dtype(np.float32)}),
    ],
)
def test_reduction_dtype_and_ddof(name, extra):
    x = sample(np.int16, (3, 4))
    for axis in (None, 0, (0, 1)):
        attrs = dict(extra, axis=axis)
        check(name, [x], attrs, expected=quiet(getattr(np, name), x, **attrs))


@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_arg_reductions(name):
    x = sample(np.float32, (3, 4, 2))
    for attrs in (
        {},
        {"axis": 1},
        {"axis": -1, "keepdims": True},
        {"axis": None, "keepdims": True},
    ):
        check(name, [x], attrs, expected=getattr(np, name)(x, **attrs))
    with pytest.raises(TypeError, match="axis must be an int or None"):
        get_op(name).infer(TensorType(np.float32, (3,)), axis=(0,))
    with pytest.raises(ValueError, match="empty sequence"):
        get_op(name).infer(TensorType(np.float32, (0, 3)), axis=0)


def test_reduction_errors():
    with pytest.raises(np.exceptions.AxisError):
        get_op("sum").infer(TensorType(np.float64, (3,)), axis=1)
    with pytest.raises(ValueError, match="duplicate value in 'axis'"):
        get_op("sum").infer(TensorType(np.float64, (3, 4)), axis=(0, 0))
    with pytest.raises(ValueError, match="no identity"):
        get_op("max").infer(TensorType(np.float64, (3, 0)), axis=1)
    with pytest.raises(TypeError, match="unexpected attribute"):
        get_op("max").infer(TensorType(np.float64, (3,)), dtype=np.dtype(np.float32))
    assert get_op("sum").infer(TensorType(np.int32, (None, 4)), axis=1) == TensorType(
        np.int64, (None,)
    )


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
def test_scans(name):
    x = sample(np.int8, (3, 4))
    for attrs in ({}, {"axis": 0}, {"axis": -1, "dtype": np.dtype(np.float32)}):
        check(name, [x], attrs, expected=getattr(np, name)(x, **attrs))


@pytest.mark.parametrize("name", ["sort", "argsort"])
def test_sorting(name):
    x = sample(np.float32, (3, 5))
    for attrs in (
        {},
        {"axis": 0},
        {"axis": None},
        {"kind": "stable"},
        {"axis": -1, "stable": True},
    ):
        check(name, [x], attrs, expected=getattr(np, name)(x, **attrs))
    with pytest.raises(np.exceptions.AxisError):
        get_op(name).infer(TensorType(np.float32, ()))


# --- shape ops -------------------------------------------------------------------------------


def test_reshape():
    x = sample(np.float32, (2, 3, 4))
    for shape in [(6, 4), (-1,), (4, -1), (2, -1, 2), (24, 1), (1, 2, 1, 12)]:
        check("reshape", [x], {"shape": shape}, expected=np.reshape(x, shape))
    # symbolic sizes: None entries come from integer scalar inputs
    got = check(
        "reshape", [x, np.int64(6)], {"shape": (None, -1)}, expected=x.reshape(6, -1), exact=False
    )
    assert got.shape == (6, 4)
    t = get_op("reshape").infer(TensorType(np.float32, (None, 3)), shape=(-1, 3, 1))
    assert t == TensorType(np.float32, (None, 3, 1))
    t = get_op("reshape").infer(
        TensorType(np.float32, (2, 6)), TensorType(np.int32, ()), shape=(None, 4)
    )
    assert t == TensorType(np.float32, (None, 4))


def test_reshape_errors():
    rs = get_op("reshape")
    with pytest.raises(ValueError, match=r"cannot reshape array of size 6 into shape \(4,\)"):
        rs.infer(TensorType(np.float64, (2, 3)), shape=(4,))
    with pytest.raises(
        ValueError,
        match=r"cannot reshape array of size 6 into shape \(4, \?\)|size 6 into shape \(4, -1\)",
    ):
        rs.infer(TensorType(np.float64, (2, 3)), shape=(4, -1))
    with pytest.raises(ValueError, match="can only specify one unknown dimension"):
        rs.infer(TensorType(np.float64, (2, 3)), shape=(-1, -1))
    with pytest.raises(TypeError, match="symbolic size must be an integer scalar"):
        rs.infer(TensorType(np.float64, (2, 3)), TensorType(np.float64, ()), shape=(None,))


def test_transpose_expand_squeeze():
    x = sample(np.int32, (2, 1, 3))
    check("transpose", [x], {}, expected=np.transpose(x))
    check("transpose", [x], {"axes": (1, 2, 0)}, expected=np.transpose(x, (1, 2, 0)))
    check("transpose", [x], {"axes": (-1, 0, 1)}, expected=np.transpose(x, (-1, 0, 1)))
    for axis in (0, -1, (0, 2), (0, -1)):
        check("expand_dims", [x], {"axis": axis}, expected=np.expand_dims(x, axis))
    check("squeeze", [x], {}, expected=np.squeeze(x), unknown=[()])
    check("squeeze", [x], {"axis": 1}, expected=np.squeeze(x, 1))
    check("squeeze", [x], {"axis": (1,)}, expected=np.squeeze(x, (1,)))
    with pytest.raises(ValueError, match="repeated axis in transpose"):
        get_op("transpose").infer(TensorType(np.int32, (2, 3)), axes=(0, 0))
    with pytest.raises(ValueError, match="axes don't match array"):
        get_op("transpose").infer(TensorType(np.int32, (2, 3)), axes=(0,))
    with pytest.raises(ValueError, match="size not equal to one"):
        get_op("squeeze").infer(TensorType(np.int32, (2, 3)), axis=0)
    with pytest.raises(ValueError, match="ambiguous"):
        get_op("squeeze").infer(TensorType(np.int32, (None, 3)))


def test_concatenate_and_stack():
    a, b, c = sample(np.int8, (2, 3)), sample(np.float32, (4, 3)), sample(np.int64, (1, 3))
    check("concatenate", [a, b, c], {}, expected=np.concatenate([a, b, c]))
    check("concatenate", [a, b], {"axis": None}, expected=np.concatenate([a, b], axis=None))
    check(
        "concatenate",
        [a, a.T.T],
        {"axis": 1, "dtype": np.dtype(np.float64)},
        expected=np.concatenate([a, a], axis=1, dtype=np.float64),
    )
    check("stack", [a, a, a], {}, expected=np.stack([a, a, a]))
    check(
        "stack",
        [a, c[:, :3].repeat(2, 0)],
        {"axis": -1},
        expected=np.stack([a, c.repeat(2, 0)], axis=-1),
    )
    with pytest.raises(ValueError, match="along dimension 1, the array at index 0 has size 3"):
        get_op("concatenate").infer(TensorType(np.int8, (2, 3)), TensorType(np.int8, (2, 4)))
    with pytest.raises(ValueError, match="zero-dimensional arrays cannot be concatenated"):
        get_op("concatenate").infer(TensorType(np.int8, ()))
    with pytest.raises(ValueError, match="all input arrays must have the same shape"):
        get_op("stack").infer(TensorType(np.int8, (2, 3)), TensorType(np.int8, (3, 2)))
    assert get_op("concatenate").infer(
        TensorType(np.int8, (None, 3)), TensorType(np.int8, (2, 3))
    ) == TensorType(np.int8, (None, 3))
    assert get_op("stack").infer(
        TensorType(np.int8, (None, 3)), TensorType(np.int8, (2, None)), axis=1
    ) == TensorType(np.int8, (2, 2, 3))


def test_broadcast_to():
    x = sample(np.float32, (3, 1))
    check("broadcast_to", [x], {"shape": (2, 3, 4)}, expected=np.broadcast_to(x, (2, 3, 4)))
    check(
        "broadcast_to",
        [x, np.int64(5)],
        {"shape": (None, 3, 2)},
        expected=np.broadcast_to(x, (5, 3, 2)),
        exact=False,
    )
    with pytest.raises(
        ValueError, match="operands could not be broadcast together with remapped shapes"
    ):
        get_op("broadcast_to").infer(TensorType(np.float32, (3,)), shape=(4,))


def test_where_clip_take_astype_copy():
    c, x, y = sample(np.bool_, (3, 1)), sample(np.float32, (4,)), sample(np.int64, (3, 4))
    check("where", [c, x, y], expected=np.where(c, x, y))
    check("where", [c, x, 1.0], expected=np.where(c, x, 1.0))
    check("where", [c, 2, y], expected=np.where(c, 2, y))
    nz = sample(np.int32, (3, 4)) - 2
    check("argwhere", [nz], expected=np.argwhere(nz), exact=False)
    assert get_op("argwhere").infer(TensorType(np.int32, (3, 4))) == TensorType(np.intp, (None, 2))
    i8 = sample(np.int8, (3, 4))
    check("clip", [y, 2, 3], expected=np.clip(y, 2, 3))
    check("clip", [i8, -1000, 3], expected=np.clip(i8, -1000, 3))
    check("clip", [x, 1.0], {"bounds": "min"}, expected=np.clip(x, 1.0, None))
    check("clip", [x, y], {"bounds": "max"}, expected=np.clip(x, None, y))
    check("clip", [x], {"bounds": "none"}, expected=np.clip(x, None, None))
    idx = np.array([[0, 2], [1, 1]])
    check("take", [y, idx], expected=np.take(y, idx))
    check("take", [y, idx], {"axis": 1}, expected=np.take(y, idx, axis=1))
    check("take", [y, np.int64(2)], {"axis": 0}, expected=np.take(y, np.int64(2), axis=0))
    for dt in (np.int8, np.float16, np.bool_, np.complex128):
        check("astype", [x], {"dtype": np.dtype(dt)}, expected=x.astype(dt))
    check(
        "astype",
        [np.float64(2.5)],
        {"dtype": np.dtype(np.int32)},
        expected=np.float64(2.5).astype(np.int32),
    )
    check("copy", [y], expected=np.copy(y))


def test_round_repeat_diagonal_trace():
    x = sample(np.float64, (3, 4)) * 10
    check("round", [x], {"decimals": 1}, expected=np.round(x, 1))
    ints = sample(np.int32, (3,))
    check("round", [ints], {}, expected=np.round(ints))
    check("repeat", [x], {"repeats": 2}, expected=np.repeat(x, 2))
    check("repeat", [x], {"repeats": 3, "axis": 1}, expected=np.repeat(x, 3, axis=1))
    for kw in ({}, {"offset": 1}, {"offset": -2}, {"axis1": 1, "axis2": 0}):
        check("diagonal", [x], kw, expected=np.diagonal(x, **kw))
        check("trace", [x], kw, expected=np.trace(x, **kw))
    i8 = sample(np.int8, (2, 2, 3))
    check("trace", [i8], {"axis1": 0, "axis2": 2}, expected=np.trace(i8, axis1=0, axis2=2))
    with pytest.raises(ValueError, match="at least two dimensions"):
        get_op("diagonal").infer(TensorType(np.float64, (3,)))
    v = sample(np.int16, (3,))
    for kw in ({}, {"k": 2}, {"k": -1}):
        check("diag", [v], kw, expected=np.diag(v, **kw))
    check("diag", [np.zeros(0)], {}, expected=np.diag(np.zeros(0)))
    assert get_op("diag").infer(TensorType(np.float64, (None,)), k=1).shape == (None, None)
    with pytest.raises(ValueError, match="1-d"):
        get_op("diag").infer(TensorType(np.float64, (2, 2)))


# --- indexing --------------------------------------------------------------------------------


def _getitem_case(x, index, inputs, key):
    return check(
        "getitem",
        [x, *inputs],
        {"index": index},
        expected=x[key],
        unknown=[tuple(range(x.ndim))] + [() for _ in inputs],
        exact=not inputs,
    )


X = sample(np.float32, (4, 5, 6))
I2 = np.array([0, 3])
M45 = X[:, :, 0] > 1.2


@pytest.mark.parametrize(
    "index,inputs,key",
    [
        ((1,), [], (1,)),
        ((-1, 2), [], (-1, 2)),
        ((1, 2, 3), [], (1, 2, 3)),
        (("1:3",), [], (slice(1, 3),)),
        (("::-1", "1::2"), [], (slice(None, None, -1), slice(1, None, 2))),
        ((None, "...", None), [], (None, Ellipsis, None)),
        (("...", 0), [], (Ellipsis, 0)),
        ((0, "...", "?"), [I2], (0, Ellipsis, I2)),
        (("?",), [np.int64(2)], (np.int64(2),)),
        (("?:?",), [np.int64(1), np.int64(3)], (slice(np.int64(1), np.int64(3)),)),
        ((":", "?:"), [np.int32(-2)], (slice(None), slice(np.int32(-2), None))),
        (("?",), [I2], (I2,)),
        (("?", "?"), [I2, np.array([[1], [4]])], (I2, np.array([[1], [4]]))),
        ((":", "?", "?"), [I2, np.array([1, 5])], (slice(None), I2, np.array([1, 5]))),
        (("?", ":", "?"), [I2, np.array([1, 5])], (I2, slice(None), np.array([1, 5]))),
        ((0, ":", "?"), [I2], (0, slice(None), I2)),
        ((":", 0, "?"), [I2], (slice(None), 0, I2)),
        (("?", None, "?"), [I2, I2], (I2, None, I2)),
        (("?",), [M45], (M45,)),
        (("?", "1:3"), [M45], (M45, slice(1, 3))),
        (("?", "?"), [X[:, 0, 0] > 1.2, np.array([1])], (X[:, 0, 0] > 1.2, np.array([1]))),
        (
            (":", "?"),
            [np.array([True, False, True, True, False])],
            (slice(None), np.array([True, False, True, True, False])),
        ),
    ],
)
def test_getitem(index, inputs, key):
    _getitem_case(X, index, inputs, key)


def test_getitem_scalar_results_and_exact_shapes():
    got = check("getitem", [X], {"index": (1, 2, 3)}, expected=X[1, 2, 3])
    assert isinstance(got, np.float32)
    gi = get_op("getitem")
    t4 = TensorType(np.float32, (4, 5, 6))
    assert gi.infer(t4, index=("1:3", None, 0)) == TensorType(np.float32, (2, 1, 6))
    assert gi.infer(t4, TensorType(np.int64, ()), index=("?:",)) == TensorType(
        np.float32, (None, 5, 6)
    )
    assert gi.infer(t4, TensorType(np.bool_, (4, 5)), index=("?",)) == TensorType(
        np.float32, (None, 6)
    )
    assert gi.infer(TensorType(np.float32, (None, 5)), index=(":", "2:")) == TensorType(
        np.float32, (None, 3)
    )


def test_getitem_errors():
    gi = get_op("getitem")
    t = TensorType(np.float32, (4, 5))
    with pytest.raises(IndexError, match="index 4 is out of bounds for axis 0 with size 4"):
        gi.infer(t, index=(4,))
    with pytest.raises(
        IndexError, match="too many indices for array: array is 2-dimensional, but 3 were indexed"
    ):
        gi.infer(t, index=(0, 0, 0))
    with pytest.raises(IndexError, match="single ellipsis"):
        gi.infer(t, index=("...", "..."))
    with pytest.raises(IndexError, match="valid indices"):
        gi.infer(t, TensorType(np.float32, (2,)), index=("?",))
    with pytest.raises(IndexError, match="boolean index did not match"):
        gi.infer(t, TensorType(np.bool_, (3,)), index=("?",))
    with pytest.raises(IndexError, match="shape mismatch"):
        gi.infer(t, TensorType(np.int64, (2,)), TensorType(np.int64, (3,)), index=("?", "?"))
    with pytest.raises(ValueError, match="slice step cannot be zero"):
        gi.infer(t, index=("::0",))


# --- linear algebra --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "sa,sb",
    [
        ((), (3,)),
        ((3,), ()),
        ((3,), (3,)),
        ((2, 3), (3,)),
        ((3,), (3, 4)),
        ((2, 3), (3, 4)),
        ((5, 2, 3), (4, 3, 2)),
    ],
)
def test_dot(sa, sb):
    a, b = sample(np.float32, sa), sample(np.int16, sb)
    check("dot", [a, b], expected=np.dot(a, b))


def test_dot_errors_and_outer():
    with pytest.raises(
        ValueError, match=r"shapes \(2, 3\) and \(4, 5\) not aligned: 3 \(dim 1\) != 4 \(dim 0\)"
    ):
        get_op("dot").infer(TensorType(np.float64, (2, 3)), TensorType(np.float64, (4, 5)))
    a, b = sample(np.int8, (2, 3)), sample(np.float32, (4,))
    check("outer", [a, b], expected=np.outer(a, b))


@pytest.mark.parametrize(
    "subscripts,shapes",
    [
        ("ij,jk->ik", [(2, 3), (3, 4)]),
        ("ij,jk", [(2, 3), (3, 4)]),
        ("ii->i", [(3, 3)]),
        ("ii", [(3, 3)]),
        ("ij->ji", [(2, 3)]),
        ("i,i->", [(3,), (3,)]),
        ("i,j->ij", [(2,), (3,)]),
        ("...ij,...jk->...ik", [(5, 2, 3), (5, 3, 4)]),
        ("bij,bjk->bik", [(5, 2, 3), (5, 3, 4)]),
        ("i...->...", [(2, 3, 4)]),
        ("ba,ab", [(2, 3), (3, 2)]),
        ("Ab,bA->", [(2, 3), (3, 2)]),
        ("ij,j->i", [(2, 3), (1,)]),
    ],
)
def test_einsum(subscripts, shapes):
    ops = [sample(np.float32, s) for s in shapes]
    check("einsum", ops, {"subscripts": subscripts}, expected=np.einsum(subscripts, *ops))


def test_einsum_errors():
    ein = get_op("einsum")
    t23, t45 = TensorType(np.float64, (2, 3)), TensorType(np.float64, (4, 5))
    with pytest.raises(ValueError, match="subscript 'j'"):
        ein.infer(t23, t45, subscripts="ij,jk->ik")
    with pytest.raises(ValueError, match="more operands"):
        ein.infer(t23, t23, subscripts="ij")
    with pytest.raises(ValueError, match="never appeared"):
        ein.infer(t23, subscripts="ij->k")
    with pytest.raises(ValueError, match="too many subscripts"):
        ein.infer(t23, subscripts="ijk")


# --- creation --------------------------------------------------------------------------------


def test_like_ops():
    x = sample(np.int16, (2, 3))
    check("zeros_like", [x], expected=np.zeros_like(x))
    check(
        "ones_like",
        [x],
        {"dtype": np.dtype(np.float32)},
        expected=np.ones_like(x, dtype=np.float32),
    )
    check("full_like", [x, 7.9], expected=np.full_like(x, 7.9))
    check(
        "full_like",
        [x, np.float32(2)],
        {"dtype": np.dtype(np.complex64)},
        expected=np.full_like(x, np.float32(2), dtype=np.complex64),
    )


def test_sized_creation_static_and_symbolic():
    check("zeros", [], {"shape": (2, 3)}, expected=np.zeros((2, 3)))
    check("ones", [], {"shape": (4,), "dtype": np.dtype(np.int8)}, expected=np.ones(4, np.int8))
    got = check(
        "zeros", [np.int64(3)], {"shape": (None, 2)}, expected=np.zeros((3, 2)), exact=False
    )
    assert got.shape == (3, 2)
    assert get_op("ones").infer(TensorType(np.int64, ()), shape=(None,)) == TensorType(
        np.float64, (None,)
    )
    check("full", [2.5], {"shape": (2, 2)}, expected=np.full((2, 2), 2.5))
    check(
        "full",
        [np.int8(3), np.int64(4)],
        {"shape": (None,)},
        expected=np.full(4, np.int8(3)),
        exact=False,
    )
    check(
        "full",
        [True],
        {"shape": (2,), "dtype": np.dtype(np.float32)},
        expected=np.full(2, True, np.float32),
    )
    check("eye", [], {"N": 3}, expected=np.eye(3))
    check(
        "eye",
        [],
        {"N": 3, "M": 4, "k": 1, "dtype": np.dtype(np.int32)},
        expected=np.eye(3, 4, 1, np.int32),
    )
    check("eye", [np.int64(4)], {"N": "?"}, expected=np.eye(4), exact=False)
    check(
        "eye",
        [np.int64(2), np.int64(-1)],
        {"N": 3, "M": "?", "k": "?"},
        expected=np.eye(3, 2, -1),
        exact=False,
    )
    with pytest.raises(ValueError, match="negative dimensions are not allowed"):
        get_op("zeros").infer(shape=(-1,))


@pytest.mark.parametrize(
    "attrs,inputs",
    [
        ({"stop": 5}, []),
        ({"start": 2, "stop": 9, "step": 3}, []),
        ({"start": 0.5, "stop": 3}, []),
        ({"start": 5, "stop": 0, "step": -2}, []),
        ({"stop": 4, "dtype": np.dtype(np.float32)}, []),
        ({"stop": "?"}, [np.int32(6)]),
        ({"start": "?", "stop": "?"}, [np.int64(2), np.int64(6)]),
        ({"start": 0, "stop": "?", "step": 0.5}, [np.float32(3)]),
        ({"stop": 1}, []),
        ({"stop": -3}, []),
    ],
)
def test_arange(attrs, inputs):
    it = iter(inputs)
    vals = [
        next(it) if attrs.get(k, d) == "?" else attrs.get(k, d)
        for k, d in (("start", 0), ("stop", None), ("step", 1))
    ]
    check(
        "arange",
        inputs,
        attrs,
        expected=np.arange(*vals, dtype=attrs.get("dtype")),
        exact=not inputs,
    )


def test_arange_zero_step_raises_like_numpy():
    with pytest.raises(ZeroDivisionError):
        get_op("arange").infer(start=0, stop=5, step=0)


def test_attrs_of_graph_ops_are_hashable():
    # attrs that the frontend produces must be hashable for deduplication and printing
    for attrs in (
        {"index": (0, "1:?", None, "...", "?")},
        {"shape": (None, -1)},
        {"axis": (0, 1), "keepdims": True},
        {"dtype": np.dtype(np.float32)},
        {"subscripts": "ij,jk"},
    ):
        hash(tuple(sorted(attrs.items())))
