"""Loops over NumPy scalars run on Python numbers ("unboxed"), with NumPy's exact answers.

Arithmetic on a float64 or signed-integer NumPy scalar costs several times Python's own
arithmetic on a float or an int (0.18 us against 0.04 us for `x*x + x - 1.0`), and a scalar
loop (bisection, Collatz) is nothing else. Inside a while_loop whose scalar loop variables
(and scalars it reads from outside) are only combined by operators with a Python
counterpart (an OpDef with an `unboxed` form: its `python_expr` on Python numbers), those
values run as Python numbers: converted once before the loop, back to
their NumPy type after it. The answers are NumPy's, bit for bit:

- float64: `+ - *` and `/` are IEEE-754 double operations in both (a comparison is too; a
  power with a small integer exponent calls the same C `pow`). Where NumPy would warn
  (overflow, division by zero, invalid) or where Python would raise instead (x / 0.0), the
  result is not finite, and stays so through `+ - *` and the unary operators: a chain of
  them is checked once, at its end (`t - t == 0.0`), and when the check fails the whole
  chain is done again on NumPy scalars, in the generated code at the user's line, so the
  same warnings (or, under np.errstate, the same error) appear with the same value.
- signed integers: a Python int never overflows, so each `+ - *` checks that its result fits
  the dtype, and otherwise does the operation on NumPy scalars (which wrap and warn, as
  eagerly). `//` and `%` by a positive literal cannot overflow and agree with NumPy's floor
  semantics.

Anything else that reads such a value (a call, a ufunc, a list append, a print, another loop)
keeps it a NumPy scalar: plan() drops every loop variable or captured value whose unboxed
value would reach it. A loop value that is never reassigned comes back as the object it was
(a 0-d array stays one, as eagerly).

(One difference remains, documented in docs/performance.md: under np.errstate(under=...)
other than 'ignore', an underflow in such a loop does not warn or raise.)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from .graph import Graph, Node, Value
from .registry import get_op
from .types import TensorType, UnionType

_MAX_EXPONENT = 9  # |x| in (1e-30, 1e30) keeps x**k of a normal double for k <= 9


def _scalar(t) -> TensorType | None:
    """The NumPy scalar type a value of type `t` is unboxed from: `t` itself when it is a strong
    0-d type, or the NumPy kind of a value that is a Python number of the same kind on some
    paths (`float | f64[]`, `int | i64[]`: an accumulator that starts as a Python number). Such a
    value is that Python number only while it is the loop's first value, unchanged, which
    `leave` tells by identity; every op's result in the loop must be of one NumPy kind."""
    if type(t) is TensorType:
        return t if t.shape == () and not t.weak else None
    if type(t) is not UnionType or len(t.alternatives) != 2:
        return None
    python, numpy = t.alternatives  # (Python kinds come first)
    if not python.weak or numpy.weak or numpy.shape != ():
        return None
    matches = python.python_type is (float if numpy.dtype == np.float64 else int)
    return numpy if matches and _kind(numpy) else None


def _kind(t) -> str | None:
    """'f' (float64) or 'i' (a signed integer dtype) for a value unboxed from a NumPy scalar."""
    t = _scalar(t)
    if t is None:
        return None
    if t.dtype == np.float64:
        return "f"
    if t.dtype.kind == "i":
        return "i"
    return None


def _dtype(t) -> np.dtype:
    scalar = _scalar(t)
    assert scalar is not None, t  # (asked only of values the plan unboxes)
    return scalar.dtype


@dataclass
class Plan:
    """What runs unboxed: loop variable positions, captured inputs (positions after the loop
    variables) and, by id, the nodes whose results are Python numbers: (their kind: 'f', 'i',
    or 'b' for a comparison's Python bool; their operands' dtype)."""

    loop_vars: list[int]
    captures: list[int]
    numbers: dict[int, tuple[str, np.dtype]] = field(default_factory=dict)
    element: bool = False  # an array walk's element runs as a Python number (xs.tolist())


