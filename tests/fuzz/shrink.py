"""Shrinks a failing program on its syntax tree: fewer calls, statements and helpers, smaller expressions.

Hypothesis shrinks the byte strings a program is built from; this works on the tree itself, so
it can also shrink programs Hypothesis never saw (the survey of `python -m tests.fuzz.run`) and
finish what Hypothesis left. A candidate replaces the program when `keep(candidate)` holds
(the same failure class). Print statements keep their staged (last) argument, so a reproducer
never turns into the documented "print runs at trace time only" behaviour.
"""

from __future__ import annotations

import dataclasses
import itertools
import re

from .program import (
    Arg,
    Assign,
    Attr,
    BinOp,
    BoolOp,
    Call,
    Cmp,
    DictLit,
    For,
    If,
    IfExp,
    Index,
    ListLit,
    Lit,
    Method,
    Name,
    NpAttr,
    Print,
    Program,
    Unary,
    While,
    func_lines,
    render_module,
)

_EXPR_TYPES = (
    Name,
    Lit,
    BinOp,
    Cmp,
    Unary,
    BoolOp,
    IfExp,
    Call,
    Method,
    Index,
    ListLit,
    DictLit,
    Attr,
    NpAttr,
)
_COMPOUND = (If, While, For)


def _size(program: Program) -> tuple:
    text = render_module(program)
    return (len(program.calls), text.count("\n"), len(text))


def _expr_variants(e):
    """Smaller expressions to try in place of `e` (its parts first)."""
    out = []
    if isinstance(e, (BinOp, Cmp, BoolOp)):
        out += [e.left, e.right]
    elif isinstance(e, Unary):
        out.append(e.operand)
    elif isinstance(e, IfExp):
        out += [e.body, e.orelse]
    elif isinstance(e, (Call, Method)):
        out += [
            a
            for a in e.args
            if isinstance(a, _EXPR_TYPES) and not isinstance(a, Lit) and not _is_dtype(a)
        ]
        if isinstance(e, Method):
            out.append(e.obj)
    elif isinstance(e, Index):
        out.append(e.obj)
    if isinstance(e, Attr):
        out.append(e.obj)
    if isinstance(e, NpAttr):
        return out
    if not isinstance(e, Lit):
        out += [Lit(0), Lit(1)]
    elif not isinstance(e.value, str) and (isinstance(e.value, bool) or e.value not in (0, 1)):
        out += [Lit(0), Lit(1)]
    return out


def _is_dtype(e) -> bool:
    """`np.float32` or `v.dtype`: an argument of a cast, kept as it is."""
    return isinstance(e, NpAttr) or isinstance(e, Attr) and e.name == "dtype"


def _variants(node):
    """Every tree one step smaller than `node` (a statement, expression, block or value)."""
    if isinstance(node, tuple):
        yield from _block_variants(node)
        return
    if not dataclasses.is_dataclass(node):
        return
    if isinstance(node, _EXPR_TYPES):
        for v in _expr_variants(node):
            yield v
    if isinstance(node, If):
        if node.orelse:
            yield dataclasses.replace(node, orelse=())
        if node.elifs:
            yield dataclasses.replace(node, elifs=())
            # `elif` -> `else`
            yield dataclasses.replace(node, elifs=(), orelse=node.elifs[0][1])
    if isinstance(node, (While, For)) and node.orelse:
        yield dataclasses.replace(node, orelse=())
    if isinstance(node, While) and node.extra is not None:
        yield dataclasses.replace(node, extra=None)
    for f in dataclasses.fields(node):
        value = getattr(node, f.name)
        if isinstance(node, Print) and f.name == "args":
            # keep the tag and the staged anchor; shrink or drop the middle arguments
            middle = value[1:-1]
            for i in range(len(middle)):
                if len(middle) > 1:
                    yield dataclasses.replace(
                        node, args=value[:1] + middle[:i] + middle[i + 1 :] + value[-1:]
                    )
                for v in _variants(middle[i]):
                    yield dataclasses.replace(node, args=value[: 1 + i] + (v,) + value[2 + i :])
            continue
        if isinstance(node, While) and f.name in ("counter", "bound"):
            continue
        if f.name == "elifs":
            for i, (test, body) in enumerate(value):
                for v in _variants(test):
                    yield dataclasses.replace(node, elifs=value[:i] + ((v, body),) + value[i + 1 :])
                for v in _variants(body):
                    yield dataclasses.replace(node, elifs=value[:i] + ((test, v),) + value[i + 1 :])
            continue
        if isinstance(node, DictLit) and f.name == "items":
            for i, (k, v0) in enumerate(value):
                for v in _variants(v0):
                    yield dataclasses.replace(node, items=value[:i] + ((k, v),) + value[i + 1 :])
            continue
        if isinstance(value, tuple) and not _is_block(value):
            for i, item in enumerate(value):
                if _is_dtype(item):
                    continue
                for v in _variants(item):
                    yield dataclasses.replace(node, **{f.name: value[:i] + (v,) + value[i + 1 :]})
            continue
        for v in _variants(value):
            yield dataclasses.replace(node, **{f.name: v})


