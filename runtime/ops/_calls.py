"""NumPy library functions as ops: array inputs, static attrs, a shape rule, NumPy's own dtypes.

`register_call(name, func, shape)` registers an op whose kernel is `func(*inputs, **attrs)`
(later array inputs by keyword when the signature wants that). Its rule gives each output's
shape from `shape(*input_shapes, **attrs)` (dims may be None) and each output's dtype from
NumPy itself: `func` runs on small stand-ins with the inputs' dtypes (`probe`), so the dtype,
and the errors NumPy raises for the dtypes and static attrs, are NumPy's.
"""

from __future__ import annotations

import warnings

import numpy as np

from .._compat import signature
from ..registry import register_op
from ..types import TensorType
from ._rules import check_type, dtype_of, is_weak, python_value, shape_of


def stand_in(t, dim: int = 1):
    """A concrete value NumPy treats like an input of type `t`: a Python number stays a Python
    number; an array is ones with every dim `dim` (a dim-1 matrix is invertible, positive
    definite, ...)."""
    if is_weak(t):
        return python_value(t)
    return np.ones((dim,) * t.ndim, dtype=t.dtype)


def default_probe(*types, **attrs):
    return [stand_in(t) for t in types]


def _positional_count(func, arrays) -> int:
    """How many leading parameters of `func` are array inputs (passed by position)."""
    if arrays is None:
        return 1 << 30
    try:
        params = list(signature(func).parameters)
    except (TypeError, ValueError):
        return 1 << 30
    count = 0
    for name in params:
        if name not in arrays:
            break
        count += 1
    return count


def _outputs(result, num_outputs):
    if num_outputs == 1:
        return (result,)
    return tuple(result) if isinstance(result, tuple) else (result,)