def enter(em, node: Node, unboxed: Plan | None, indent: int) -> tuple[dict, list[str]]:
    """Before the loop: the unboxed loop variables' first values (Python numbers, named) and
    the references the loop reads its captures by (unboxed ones converted once, here)."""
    nvars = node.attrs["num_loop_vars"]
    capture_refs = [em.ref(v) for v in node.inputs[nvars:]]
    firsts: dict[int, str] = {}
    if unboxed is None:
        return firsts, capture_refs
    for k in unboxed.loop_vars + unboxed.captures:
        # (a loop variable's type is its output's: what it may be on every iteration)
        is_float = _dtype((node.outputs[k] if k < nvars else node.inputs[k]).type).kind == "f"
        producer = getattr(node.inputs[k], "producer", None)
        constant = get_op(producer.op).constant if producer is not None else None
        if constant is not None and producer is not None and not producer.inputs:
            # a constant: its Python number made once, when the code is generated
            value = constant(producer)
            name = em.bind(float(value) if is_float else FirstInt(int(value)), "c")
        else:
            name = f"t{em.new_tag()}"
            convert = "float" if is_float else em.bind(FirstInt, "k")
            ref = capture_refs[k - nvars] if k >= nvars else em.ref(node.inputs[k])
            em.emit(indent, f"{name} = {convert}({ref})", node)
        if k >= nvars:
            capture_refs[k - nvars] = name
        firsts[k] = name
    return firsts, capture_refs


def leave(em, node: Node, firsts: dict, indent: int, outs: list[str]) -> None:
    """After the loop: unboxed loop variables back to their NumPy type. One that holds an unboxed
    value as it entered the loop, its own first value or another's (`a = x` of a captured `x`),
    is the object that value was (a 0-d array stays one, as eagerly)."""
    nvars = node.attrs["num_loop_vars"]
    body = node.subgraphs["body"]
    positions = {id(v): k for k, v in enumerate(body.inputs)}
    for j, first in firsts.items():
        if j >= nvars:
            continue
        t = node.outputs[j].type
        others = (
            [k for k in firsts if k != j and node.inputs[k].type == t]
            if _pass_through(body.outputs[j], lambda v: {positions.get(id(v))}) - {j}
            else []
        )
        expr = f"{em.bind(_dtype(t).type, 'k')}({outs[j]})"
        for k in reversed([j] + others):
            expr = f"{em.ref(node.inputs[k])} if {outs[j]} is {firsts[k]} else {expr}"
        em.emit(indent, f"{outs[j]} = {expr}", node)


def _pass_through(value, resolve) -> set:
    """The inputs of a loop body (as `resolve` names them) that its value `value` may be
    unchanged: an input itself, or a staged `if`'s (a branch op's) output that a branch passes
    one through to."""
    if not isinstance(value, Value):  # a literal
        return set()
    node = value.producer
    if node is None:
        return resolve(value)
    op = get_op(node.op)
    if op.predicate is None:
        return set()
    assert op.output_sources is not None and op.bind_subgraph is not None  # (a branch op's)
    found = set()
    for label, source in op.output_sources(node, value.index):
        if label is None:  # an input of the node itself
            found |= _pass_through(source, resolve)
            continue
        sub = node.subgraphs[label]
        outer = {id(a): b for a, b in zip(sub.inputs, op.bind_subgraph(node, label))}
        found |= _pass_through(
            source,
            lambda v, outer=outer: (
                _pass_through(outer[id(v)], resolve) if id(v) in outer else set()
            ),
        )
    return found


class FirstInt(int):
    """An unboxed integer loop variable's first value: an int no arithmetic returns (the result
    of int arithmetic is a plain int, a small one a shared object), so `value is first` after
    the loop says the variable was never reassigned."""

    __slots__ = ()


class _Violation(Exception):
    def __init__(self, roots: frozenset):
        self.roots = roots


_ELEMENT = -1  # the root standing for the element of an array walk (for x in xs)


def plan(node: Node, counters: set[int], element: Node | None = None) -> Plan | None:
    """The unboxing plan of a while_loop node, or None when nothing is worth unboxing.
    `element`: the getitem node of an array walk (runtime.for_loops), whose result (the
    element) may run as a Python number too, from `xs.tolist()`."""
    nvars = node.attrs["num_loop_vars"]
    cond, body = node.subgraphs["cond"], node.subgraphs["body"]
    roots = {j for j in range(nvars) if j not in counters and _kind(node.outputs[j].type)}
    roots |= {
        k
        for k in range(nvars, len(node.inputs))
        if isinstance(node.inputs[k], Value) and _kind(node.inputs[k].type)
    }
    if element is not None and _kind(element.outputs[0].type):
        roots.add(_ELEMENT)
    while any(j < nvars for j in roots):
        try:
            return _try(node, nvars, cond, body, roots, element)
        except _Violation as violation:
            if not violation.roots & roots:
                return None  # (cannot happen: a violation names what caused it)
            roots -= violation.roots
    return None


