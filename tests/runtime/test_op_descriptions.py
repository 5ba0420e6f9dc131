"""Every OpDef's facts agree with its kernel: the generators that read them (inline operators,
unboxed scalar loops, fusion, compiled kernels, dead-code elimination) compute what it does."""

from __future__ import annotations

import inspect
import operator
import warnings

import numpy as np
import pytest

import runtime  # noqa: F401  (registers the ops)
from runtime.executor import _ipow
from runtime.registry import OpDef, all_ops

OPS = all_ops()


def _named(predicate) -> list[str]:
    return sorted(name for name, op in OPS.items() if predicate(op))


def _quiet(func, *args):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return func(*args)


def _same(a, b) -> bool:
    """Equal values of the same type, NaN equal to NaN, -0.0 different from 0.0."""
    if type(a) is not type(b):
        return False
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.kind in "fc":
        return bool(
            np.all((a == b) & (np.signbit(a.real) == np.signbit(b.real)) | (a != a) & (b != b))
        )
    return bool(np.array_equal(a, b))


# -- the facts fit together ---------------------------------------------------------------


def test_compiled_kernels_take_only_exact_elementwise_ufuncs():
    for name in _named(lambda op: op.correctly_rounded):
        assert OPS[name].kernel_expr is not None, name  # what compiled kernels may take, they do
    for name in _named(lambda op: op.kernel_expr is not None):
        op = OPS[name]
        assert op.exact and op.out_ufunc is op.impl, name
    for name in _named(lambda op: op.kernel_expr_agrees is not None):
        assert OPS[name].kernel_expr is not None and isinstance(
            OPS[name].kernel_expr_agrees(), bool
        )


def test_elementwise_facts_are_about_ufuncs():
    for name in _named(lambda op: op.out_ufunc is not None):
        ufunc = OPS[name].out_ufunc
        assert OPS[name].impl is ufunc and ufunc.nout == 1, name
    for name in _named(
        lambda op: (
            op.exact
            or op.int_as_float
            or op.out_by_keyword
            or not op.in_place_complex
            or op.logical
        )
    ):
        assert isinstance(OPS[name].impl, np.ufunc), name
    for name in _named(lambda op: op.out_by_keyword):
        out = np.empty(3)
        OPS[name].out_ufunc(np.ones(3), np.ones(3), out=out)


def test_python_facts_fit_together():
    for name in _named(lambda op: op.unboxed is not None):
        assert OPS[name].python_expr is not None and OPS[name].python_operator is not None, name
    for name in _named(lambda op: op.division or op.python_errors):
        op = OPS[name]
        assert op.python_errors == (ZeroDivisionError,) and op.python_error_if is not None, name
        assert op.keep_unused is not None, name  # dead-code elimination keeps what may raise
    for name in _named(lambda op: op.comparison):
        assert OPS[name].unboxed == "compare"


def test_structured_facts_fit_together():
    for name in _named(lambda op: op.predicate is not None):
        op = OPS[name]
        assert op.subgraphs and op.emit and op.swap_branches and op.bind_subgraph, name
    for name in _named(lambda op: op.unlowerable is not None):
        assert OPS[name].lower is None, name
    for name in _named(lambda op: op.gradient is not None):
        # (a structured op differentiated by staging.gradients has no rule of its own)
        assert OPS[name].vjp is None, name
    for name in _named(lambda op: op.vjp is not None):
        assert callable(OPS[name].vjp), name
    assert _named(lambda op: op.gradient == "branches") == ["cond"]


def test_a_field_with_an_unknown_value_is_refused():
    with pytest.raises(ValueError, match="gradient="):
        OpDef("x", abs, abs, gradient="somehow")
    with pytest.raises(ValueError, match="raises="):
        OpDef("x", abs, abs, raises="sometimes")
    with pytest.raises(ValueError, match="unboxed="):
        OpDef("x", abs, abs, unboxed="fast", python_expr="{0}")


# -- the facts agree with the kernels --------------------------------------------------------

_PYTHON_NUMBERS = [(7, 2), (-7, 3), (2.5, -1.5), (True, 3), (3, 0.5), (-0.0, 2.0)]


@pytest.mark.parametrize("name", _named(lambda op: op.python_operator is not None))
def test_python_expr_is_python_operator(name):
    op = OPS[name]
    arity = 1 if op.python_expr.count("{1}") == 0 else 2
    for args in _PYTHON_NUMBERS:
        args = args[:arity]
        try:
            want = op.python_operator(*args)
        except (TypeError, ValueError) as error:
            with pytest.raises(type(error)):
                eval(op.python_expr.format(*map(repr, args)), {"_ipow": _ipow})
            continue
        got = eval(op.python_expr.format(*map(repr, args)), {"_ipow": _ipow})
        assert _same(got, want), (name, args)


