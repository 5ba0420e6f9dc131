"""List, set and dict comprehensions, and generator expressions read whole, become functions
with `for` and `if` statements, called where they stood; the converters after this one convert
those statements as they convert the user's own (over a staged value a `for` is a staged loop,
an `if` on a symbolic condition a staged `if`):

    total = sum(1 for v in x if v > 0)

becomes

    def genexpr(x):
        result = []
        for v in x:
            if v > 0:
                result.append(1)
        return result
    total = sum(genexpr(x))

Python's scoping is kept. The targets are the function's own names (they do not leak). The
first iterable is its argument, evaluated where the comprehension stood; the later ones are
evaluated inside, once per item of the clause before them. Other names are read from the
enclosing scope when the function runs, as the comprehension read them: the function is
defined just before the statement holding the comprehension. Names that the function could not
read there are parameters too: the parameters of an enclosing lambda, the targets of an
enclosing generator expression left as it is, and, in the test of a `while` (which becomes a
function of the loop's variables), every local name the comprehension reads.

A comprehension without `if` clauses iterates `ag__.comprehension_iter(iterable)`: a staged
value whose number of items is known while tracing gives them one by one, as Python iteration
does (the result has that many items, as before comprehensions were converted); with an `if`
clause a condition on a staged value makes the length known only when the graph runs anyway,
and the loop over a staged value is staged (one loop, not a staged `if` per item). A set
comprehension collects its items in a list, in order, and `ag__.comprehension_set` makes the
set; a dict comprehension collects (key, value) pairs (the key computed first, as Python does)
for `ag__.comprehension_dict`.

A generator expression is lazy: its items are computed as its consumer asks for them. It is
converted only where that order cannot be observed: as the one positional argument of a function
that reads it to its end before anything else happens (`_READ_WHOLE`: sum, min and max without
key=, sorted, tuple, set, frozenset, dict, collections.deque and Counter, `"...".join`; their
other arguments plain names, literals or lambdas), whose items are then collected in a list
first (`list(...)` of it is that list); or of `any` / `all`, which become a loop ending at the
first item deciding the answer, as they stop there. Every other generator expression stays a
Python generator.

Left as written: comprehensions holding `:=` (it binds a name of the enclosing function), `pop()`
of a list they do not bind (the list converter would rebind that name inside the function),
`super` or `__class__`, a target that is an item or attribute (`for d["k"] in ...`), generator
expressions calling `next()` (a StopIteration it raises ends a generator with a RuntimeError,
which a loop would not raise), and comprehensions in a class body.
"""

from __future__ import annotations

import ast
import builtins
import collections
import copy
import types

from autograph.pyct import anno, templates, transformer
from autograph.pyct.static_analysis import activity

_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
CONSTRUCTS = frozenset(_COMPREHENSIONS)  # (conversion runs this converter when one occurs)

# Functions that read a generator expression given as their one positional argument to its end
# before doing anything else: -> (how many more positional arguments, keywords) they may get.
_READ_WHOLE = {
    builtins.sum: (1, {"start"}),
    builtins.min: (0, {"default"}),
    builtins.max: (0, {"default"}),
    builtins.sorted: (0, {"key", "reverse"}),
    builtins.tuple: (0, set()),
    builtins.set: (0, set()),
    builtins.frozenset: (0, set()),
    builtins.dict: (0, set()),
    collections.deque: (1, {"maxlen"}),
    collections.Counter: (0, set()),
}
# Functions whose call the function a generator expression becomes replaces: the list it makes,
# the answer of any() / all().
_REPLACED = {builtins.list: "list", builtins.any: "any", builtins.all: "all"}
_MISSING = object()

_BASES = {
    ast.ListComp: "listcomp",
    ast.SetComp: "setcomp",
    ast.DictComp: "dictcomp",
    ast.GeneratorExp: "genexpr",
}


# -- what may be converted ------------------------------------------------------


def _targets(comp) -> set:
    """The names the comprehension's `for` clauses bind (its own scope)."""
    return {n.id for g in comp.generators for n in ast.walk(g.target) if isinstance(n, ast.Name)}