def _try(node: Node, nvars: int, cond: Graph, body: Graph, roots: set[int], element) -> Plan:
    result = Plan(
        sorted(j for j in roots if 0 <= j < nvars), sorted(k for k in roots if k >= nvars)
    )
    result.element = _ELEMENT in roots
    for sub in (cond, body):
        # value id -> (kind, dtype, roots it carries); kind 'b' for a comparison's bool
        unboxed = {
            id(sub.inputs[k]): (
                _kind(sub.inputs[k].type),
                _dtype(sub.inputs[k].type),
                frozenset((k,)),
            )
            for k in roots
            if k != _ELEMENT
        }
        if sub is body and _ELEMENT in roots:
            out = element.outputs[0]
            unboxed[id(out)] = (_kind(out.type), _dtype(out.type), frozenset((_ELEMENT,)))
        _walk(sub, unboxed, result)
        outputs = sub.outputs if sub is body else []
        for j, v in enumerate(outputs):
            info = unboxed.get(id(v)) if isinstance(v, Value) else None
            if j in roots:
                if (
                    info is None
                    or info[0] != _kind(node.outputs[j].type)
                    or info[1] != _dtype(node.outputs[j].type)
                ):
                    raise _Violation(frozenset((j,)) | (info[2] if info else frozenset()))
            elif info is not None:
                raise _Violation(info[2])
        if sub is cond:
            v = cond.outputs[0]
            info = unboxed.get(id(v)) if isinstance(v, Value) else None
            if info is not None and info[0] != "b":
                raise _Violation(info[2])
    return result


def _literal_ok(item, kind: str, dtype: np.dtype) -> bool:
    """A Python number NumPy combines with the dtype as Python does: any float or int with
    float64 (an int too large for a double fails in both); an int the integer dtype holds
    (NumPy refuses one it does not, whatever the other operand)."""
    if kind == "f":  # (an int beyond 2**53 compares exactly in Python, rounded in NumPy)
        return type(item) is float or (type(item) is int and -(2**53) <= item <= 2**53)
    info = np.iinfo(dtype)
    return type(item) is int and info.min <= item <= info.max


def _walk(graph: Graph, unboxed: dict, result: Plan) -> None:
    for n in graph.nodes:
        read = [unboxed[id(v)] for v in n.inputs if isinstance(v, Value) and id(v) in unboxed]
        if not read:
            continue
        taint = frozenset().union(*(info[2] for info in read))
        op = get_op(n.op)
        if op.predicate is not None:
            _walk_branches(n, op, unboxed, result, taint)
            continue
        kinds = {info[0] for info in read}
        dtypes = {info[1] for info in read}
        if (
            len(kinds) != 1
            or len(dtypes) != 1
            or "b" in kinds
            or n.attrs
            or n.subgraphs
            or len(n.outputs) != 1
        ):
            raise _Violation(taint)
        kind, dtype = kinds.pop(), dtypes.pop()
        for v in n.inputs:  # every operand: unboxed, or a Python literal of the kind
            if isinstance(v, Value):
                if id(v) not in unboxed:
                    raise _Violation(taint)
            elif not _literal_ok(v, kind, dtype):
                raise _Violation(taint)
        out_kind = _result_kind(op, n.inputs, kind)
        out = n.outputs[0]
        # (an op's result is of one NumPy kind: only the loop's first value may be a Python number)
        one_kind = type(out.type) is TensorType
        expected = "b" if out_kind == "b" else _kind(out.type) if one_kind else None
        if (
            out_kind is None
            or expected != out_kind
            or (out_kind != "b" and out.type.dtype != dtype)
        ):
            raise _Violation(taint)
        unboxed[id(out)] = (out_kind, dtype, taint)
        result.numbers[id(n)] = (out_kind if out_kind == "b" else kind, dtype)


