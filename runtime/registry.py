"""The op registry: each op's kernel, its type rule and every other fact about it, in one entry."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from .types import NoneKind, StrType, TensorType, UnionType, join_types, union_of


@dataclass(frozen=True)
class OpDef:
    """One op: everything the passes, the code generators, the backends and the front end know
    about it.

    Every fact about an op is a field here, filled where the op is registered (runtime/ops/,
    runtime/core_ops.py, runtime/control_ops.py; staging's `call` in its own module); a pass, a
    generator or an analysis of staging reads `get_op(node.op).<field>` and never tests an op's
    name (tests/test_op_names.py).

    **Computing.**
    impl(*inputs, **attrs) computes the op on NumPy values. `inputs` are NumPy arrays /
    scalars or Python scalars (weak, NEP 50).
    infer(*input_types, **attrs) gives the output TensorType (or a tuple of them when
    `num_outputs` != 1) from the input types: each is a TensorType, or the Python scalar itself
    for a literal Python number input.
    make_kernel(**attrs), when given, returns a specialised callable(*inputs) used by the
    executor instead of binding attrs on every call.
    num_outputs: 1 for a single output; n for a tuple of n outputs; None when the count depends
    on attrs (infer and impl then always give tuples).
    weak_results: the rule may give weak types (Python numbers known at run time, see
    TensorType): the op computes on Python numbers as Python does. Results of other ops are
    NumPy values, so their weak types are made strong.
    takes_none: the rule and the kernel take an input of kind NONE (a value that is None on
    some paths: `==`, truth, `is None`, text, and ops that pass values on, such as cond). For
    another op, an input that is None is a path on which the op raises when the graph runs, as
    its kernel does eagerly (`None + 1.0`): infer_types raises the kernel's own error for it.
    takes_tuples: the op takes an input that is a tuple on some paths and None on others (a
    `None | (...)` union: `is None`, tuple_item, and ops that pass values on); any other op
    is refused at trace time on such an input (NumPy would make an array of the tuple).
    excludes_none(node) -> (value, outcome): where the node's result is `outcome` (its truth),
    its input `value` is not None (`x is not None`, the truth of `x`): the branch of a staged
    `if` on it that runs on that outcome sees `value` without its None kind (the `not_none` op).
    doc: one line for docs/ops.md.

    **State and aliasing.**
    stateful ops are never folded, deduplicated or removed and keep program order.
    may_alias_input: the result may be a view of the first input (reshape, getitem ...).
    may_alias_state: the result may be program state itself (a Variable's buffer).
    writes_variable: the node writes the Variable its attr `var` holds (a backend that passes
    Variables in and out writes its new value back).
    writes_list: the node writes an element of the list (TensorArray) it takes first; a backend
    that preallocates lists counts such nodes.
    writes_input: the node writes its first input in place, an array of the caller
    (write_argument, at the end of the graph): a graph with one changes its caller's arrays
    (staging.functions.argument_writes).
    views_input(node) -> bool: whether eager NumPy's result of the node is a view of its first
    input, or may be one (reshape: a view or a copy by the memory layout), so that a write into
    that array shows through it (getitem: for a basic index only). Staging follows a value back
    through such nodes to the arrays an in-place write makes stale (staging.state.stale_values).
    None: never. (may_alias_input says what the executor's result may share; this, what eager
    code's result does.)
    fresh_result: the result is always a new array (np.zeros, np.copy, np.arange ...) and the
    node keeps no reference to its inputs: a later node may write into its buffer in place
    (runtime.inplace; an elementwise ufunc's result, OpDef.out_ufunc, is one too).
    in_place_form(node) -> str: for an op whose result is its first input with some elements
    written (setitem), a statement template over the node's inputs (`{0}[{2}] = {1}`) that
    writes them into the first input's buffer itself; the executor writes it instead of the
    kernel's copy where runtime.inplace finds that nothing else can see that buffer.
    view_update(base, view, extra, attrs, base_shape, view_shape) -> (op, inputs, attrs): for an
    op whose result is a writable view of its first input (basic indexing, transpose,
    expand_dims, squeeze), the node that gives that input's new contents once the view holds
    `view`: `base` is the input, `extra` the node's other inputs, `attrs` its attrs, the shapes
    the static shapes of both (staging.state.aliasing writes through views with it).

    **Inline code.**
    expr, when given, is a Python expression template over the inputs (`"{0} + {1}"`) that the
    executor inlines instead of calling `impl`; it must compute exactly what `impl` computes.
    Only for ops without attrs.
    make_expr(*input_types, **attrs), when given, returns such a template for a node with those
    input types and attrs, or None when it needs the kernel.
    raises: whether the op may raise on scalars, for the executor, which writes an operator that
    cannot raise into the line that reads its result (an error would name the reading node):
    "never"; "on_python_numbers" (only when every operand is a Python number: on a NumPy scalar
    it warns instead, `1 // 0`); "maybe".

    **Python's operator.** For the ops a Python operator dispatches to:
    python_operator: that operator as a function (operator.add): on Python numbers only (literals
    and weak types) the op is Python's own arithmetic and gives a Python number.
    python_expr: a template of the same operator for generated code (`"{0} + {1}"`,
    `"_ipow({0}, {1})"`): the inline form of the op on Python numbers, and its form on the
    Python numbers of an unboxed scalar loop (runtime.scalar_loops).
    python_errors: the errors Python's operator raises on Python numbers where NumPy's loop only
    warns (ZeroDivisionError: a division by zero, `0 ** -1`).
    python_error_if(right) -> bool: for a literal right operand, whether one of python_errors
    may occur (`x / 0`, `x ** -1`; `x / 2` never raises).
    division: the op divides input 0 by input 1 (`/`, `//`, `%`, divmod): Python raises
    ZeroDivisionError where the divisor is zero.
    comparison: an order or equality comparison of its two inputs (`<` ... `!=`), giving a bool.
    logical: "not", "and", "or" or "xor": the logical operation the op computes elementwise.
    unboxed: how an unboxed scalar loop (runtime.scalar_loops) computes the op on Python numbers
    with NumPy's exact answers: "arithmetic" (`+ - *`, checked for integer overflow or a
    non-finite float result), "unary" (`-x`, `abs(x)`: checked the same way), "identity" (`+x`),
    "compare", "division" (floats), "integer_division" (integers by a positive literal),
    "small_power" (a float to a small integer literal); None: such a loop keeps NumPy scalars.
    kinds_by_value: why the op's result on Python numbers may be of several kinds by an
    operand's value (Python's `int ** int`: an int, or a float for a negative exponent), for
    the message of a backend that needs one kind.
    nan_propagating: a NaN or infinite float operand always gives a NaN or infinite result (`+ -
    *` and the sign operations): a chain of such ops needs one finiteness check, at its end.
    identities: ((position, literal, kinds), ...): the node gives its other input unchanged, bit
    for bit, when input `position` is the Python number `literal` and the other input's dtype
    kind is in `kinds` (`x * 1` for "iuf"; not `x + 0.0`: -0.0 + 0.0 is +0.0).
    int_as_float: a Python int operand meets a float64 array as a float64 (NEP 50): the executor
    may pass `float(n)`, the conversion NumPy makes, without its slow path.
    keep_unused(node) -> bool: the node must run even when nothing reads its result: it may raise
    an error the eager code raises (Python's ZeroDivisionError on Python numbers, an
    OverflowError of a number that does not fit); dead-code elimination keeps it.

    **Elementwise arithmetic** (fusion, compiled kernels, writes into existing buffers):
    out_ufunc: the NumPy ufunc the op is, when the executor may call it with `out=` (in place,
    in a fused run) and cast its Python number operands to the array's dtype first: single-output
    ufuncs whose loops take operands of one kind (not ldexp, not divmod).
    exact: per element, the result is fixed by IEEE-754 (correctly rounded or exact) for real
    floats, or is integer or boolean work: computing it chunk by chunk gives the same bits.
    correctly_rounded: the op is one IEEE-754 correctly rounded operation, or a sign-bit
    operation, on real floats (`+ - * /`, sqrt, abs ...): what compiled kernels may take.
    kernel_expr: its expression in a compiled kernel (runtime.native) over the operands `{0}`,
    `{1}`, numbers of one float dtype: a function of runtime.numba_backend.kernel_ops (`_k`), one
    LLVM instruction, or an operand itself (`{minus_zero}`: an argument holding -0.0).
    kernel_expr_agrees() -> bool: when given, kernel_expr is used only where it returns True
    (NumPy's loops on this machine are seen to compute what kernel_expr computes: maximum,
    minimum).
    in_place_complex: False when NumPy's complex loops give another last bit when the output
    buffer is one of the inputs (multiply, square): the result never goes into an operand's buffer.
    out_by_keyword: the ufunc takes `out` only by keyword (a positional one is deprecated).

    **Structured ops** carry subgraphs, and every question about them is asked through these
    hooks, never by op name (`node` is a Node of the op):
    subgraphs: the labels of the subgraphs each node carries (`cond`: then, else).
    bind_subgraph(node, label) -> list: per input of subgraph `label`, the value it stands
    for: a node input, or, for a loop variable (a different value on each iteration), the node
    output that carries it (the loop variable over all iterations).
    output_sources(node, i) -> [(label, value)]: what output i may be: `value` is an input of
    the node (label None) or an output of subgraph `label`.
    emit(emitter, node, indent): writes the node's code (runtime.executor, class _Emitter).
    check(node) -> str | None: what is wrong with the node's subgraphs (their arity, their
    types against the node's inputs and outputs), for runtime.verify; None when all is well.
    plan_emit(node, options) -> what the node's emit hook decides from the graph and the
    executor's options alone (a while_loop: whether it walks an array, which counters run as
    Python ints, which values as Python numbers), made before any code is written; the executor
    keeps it (emitter.plan_of(node)). Its `python_numbers` ({id(node): (kind, dtype)}) are the
    nodes of its subgraphs computed on Python numbers (runtime.scalar_loops).
    unread_inputs(node) -> positions of the node's inputs that its emitted code never reads (a
    while_loop written as a Python `for` over an array does not read its counter's first value):
    a constant or a dimension only they read is not computed at all.
    predicate: for a branch op (exactly one of its subgraphs runs, once: cond), the input that
    chooses which; its emitted code reads it first, once (an operator may be inlined there).
    swap_branches(node): for a branch op, makes the node run for a predicate `p` what it ran for
    `not p` (cond: exchanges then and else).
    called_graph(node) -> Graph: for a call of another staged graph, the graph the node runs.
    lowered_call(node) -> CompiledGraph | None: for such a call, the CompiledGraph that runs the
    called graph on this interpreter (None when it runs elsewhere: under JAX); the executor
    writes the nodes it lowered in place of a call of a small one (runtime.call_inlining).
    inline_subgraph(node) -> label | None: the subgraph a node runs once, as it is, and nothing
    else (a staged `try` none of whose clauses can catch what its body raises, which tracing
    records to keep the body's values apart): the optimizer puts that subgraph's nodes in the
    node's place before any other pass (runtime.optimize.inline_subgraphs).
    A structured node is stateful when a node of its subgraphs is (Node.stateful).

    **Errors when the graph runs** (what a staged `try` around the node may catch):
    run_time_errors(node) -> ((kind, cls), ...): the exceptions the node may raise when the graph
    runs, each ("exactly", cls) (an instance of cls itself: a `raise` of the user's class),
    ("numpy", cls) (cls, or one of NumPy's subclasses of it: LinAlgError is a ValueError) or
    ("any", cls) (cls or any subclass: a py_function may raise anything). None (the default):
    a constant, a comparison and a logical op raise nothing; an op that `raises` "never" a
    FloatingPointError (under np.errstate(over="raise")) or an OverflowError; another op what
    NumPy functions raise (runtime.analysis.NUMPY_ERRORS: ValueError, TypeError, IndexError,
    OverflowError, FloatingPointError, MemoryError, and NumPy's subclasses of them); each plus
    its python_errors when an input may be a Python number. A structured op without the hook
    raises what its subgraphs' nodes raise.
    user_error: the node is there to raise the user program's error (an `assert`, the user's
    `raise`), as eager code does at its line: an error found later while tracing is raised after
    it, when the graph runs (staging.control_flow.raising).

    **Saving** (staging.saving writes a graph to a file and reads it back, checking every node).
    unsaveable: why a graph holding a node of the op cannot be saved (its attributes hold Python
    code or objects a file cannot carry) and what to write instead; a file naming the op is
    refused when loaded.
    attr_kinds: ((name, AttrKind), ...): what the node's attribute `name` may hold where the op
    means something else by the name than the attribute vocabulary does
    (staging.saving.attrs.KINDS: `kind` is a sort's kind there, a Python type to python_number).
    An op's attribute names are its rule's keyword parameters (`infer`; any name of the
    vocabulary for a rule that takes **attrs).
    check_attrs(attrs, n_inputs) -> str | None: what is wrong with a node's attributes beyond
    each one's kind, for a node with `n_inputs` inputs (a print's argument slots against its
    inputs), or None; checked when a graph is saved and when it is loaded.

    **Graph values.**
    constant(node) -> the value of a node of the op, a constant (no inputs): passes fold with
    it, the executor writes it as a literal.
    dimension(node) -> (array, axis): for an op giving one dimension of an array
    (`x.shape[axis]`), which.
    index_inputs: the inputs from this position on are indices (getitem: 1, setitem: 2): a
    Python int there selects what an integer scalar selects.
    zero_d_result: what a 0-d result of the op is when the graph runs: "scalar" (a NumPy scalar,
    as NumPy's ufuncs give), "array" (a 0-d ndarray: ufunc_out, which writes into a copy of its
    target); None: found by running the kernel on stand-ins of the inputs (staging.kinds.forms,
    which asks where Python's in-place writes differ between the two). A constant's is its
    value's.

    **Backends and gradients.**
    lower(ctx, node, *inputs, **attrs): the JAX lowering (runtime.jax_lowering). `inputs` are JAX
    values or Python numbers known while lowering; it returns the node's output (a tuple when
    num_outputs != 1). `ctx` is the backend: `ctx.jax`, `ctx.jnp` are the jax modules (an op
    module never imports jax) and its methods run subgraphs, host callbacks and checks.
    None: the op is lowered to `jax.numpy.<name>` when jax has a function of its name.
    unlowerable: why the op has no JAX lowering, and what to write instead.
    lower_calls_back: its lowering may raise through a host callback (the backend then waits
    for the callbacks of a call before returning).
    lower_suspect(jnp, node, outputs, *inputs) -> a JAX bool, or None: true when the values
    are ones on which eager NumPy raises or gives another result and XLA's lowering says
    nothing (a singular matrix; an integer division by zero). The backend then runs that call
    again on the
    interpreter, which gives eager's warnings, exception and result (runtime.jax_lowering.
    suspects). Its attribute `reads`, when set, names the inputs it reads (a flag on
    literals only is decided while lowering); its attribute `may_apply(node) -> bool`, when
    set, says from the graph whether the flag may hold at all (a Python int meeting an
    array). Checks shared by several ops: runtime/suspect_checks.py.
    lower_unchecked(node) -> nodes of its subgraphs whose lower_suspect cannot hold in any
    run that ends in time (a loop's counter stepped by a literal from a start known while
    tracing: `i += 1` from 0 leaves int64 after 2**63 iterations): the backend computes no
    flag for them.
    varies: its result differs from one run to the next (a random draw, a clock): a gradient
    computed after the call (GradientTape) cannot run it again and get the same values.
    host_effect: the node acts outside the graph's values when it runs (writes text, calls
    Python): a call that has run one cannot be run again, so the JAX backend raises a clear
    error where it would (lower_suspect).
    numba_expr: a template of the op in numba's nopython mode over one array operand `{0}`, for
    a node whose attrs are all None or False (a whole-array reduction: "np.max({0})"): numba
    computes NumPy's result bit for bit on inputs of the dtype kinds `numba_kinds` ("iub": not
    on floats, where NumPy's pairwise sum rounds otherwise). The numba backend
    (runtime.numba_backend) reruns a call on an empty array on the interpreter.
    numba_lower(ctx, node): writes the node's nopython code through the numba backend's context
    (runtime.numba_backend.lowering.Lowering: `ref`, `emit`, `subgraph`, `unsupported` ...), for
    a structured op (cond, while_loop) or one whose attrs decide its code (getitem); it calls
    `ctx.unsupported(reason)` for a node it cannot write. Ops with an unboxed form, comparisons,
    logical ops and correctly rounded ufuncs need neither field: the backend writes them from
    those facts.
    vjp(ctx, g, out, *inputs, **attrs) -> one cotangent per input (None where none flows): its
    vector-Jacobian product, the reverse-mode gradient rule (runtime/ops/ufunc_derivatives.py
    describes the convention; staging.gradients applies it). None: a value differentiated
    cannot flow through the op (a clear error names it).
    gradient: how a structured op is differentiated by staging.gradients instead of by a rule:
    "branches" (cond: the vector-Jacobian product of the branch taken), "loop" (while_loop: the
    iterations replayed in reverse from their saved state), "variable_read" (a read of a
    Variable: where a GradientTape's gradient with respect to the Variable gathers);
    "list_write", "list_read", "list_stack", "list_size" (a staged list's ops: a list's
    cotangent is an array of its elements' cotangents, staging.gradients.lists).
    """

    name: str
    impl: Callable
    infer: Callable
    stateful: bool = False
    num_outputs: int | None = 1
    make_kernel: Callable | None = None
    expr: str | None = None
    doc: str = ""
    make_expr: Callable | None = None
    may_alias_input: bool = False
    may_alias_state: bool = False
    subgraphs: tuple[str, ...] = ()
    bind_subgraph: Callable | None = None
    output_sources: Callable | None = None
    emit: Callable | None = None
    check: Callable | None = None
    unread_inputs: Callable | None = None
    plan_emit: Callable | None = None
    weak_results: bool = False
    takes_none: bool = False
    takes_tuples: bool = False
    excludes_none: Callable | None = None
    # state
    writes_variable: bool = False
    writes_list: bool = False
    writes_input: bool = False
    views_input: Callable | None = None
    fresh_result: bool = False
    in_place_form: Callable | None = None
    view_update: Callable | None = None
    # inline code and Python's operator
    raises: str = "maybe"
    python_operator: Callable | None = None
    python_expr: str | None = None
    python_errors: tuple[type[BaseException], ...] = ()
    python_error_if: Callable | None = None
    division: bool = False
    comparison: bool = False
    logical: str | None = None
    unboxed: str | None = None
    nan_propagating: bool = False
    kinds_by_value: str | None = None
    identities: tuple[tuple[int, object, str], ...] = ()
    int_as_float: bool = False
    keep_unused: Callable | None = None
    # elementwise arithmetic
    out_ufunc: np.ufunc | None = None
    exact: bool = False
    correctly_rounded: bool = False
    kernel_expr: str | None = None
    kernel_expr_agrees: Callable | None = None
    in_place_complex: bool = True
    out_by_keyword: bool = False
    # structured ops and graph values
    predicate: int | None = None
    swap_branches: Callable | None = None
    called_graph: Callable | None = None
    lowered_call: Callable | None = None
    inline_subgraph: Callable | None = None
    constant: Callable | None = None
    dimension: Callable | None = None
    index_inputs: int | None = None
    zero_d_result: str | None = None
    # errors when the graph runs
    run_time_errors: Callable | None = None
    user_error: bool = False
    # saving
    unsaveable: str | None = None
    attr_kinds: tuple[tuple[str, AttrKind], ...] = ()
    check_attrs: Callable | None = None
    # backends and gradients
    lower: Callable | None = None
    unlowerable: str | None = None
    lower_calls_back: bool = False
    lower_suspect: Callable | None = None
    lower_unchecked: Callable | None = None
    host_effect: bool = False
    varies: bool = False
    numba_expr: str | None = None
    numba_kinds: str = ""
    numba_lower: Callable | None = None
    vjp: Callable | None = None
    gradient: str | None = None

    def __post_init__(self):
        if self.raises not in _RAISES:
            raise ValueError(f"op {self.name!r}: raises={self.raises!r}, not one of {_RAISES}")
        if self.gradient not in _GRADIENTS:
            raise ValueError(
                f"op {self.name!r}: gradient={self.gradient!r}, not one of {_GRADIENTS}"
            )
        if self.unboxed not in _UNBOXED:
            raise ValueError(f"op {self.name!r}: unboxed={self.unboxed!r}, not one of {_UNBOXED}")
        if self.unboxed is not None and self.python_expr is None:
            raise ValueError(f"op {self.name!r}: an unboxed form needs python_expr")
        if self.zero_d_result not in _ZERO_D_RESULTS:
            raise ValueError(
                f"op {self.name!r}: zero_d_result={self.zero_d_result!r}, not one of "
                f"{_ZERO_D_RESULTS}"
            )

    def kernel(self, attrs: Mapping[str, Any]) -> Callable:
        if self.make_kernel is not None:
            return self.make_kernel(**attrs)
        if not attrs:
            return self.impl
        return functools.partial(self.impl, **attrs)


_RAISES = ("never", "on_python_numbers", "maybe")
_GRADIENTS = (
    None,
    "branches",
    "loop",
    "variable_read",
    "list_write",
    "list_read",
    "list_stack",
    "list_size",
)
_ZERO_D_RESULTS = (None, "scalar", "array")
_UNBOXED = (
    None,
    "arithmetic",
    "unary",
    "identity",
    "compare",
    "division",
    "integer_division",
    "small_power",
)
_REGISTRY: dict[str, OpDef] = {}
# fields of ops that another layer registers (staging's `call`), given where the op's kind is
# described (runtime/control_ops.py): add_op fills them in when the op is registered
_EXPECTED: dict[str, dict] = {}


class UnknownOpError(LookupError):
    pass


def register_op(name: str, *, infer: Callable, **fields):
    """Decorator registering `impl` under `name`; `fields` are the other OpDef fields."""

    def decorate(impl):
        add_op(OpDef(name, impl, infer, **fields))
        return impl

    return decorate


def add_op(op: OpDef) -> OpDef:
    if op.name in _REGISTRY:
        raise ValueError(f"op {op.name!r} registered twice")
    expected = _EXPECTED.get(op.name)
    if expected:
        op = dataclasses.replace(
            op, **{k: v for k, v in expected.items() if getattr(op, k) == _DEFAULTS[k]}
        )
    _REGISTRY[op.name] = op
    return op


def expect_op(name: str, **fields) -> None:
    """Fields of an op that another layer registers later (the kernel is theirs, the structure
    this layer's): add_op gives them to the op unless its registration gives its own."""
    if name in _REGISTRY:
        raise ValueError(f"op {name!r} is registered already")
    unknown = set(fields) - set(_DEFAULTS)
    if unknown:
        raise TypeError(f"OpDef has no field(s) {sorted(unknown)}")
    _EXPECTED[name] = fields


def get_op(name: str) -> OpDef:
    try:
        return _REGISTRY[name]
    except KeyError:
        raise UnknownOpError(f"no op named {name!r} is registered") from None


def has_op(name: str) -> bool:
    return name in _REGISTRY


def all_ops() -> dict[str, OpDef]:
    return dict(_REGISTRY)


def infer_types(op: OpDef, input_types, attrs) -> tuple[TensorType, ...]:
    """Runs the op's rule and always returns a tuple of output types."""
    if not op.takes_none and any(type(t) is NoneKind for t in input_types):
        raise _none_operand_error(op, input_types, attrs)
    out = op.infer(*input_types, **attrs)
    outs = (out,) if op.num_outputs == 1 else tuple(out)
    if not op.weak_results:
        outs = tuple(t.strong() if isinstance(t, TensorType) else t for t in outs)
    return outs


def _stand_in(t):
    """A value of type `t` for running a kernel to see what it raises."""
    if type(t) is NoneKind:
        return None
    if not isinstance(t, TensorType):
        return t  # a Python literal input
    if t.weak:
        return t.python_type(1)
    return np.ones(tuple(1 if d is None else d for d in t.shape), t.dtype)[()]


class UnstagedNoneError(Exception):
    """An op that does not take None (OpDef.takes_none) and whose kernel does not raise on it
    either: what it would make of None is no graph value, so a trace is refused."""


def _none_operand_error(op: OpDef, input_types, attrs) -> Exception:
    """The error op's kernel raises when an input is None (`None + 1.0`: TypeError, with
    Python's or NumPy's own message), found by running it on stand-ins of its inputs. Raises
    UnstagedNoneError for a kernel that computes something from None instead (np.where), or
    that has effects (a stateful op is not run here)."""
    if not op.stateful:
        try:
            op.kernel(attrs)(*(_stand_in(t) for t in input_types))
        except Exception as exc:  # noqa: BLE001  (whatever the kernel raises is eager's error)
            return exc
    raise UnstagedNoneError(op.name)


MAX_COMBINATIONS = 64  # kind combinations one op's inputs may have (each is a run of its rule)


class TooManyKindsError(TypeError):
    """An op whose inputs have more kind combinations than MAX_COMBINATIONS."""


def kind_combinations(input_types, groups=None):
    """Each way the inputs' kinds may be at run time: one tuple of single-kind types per way.
    `groups[i]`, when given, names the value input i is: inputs of the same group are the same
    value, so they are the same kind on every path (`v // v` has two ways, not four)."""
    groups = groups if groups is not None else list(range(len(input_types)))
    choices: dict = {}
    for group, t in zip(groups, input_types):
        if type(t) is UnionType:
            choices.setdefault(group, t.alternatives)
    count = 1
    for options in choices.values():
        count *= len(options)
    if count > MAX_COMBINATIONS:
        raise TooManyKindsError(
            f"its inputs have {count} combinations of kinds (a Python number on some paths and a "
            f"NumPy value on others, each); at most {MAX_COMBINATIONS}"
        )
    ways: list[dict] = [{}]
    for group, options in choices.items():
        ways = [{**way, group: option} for way in ways for option in options]
    for way in ways:
        yield tuple(way.get(group, t) for group, t in zip(groups, input_types))


def infer_kinds(op: OpDef, input_types, attrs, groups=None, infer=None):
    """The one propagation rule: the output types of `op` on inputs that may be of several kinds
    (UnionTypes), its rule applied to each combination of kinds and the results joined.

    Returns (output types, failures): `failures` lists (kinds, exception) for the combinations
    whose rule raised; on those paths the op raises when the graph runs, as its kernel does
    eagerly. When every combination fails, the first one's exception is raised here.
    `infer(op, types, attrs)` runs the rule (infer_types by default; a caller may memoise)."""
    infer = infer or infer_types
    results, failures = [], []
    for combination in kind_combinations(input_types, groups):
        try:
            results.append(infer(op, list(combination), attrs))
        except (ValueError, TypeError, IndexError, ArithmeticError, LookupError) as exc:
            failures.append((combination, exc))
    if not results:
        raise failures[0][1]
    outputs = tuple(_joined([outs[i] for outs in results]) for i in range(len(results[0])))
    return outputs, failures


def _joined(types: list):
    """One output's types on each combination of kinds, joined: a value's kinds, or a list's
    element kinds (a list written with a `float | f64[]` value holds `float | f64[]` elements)."""
    if all(type(t) in (TensorType, UnionType, NoneKind, StrType) for t in types):
        return union_of(types)
    return functools.reduce(join_types, types)


_DEFAULTS = {
    f.name: f.default for f in dataclasses.fields(OpDef) if f.default is not dataclasses.MISSING
}


# -- attribute kinds (OpDef.attr_kinds; the vocabulary of staging.saving.attrs builds on them) --


class AttrKind:
    """What an attribute of a node may hold: `test(value)`, and how a message names it. `a | b`
    holds what either holds."""

    def __init__(self, description: str, test: Callable[[object], bool]):
        self.description, self.test = description, test

    def __or__(self, other: AttrKind) -> AttrKind:
        return AttrKind(
            f"{self.description} or {other.description}", lambda v: self.test(v) or other.test(v)
        )


def _is_int(v) -> bool:
    return (type(v) is int or isinstance(v, np.integer)) and not isinstance(v, np.bool_)


def one_of(*names: str) -> AttrKind:
    """One of the strings `names`."""
    return AttrKind(" or ".join(map(repr, names)), lambda v: type(v) is str and v in names)


def tuple_of(kind: AttrKind, limit: int = 1 << 16) -> AttrKind:
    """A tuple of at most `limit` values of `kind`."""
    return AttrKind(
        f"a tuple of ({kind.description})",
        lambda v: type(v) is tuple and len(v) <= limit and all(kind.test(x) for x in v),
    )


NONE = AttrKind("None", lambda v: v is None)
BOOL = AttrKind("a bool", lambda v: type(v) is bool)
INT = AttrKind("an int", _is_int)
STR = AttrKind("a string", lambda v: type(v) is str)
FLOAT = AttrKind("a float", lambda v: type(v) is float)
LITERAL = NONE | BOOL | INT | STR | FLOAT  # a Python literal


def add_vjps(rules: Mapping[str, Callable]) -> None:
    """Gives each op named in `rules` its vector-Jacobian product (OpDef.vjp): called by an op
    module, beside its ops, once they are registered."""
    for name, rule in rules.items():
        _REGISTRY[name] = dataclasses.replace(get_op(name), vjp=rule)