_TARGETS = (ast.Name, ast.Tuple, ast.List, ast.Starred, ast.Store)


def _convertible(comp) -> bool:
    """Whether `comp` may become a function (see the module's docstring for what stays)."""
    own = _targets(comp)
    for gen in comp.generators:
        if gen.is_async or not all(isinstance(n, _TARGETS) for n in ast.walk(gen.target)):
            return False  # (`for d["k"] in ...` writes an outer object)
    for n in ast.walk(comp):
        if isinstance(n, ast.NamedExpr):
            return False
        if isinstance(n, ast.Name) and n.id in ("super", "__class__"):
            return False
        if isinstance(n, ast.Call) and _stops_or_rebinds(n, own, comp):
            return False
    return True


def _stops_or_rebinds(call, own, comp) -> bool:
    """A `pop()` of a list the comprehension does not bind (the list converter would rebind the
    name inside the function); in a generator expression, a `next()` (a StopIteration it raises
    ends the generator with a RuntimeError, which a loop would not raise)."""
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr == "pop":
        return isinstance(func.value, ast.Name) and func.value.id not in own
    return isinstance(comp, ast.GeneratorExp) and isinstance(func, ast.Name) and func.id == "next"


def _plain(node) -> bool:
    """Evaluating `node` has no effect that could be observed before or after something else:
    a name, a literal, an attribute of those, a lambda (with such defaults)."""
    if isinstance(node, (ast.Name, ast.Constant)):
        return True
    if isinstance(node, ast.Attribute):
        return _plain(node.value)
    if isinstance(node, ast.UnaryOp):
        return isinstance(node.operand, ast.Constant)
    if isinstance(node, ast.Tuple):
        return all(_plain(e) for e in node.elts)
    if isinstance(node, ast.Lambda):
        args = node.args
        return all(_plain(d) for d in args.defaults + [d for d in args.kw_defaults if d])
    return False


# -- the function a comprehension becomes ------------------------------------------------


def _loops(comp, innermost, iterable, rows):
    """The nested `for` / `if` statements of the comprehension's clauses around `innermost`;
    the first clause iterates the parameter named `iterable`. `rows`: each clause iterates
    `ag__.comprehension_iter(...)` of its iterable (a staged value of known length item by
    item, while tracing)."""
    template = (
        "for target in ag__.comprehension_iter(iterable):\n    body"
        if rows
        else "for target in iterable:\n    body"
    )
    body = innermost
    for i, gen in reversed(list(enumerate(comp.generators))):
        for test in reversed(gen.ifs):
            (stmt,) = templates.replace("if test:\n    body", test, test=test, body=body)
            body = [stmt]
        source = templates.name(iterable) if i == 0 else gen.iter
        (stmt,) = templates.replace(
            template, gen.target, target=gen.target, iterable=source, body=body
        )
        body = [stmt]
    return body


def _collected(comp, kind, iterable, result):
    """The body of a function collecting the items in the list `result`, and what it returns."""
    if isinstance(comp, ast.DictComp):
        item = ast.Tuple(elts=[comp.key, comp.value], ctx=ast.Load())
        ast.copy_location(item, comp.key)
        origin = comp.key
    else:
        item, origin = comp.elt, comp.elt
    append = templates.replace("result.append(item)", origin, result=result, item=item)
    rows = not any(g.ifs for g in comp.generators)
    loops = _loops(comp, append, iterable, rows)
    start = templates.replace("result = []", comp, result=result)
    finish = {
        "set": "return ag__.comprehension_set(result)",
        "dict": "return ag__.comprehension_dict(result)",
    }.get(kind, "return result")
    return start + loops + templates.replace(finish, comp, result=result)