def _result_kind(op, operands: list, kind: str) -> str | None:
    """The kind of the result of `op`'s unboxed form on operands of `kind` ('b' for a comparison),
    or None when it has none for them."""
    form = op.unboxed
    if len(operands) == 1:
        return kind if form in ("unary", "identity") else None
    if len(operands) != 2:
        return None
    if form == "arithmetic":
        return kind
    if form == "compare":
        return "b"
    if form == "division":
        return kind if kind == "f" else None
    left, right = operands
    if not isinstance(left, Value) or type(right) is not int:
        return None
    if form == "integer_division":  # (by a positive literal: no overflow, NumPy's floor semantics)
        return kind if kind == "i" and right >= 1 else None
    if form == "small_power":
        return kind if kind == "f" and 0 <= right <= _MAX_EXPONENT else None
    return None


def _walk_branches(n: Node, op, unboxed: dict, result: Plan, taint: frozenset) -> None:
    """A staged `if` (a branch op) in the loop: its predicate may be a comparison's Python bool;
    an unboxed operand is unboxed in every branch, and a result is unboxed when every branch
    gives an unboxed value of one kind and dtype."""
    pred = n.inputs[op.predicate]
    if isinstance(pred, Value) and id(pred) in unboxed and unboxed[id(pred)][0] != "b":
        raise _Violation(unboxed[id(pred)][2])
    branch_results = []
    for label in op.subgraphs:
        sub = n.subgraphs[label]
        inner = dict(unboxed)
        for v_in, v_out in zip(sub.inputs, op.bind_subgraph(n, label)):
            if isinstance(v_out, Value) and id(v_out) in unboxed:
                if unboxed[id(v_out)][0] == "b":
                    raise _Violation(unboxed[id(v_out)][2])
                inner[id(v_in)] = unboxed[id(v_out)]
        _walk(sub, inner, result)
        branch_results.append(
            [inner.get(id(v)) if isinstance(v, Value) else v for v in sub.outputs]
        )
        unboxed.update((k, v) for k, v in inner.items() if k not in unboxed)
    for out, *branch_infos in zip(n.outputs, *branch_results):
        infos = [i for i in branch_infos if isinstance(i, tuple)]
        if not infos:
            continue
        kind = _kind(out.type)
        if (
            len(infos) != len(branch_infos)
            or kind is None
            or any(i[0] != kind or i[1] != _dtype(out.type) for i in infos)
        ):
            raise _Violation(frozenset().union(*(i[2] for i in infos)) | taint)
        unboxed[id(out)] = (kind, _dtype(out.type), frozenset().union(*(i[2] for i in infos)))


class _Names:
    """Operand references bound once when an expression uses them twice (an inlined operand
    is an expression: evaluating it twice would double its cost)."""

    def __init__(self, em):
        self.em = em

    def temp(self) -> str:
        return f"t{self.em.new_tag()}"

    def twice(self, ref: str) -> tuple[str, str]:
        """(first use, later uses) of an operand reference."""
        if ref.isidentifier() or _is_number(ref):
            return ref, ref
        name = self.temp()
        return f"({name} := {ref})", name


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _numpy_form(em, item, box: str) -> str:
    """`item` (an operand) as NumPy computes it: a NumPy scalar, or the NumPy form of an
    inlined expression (its operations redone on NumPy scalars)."""
    if not isinstance(item, Value):
        return em.literal(item)
    return em.numpy_forms.get(id(item)) or f"{box}({em.ref(item)})"


def _float_consumer(em, node: Node, following) -> bool:
    """Whether the node reading `node`'s float result (inlined into it) lets a non-finite
    value through to its own check: + - * and the unary operators always do (inf and nan
    stay non-finite through them), a division through its numerator, a power through its
    base (its range test fails on inf and nan)."""
    if not isinstance(following, Node) or (em.python_number(following) or "?")[0] != "f":
        return False
    op = get_op(following.op)
    if op.nan_propagating:
        return True
    return op.unboxed in ("division", "small_power") and following.inputs[0] is node.outputs[0]


def may_inline(em, node: Node, following) -> bool:
    """A divisor is never inlined: its zero test reads it before the division."""
    return not (
        isinstance(following, Node)
        and em.python_number(following) is not None
        and get_op(following.op).unboxed == "division"
        and following.inputs[1] is node.outputs[0]
    )


