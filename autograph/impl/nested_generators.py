"""Generator functions defined inside a converted function run as plain Python.

A generator's items are computed as its consumer asks for them, which a staged loop cannot
do; converted code already calls generator functions unconverted (conversion.is_user_code).
A generator function nested in the function being converted stays as written too: before the
converters run, `set_aside` puts a stand-in in its place, a function of the same name,
parameters, defaults and decorators whose body reads the names the generator reads from the
enclosing scopes (so the analyses see the same reads, and new names never shadow them); after
they ran, `put_back` puts the generator, as written, where its stand-in ended up.

Its code runs as Python over whatever it is given, while the function is traced: a symbolic
decision inside it (an `if` on a symbolic value) is refused naming its line, as in any
unconverted code. Only a generator without effects is set aside: one that calls nothing but
builtins such as range, len and zip, writes no item or attribute, declares nothing `nonlocal`
or `global` and has no decorators (a print would happen while tracing only, not on later
calls); any other keeps its `yield` refused as before.
"""

from __future__ import annotations

import ast

from autograph.pyct import transformer

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_SCOPES = (*_DEFS, ast.Lambda, ast.ClassDef, ast.GeneratorExp, ast.ListComp, ast.SetComp)
_MARK = "ag__ generator set aside "


def _own_nodes(fn):
    """The nodes of `fn`'s own scope (not of the functions, classes, lambdas and comprehensions
    nested in it)."""
    todo = list(fn.body)
    while todo:
        n = todo.pop()
        yield n
        if not isinstance(n, (*_SCOPES, ast.DictComp)):
            todo.extend(ast.iter_child_nodes(n))


# The functions a generator set aside may call: builtins without effects (Python code runs
# while the function is traced, once: a print, or a write to an object, would not happen again
# when the graph runs).
_PURE_CALLS = frozenset(
    ("range", "len", "zip", "enumerate", "reversed", "abs", "min", "max", "sum", "iter", "tuple")
)


def _pure(fn, rebound) -> bool:
    """Whether `fn` calls only _PURE_CALLS (names the converted function does not rebind), with
    no keywords, and writes no item or attribute."""
    for n in ast.walk(fn):
        if isinstance(n, ast.Call) and not (
            isinstance(n.func, ast.Name)
            and n.func.id in _PURE_CALLS
            and n.func.id not in rebound
            and not n.keywords  # (no key= function: it would be called unconverted)
        ):
            return False
        if isinstance(n, (ast.Subscript, ast.Attribute)) and not isinstance(n.ctx, ast.Load):
            return False
        if isinstance(n, (ast.Nonlocal, ast.Global, ast.Await, ast.NamedExpr)):
            return False
    return True


def _is_plain_generator(fn, rebound) -> bool:
    return (
        isinstance(fn, ast.FunctionDef)
        and any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in _own_nodes(fn))
        and not fn.decorator_list
        and _pure(fn, rebound)
    )


def _bound_names(top) -> set:
    """Every name bound anywhere in `top` (assigned, a parameter, a def, an import)."""
    names = set()
    for n in ast.walk(top):
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            names.add(n.id)
        elif isinstance(n, ast.arg):
            names.add(n.arg)
        elif isinstance(n, (*_DEFS, ast.ClassDef)):
            names.add(n.name)
        elif isinstance(n, ast.alias):
            names.add((n.asname or n.name).split(".")[0])
    return names


def _free_reads(fn) -> list[str]:
    """The names `fn` (or a scope in it) reads that `fn` does not bind: what it takes from the
    scopes enclosing it."""
    args = fn.args
    bound = {
        a.arg
        for a in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]
        if a is not None
    }
    for n in _own_nodes(fn):
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            bound.add(n.id)
        elif isinstance(n, (*_DEFS, ast.ClassDef)):
            bound.add(n.name)
    loads = []
    for s in fn.body:
        for n in ast.walk(s):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id not in bound:
                if n.id not in loads:
                    loads.append(n.id)
    return loads


def _stand_in(fn, mark: str):
    reads = ast.Tuple(
        elts=[ast.Name(id=n, ctx=ast.Load()) for n in _free_reads(fn)], ctx=ast.Load()
    )
    body = [ast.Expr(value=ast.Constant(value=mark)), ast.Return(value=reads)]
    stand_in = ast.FunctionDef(
        name=fn.name,
        args=fn.args,
        body=body,
        decorator_list=fn.decorator_list,
        returns=None,
        type_comment=None,
        **({"type_params": []} if "type_params" in ast.FunctionDef._fields else {}),
    )
    for n in (stand_in, *body, body[0].value, reads, *reads.elts):
        ast.copy_location(n, fn)
    return stand_in


class _SetAside(transformer.Transformer):
    def __init__(self, top):
        self.top = top
        self.rebound = _bound_names(top)
        self.aside: dict[str, ast.FunctionDef] = {}

    def visit_FunctionDef(self, node):
        if node is not self.top and _is_plain_generator(node, self.rebound):
            mark = f"{_MARK}{len(self.aside)}"
            self.aside[mark] = node
            return _stand_in(node, mark)
        self.generic_visit(node)
        return node


def set_aside(fn_node) -> dict:
    """Replaces the generator functions nested in `fn_node` (see the module docstring) by their
    stand-ins; returns {mark: generator} for put_back."""
    if isinstance(fn_node, ast.Lambda):
        return {}
    setter = _SetAside(fn_node)
    fn_node.body = [setter.visit(s) for s in fn_node.body]
    return setter.aside


def _mark_of(node):
    for s in node.body:
        if (
            isinstance(s, ast.Expr)
            and isinstance(s.value, ast.Constant)
            and isinstance(s.value.value, str)
            and s.value.value.startswith(_MARK)
        ):
            return s.value.value
    return None


class _PutBack(transformer.Transformer):
    def __init__(self, aside):
        self.aside = aside

    def visit_FunctionDef(self, node):
        mark = _mark_of(node)
        if mark is not None and mark in self.aside:
            original = self.aside.pop(mark)
            original.decorator_list = node.decorator_list
            original.args = node.args
            return original
        self.generic_visit(node)
        return node


def put_back(node, aside: dict):
    """The converted `node` with each stand-in replaced by its generator, as written."""
    if not aside:
        return node
    node = _PutBack(aside).visit(node)
    if aside:  # (a stand-in the converters did not keep: no function to put back)
        raise AssertionError(f"generator functions not put back: {sorted(aside)}")
    return node