def _deciding(comp, kind, iterable, answer):
    """The body of a function giving any(...) / all(...) of a generator expression: a loop that
    ends at the first item deciding the answer (a `break` out of one `for` clause, a `return`
    out of several)."""
    decided, otherwise = ("True", "False") if kind == "any" else ("False", "True")
    test = (
        comp.elt if kind == "any" else ast.copy_location(ast.UnaryOp(ast.Not(), comp.elt), comp.elt)
    )
    if len(comp.generators) > 1:
        decide = templates.replace(f"if test:\n    return {decided}", comp.elt, test=test)
        return _loops(comp, decide, iterable, False) + templates.replace(
            f"return {otherwise}", comp
        )
    decide = templates.replace(
        f"if test:\n    answer = {decided}\n    break", comp.elt, test=test, answer=answer
    )
    start = templates.replace(f"answer = {otherwise}", comp, answer=answer)
    finish = templates.replace("return answer", comp, answer=answer)
    return start + _loops(comp, decide, iterable, False) + finish


def _deferred_reads(comp) -> set:
    """Names the lambdas and generator expressions inside `comp` read from outside them (they
    may run later, so the names they read of the function are its cell variables)."""
    found = set()
    for n in ast.walk(comp):
        if isinstance(n, ast.Lambda):
            found |= activity.free_reads(n)
        elif isinstance(n, ast.GeneratorExp) and n is not comp:
            found |= activity.read(n)
    return found


def _body_reads(comp) -> set:
    """The names the comprehension reads from enclosing scopes, apart from its first iterable."""
    probe = copy.copy(comp)
    probe.generators = [copy.copy(g) for g in comp.generators]
    probe.generators[0].iter = ast.Constant(value=None)
    return activity.read(probe)


# -- scopes ---------------------------------------------------------------------------


class _Scope:
    """One function of the converted code: its local names, and those of them nested functions
    read (cell variables: read from the function's own cell, never passed)."""

    def __init__(self, node):
        self.cells = anno.getanno(node, anno.Static.CELLS, frozenset())
        declared = activity.declared_outer(node)
        args = node.args
        params = {
            a.arg
            for a in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]
            if a is not None
        }
        stores = set()
        todo = list(node.body)
        while todo:
            n = todo.pop()
            if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
                stores.add(n.id)
            elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                stores.add(n.name)
                continue
            if not isinstance(n, (ast.Lambda, *_COMPREHENSIONS)):
                todo.extend(ast.iter_child_nodes(n))
        self.locals = frozenset((params | stores) - declared)

    def passed(self, name) -> bool:
        """Whether a function reading `name` from this scope may take its value as an argument."""
        return name in self.locals and name not in self.cells


# -- the converter --------------------------------------------------------------------