def _operands():
    """Operand sets: float64, int64 and bool arrays, an array and a scalar, NumPy scalars."""
    rng = np.random.default_rng(0)
    floats = [rng.normal(size=5) * 3, np.array([0.0, -0.0, np.inf, np.nan, 2.0])]
    ints = [rng.integers(-5, 6, size=5), np.array([1, 2, 3, 0, 4])]
    bools = [np.array([True, False, True, False, True]), np.array([True, True, False, False, True])]
    scalars = [
        [np.float64(2.5), np.float64(-0.5)],
        [np.int64(7), np.int64(-2)],
        [np.float64(0.0), np.float64(0.0)],
    ]
    return [floats, ints, bools, [floats[0], np.float64(2.5)], *scalars]


@pytest.mark.parametrize("name", _named(lambda op: op.expr is not None and op.num_outputs == 1))
def test_inline_expr_computes_the_kernel(name):
    op = OPS[name]
    arity = 2 if "{1}" in op.expr else 1
    namespace = {"_ipow": _ipow, "_TRUE": np.True_}
    checked = 0
    for operands in _operands():
        args = operands[:arity]
        try:
            want = _quiet(op.impl, *args)
        except (TypeError, ValueError):
            continue
        names = {f"a{k}": a for k, a in enumerate(args)}
        got = _quiet(eval, op.expr.format(*names), {**namespace, **names})
        assert _same(got, want), (name, args)
        checked += 1
    assert checked, name


@pytest.mark.parametrize("name", _named(lambda op: op.identities))
def test_identities_give_the_other_input_bit_for_bit(name):
    op = OPS[name]
    samples = {"i": np.array([-3, 0, 7]), "u": np.array([0, 3, 9], np.uint8)}
    samples["f"] = np.array([-0.0, 0.0, 1.5, np.inf, np.nan, -2.25])
    for position, literal, kinds in op.identities:
        for kind in kinds:
            x = samples[kind]
            args = [x, literal] if position == 1 else [literal, x]
            assert _same(_quiet(op.impl, *args), x), (name, position, literal, kind)


@pytest.mark.parametrize("name", _named(lambda op: op.nan_propagating))
def test_nan_propagating_ops_keep_non_finite_values(name):
    op = OPS[name]
    arity = 2 if "{1}" in op.python_expr else 1
    for bad in (np.nan, np.inf, -np.inf):
        for position in range(arity):
            args = [np.float64(1.5)] * arity
            args[position] = np.float64(bad)
            assert not np.isfinite(_quiet(op.impl, *args)), (name, args)


@pytest.mark.parametrize("name", _named(lambda op: op.comparison or op.logical))
def test_comparisons_and_logical_ops_give_bools(name):
    op = OPS[name]
    python = {"not": operator.not_, "and": operator.and_, "or": operator.or_, "xor": operator.xor}
    for a in (False, True):
        for b in (False, True):
            args = (a,) if op.logical == "not" else (a, b)
            result = op.impl(*args)
            assert result.dtype == np.bool_, name
            if op.logical:
                assert bool(result) == python[op.logical](*args), name
            else:
                assert bool(result) == op.python_operator(*args), name


@pytest.mark.parametrize("name", _named(lambda op: op.python_errors))
def test_python_errors_are_what_python_raises(name):
    op = OPS[name]
    right = 0 if op.division else -1
    assert op.python_error_if(right) and not op.python_error_if(2), name
    with pytest.raises(op.python_errors):
        op.python_operator(0, right)
    _quiet(op.impl, np.float64(0.0), right)  # NumPy only warns


def _arity(func) -> int:
    """How many positional inputs a kernel takes."""
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return sum(p.kind in positional for p in inspect.signature(func).parameters.values())


@pytest.mark.parametrize("name", _named(lambda op: op.raises != "maybe"))
def test_ops_that_never_raise_on_numpy_scalars(name):
    op = OPS[name]
    if op.constant is not None:
        return
    arity = op.impl.nin if isinstance(op.impl, np.ufunc) else _arity(op.impl)
    for values in ([0.0, 0.0], [np.inf, -np.inf], [np.nan, 1.0], [-3, 0], [2**62, 2**62]):
        args = [np.asarray(v)[()] for v in values[:arity]]
        _quiet(op.impl, *args)  # (no exception: NumPy warns)
    if op.raises == "never" and op.python_operator is not None:
        for args in _PYTHON_NUMBERS + [(1.0e308, 10.0), (0, 0.0)]:
            op.python_operator(*args[:arity])


def test_constants_dimensions_and_indices():
    from runtime import Graph, Node, TensorType
    from runtime.core_ops import constant_node

    const = constant_node(np.float32(2), TensorType(np.float32, ()))
    op = OPS[const.op]
    assert op.constant(const) == op.kernel(const.attrs)() == np.float32(2)
    g = Graph()
    x = g.add_input(TensorType(np.float64, (3, 4)))
    dims = [n for n in OPS.values() if n.dimension is not None]
    assert dims
    for op in dims:
        node = Node(op.name, [x], {"axis": 1}, [TensorType.python_scalar(int)])
        array, axis = op.dimension(node)
        assert op.kernel(node.attrs)(np.zeros((3, 4))) == np.zeros((3, 4)).shape[axis]
        assert array is x
    for name in _named(lambda op: op.index_inputs is not None):
        assert OPS[name].index_inputs >= 1