def _grouped(template: str, args) -> str:
    """`template` filled with `args`, in parentheses unless it is one call (`abs(x)`)."""
    text = template.format(*args)
    if _ONE_CALL.match(template):
        return text
    return f"({text})"


_ONE_CALL = re.compile(r"^\w+\(\{0\}\)$")


def expression(em, node: Node, kind: str, dtype: np.dtype, inline: bool, following) -> str:
    """The Python expression computing `node` on Python numbers (see the module docstring).
    A float operation inlined into one that lets non-finite values through is not checked:
    the reading operation's check covers it, and its fallback redoes both on NumPy scalars."""
    op = get_op(node.op)
    template = op.python_expr
    assert template is not None  # (an op with an unboxed form has one: OpDef.__post_init__)
    box = em.bind(np.dtype(dtype).type, "k")
    refs = [em.ref(v) for v in node.inputs]
    if op.unboxed == "compare":
        return template.format(*refs)
    if kind == "i":
        return _integer_expression(em, op, refs, box, np.iinfo(dtype))
    forms = [_numpy_form(em, v, box) for v in node.inputs]
    out = node.outputs[0]
    python = numpy = None
    if op.unboxed in ("unary", "identity", "arithmetic"):
        python = template.format(*refs)
        numpy = _grouped(template, forms)
    if python is not None and inline and _float_consumer(em, node, following):
        em.numpy_forms[id(out)] = numpy
        return python
    t = f"t{em.new_tag()}"
    if inline:  # what reads it redoes nothing: it reads the checked value
        em.numpy_forms[id(out)] = f"{box}({t})"
    if python is not None:
        return f"{t} if ({t} := {python}) - {t} == 0.0 else ({t} := float({numpy}))"
    if op.unboxed == "small_power":
        return _power(em, t, refs, forms)
    return _division(template, t, refs, forms)


def _power(em, t: str, refs: list[str], forms: list[str]) -> str:
    """x ** k of a float x and a small int literal k: the C library's pow in both, for a normal
    result; else done again on NumPy scalars."""
    base = refs[0]
    if base.isidentifier():
        test, value = base, base
    else:
        value = f"t{em.new_tag()}"
        test = f"({value} := {base})"
    # 1e-30 < |x| < 1e30 (false for inf and nan): x**k for k <= 9 is a normal double
    return (
        f"{t} := ({value} ** {refs[1]} if 1e-60 < {test} * {value} < 1e60 "
        f"else float({forms[0]} ** {refs[1]}))"
    )


def _division(template: str, t: str, refs: list[str], forms: list[str]) -> str:
    """x / y of floats; the divisor is a name or a literal (may_inline): a zero one, and a
    non-finite result, are done again on NumPy scalars."""
    numerator, divisor = refs
    if _is_number(divisor):
        if float(divisor) == 0.0:
            return f"{t} := float({template.format(forms[0], divisor)})"
        return f"{t} if ({t} := {template.format(numerator, divisor)}) - {t} == 0.0 else ({t} := float({template.format(forms[0], divisor)}))"
    return (
        f"{t} if {divisor} and ({t} := {template.format(numerator, divisor)}) - {t} == 0.0 "
        f"else ({t} := float({template.format(*forms)}))"
    )


def _integer_expression(em, op, refs: list[str], box: str, info) -> str:
    """Python int arithmetic, each result tested against the dtype's range (a Python int does
    not wrap): outside it, the operation on NumPy scalars wraps and warns as eagerly."""
    names = _Names(em)
    template = op.python_expr
    if op.unboxed in ("integer_division", "identity"):  # (neither can leave the dtype's range)
        return template.format(*refs)
    t = names.temp()
    if op.unboxed == "unary":
        a1, a2 = names.twice(refs[0])
        python, numpy = template.format(a1), template.format(f"{box}({a2})")
        return f"{t} if ({t} := {python}) <= {info.max} else int({numpy})"
    a1, a2 = names.twice(refs[0])
    b1, b2 = names.twice(refs[1])
    python, numpy = template.format(a1, b1), template.format(f"{box}({a2})", f"{box}({b2})")
    # (both operands boxed: a FirstInt is not a Python int to NumPy, which would promote it)
    return f"{t} if {info.min} <= ({t} := {python}) <= {info.max} else int({numpy})"