class _Extractor:
    """Replaces the comprehensions in the expressions of one statement by calls of functions,
    collected in `defs` (to be defined before the statement). `all_locals`: the statement is a
    `while`, whose test becomes a function of the loop's variables: every local name a
    comprehension in it reads is passed."""

    def __init__(self, owner, all_locals):
        self.owner = owner
        self.all_locals = all_locals
        self.defs = []

    def visit(self, node, bound=frozenset()):
        """`node` with its comprehensions replaced; `bound`: the names bound between the
        statement and `node` (by lambdas and comprehensions left as they are)."""
        if isinstance(node, ast.Call):
            consumed = self._consumed(node, bound)
            if consumed is not None:
                return consumed
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp)) and _convertible(node):
            kind = {ast.ListComp: "list", ast.SetComp: "set", ast.DictComp: "dict"}[type(node)]
            return self._convert(node, kind, bound)
        if isinstance(node, ast.Lambda):
            args = node.args
            args.defaults = [self.visit(d, bound) for d in args.defaults]
            args.kw_defaults = [d if d is None else self.visit(d, bound) for d in args.kw_defaults]
            params = args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]
            node.body = self.visit(node.body, bound | {a.arg for a in params if a is not None})
            return node
        if isinstance(node, _COMPREHENSIONS):  # left as it is
            first = node.generators[0]
            first.iter = self.visit(first.iter, bound)
            inner = bound | _targets(node)
            for field, value in ast.iter_fields(node):
                if field != "generators":
                    setattr(node, field, self.visit(value, inner))
            for i, gen in enumerate(node.generators):
                if i:
                    gen.iter = self.visit(gen.iter, inner)
                gen.ifs = [self.visit(t, inner) for t in gen.ifs]
            return node
        return self._children(node, bound)

    def _children(self, node, bound):
        for field, value in ast.iter_fields(node):
            if isinstance(value, list):
                value[:] = [self.visit(v, bound) if isinstance(v, ast.AST) else v for v in value]
            elif isinstance(value, ast.AST):
                setattr(node, field, self.visit(value, bound))
        return node

    def _consumed(self, call, bound):
        """A call reading a generator expression whole (see _READ_WHOLE), with the generator
        expression converted; None for any other call."""
        if not call.args or not isinstance(call.args[0], ast.GeneratorExp):
            return None
        genexp = call.args[0]
        kind = self.owner.consumer(call)
        if kind is None or not _convertible(genexp):
            return None
        call.func = self.visit(call.func, bound)
        call.args[1:] = [self.visit(a, bound) for a in call.args[1:]]
        for k in call.keywords:
            k.value = self.visit(k.value, bound)
        made = self._convert(genexp, kind, bound)
        if kind in _REPLACED.values():
            return made
        call.args[0] = made
        return call

    def _convert(self, comp, kind, bound):
        """The call of a new function computing `comp` (collected in `defs`)."""
        owner = self.owner
        namer = owner.ctx.namer
        scope = owner.scopes[-1]
        first = comp.generators[0]
        argument = self.visit(first.iter, bound)
        own = _targets(comp)
        params = [
            n
            for n in owner.ctx.ordered(_body_reads(comp) - own)
            if n in bound or (self.all_locals and scope.passed(n))
        ]
        if (
            isinstance(argument, ast.Name)
            and argument.id not in own
            and (argument.id in bound or scope.passed(argument.id))
        ):
            iterable = argument.id  # `def listcomp(x)` for `[... for v in x]`
            params = [p for p in params if p != iterable]
        else:
            iterable = namer.new("iterable")
        name = namer.new(_BASES[type(comp)])
        if kind in ("any", "all"):
            body = _deciding(comp, kind, iterable, namer.new("answer"))
        else:
            body = _collected(comp, kind, iterable, namer.new("result"))
        (fn,) = templates.replace(
            "def fn(params):\n    body", comp, fn=name, params=[iterable, *params], body=body
        )
        anno.setanno(fn, anno.Static.CELLS, frozenset(own & _deferred_reads(comp)))
        if not self.all_locals:  # (in a `while` test: it reads a cell variable from its cell)
            owner.made.add(id(fn))
        self.defs.append(fn)
        call = ast.Call(
            func=templates.name(name, lineno=comp.lineno),
            args=[argument, *(templates.name(p, lineno=comp.lineno) for p in params)],
            keywords=[],
        )
        return ast.copy_location(call, comp)