def _is_block(value) -> bool:
    return bool(value) and all(
        dataclasses.is_dataclass(s) and not isinstance(s, _EXPR_TYPES) for s in value
    )


def _block_variants(block):
    if not _is_block(block):
        return
    # delete statements (chunks first, then single ones)
    n = len(block)
    for size in sorted({n // 2, 2, 1}, reverse=True):
        if size < 1 or size > n:
            continue
        for start in range(0, n - size + 1):
            yield block[:start] + block[start + size :]
    # replace a compound statement by its body
    for i, s in enumerate(block):
        if isinstance(s, If):
            for body in [s.body, s.orelse] + [b for _, b in s.elifs]:
                yield block[:i] + tuple(body) + block[i + 1 :]
        elif isinstance(s, For):
            yield block[:i] + tuple(s.body) + block[i + 1 :]
        elif isinstance(s, While):
            yield block[:i] + (Assign(s.counter, Lit(1)),) + tuple(s.body) + block[i + 1 :]
    for i, s in enumerate(block):
        for v in _variants(s):
            yield block[:i] + (v,) + block[i + 1 :]


def _simpler_args(arg: Arg):
    if arg.kind == "arr":
        if len(arg.value) > 1:
            yield dataclasses.replace(arg, value=arg.value[:1])
        for i, v in enumerate(arg.value):
            for s in _simpler_scalars(v):
                yield dataclasses.replace(arg, value=arg.value[:i] + (s,) + arg.value[i + 1 :])
        return
    for s in _simpler_scalars(arg.value):
        yield dataclasses.replace(arg, value=s)


def _simpler_scalars(v):
    if isinstance(v, bool):
        if v:
            yield False
        return
    if isinstance(v, complex):
        if v.imag:
            yield complex(v.real, 0.0)
        if v.real not in (0.0, 1.0):
            yield complex(1.0, v.imag)
        return
    for s in (type(v)(0), type(v)(1)):
        if not s == v:
            yield s


def _program_variants(program: Program):
    calls = program.calls
    # fewer calls: one, two in order, all but one
    if len(calls) > 1:
        for c in calls:
            yield dataclasses.replace(program, calls=(c,))
        for i, j in itertools.combinations(range(len(calls)), 2):
            yield dataclasses.replace(program, calls=(calls[i], calls[j]))
        for i in range(len(calls)):
            yield dataclasses.replace(program, calls=calls[:i] + calls[i + 1 :])
    # unused helpers and parameters
    text = render_module(program)
    for k, helper in enumerate(program.helpers):
        if len(re.findall(rf"\b{helper.name}\(", text)) == 1:  # only its `def`
            yield dataclasses.replace(
                program, helpers=program.helpers[:k] + program.helpers[k + 1 :]
            )
    body_text = "\n".join(func_lines(program.main)[1:])
    for i, p in enumerate(program.main.params):
        if not re.search(rf"\b{p}\b", body_text):
            main = dataclasses.replace(
                program.main, params=program.main.params[:i] + program.main.params[i + 1 :]
            )
            yield dataclasses.replace(
                program, main=main, calls=tuple(c[:i] + c[i + 1 :] for c in calls)
            )
    # smaller statements and expressions
    for v in _variants(program.main.body):
        yield dataclasses.replace(program, main=dataclasses.replace(program.main, body=v))
    for k, helper in enumerate(program.helpers):
        for v in _variants(helper.body):
            helpers = (
                program.helpers[:k]
                + (dataclasses.replace(helper, body=v),)
                + program.helpers[k + 1 :]
            )
            yield dataclasses.replace(program, helpers=helpers)
    # simpler argument values
    for ci, call in enumerate(calls):
        for ai, arg in enumerate(call):
            for simpler in _simpler_args(arg):
                new_call = call[:ai] + (simpler,) + call[ai + 1 :]
                yield dataclasses.replace(program, calls=calls[:ci] + (new_call,) + calls[ci + 1 :])


def shrink(program: Program, keep, max_tries: int = 3000) -> Program:
    """The smallest program found (greedily) for which `keep` holds; `keep(program)` should."""
    tries = 0
    improved = True
    seen = {render_module(program) + program.call_source()}
    while improved and tries < max_tries:
        improved = False
        current = _size(program)
        for candidate in _program_variants(program):
            if _size(candidate) >= current:
                continue
            key = render_module(candidate) + candidate.call_source()
            if key in seen:
                continue
            seen.add(key)
            tries += 1
            if keep(candidate):
                program = candidate
                improved = True
                break
            if tries >= max_tries:
                break
    return program