def probe_dtypes(func, args, attrs, num_outputs) -> list[np.dtype]:
    """The dtypes of func(*args, **attrs), with floating point warnings silenced."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = func(*args, **attrs)
    return [np.asarray(r).dtype for r in _outputs(result, num_outputs)]


def _splitter(func, arrays, named):
    """How a node's inputs and attrs become func's arguments: (inputs, attrs) -> (args, kwargs,
    the attrs that are func's other parameters)."""
    if named:
        first = next(iter(signature(func).parameters))

        def split_named(inputs, attrs):
            # the first parameter by position (it may be positional-only), the others by name
            rest = {k: v for k, v in attrs.items() if k != "names"}
            names = attrs["names"]
            given = dict(zip(names, inputs))
            args = (given.pop(first),) if names and names[0] == first else ()
            return args, {**given, **rest}, rest

        return split_named
    npos = _positional_count(func, arrays)
    names = tuple(arrays or ())

    def split(inputs, attrs):
        keywords = {names[i]: x for i, x in enumerate(inputs) if i >= npos}
        return tuple(inputs[:npos]), {**keywords, **attrs}, attrs

    return split


def _typed(name, dtypes, shapes, num_outputs):
    """The output type(s) of dtypes and shapes."""
    if num_outputs == 1:
        return TensorType(dtypes[0], shapes)
    if len(dtypes) != len(shapes):
        raise TypeError(f"{name}: {len(dtypes)} outputs, but the shape rule gives {len(shapes)}")
    return tuple(TensorType(d, s) for d, s in zip(dtypes, shapes))


def register_call(  # noqa: PLR0913
    name,
    func,
    shape,
    *,
    arrays=None,
    named=False,
    num_outputs=1,
    probe=None,
    doc=None,
    may_alias_input=False,
    min_inputs=1,
    python_result=None,
    dtypes=None,
    **fields,
):
    """Registers op `name` computing `func(*inputs, **attrs)`.

    arrays: the names of func's array parameters, in order; inputs fill them from the first
    (None: every input is positional). named: inputs are passed by name instead, the names of
    those given in the node's attr `names` (an optional array may then be absent before a
    later one: np.cov(m, aweights=w)). shape(*shapes, **attrs) gives the output shape, or a
    tuple of them when num_outputs != 1 (named: shape({name: shape}, **attrs)).
    probe(*types, **attrs) gives the stand-in arguments func runs on for the dtypes (default:
    `stand_in` of each input). python_result: the Python type (bool, int, float) of func's
    single result when NumPy returns a Python number (np.array_equal, np.allclose): its type is
    then that weak type. dtypes(*types, **attrs), when given, gives the output dtypes instead of
    the probe (the result is the input's dtype, whatever the values: np.delete, np.partition).
    `fields`: other OpDef fields.
    """
    split = _splitter(func, arrays, named)
    probe = probe or default_probe

    def call(inputs, attrs):
        args, kwargs, _ = split(inputs, attrs)
        result = func(*args, **kwargs)
        return result if num_outputs == 1 else _outputs(result, num_outputs)

    def shapes_of(types, attrs):
        shapes = [shape_of(t) for t in types]
        if named:
            _, _, rest = split(types, attrs)
            return shape(dict(zip(attrs["names"], shapes)), **rest)
        return shape(*shapes, **attrs)

    def infer(*types, **attrs):
        if len(types) < min_inputs:
            raise TypeError(f"{name} takes at least {min_inputs} input(s), got {len(types)}")
        for t in types:
            check_type(t, f"{name} input")
        shapes = shapes_of(types, attrs)
        if python_result is not None:
            return TensorType.python_scalar(python_result)
        if dtypes is not None:
            return _typed(name, dtypes(*types, **attrs), shapes, num_outputs)
        args, kwargs, _ = split(probe(*types, **attrs), attrs)
        return _typed(name, probe_dtypes(func, args, kwargs, num_outputs), shapes, num_outputs)

    def make_kernel(**attrs):
        return lambda *inputs: call(inputs, attrs)

    infer.__name__ = f"infer_{name}"
    qualified = _numpy_name(func)
    register_op(
        name,
        infer=infer,
        make_kernel=make_kernel,
        num_outputs=num_outputs,
        may_alias_input=may_alias_input,
        doc=doc or qualified,
        weak_results=python_result is not None,
        **fields,
    )(lambda *xs, **attrs: call(xs, attrs))


def lower_by_name(jnp_name, arrays=None, outputs=1):
    """A JAX lowering calling `jax.numpy.<jnp_name>` as the kernel calls the NumPy function:
    `arrays` None: the inputs by name (a `named` op), else the first input by position and the
    later ones by their names in `arrays`. outputs None: the result as a tuple."""

    def lower(ctx, node, *inputs, **attrs):
        target = ctx.jnp
        for part in jnp_name.split("."):
            target = getattr(target, part)
        if arrays is None:
            rest = {k: v for k, v in attrs.items() if k != "names"}
            result = target(**dict(zip(attrs["names"], inputs)), **rest)
        else:
            keywords = {arrays[i]: x for i, x in enumerate(inputs) if i >= 1}
            result = target(inputs[0], **keywords, **attrs)
        if outputs is None:
            return tuple(result) if isinstance(result, (tuple, list)) else (result,)
        return result

    lower.__name__ = f"lower_{jnp_name}"
    return lower


def _numpy_name(func) -> str:
    module = getattr(func, "__module__", "numpy") or "numpy"
    if module.startswith("numpy.linalg"):
        module = "numpy.linalg"
    elif module.startswith("numpy.fft"):
        module = "numpy.fft"
    elif module.startswith("numpy"):
        module = "numpy"
    return module.replace("numpy", "np", 1) + "." + getattr(func, "__name__", "?")


# --- shape helpers ---------------------------------------------------------------------------


def same_shape(shape, *rest, **attrs):
    return shape


def dim_add(a, b):
    return None if a is None or b is None else a + b


def tensor_type_of(t):
    """An input type as a TensorType (a Python number as its default NumPy type)."""
    return TensorType(dtype_of(t), ()) if is_weak(t) else t