class _Comprehensions(transformer.Transformer):
    def __init__(self, ctx):
        self.ctx = ctx
        self.scopes = []  # the _Scope of each function enclosing the statement visited
        self.made = set()  # id() of the functions comprehensions became (called where defined)

    def consumer(self, call):
        """What the function a generator expression given as the first argument of `call` makes:
        "list", "any" or "all" for the call it replaces (_REPLACED), "items" for a function
        reading it whole (_READ_WHOLE, its other arguments plain); else None."""
        func = call.func
        if (
            isinstance(func, ast.Attribute)
            and func.attr == "join"
            and isinstance(func.value, ast.Constant)
            and type(func.value.value) is str
        ):
            target, extra = str.join, (0, set())
        else:
            target = self._resolve(func)
            if _hashable(target) and target in _REPLACED:
                return _REPLACED[target] if len(call.args) == 1 and not call.keywords else None
            extra = _READ_WHOLE.get(target) if _hashable(target) else None
            if extra is None:
                return None
        positional, keywords = extra
        if len(call.args) - 1 > positional or any(
            isinstance(a, ast.Starred) or not _plain(a) for a in call.args[1:]
        ):
            return None
        if any(k.arg not in keywords or not _plain(k.value) for k in call.keywords):
            return None
        return "items"

    def _resolve(self, func):
        """The object a call's target names, if it is a builtin or an attribute of a module the
        function's globals name; else _MISSING."""
        chain = []
        while isinstance(func, ast.Attribute):
            chain.append(func.attr)
            func = func.value
        if (
            not isinstance(func, ast.Name)
            or func.id in self.ctx.bound
            or func.id in self.ctx.freevars
        ):
            return _MISSING
        obj = self.ctx.namespace.get(func.id, _MISSING)
        if obj is _MISSING:
            obj = getattr(builtins, func.id, _MISSING)
        for attr in reversed(chain):
            if not isinstance(obj, types.ModuleType):
                return _MISSING
            obj = getattr(obj, attr, _MISSING)
        return obj

    # Statements

    def generic_visit(self, node):
        if isinstance(node, (ast.excepthandler, ast.match_case)):
            return super().generic_visit(node)  # (their statements)
        if not isinstance(node, ast.stmt):
            return node  # (an expression: _extract converts the statement's)
        fields = transformer.statement_fields(node.__class__)
        made = self._extract(node, [f for f in node._fields if f not in fields])
        super().generic_visit(node)
        return made + [node] if made else node

    def visit_FunctionDef(self, node):
        made = self._extract(node.args, ("defaults", "kw_defaults"))
        made += self._extract(node, ("decorator_list",))
        self.scopes.append(_Scope(node))
        super().generic_visit(node)
        self.scopes.pop()
        if id(node) not in self.made:
            _drop_immediate_cells(node, self.made)
        return made + [node] if made else node

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node):
        made = self._extract(node, ("bases", "keywords", "decorator_list"))
        node = self.methods_only(node)
        return made + [node] if made else node

    def _extract(self, node, fields):
        """Replaces the comprehensions in `fields` of `node`; the functions they became,
        themselves converted (the comprehensions nested in them)."""
        if not self.scopes:
            return []
        extractor = _Extractor(self, all_locals=isinstance(node, ast.While))
        for field in fields:
            value = getattr(node, field, None)
            if isinstance(value, list):
                value[:] = [extractor.visit(v) if isinstance(v, ast.AST) else v for v in value]
            elif isinstance(value, ast.AST):
                setattr(node, field, extractor.visit(value))
        out = []
        for fn in extractor.defs:
            done = self.visit(fn)
            out.extend(done if isinstance(done, list) else [done])
        return out


_DEFERRED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.GeneratorExp, ast.ClassDef)


def _deferred_uses(fn_node, made) -> set:
    """The names that scopes nested in `fn_node` able to run later mention (any mention,
    shadowed or not); the functions comprehensions became (`made`, called where they are
    defined) and list, set and dict comprehensions run at once: only what is nested in them
    counts."""
    names = set()
    todo = list(fn_node.body)
    while todo:
        n = todo.pop()
        if isinstance(n, _DEFERRED) and id(n) not in made:
            for x in ast.walk(n):
                if isinstance(x, ast.Name):
                    names.add(x.id)
                elif isinstance(x, (ast.Nonlocal, ast.Global)):
                    names.update(x.names)
            continue
        todo.extend(ast.iter_child_nodes(n))
    return names


def _drop_immediate_cells(fn_node, made) -> None:
    """A cell variable that only converted comprehensions read is read when the statement
    holding them runs, as any other read there: it stops being a cell variable (a branch or
    loop body then takes and gives it as an ordinary name, or keeps it as its own local when
    nothing outside the body uses it)."""
    cells = anno.getanno(fn_node, anno.Static.CELLS, frozenset())
    if not cells:
        return
    kept = frozenset(cells & _deferred_uses(fn_node, made))
    if kept != cells:
        anno.setanno(fn_node, anno.Static.CELLS, kept)
        helpers = anno.getanno(fn_node, anno.Static.HELPER_WRITES, frozenset())
        anno.setanno(fn_node, anno.Static.HELPER_WRITES, helpers & kept)


def _hashable(obj) -> bool:
    try:
        hash(obj)
    except TypeError:
        return False
    return True


def transform(node, ctx):
    if isinstance(node, ast.Lambda):
        return node
    return _Comprehensions(ctx).visit(node)