# -- views, results' forms and saved attributes --------------------------------------------------

# a node of each op that views its input: (attrs, the input, the view's new contents' offset);
# getitem's index is basic (a view), and one that picks an element is not
_VIEWS = {
    "transpose": ({"axes": (1, 0, 2)}, np.arange(24.0).reshape(2, 3, 4)),
    "expand_dims": ({"axis": (0, 2)}, np.arange(6.0).reshape(2, 3)),
    "squeeze": ({}, np.arange(6.0).reshape(2, 1, 3, 1)),
    "reshape": ({"shape": (3, 2)}, np.arange(6.0).reshape(2, 3)),
    "broadcast_to": ({"shape": (2, 2, 3)}, np.arange(6.0).reshape(2, 3)),
    "diagonal": ({}, np.arange(9.0).reshape(3, 3)),
    "getitem": ({"index": ("1:", None, "::2")}, np.arange(12.0).reshape(3, 4)),
}


def _view_node(name):
    from runtime import Graph, Node, TensorType

    attrs, base = _VIEWS[name]
    g = Graph()
    x = g.add_input(TensorType(base.dtype, base.shape))
    view = OPS[name].kernel(attrs)(base)
    return Node(name, [x], attrs, [TensorType(view.dtype, view.shape)]), base, view


def test_ops_that_view_their_input_give_views():
    assert sorted(_VIEWS) == _named(lambda op: op.views_input is not None)
    for name in _VIEWS:
        node, base, view = _view_node(name)
        assert OPS[name].views_input(node), name
        assert np.shares_memory(view, base), name


def test_a_getitem_that_picks_an_element_or_copies_is_no_view():
    from runtime import Graph, Node, TensorType

    g = Graph()
    x = g.add_input(TensorType(np.float64, (3, 4)))
    element = Node("getitem", [x], {"index": (1, 2)}, [TensorType(np.float64, ())])
    assert not OPS["getitem"].views_input(element)
    mask = g.add_input(TensorType(np.bool_, (3,)))
    masked = Node("getitem", [x, mask], {"index": ("?",)}, [TensorType(np.float64, (None, 4))])
    assert not OPS["getitem"].views_input(masked)


def test_a_write_into_a_view_is_what_its_update_gives_the_base():
    for name in _named(lambda op: op.view_update is not None):
        node, base, view = _view_node(name)
        new_view = view * 10 + 1
        eager = base.copy()
        OPS[name].kernel(node.attrs)(eager)[...] = new_view  # (NumPy: through the view)
        op, inputs, attrs = OPS[name].view_update(
            base, new_view, (), node.attrs, base.shape, view.shape
        )
        got = OPS[op].kernel(attrs)(*inputs)
        np.testing.assert_array_equal(got, eager, err_msg=name)


def test_the_form_of_a_zero_d_result_is_the_kernels():
    forms = {"scalar": np.generic, "array": np.ndarray}
    checked = 0
    for name in _named(lambda op: op.zero_d_result is not None):
        op = OPS[name]
        if name == "ufunc_out":
            out = op.kernel({"ufunc": "add"})(np.array(1.0), np.array(2.0), np.array(3.0))
        else:
            arity = op.impl.nin if isinstance(op.impl, np.ufunc) else 1 if name == "abs" else 2
            out = None
            values = (np.array(0.5), np.array(3), np.array(0, "m8[s]"), np.array(True))
            if getattr(op.impl, "signature", None):  # (a gufunc: 0-d from vectors, matmul)
                values = (np.ones(3),)
            for value in values:
                try:  # (a loop of the ufunc's: bitwise ops take ints, isnat datetimes ...)
                    out = _quiet(op.impl, *[value] * arity)
                    break
                except (TypeError, ValueError):  # (matvec: no 0-d result)
                    continue
            if out is None:
                continue
        for result in out if isinstance(out, tuple) else (out,):
            assert isinstance(result, forms[op.zero_d_result]), name
        checked += 1
    assert checked > 50


def test_facts_about_state_and_errors_fit_together():
    for name in _named(lambda op: op.writes_input):
        assert OPS[name].stateful and OPS[name].may_alias_input, name
    for name in _named(lambda op: op.user_error):
        assert OPS[name].stateful and OPS[name].run_time_errors is not None, name


def test_an_ops_own_attribute_kinds_are_of_its_attributes():
    import inspect

    for name in _named(lambda op: op.attr_kinds):
        params = inspect.signature(OPS[name].infer).parameters.values()
        takes_any = any(p.kind is p.VAR_KEYWORD for p in params)
        for attr, kind in OPS[name].attr_kinds:
            assert takes_any or attr in {p.name for p in params}, (name, attr)
            assert kind.description and callable(kind.test), (name, attr)
